"""Entity extraction: gazetteer matches + in-text abbreviations + optional NER, merged into mentions.

Merge order (each later step only adds what does not overlap what is kept):

1. gazetteer matches (:class:`~engram_kit.extraction.gazetteer.Gazetteer`), leftmost-longest;
2. abbreviations defined in the text: every occurrence of a short form becomes a mention with the
   candidates of its long form (``method="abbreviation"``, ``long_form`` set) and **replaces** any
   gazetteer match it overlaps ("AD" defined as Alzheimer's disease is not a gene synonym in that text).
   The long form's candidates are those of the gazetteer match that ends where the long form ends (the
   head of an English noun phrase is last: "late-onset Alzheimer's disease (LOAD)" -> Alzheimer's
   disease), else of an exact lexicon look-up of the whole long form. The short form also takes the
   long form's ``label`` (typed vocabulary). A short form whose long form has neither candidates nor a
   label is still reported, without candidates, and still replaces the gazetteer matches it overlaps:
   "Qwertylamide (STZ)" makes "STZ" not the gene synonym STZ of SLC2A2 in that text. Exception: a match
   of the official gene symbol equal to the short form is kept when the long form names a gene product
   (:data:`GENE_PRODUCT_HEAD`: "acetylcholinesterase (AChE)": ACHE), not otherwise ("Pre-Exposure
   Prophylaxis (PrEP)" is not the gene PREP);
3. chemical prefixes: a Compound or Chemical-typed match directly preceded by a stereo or locant prefix
   joined with a hyphen (``d-``, ``l-``, ``dl-``, ``d,l-``, ``(+)-``, ``(-)-``, ``(+/-)-``, ``N-``,
   ``cis-``, ``trans-``, ``5-``, ``2,4-``; :data:`CHEMICAL_PREFIX`) is extended over it: "d-penicillamine",
   "(-)-nicotine" (the BC5CDR and IUPAC convention: the prefix is part of the name);
4. NER spans (``method="ner"``, no candidates, ``label`` = the model's label: the resolver links them with
   exact/alias candidates of a chemical or disease kind only). Ingestion uses the term tagger ``bc5cdr-terms``
   (:data:`INGESTION_NER`); a statistical model with ``ner="auto"`` or its name. By default a NER span is added only where no earlier mention overlaps it; with
   ``ner_first=True`` it replaces the mentions it overlaps unless one has exactly its span (the NER model
   was trained on the corpus's span conventions, the gazetteer knows the candidates).

Every mention then gets its sentence, the sentence's text zone and the context cues
(:mod:`engram_kit.extraction.context`), which the resolver's :meth:`EntityResolver.link` uses.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Literal

from engram_kit.progress import tqdm

from engram_kit.errors import DataError
from engram_kit.extraction.abbreviations import Abbreviation, AbbreviationFinder
from engram_kit.extraction.context import SETTING_CUE, sentence_cues, text_cues, text_zone
from engram_kit.extraction.gazetteer import Gazetteer
from engram_kit.extraction.lexicon import Lexicon
from engram_kit.extraction.mention import Mention
from engram_kit.extraction.ner import CORPUS_TERMS, Span, SpanTagger, load_ner
from engram_kit.extraction.normalize import normalize_name
from engram_kit.extraction.setting import classifies_setting
from engram_kit.settings import Settings

log = logging.getLogger(__name__)


#: The ``ner`` option of the extractor a workspace ingests abstracts and documents with
#: (:attr:`engram_kit.workspace.Workspace.ingestion_extractor`): the BC5CDR training-split term tagger (issue 14;
#: the cheapest way past BC5CDR strict F1 0.80 measured: the bundled CNN reaches 0.813 at ~12 CPU-ms per
#: abstract, the terms 0.809 at ~0.1 ms). Questions and literature maps keep ``ner="off"``: an unlinked term span
#: is retrievable text in a passage, but as a map node or question seed it is noise (BC5CDR CID, 80 test
#: abstracts: co-occurrence edge precision 0.447 -> 0.392 with the terms in the map builder).
INGESTION_NER = CORPUS_TERMS
#: A stereo/locant prefix ending right before a chemical name (IUPAC nomenclature: D/L and R/S
#: configuration, optical rotation, N-/O- substitution, cis/trans, numeric locants).
CHEMICAL_PREFIX = re.compile(
    r"(?:(?<![\w-])(?:d|l|dl|d,l|r|s|n|o|cis|trans|\d{1,2}(?:,\d{1,2})*)|\((?:\+|-|\+/-|\u00b1)\))-$", re.IGNORECASE)
#: Longest prefix looked at, in characters.
_PREFIX_WINDOW = 8


def extend_chemical_prefix(text: str, mention: Mention) -> Mention:
    """``mention`` extended left over a :data:`CHEMICAL_PREFIX` when it is a chemical; else unchanged."""
    if mention.label != "Chemical" and "Compound" not in mention.kinds[:1]:
        return mention
    window = text[max(0, mention.start - _PREFIX_WINDOW):mention.start]
    match = CHEMICAL_PREFIX.search(window)
    if match is None:
        return mention
    start = mention.start - (len(window) - match.start())
    return replace(mention, text=text[start:mention.end], start=start)


def _overlaps(a_start: int, a_end: int, b_start: int, b_end: int) -> bool:
    return a_start < b_end and b_start < a_end


#: The last word of a long form that names a gene product: enzymes (-ase), proteins and peptides (-in, -ine
#: as in "insulin", "interleukin", "cysteine"), receptors, factors, channels... HGNC gene names describe the
#: product this way, so "acetylcholinesterase (AChE)" may keep the gene symbol ACHE while "Pre-Exposure
#: Prophylaxis (PrEP)" or "Electroporation (EP)" may not take a gene that shares the letters.
GENE_PRODUCT_HEAD = re.compile(
    r"(?:ase|in|ine|ogen|or|factor|protein|receptor|kinase|channel|transporter|enzyme|hormone|peptide|ligand|"
    r"subunit|antigen|globulin|complex|family|domain|homolog|gene)s?\W*$", re.IGNORECASE)

class EntityExtractor:
    """Find entity mentions in texts, offline.

    Parameters
    ----------
    lexicon : Lexicon
        Surface forms to match (see :meth:`Lexicon.build`).
    abbreviations : bool
        Detect abbreviations defined in each text (scispaCy ``AbbreviationDetector``).
    ner : {"off", "bc5cdr-terms", "auto"} or str
        ``"off"`` (default): no NER. ``"bc5cdr-terms"`` (:data:`INGESTION_NER`, what a workspace uses to
        ingest abstracts and documents): the term tagger (:class:`~engram_kit.extraction.ner.TermTagger`:
        whole-word matches of the chemical and disease names annotated in the BC5CDR training split, about
        0.1 ms per abstract), added where no dictionary mention overlaps; BC5CDR test strict F1 0.764 -> 0.809
        (``benchmarks/results/ner.md``). ``"auto"``: ``en_ner_bc5cdr_md`` when installed, else the bundled CNN
        ``bc5cdr-cnn``, else nothing. Any other string: a registered backend or an installed scispaCy/spaCy NER
        model, required.
    gazetteer : Gazetteer, optional
        A prebuilt gazetteer over ``lexicon`` (about 1 s to build for all of Hetionet).
    ner_first : bool
        NER spans replace the dictionary mentions they overlap (see step 4 of the module docstring).

    Raises
    ------
    BackendUnavailableError
        If ``ner`` names a model that is not installed.
    DataError
        If ``ner`` is empty.

    Examples
    --------
    >>> extractor = EntityExtractor(lexicon)                                   # doctest: +SKIP
    >>> [m.text for m in extractor.extract("Alzheimer's disease (AD) ... AD")]  # doctest: +SKIP
    ["Alzheimer's disease", 'AD', 'AD']
    """

    def __init__(
        self,
        lexicon: Lexicon,
        *,
        abbreviations: bool = True,
        ner: Literal["auto", "off"] | str = "off",
        gazetteer: Gazetteer | None = None,
        ner_first: bool = False,
    ) -> None:
        if not isinstance(ner, str) or not ner.strip():
            raise DataError(f"ner={ner!r} is not valid: use 'off', 'auto' or an installed model name.")
        self.lexicon = lexicon
        self.gazetteer = gazetteer if gazetteer is not None else Gazetteer(lexicon)
        self._abbreviations: AbbreviationFinder | None = AbbreviationFinder() if abbreviations else None
        self._ner: SpanTagger | None = load_ner(ner.strip())
        self.ner_first = ner_first

    @property
    def ner_model(self) -> str | None:
        """Name of the NER model in use, or None when NER is off or unavailable."""
        return self._ner.model if self._ner is not None else None

    # ------------------------------------------------------------------------------------------ public
    def extract(self, text: str) -> list[Mention]:
        """Mentions in one text, sorted by start (character offsets into ``text``, end exclusive)."""
        abbreviations = self._abbreviations.find(text) if self._abbreviations is not None else []
        spans = self._ner.spans(text) if self._ner is not None else []
        return self._merge(text, self.gazetteer.find(text), abbreviations, spans)

    def extract_many(
        self, texts: Sequence[str], *, progress: bool = False, batch_size: int = 64, same_document: bool = False
    ) -> list[list[Mention]]:
        """Mentions of many texts, one list per text in input order; spaCy work is batched.

        Parameters
        ----------
        texts : sequence of str
        progress : bool
            Show a tqdm progress bar.
        batch_size : int
            Texts per ``nlp.pipe`` batch.
        same_document : bool
            The texts are passages of one document: a short form defined in one passage ("Mindful
            memoization (MM)") is read with that definition in every passage (whole word, same case), and
            replaces gazetteer matches there ("MM" is then not the DO synonym of multiple myeloma).
        """
        if same_document:
            return self._extract_document(texts, batch_size=batch_size)
        started = time.perf_counter()
        abbreviations: Iterator[list[Abbreviation]] = (
            self._abbreviations.find_many(texts, batch_size=batch_size)
            if self._abbreviations is not None else iter(lambda: [], None)
        )
        spans: Iterator[list[Span]] = (
            self._ner.spans_many(texts, batch_size=batch_size) if self._ner is not None
            else iter(lambda: [], None)
        )
        results: list[list[Mention]] = []
        for text in tqdm(texts, desc="extracting entities", unit="text", disable=not progress):
            results.append(self._merge(text, self.gazetteer.find(text), next(abbreviations), next(spans)))
        log.debug("extracted mentions from %d texts in %.2f s", len(texts), time.perf_counter() - started)
        return results

    def _extract_document(self, texts: Sequence[str], *, batch_size: int) -> list[list[Mention]]:
        """:meth:`extract_many` with document-wide abbreviation definitions (``same_document=True``)."""
        found = (list(self._abbreviations.find_many(texts, batch_size=batch_size))
                 if self._abbreviations is not None else [[] for _ in texts])
        spans = (list(self._ner.spans_many(texts, batch_size=batch_size)) if self._ner is not None
                 else [[] for _ in texts])
        matches = [self.gazetteer.find(t) for t in texts]
        definitions: dict[str, Abbreviation] = {}
        for abbreviations in found:
            for a in abbreviations:
                definitions.setdefault(a.short, a)
        results = []
        for text, own, gaz, ner in zip(texts, found, matches, spans):
            defined = {a.short for a in own}
            extra = [Abbreviation(short, m.start(), m.end(), d.long_form, -1, -1)
                     for short, d in definitions.items() if short not in defined
                     for m in re.finditer(rf"(?<![\w-]){re.escape(short)}(?![\w-])", text)]
            results.append(self._merge(text, gaz, sorted([*own, *extra], key=lambda a: a.start), ner))
        return with_setting_cue(results)

    # --------------------------------------------------------------------------------------- internals
    def _long_form_candidates(
        self, abbreviation: Abbreviation, mentions: list[Mention]
    ) -> tuple[tuple[str, ...], tuple[str, ...], str]:
        """Candidates, kinds and label of a long form: the gazetteer match ending with it, else a lexicon look-up."""
        if abbreviation.long_start < 0:  # defined in another passage of the document: match the long form alone
            mentions = self.gazetteer.find(abbreviation.long_form)
            abbreviation = replace(abbreviation, long_start=0, long_end=len(abbreviation.long_form))
        inside = [m for m in mentions
                  if m.start >= abbreviation.long_start and m.end == abbreviation.long_end]
        if inside:
            best = min(inside, key=lambda m: m.start)  # the longest one ending at the long form's end
            return best.candidates, best.kinds, best.label
        entries = self.lexicon.lookup(abbreviation.long_form)
        nodes: dict[str, str] = {}
        for entry in entries:
            nodes.setdefault(entry.node_id, entry.kind)
        typed = self.lexicon.vocabulary.get(normalize_name(abbreviation.long_form))
        return tuple(nodes), tuple(nodes.values()), typed[0] if typed else ""

    def _is_official_symbol(self, abbreviation: Abbreviation, mentions: list[Mention]) -> bool:
        """Whether a gazetteer match on the short form is a gene whose official symbol is the short form, and
        the long form reads like the name of a gene product (:data:`GENE_PRODUCT_HEAD`)."""
        if not GENE_PRODUCT_HEAD.search(abbreviation.long_form):
            return False
        short = abbreviation.short.casefold()
        for m in mentions:
            if m.start == abbreviation.start and m.end == abbreviation.end:
                return any(kind == "Gene" and self.lexicon.node_names.get(node, ("",))[0].casefold() == short
                           for node, kind in zip(m.candidates, m.kinds))
        return False

    def _merge(
        self, text: str, mentions: list[Mention], abbreviations: list[Abbreviation], spans: list[Span]
    ) -> list[Mention]:
        mentions = [extend_chemical_prefix(text, m) for m in mentions]
        kept = list(mentions)
        short_mentions: list[Mention] = []
        resolved: dict[tuple[int, int, str], tuple[tuple[str, ...], tuple[str, ...], str]] = {}
        for abbreviation in abbreviations:
            slot = (abbreviation.long_start, abbreviation.long_end, abbreviation.long_form)
            if slot not in resolved:
                resolved[slot] = self._long_form_candidates(abbreviation, mentions)
            candidates, kinds, label = resolved[slot]
            if not candidates and not label and self._is_official_symbol(abbreviation, mentions):
                continue  # "acetylcholinesterase (AChE)": the gene symbol match is the better reading
            short_mentions.append(Mention(text[abbreviation.start:abbreviation.end], abbreviation.start,
                                          abbreviation.end, candidates, kinds, "abbreviation",
                                          abbreviation.long_form, label))
        if short_mentions:
            kept = [m for m in kept
                    if not any(_overlaps(m.start, m.end, s.start, s.end) for s in short_mentions)]
            kept.extend(short_mentions)
        for start, end, label in spans:
            overlapping = [m for m in kept if _overlaps(start, end, m.start, m.end)]
            if self.ner_first and overlapping and not any(m.start == start and m.end == end for m in overlapping):
                kept = [m for m in kept if m not in overlapping]
                overlapping = []
            if not overlapping:
                kept.append(Mention(text[start:end], start, end, (), (), "ner", label=label))
        kept.sort(key=lambda m: (m.start, m.end))
        return with_context(text, kept)




def with_setting_cue(passages: list[list[Mention]]) -> list[list[Mention]]:
    """Mentions of one document, with :data:`~engram_kit.extraction.context.SETTING_CUE` added to every
    occurrence of a surface (case-insensitive) of which at least ``Settings.setting_min_occurrences`` and at
    least ``Settings.setting_min_share`` of all occurrences classify a setting noun ("trauma patients")."""
    total: dict[str, int] = {}
    setting: dict[str, int] = {}
    for mentions in passages:
        for m in mentions:
            key = m.text.casefold()
            total[key] = total.get(key, 0) + 1
            setting[key] = setting.get(key, 0) + classifies_setting(m)
    marked = {k for k, n in setting.items()
              if n >= Settings.setting_min_occurrences and n >= Settings.setting_min_share * total[k]}
    if not marked:
        return passages
    return [[replace(m, cues=m.cues | {SETTING_CUE}) if m.text.casefold() in marked else m for m in mentions]
            for mentions in passages]


def with_context(text: str, mentions: list[Mention]) -> list[Mention]:
    """``mentions`` with ``sentence``, ``zone`` and ``cues`` set from ``text`` (sentences by
    :func:`~engram_kit.text.sentence_spans`; a new line also ends a sentence, as PDF text puts
    by-lines, affiliations and table rows on lines of their own)."""
    if not mentions:
        return mentions
    from engram_kit.text import sentence_spans

    # Zones are decided per line (a reference entry or a by-line is one line but several "sentences"),
    # then per sentence inside prose lines.
    spans: list[tuple[int, int, str]] = []
    line_start = 0
    for line in text.split("\n"):
        line_end = line_start + len(line)
        if line.strip():
            line_zone = text_zone(" ".join(line.split()))
            for start, end in sentence_spans(line):
                spans.append((line_start + start, line_start + end, line_zone))
        line_start = line_end + 1
    out = []
    wide = text_cues(text)  # gene/drug anywhere in the text hold for every sentence: not looked for again
    cache: dict[tuple[int, int], tuple[str, str, frozenset[str]]] = {}
    for m in mentions:
        start, end, line_zone = next(((s, e, z) for s, e, z in spans if s <= m.start < e),
                                     (max(0, m.start - 200), min(len(text), m.end + 200), "prose"))
        span = (start, end)
        if span not in cache:
            sentence = " ".join(text[start:end].split())
            zone = line_zone if line_zone != "prose" else text_zone(sentence)
            cache[span] = (sentence, zone, sentence_cues(sentence) | wide | text_cues(sentence, skip=wide))
        sentence, zone, cues = cache[span]
        out.append(replace(m, sentence=sentence, zone=zone, cues=cues))
    return out
