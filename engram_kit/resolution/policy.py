"""Link policy: which resolver candidates of a mention in context become links (issue 14).

:meth:`EntityResolver.resolve` ranks the nodes a string may denote. Whether a mention in a document
*should* be linked also depends on where it sits and what its sentence talks about. :class:`LinkPolicy`
applies these rules, each a named method below, in this order:

1. **Zone** (:meth:`LinkPolicy.zone_allows`): only mentions in running prose are linked; author lists,
   affiliations/correspondence, reference entries and table/figure cells are not
   (:func:`engram_kit.extraction.context.text_zone`).
2. **Known term outside the graph** (:meth:`LinkPolicy.fuzzy_allowed`): a mention found as a typed
   vocabulary term without a graph node ("heparin", "insulin", "cancer": DrugBank/MeSH/DO terms that
   Hetionet lacks) is a *known* name: a fuzzy neighbour of it is another concept ("Tolnaftate",
   "Insulin Coma", "bone cancer"), so it is never fuzzy-linked and stays an unlinked, typed NounPhrase.
3. **Fuzzy words** (:meth:`LinkPolicy.fuzzy_words_agree`): a TF-IDF or embedding candidate is kept only
   when every content word of the mention matches a word of the candidate's name and vice versa, letter
   for letter up to ``Settings.word_similarity`` (difflib ratio): "Alzheimers diseas" -> "Alzheimer's disease"
   passes; "cancer" -> "bone cancer" (a more specific concept) and "neurodegenerative disease" ->
   "degenerative disc disease" fail.
4. **Kind priors from context** (:meth:`LinkPolicy.kind_allowed`), each grounded in what the vocabulary
   is:

   * *Side Effect* nodes are SIDER adverse drug reactions (MedDRA terms). Without an adverse-event cue
     in the sentence, a Side Effect reading goes after any other reading of the same surface
     ("apoptosis": the Pathway before the Side Effect), and a Side Effect-only reading that no disease
     vocabulary corroborates (no Disease Ontology, MeSH or lay-synonym entry, no typed Disease term) is
     not linked when the word classifies a setting noun (:data:`SETTING_NOUNS`: "trauma patients",
     "trauma surgery", "accident and emergency ward"): there it names a kind of patient or service, not
     a condition that occurred. When the sentence describes an adverse event, a Side Effect reading
     moves ahead of a Disease one.
   * A *gene synonym* (an NCBI Gene alias, not the official symbol: "API", "WRS", "DSH", "BLAST") is
     linked only when it equals the official symbol up to punctuation ("IL-6", "Bcl-2") or a gene word
     stands within ``Settings.gene_window`` tokens of it in its sentence (:data:`_GENE_WORDS`: "CB2
     receptors", "JNK1 signaling", "CIS mRNA", "focal adhesion kinase (FAK)"): aliases collide with the
     acronyms of every field, and a bioinformatics paper talks about genes everywhere, so the cue must be
     local.
   * A one-word *brand name* (a DrugBank alias that is not the compound's name, written capitalised:
     "Redux") is linked only when the text talks about drugs (cue ``drug``).
   * A one-word *GO term* (Biological Process, Molecular Function, Cellular Component: "memory",
     "behavior", "learning") is linked only in a biomedical sentence (cue ``biomedical``).

   * *Adverse cue, locally*: the Side Effect ordering above uses the adverse cue only when it stands within
     ``Settings.adverse_window`` tokens of the mention ("levodopa-induced dyskinesias" is the adverse event;
     "Parkinson's disease" later in that sentence is still the disease). A Side Effect-only reading of a
     word that the document uses for a setting throughout (document-level ``setting`` cue,
     :func:`~engram_kit.extraction.extractor.with_setting_cue`) is refused there too.
   * *Part of a longer name* (:func:`_inside_longer_name`): a mention followed by a protein head word
     (:data:`PROTEIN_HEADS`: "tumor necrosis factor", "focal adhesion kinase", "growth factors") is not a
     non-gene entity, one followed by "-activated"/"-regulated" (:data:`PROTEIN_PARTICIPLES`: "AMP-activated
     protein kinase") is neither a non-gene entity nor a gene alias, and one followed by "-<digit><letter>"
     ("PGC" in "PGC-1a") is nothing of its own.
   * *NER label*: a NER span labelled Chemical or Disease (by a model or the term tagger) never links a
     gene, anatomy, pathway or GO node (:data:`NOT_CHEMICAL_OR_DISEASE_KINDS`): "ATP" tagged Chemical is not
     the gene ATP8A2, whose alias it is.
   * *Cell-level words*: a Side Effect reading right after "cell"/"cells"/"cellular" ("neuronal cell
     death") is refused: SIDER side effects happen to patients, not to cells.
   * *Official symbol first* (:meth:`LinkPolicy._official_symbol_first`): when the best gene reading is an
     alias and another gene has the surface as its official symbol, the official symbol leads ("PASK").
   * *Gene product names* (lexicon source ``gene-name``: "insulin" -> INS) follow the gene-alias rule: they
     need a gene word nearby ("insulin secretion", "insulin mRNA").

5. **Acronyms** (:meth:`LinkPolicy.acronym_allowed`): a short all-capitals surface ("MM", "AD", "API")
   that is only a *synonym* of a non-gene node (not its name) is an abbreviation; it is expanded only
   through a definition in the same document (then the mention comes from the abbreviation step, not
   the gazetteer) or when it is on the curated list :data:`UNAMBIGUOUS_ACRONYMS`. Gene symbols and
   aliases are written that way by convention and follow the gene rule instead.

Candidates that survive keep the resolver's confidence; the caller applies the confidence threshold
(``Settings.min_link_confidence``, set from the reliability diagram of ``benchmarks/quality/calibration.py``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from engram_kit.extraction.context import SETTING_CUE, context_cues
from engram_kit.extraction.lexicon import Lexicon
from engram_kit.extraction.mention import Mention
from engram_kit.extraction.normalize import normalize_name
# The setting-noun test and the token window are shared with the extractor's document-level cue (one layer down).
from engram_kit.extraction.setting import SENTENCE_TOKEN as _SENTENCE_TOKEN
from engram_kit.extraction.setting import SETTING_NOUNS as SETTING_NOUNS
from engram_kit.extraction.setting import classifies_setting as classifies_setting
from engram_kit.extraction.setting import tokens_around as _around
from engram_kit.settings import Settings

#: Fuzzy methods of :data:`~engram_kit.resolution.resolver.RESOLUTION_METHODS`.
FUZZY_METHODS: frozenset[str] = frozenset({"tfidf", "embedding"})
#: Words that do not carry the concept (ignored when comparing fuzzy words).
_FILLER = frozenset({"of", "the", "and", "or", "in", "to", "with", "by", "for", "a", "an", "s", "type"})
#: Lexicon sources that corroborate a Side Effect surface as a disease name.
DISEASE_SOURCES: frozenset[str] = frozenset({"do-synonym", "mesh", "lay-synonym"})
GO_KINDS: frozenset[str] = frozenset({"Biological Process", "Molecular Function", "Cellular Component",
                                      "BiologicalProcess", "MolecularActivity", "CellularComponent"})
SIDE_EFFECT_KINDS: frozenset[str] = frozenset({"Side Effect"})
DISEASE_KINDS: frozenset[str] = frozenset({"Disease"})
#: Kinds a NER span labelled Chemical or Disease (a NER model's or the term tagger's label) never links: the
#: model says what the span is, so "ATP" tagged Chemical is not the gene ATP8A2 whose alias it is.
NOT_CHEMICAL_OR_DISEASE_KINDS: frozenset[str] = frozenset({"Gene", "Anatomy", "Pathway", *GO_KINDS,
                                                           "biolink:Gene", "biolink:Protein",
                                                           "biolink:AnatomicalEntity"})
#: Lexicon sources of a gene reading that needs a gene word nearby: NCBI aliases, HGNC approved names of gene
#: products that are also everyday words ("insulin": INS only in "insulin secretion", "insulin mRNA"...), and
#: their variants.
GENE_ALIAS_SOURCES: frozenset[str] = frozenset({"gene-synonym", "gene-name", "variant"})
#: Words after a mention that make it a modifier inside a protein name ("tumor necrosis factor", "focal
#: adhesion kinase", "growth factors", "liver kinase B1"): the mention is not the entity the text names.
PROTEIN_HEADS: frozenset[str] = frozenset({"factor", "factors", "kinase", "kinases", "phosphoprotein"})
#: Hyphenated participles after a mention that make it part of an enzyme or protein name ("AMP-activated
#: protein kinase", "p21-activated kinase", "cAMP-regulated phosphoprotein"); they block non-gene readings and
#: gene aliases (an official symbol stays: "PDGFRB-activated" names the receptor).
PROTEIN_PARTICIPLES: frozenset[str] = frozenset({"activated", "regulated"})
#: A mention directly followed by "-<number><letter>" is the front of a longer symbol ("PGC" in "PGC-1a",
#: "PGC-1α" = PPARGC1A), not the entity of its own name.
_SYMBOL_CONTINUATION = re.compile(r"^-\d+[a-z\u03b1-\u03c9]")
_GENE_WORDS = re.compile(
    r"^(?:genes?|proteins?|expression|expressed|mrna|receptors?|kinases?|channels?|signal(?:l)?ing|pathways?|"
    r"phosphorylat\w*|inhibit\w*|activat\w*|activity|levels?|mutations?|mutants?|polymorphisms?|alleles?|"
    r"knockout|knockdown|deficien\w*|null|antibod(?:y|ies)|promoter|transcripts?|isoforms?|subunits?|"
    r"agonists?|antagonists?|ligands?|binding|secretion|secreted|encod\w*|overexpress\w*|"
    r"(?:up|down)-?regulat\w*|cytokines?|chemokines?|enzymes?|complex)$")
#: Curated acronyms with one expansion in biomedical text (each checked against the long forms listed for it
#: in the NLM/ADAM abbreviation database of MEDLINE, Zhou et al., Bioinformatics 2006: one dominant sense),
#: upper case. Linked without a definition in the document.
UNAMBIGUOUS_ACRONYMS: frozenset[str] = frozenset(
    """AIDS HIV COPD ADHD PTSD SARS MERS MRSA LSD MDMA ACTH GABA NSAID NSAIDS SSRI SSRIS DVT ARDS SIDS HPV HCV
    HBV EBV CMV RSV HDL LDL VLDL NADPH NADH DNA RNA mRNA ATP ADP AMP cAMP cGMP GTP""".upper().split())
_ACRONYM = re.compile(r"^(?=(?:.*[A-Z]){2})[A-Za-z0-9-]{2,6}$")


def _words(text: str) -> list[str]:
    return [w for w in normalize_name(text).split() if w not in _FILLER and len(w) > 1]


def _covered(words: Sequence[str], other: Sequence[str], similarity: float) -> bool:
    return all(any(w == o or difflib.SequenceMatcher(None, w, o).ratio() >= similarity for o in other)
               for w in words)


class LinkPolicy:
    """The rules of the module docstring over one lexicon.

    Parameters
    ----------
    lexicon : Lexicon
        The resolver's lexicon (sources of each surface, typed vocabulary).
    settings : Settings, optional
        ``word_similarity``, ``adverse_window`` and ``gene_window`` (``resolution`` section); None: defaults.
    """

    def __init__(self, lexicon: Lexicon, *, settings: Settings | None = None) -> None:
        self.lexicon = lexicon
        self.settings = settings or Settings()

    # ------------------------------------------------------------------------------------- the rules
    @staticmethod
    def zone_allows(mention: Mention) -> bool:
        """Rule 1: only prose mentions are linked."""
        return mention.zone in ("prose", "")

    @staticmethod
    def fuzzy_allowed(mention: Mention) -> bool:
        """Rule 2: no fuzzy link for a typed vocabulary term (a known name without a graph node)."""
        return not (mention.method == "gazetteer" and not mention.candidates and mention.label)

    @staticmethod
    def fuzzy_words_agree(text: str, name: str, similarity: float = Settings.word_similarity) -> bool:
        """Rule 3: the content words of ``text`` and ``name`` match both ways (difflib ratio >= ``similarity``,
        ``Settings.word_similarity``)."""
        query, target = _words(text), _words(name)
        if not query or not target:
            return False
        return _covered(query, target, similarity) and _covered(target, query, similarity)

    def sources(self, text: str, node_id: str) -> set[str]:
        """Lexicon sources through which ``text`` names ``node_id`` (empty when only fuzzy)."""
        return {e.source for e in self.lexicon.lookup(text) if e.node_id == node_id}

    def kind_allowed(self, mention: Mention, text: str, node_id: str, kind: str, method: str) -> bool:
        """Rule 4: the kind prior of one candidate given the mention's cues (module docstring)."""
        cues = mention.cues
        if mention.method == "ner" and mention.label.casefold() in ("chemical", "disease") \
                and kind in NOT_CHEMICAL_OR_DISEASE_KINDS:
            return False
        single = len(normalize_name(text).split()) == 1
        sources = self.sources(text, node_id) if method in ("exact", "alias") else set()
        if mention.method != "abbreviation" and _inside_longer_name(mention, kind, self._symbol_like(text, node_id),
                                                                    product_name="gene-name" in sources):
            return False
        if kind in SIDE_EFFECT_KINDS and _after_cell_word(mention):
            return False
        if kind in SIDE_EFFECT_KINDS and not ("adverse" in cues and _adverse_near(mention, self.settings.adverse_window)) \
                and not self._disease_corroborated(text, sources) \
                and (classifies_setting(mention) or SETTING_CUE in cues):
            return False
        if kind == "Gene" and method in ("exact", "alias") and single and sources and \
                sources <= GENE_ALIAS_SOURCES and not self._symbol_like(text, node_id) \
                and not _gene_word_near(mention, self.settings.gene_window) and not _numbered_symbol(mention):
            return False
        if kind == "Compound" and method in ("exact", "alias") and single and sources == {"drugbank-alias"} \
                and text[:1].isupper() and "drug" not in cues:
            return False
        return not (kind in GO_KINDS and single and "biomedical" not in cues)

    def _symbol_like(self, text: str, node_id: str) -> bool:
        """Whether ``text`` is the node's official symbol up to punctuation and case ("IL-6" for IL6)."""
        name = self.lexicon.node_names.get(node_id, ("", ""))[0]
        return bool(name) and _symbol_key(text) == _symbol_key(name)

    def _disease_corroborated(self, text: str, sources: set[str]) -> bool:
        if sources & DISEASE_SOURCES:
            return True
        key = normalize_name(text)
        typed = self.lexicon.vocabulary.get(key)
        if typed is not None and typed[0] == "Disease":
            return True
        return any(e.kind in DISEASE_KINDS or e.source in DISEASE_SOURCES for e in self.lexicon.get(key))

    def acronym_allowed(self, mention: Mention, node_id: str, kind: str, method: str) -> bool:
        """Rule 5: an undefined acronym that is only a synonym of a non-gene node needs the curated list."""
        text = mention.text
        if mention.method != "gazetteer" or kind == "Gene" or not _ACRONYM.match(text) \
                or sum(c.islower() for c in text) > 1:
            return True
        if text.upper() in UNAMBIGUOUS_ACRONYMS:
            return True
        return "name" in self.sources(text, node_id) and method == "exact"

    def _official_symbol_first(self, kept: list, text: str) -> list:
        """When the top candidate is a gene reached through an alias and another gene candidate has ``text``
        as its official symbol, the official symbol leads (HGNC symbols are unique, aliases are not: "PASK"
        is PASK, not STK39 whose alias it is); the two swap confidences."""
        if not kept or kept[0].kind != "Gene" or self._symbol_like(text, kept[0].node_id):
            return kept
        official = [c for c in kept[1:] if c.kind == "Gene" and self._symbol_like(text, c.node_id)]
        if not official:
            return kept
        top, best = kept[0], official[0]
        return [replace(best, confidence=top.confidence), replace(top, confidence=best.confidence)] + \
            [c for c in kept if c is not top and c is not best]

    # --------------------------------------------------------------------------------------- applying
    def apply(self, mention: Mention, candidates: Sequence, text: str) -> list:
        """Candidates of ``mention`` (resolver output, best first) that the rules allow, re-ordered so that
        a Side Effect reading leads when the sentence describes an adverse event.

        Parameters
        ----------
        mention : the mention (zone, cues, label, method).
        candidates : :class:`~engram_kit.resolution.Candidate` list from the resolver.
        text : the surface the resolver looked up (the long form for an abbreviation).
        """
        if not self.zone_allows(mention):
            return []
        kept = []
        for c in candidates:
            if c.method in FUZZY_METHODS and not (self.fuzzy_allowed(mention) and self.fuzzy_words_agree(text, c.name, self.settings.word_similarity)):
                continue
            if not self.kind_allowed(mention, text, c.node_id, c.kind, c.method):
                continue
            if not self.acronym_allowed(mention, c.node_id, c.kind, c.method):
                continue
            kept.append(c)
        kept = self._official_symbol_first(kept, text)
        adverse = "adverse" in mention.cues and _adverse_near(mention, self.settings.adverse_window)
        if not adverse and kept and kept[0].kind in SIDE_EFFECT_KINDS:
            others = [c for c in kept if c.kind not in SIDE_EFFECT_KINDS]
            if others:  # the Side Effect reading yields its confidence to the best other reading
                top, other = kept[0], others[0]
                kept = [replace(other, confidence=top.confidence), replace(top, confidence=other.confidence)] + \
                    [c for c in kept if c is not top and c is not other]
        if not adverse and kept and kept[0].kind not in SIDE_EFFECT_KINDS:
            # a name Hetionet holds both as a Disease and as a SIDER Side Effect ("Parkinson's disease") means
            # the disease in a sentence with no adverse cue: linking both let PPR paths read the disease as a
            # side effect ("Bromocriptine -[CAUSES_CcSE]- Parkinson's disease", newcomer run)
            names = {normalize_name(c.name) for c in kept if c.kind in DISEASE_KINDS}
            kept = [c for c in kept if not (c.kind in SIDE_EFFECT_KINDS and normalize_name(c.name) in names)]
        if adverse and kept and kept[0].kind in DISEASE_KINDS:
            effects = [c for c in kept if c.kind in SIDE_EFFECT_KINDS]
            if effects:  # same surface read as the adverse event: swap the two confidences
                top, effect = kept[0], effects[0]
                kept = [replace(effect, confidence=top.confidence), replace(top, confidence=effect.confidence)] + \
                    [c for c in kept if c is not top and c is not effect]
        return kept


@lru_cache(maxsize=1 << 16)
def _symbol_key(text: str) -> str:
    """``text`` without punctuation, case-folded: the form :meth:`LinkPolicy._symbol_like` compares (cached: the
    same node names come back for every mention of them)."""
    return re.sub(r"[\W_]", "", text).casefold()


def _adverse_near(mention: Mention, window: int) -> bool:
    """An adverse-event cue (:func:`~engram_kit.extraction.context.context_cues`) within
    ``Settings.adverse_window`` tokens of the mention, the mention included ("cisplatin-induced nephrotoxicity")."""
    sentence = mention.sentence
    at = sentence.find(mention.text)
    if not sentence or at < 0:
        return True  # no sentence to look in: keep the sentence-level cue
    before = " ".join(sentence[:at].split()[-window:])
    after = " ".join(sentence[at:].split()[:window + len(mention.text.split())])
    return "adverse" in context_cues(f"{before} {after}")


def _inside_longer_name(mention: Mention, kind: str, official_symbol: bool, *, product_name: bool = False) -> bool:
    """Whether the mention is only part of a longer protein or symbol name (:data:`PROTEIN_HEADS`,
    :data:`PROTEIN_PARTICIPLES`, :data:`_SYMBOL_CONTINUATION`), so it does not name an entity of its own.
    A gene product name (``product_name``: "insulin") followed by "receptor" names the receptor's gene
    (INSR), not its own."""
    sentence = mention.sentence
    at = sentence.find(mention.text)
    if not sentence or at < 0:
        return False
    rest = sentence[at + len(mention.text):]
    if _SYMBOL_CONTINUATION.match(rest):
        return True
    tokens = _SENTENCE_TOKEN.findall(rest[:40])
    if not tokens:
        return False
    first = tokens[0].lower()
    head = first.split("-")[0]
    if rest.startswith("-") and head in PROTEIN_PARTICIPLES:
        return not (kind == "Gene" and official_symbol)
    if product_name and head in ("receptor", "receptors"):
        return True
    return kind != "Gene" and head in PROTEIN_HEADS


#: A gene alias written with a hyphenated member number ("JNK-1", "ERK-2") is a gene symbol form by itself.
_MEMBER_NUMBER = re.compile(r"^-\d{1,2}\b")


#: Words before a mention that make it a process of cells, not an adverse event of a patient ("neuronal cell
#: death", "apoptotic cell death", "cell injury"): SIDER Side Effects are events of the patient.
_CELL_WORDS = frozenset({"cell", "cells", "cellular"})


def _after_cell_word(mention: Mention) -> bool:
    """The token right before the mention is a cell word (:data:`_CELL_WORDS`)."""
    before, _ = _around(mention, 1)
    return bool(before) and before[-1] in _CELL_WORDS


def _numbered_symbol(mention: Mention) -> bool:
    """The mention is directly followed by a hyphenated member number (:data:`_MEMBER_NUMBER`)."""
    sentence = mention.sentence
    at = sentence.find(mention.text)
    return at >= 0 and bool(_MEMBER_NUMBER.match(sentence[at + len(mention.text):]))


def _gene_word_near(mention: Mention, window: int) -> bool:
    """A gene word (:data:`_GENE_WORDS`) within ``Settings.gene_window`` tokens of the mention."""
    before, after = _around(mention, window)
    return any(_GENE_WORDS.match(t) for t in before + after)


def setting_not_side_effect(mention: Mention, kind: str) -> bool:
    """Whether a question's ``kind`` reading of ``mention`` must be dropped: a Side Effect reading of a word
    that classifies a setting noun ("How should DVT be prevented in trauma patients?" is not about the Side
    Effect Trauma). Document links get the same rule from
    :meth:`LinkPolicy.kind_allowed`; questions need it on its own because their readings are kept wider
    (see :func:`engram_kit.evidence.search.question_entities`)."""
    # no adverse-cue exception here (unlike documents): in "Does heparin cause heparin-induced thrombocytopenia
    # in trauma patients?" the cue belongs to the thrombocytopenia, and a setting word is never the event
    return kind in SIDE_EFFECT_KINDS and classifies_setting(mention)
