"""Exact answers: ranked, cited answer items (factoid, list) and yes/no verdicts from a retrieval result.

Candidates (no parsing at answer time beyond sentence splitting):

* the noun phrases each of the top ``Settings.exact_passages`` passages MENTIONS, stored at ingestion
  (:meth:`GraphStore.passage_mentions`): linked ones (MAPS_TO a graph node) and unlinked ones
  (``np:Unlinked:...``: mutations, procedures, cell types that the graph has no node for);
* the chunks of the passages' sentences (:func:`chunks`: runs of tokens between stop words and punctuation)
  and their n-grams of up to 4 tokens, which find the answers ingestion stored no phrase for (a tick genus, a
  channel name, a regimen); a chunk spelled like a stored phrase joins it;
* mutation and number patterns in the sentences (:data:`MUTATION`, :data:`NUMBER`);
* the targets of the graph facts of the asked relation (:class:`~engram_kit.answering.facts.GraphFacts`).

A candidate linked to a node merges every noun phrase MAPS_TO that node (synonyms through node ids); its
``text`` is the passages' most frequent spelling, its ``synonyms`` the other spellings and the graph name. The
question's own entities (by node id, or by name) are dropped.

Features (each in [0, 1]; :data:`FEATURES`): ``freq`` (share of the rank weight 1 / (1 + rank) of the passages
naming it), ``spread`` (share of passages naming it), ``entity_cooc`` (share of its sentences that also name a
question entity) and ``cooc_count`` (such sentences, / 3, capped at 1), ``keyword_cooc`` (best share of the
question's content words in one of its sentences), ``type_match`` / ``type_mismatch`` (its type against the
question's expected answer type, :func:`~engram_kit.answering.qtype.expected_type`; a node's type is its kind,
an unlinked phrase's a cheap guess from its form, :func:`guess_type`), ``graph_fact`` (it is a target of the
asked relation's facts), ``graph_edge`` (a graph edge joins it to a question entity), ``stored`` (a phrase
stored at ingestion, not only a chunk), ``linked`` (it links to a node), ``whole_chunk`` (share of its
occurrences that are a whole chunk), ``generic`` (only general words, :data:`GENERIC`), ``name_form`` (capitals
or digits inside: a symbol or a name), ``length`` (tokens / 4), ``contained`` (a part of a longer candidate
found in at least half as many passages) and ``listed`` (sentences naming it as a member of a coordination, "A,
B and C", :func:`coordination_members`, / 2, capped at 1). Score = logistic of the
weighted sum (weights in ``exact_weights.json``: hand-set, and logistic regression fitted on the BioASQ 12b dev
split by ``benchmarks/quality/bioasq_answers_train.py``), in [0, 1]. The graph features (facts candidates, type
from node kinds, node-id synonyms, ``graph_fact``, ``graph_edge``, ``linked``) can be switched off as a group
(``graph=False``) for the ablation in ``benchmarks/results/bioasq_answers.md``.

Factoid: the top ``Settings.exact_factoid_max``; list: the items scoring at least ``Settings.exact_list_cutoff``
(at most ``Settings.exact_list_max``; the best one always, when any). When the graph itself answers (facts of the
asked relation, or of the profile's fallback, from a question entity: :func:`graph_answers`) and the passages
do not answer themselves (:func:`literature_answers`), the fact targets are listed whatever their score, ranked by it, and a candidate outside them must be a node of the expected kind that
shares a sentence with a question entity (:func:`literature_backed`); yes/no: :mod:`engram_kit.answering.yesno`;
summary: no exact items. Every item cites the sentences that name it beside a question term (else the sentences
naming it) and/or the fact edges; an item with neither is never produced.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from engram_kit.answering.labels import page_label
from engram_kit.answering.qtype import expected_type, question_type
from engram_kit.answering.support import names_any, names_term
from engram_kit.answering.types import Citation, ExactAnswer, QuestionType, YesNo
from engram_kit.answering.yesno import Evidence, decide, evidence_weight, polarity
from engram_kit.retrieval.results import PassageHit, RetrievalResult
from engram_kit.settings import Settings
from engram_kit.text import sentence_texts

__all__ = ["FEATURES", "GRAPH_FEATURES", "Candidate", "ExactAnswerer", "ExactResult", "abbreviations", "graph_answers",
           "guess_type", "literature_answers", "literature_backed", "load_weights"]

#: Scorer features, in the order of the weight vectors.
FEATURES: tuple[str, ...] = ("freq", "spread", "entity_cooc", "cooc_count", "keyword_cooc", "type_match",
                             "type_mismatch", "graph_fact", "graph_edge", "stored", "linked", "whole_chunk",
                             "generic", "name_form", "length", "contained", "listed")
#: The features that read the graph (off together with ``graph=False``).
GRAPH_FEATURES: frozenset[str] = frozenset({"graph_fact", "graph_edge", "linked"})
WEIGHTS_FILE = Path(__file__).with_name("exact_weights.json")
#: Point mutations and HGVS-like variants ("V600E", "G12C", "p.R132H", "c.35G>A", "exon 53").
MUTATION = re.compile(r"\b(?:[ACDEFGHIKLMNPQRSTVWY]\d{1,4}[ACDEFGHIKLMNPQRSTVWY*]|[pc]\.[A-Za-z0-9_>*]+|exon \d+)\b")
#: Numbers with an optional unit or percent sign ("0.5%", "12 months", "3").
NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?\s?(?:%|percent\b|mg\b|years?\b|months?\b|weeks?\b|days?\b|hours?\b)?")
_TYPE_FORMS: tuple[tuple[str, str], ...] = (
    ("Mutation", MUTATION.pattern),
    ("Number", r"^\s*[<>~]?\d+(?:[.,]\d+)?\s?(?:%|percent|mg|years?|months?|weeks?|days?|hours?)?\s*$"),
    ("Cell", r"\b\w*(cells?|cytes?|blasts?|phages?)$"),
    ("Organism", r"(virus(es)?|bacteri(um|a)|coccus|cocci|bacillus|ella|myces|plasma)$|^[A-Z][a-z]+ [a-z]{3,}$"),
    ("Procedure", r"(ectomy|otomy|ostomy|plasty|scopy|graphy|surgery|transplant(ation)?|shunt|resection|ablation"
                  r"|biopsy|screening|imaging|stimulation|therapy|injection|implant)$"),
    ("Disease", r"(itis|oma|omas|emia|aemia|osis|pathy|syndrome|disease|cancer|tumou?rs?|carcinoma|disorder"
                r"|deficiency|infection|failure|dystrophy|plegia|algia)$"),
    ("Compound", r"(mab|nib|vir|tide|pril|sartan|olol|azole|mycin|cillin|statin|parin|platin|taxel|dronate|gliptin"
                 r"|semide|tidine|prazole|oxacin|cycline|triptan|setron|lukast|afil|vastatin|olimus|parib|ciclib|sone"
                 r"|lone|ine|ide|ate|ol|in)$"),
    ("Gene", r"^[A-Z][A-Z0-9\-]{1,9}\d?$|^[A-Z][a-z]{1,2}[A-Z0-9]{1,4}(\.\d+)?$"),
)
#: Graph kinds that a literature type accepts as the same answer type.
_TYPE_KINDS: dict[str, set[str]] = {"Disease": {"Disease", "SideEffect", "Symptom"}, "Gene": {"Gene"},
                                    "Compound": {"Compound", "PharmacologicClass"}}


def guess_type(phrase: str) -> str:
    """A cheap answer type of an unlinked phrase from its form: ``"Mutation"`` (V600E), ``"Number"``,
    ``"Cell"``, ``"Organism"``, ``"Procedure"``, ``"Disease"``, ``"Compound"`` (drug-name stems), ``"Gene"``
    (an upper-case symbol), or ``""`` when no form fits (first match in :data:`_TYPE_FORMS` order)."""
    text = phrase.strip()
    for label, pattern in _TYPE_FORMS:
        flags = 0 if label in ("Gene", "Mutation", "Organism") else re.IGNORECASE
        if re.search(pattern, text, flags):
            return label
    return ""


def _kind_of(label: str) -> str:
    return label.replace(" ", "")


def types_agree(expected: str, kind: str) -> bool:
    """Whether a candidate of type ``kind`` (graph label or guessed type) answers a question expecting
    ``expected``."""
    return kind == expected or kind in _TYPE_KINDS.get(expected, set())


@lru_cache(maxsize=1)
def load_weights(path: str = str(WEIGHTS_FILE)) -> dict[str, Any]:
    """The shipped scorer weights (``{"use": name, name: {"bias": b, "weights": {feature: w}}, ...}``).

    Raises
    ------
    ValueError
        If the file lacks the set it says to use, or a weight names an unknown feature.
    """
    data = json.loads(Path(path).read_text())
    chosen = data.get(data.get("use", ""))
    if not isinstance(chosen, dict):
        raise ValueError(f"{path}: 'use' must name one of its weight sets, got {data.get('use')!r}.")
    for name in ("hand", data["use"]):
        unknown = set(data[name]["weights"]) - set(FEATURES)
        if unknown:
            raise ValueError(f"{path}: weight set {name!r} names unknown features {sorted(unknown)}.")
    return data


@dataclass
class Candidate:
    """One candidate answer while scoring: its merged spellings, node, type, where it occurs and its features."""

    key: str
    node_id: str | None = None
    node_name: str = ""
    kind: str = ""
    surfaces: Counter[str] = field(default_factory=Counter)
    passages: set[int] = field(default_factory=set)          # positions in the passage list
    sentences: list[tuple[int, str]] = field(default_factory=list)  # (passage position, sentence)
    edge_citations: list[Citation] = field(default_factory=list)
    stored: bool = False            # a noun phrase stored at ingestion (not only a chunk of a sentence)
    whole: int = 0                  # occurrences as a whole chunk
    parts: int = 0                  # occurrences inside a longer chunk
    features: dict[str, float] = field(default_factory=dict)
    score: float = 0.0
    listed: int = 0                 # sentences where it is a member of a coordination ("A, B and C")
    fact_rank: int = 1 << 30        # position in the facts' ranked items (FactsResult.items), as given

    @property
    def text(self) -> str:
        return self.surfaces.most_common(1)[0][0] if self.surfaces else self.node_name

    def terms(self) -> list[str]:
        return list(dict.fromkeys([*self.surfaces, *([self.node_name] if self.node_name else [])]))


@dataclass
class ExactResult:
    """What the exact layer adds to an :class:`~engram_kit.answering.types.Answer`."""

    question_type: QuestionType
    exact: list[ExactAnswer]
    yes_no: YesNo | None = None
    yes_no_citations: tuple[Citation, ...] = ()
    candidates: list[Candidate] = field(default_factory=list)  # every scored candidate (benchmark, training)


def _label(hit: PassageHit) -> str:
    return page_label(hit)  # the composer's labels, one definition


#: Words that end a chunk (besides :data:`_STOP`): verbs and connectives that never sit inside a name.
_BREAK = frozenset("""also although because but however including included includes such like while whereas
which who whom whose that than then thus therefore both either each other others only very well
showed shown show shows found find reported report reports suggest suggests suggested suggesting
demonstrated indicate indicates indicated observed associated compared increased decreased reduced improved
caused causes cause induced leads led treated using based being become became remains remain remained
significantly often usually commonly frequently mainly mostly respectively currently recently here we our
plus versus vs
us they them he she his her you your one two three four five six seven eight nine ten""".split())
#: Nouns too general to be an answer on their own (a general list, not drawn from any benchmark question).
GENERIC = frozenset("""patient patients study studies trial trials treatment treatments therapy therapies result
results effect effects role roles level levels case cases group groups analysis analyses data method methods
disease diseases risk risks factor factors outcome outcomes response responses use rate rates year years
month months week weeks day days time times review reviews evidence report reports model models cell cells
gene genes protein proteins drug drugs agent agents association associations increase decrease expression
activity function functions mechanism mechanisms development management diagnosis clinical significant
potential important novel new high low higher lower first second most more less several many various
different present current previous total mean median ratio dose doses cohort control controls individuals
people subjects adults children women men age sample samples number type types form forms part parts
area areas need process approach system systems condition conditions mutation mutations symptom symptoms
inhibitor inhibitors cancer cancers tumor tumors tumour tumours carcinoma carcinomas neoplasm neoplasms
complication complications sign signs compound compounds medication medications receptor receptors
infection infections tissue tissues""".split())
_TOKEN = re.compile(r"[A-Za-z0-9\u0370-\u03ff][\w\-\u0370-\u03ff]*(?:['\u2019]s\b)?(?:[./+][\w\-]+)*")
_STOP = frozenset("""a an the of in on for to and or with by from at as is are was were be been being what which who whom
whose when where why how does do did can could should would will may might must has have had this that these those
it its their there than then into about over under between among via per not no yes any all some most more less
please list name give describe explain used use using patients patient type types common main known""".split())


def keywords(question: str, exclude: Iterable[str]) -> list[str]:
    """Content words of ``question`` (>= 3 letters, not a stop word, not inside an entity mention)."""
    blocked = {w for term in exclude for w in re.findall(r"\w+", term.lower())}
    words = [w for w in re.findall(r"[a-z0-9][\w\-]+", question.lower()) if len(w) >= 3]
    return list(dict.fromkeys(w for w in words if w not in _STOP and w not in blocked))


def chunks(sentence: str, max_tokens: int = 6) -> list[list[str]]:
    """Runs of tokens of ``sentence`` between stop words, chunk-breaking words (:data:`_BREAK`) and
    punctuation other than hyphens, at most ``max_tokens`` long (longer runs are dropped: a list, not a name).
    A cheap noun-phrase chunker with no parser (Justeson & Katz 1995 style: terms are stop-word-free runs)."""
    out: list[list[str]] = []
    current: list[str] = []
    last_end = 0
    for m in _TOKEN.finditer(sentence):
        gap = sentence[last_end:m.start()]
        word = m.group(0).rstrip(".")
        # a capital letter after a name is part of it ("hemophilia A", "vitamin D"), not the article
        lower = word if (len(word) == 1 and word.isupper() and current) else word.lower()
        if (current and re.search(r"[,;:()\[\]\"]|\.\s", gap)) or lower in _STOP or lower in _BREAK:
            if current:
                out.append(current)
            current = []
        if lower not in _STOP and lower not in _BREAK:
            current.append(word)
        last_end = m.end()
    if current:
        out.append(current)
    return [c for c in out if len(c) <= max_tokens]


class ExactAnswerer:
    """The exact answer layer (see module docstring).

    Parameters
    ----------
    store : the workspace graph store (``passage_mentions``, ``edges_among``, ``get_nodes``); None = only
        pattern candidates and no graph features.
    settings : passages read, list cut-off and sizes, yes/no threshold (default :class:`Settings`).
    weights : ``"learned"`` or ``"hand"`` (a set of ``exact_weights.json``); None = the file's ``use``.
    graph : False switches every graph feature off (ablation: the same scorer on text alone).
    disabled : features set to 0 (ablation), names from :data:`FEATURES`.
    typed_literature : beside a graph that answers, an unlinked literature item must be a stored, typed noun
        phrase (:func:`typed_phrase`); False for the ablation.
    """

    def __init__(self, store: Any = None, settings: Settings | None = None, *, weights: str | None = None,
                 graph: bool = True, disabled: Iterable[str] = (), typed_literature: bool = True) -> None:
        self.store = store
        self.typed_literature = typed_literature
        # the graph's own facts of the asked relation stay listed when the passages answer too (they compete on
        # score for the order, not for a place): "What compounds might reduce neuroinflammation in Alzheimer's
        # disease?" dropped Memantine, a curated TREATS_CtD fact, for Acrolein; BioASQ 12b dev list F1 0.330 ->
        # 0.320 with the gold papers, 0.261 -> 0.256 with the product's own retrieval (Hetionet's facts are rarely
        # BioASQ's gold items), factoid MRR unchanged
        self.keep_facts = True
        self.settings = settings or Settings()
        data = load_weights()
        chosen = data[weights or data["use"]]
        self.bias = float(chosen["bias"])
        self.weights = np.array([float(chosen["weights"].get(f, 0.0)) for f in FEATURES])
        self.graph = graph
        self.disabled = frozenset(disabled) | (frozenset() if graph else GRAPH_FEATURES)
        unknown = self.disabled - set(FEATURES)
        if unknown:
            raise ValueError(f"Unknown exact-answer features {sorted(unknown)}; use names from {FEATURES}.")

    # ------------------------------------------------------------------------------------------
    def answer(self, result: RetrievalResult, facts: Any = None, *,  # FactsResult
               qtype: QuestionType | None = None, reuse: ExactResult | None = None) -> ExactResult:
        """Exact items or a yes/no verdict for ``result`` (``facts``: the composer's FactsResult, or None).
        ``qtype`` overrides the detected question type (a caller that knows it, e.g. a benchmark); ``reuse``
        takes the candidates and features of an earlier answer to the same result (an ablation that only
        switches features off rescores them instead of reading the passages again)."""
        kind: QuestionType = qtype or question_type(result.question)
        hits = [h for h in result.passages[: self.settings.exact_passages]] if result.on_topic else []
        entity_terms = self._entity_terms(result)
        if kind == "yesno":
            verdict, cites = self.yes_no(result, hits, entity_terms)
            return ExactResult(kind, [], verdict, cites)
        if kind == "summary" or not hits and facts is None:
            return ExactResult(kind, [])
        if reuse is not None:
            candidates = [replace(c, features={k: 0.0 if k in self.disabled else v for k, v in c.features.items()})
                          for c in reuse.candidates]
            self._apply(candidates, np.array([[c.features[k] for k in FEATURES] for c in candidates]))
        else:
            candidates = self.candidates(result, hits, facts, entity_terms)
            self.score(candidates, result, hits, entity_terms)
        # equal scores: the facts' own order (evidence, passages mentioning the item, degree), never name alone
        candidates.sort(key=lambda c: (-c.score, c.fact_rank, -len(c.passages), c.text.lower()))
        graph_answered = graph_said = self.graph and graph_answers(facts)
        if graph_answered and literature_answers(candidates, self.settings.exact_list_cutoff):
            graph_answered = False
            # the passages answer, but a graph node of another kind than the facts' is still no answer ("Which
            # drugs treat Parkinson's disease?" on the bundled sample listed a side effect coordinated with drugs)
            fact_kinds = {c.kind for c in candidates if c.edge_citations and c.kind}
            candidates = [c for c in candidates if not (c.node_id and fact_kinds and c.kind not in fact_kinds)]
            if self.typed_literature:
                candidates = [c for c in candidates if c.edge_citations or c.node_id or typed_phrase(c)]
        if graph_answered:
            # a literature-only item must also be of the kind the facts are ("Which diseases does rivastigmine
            # treat?" listed nausea and vomiting: the expected type "Disease" accepts side effects elsewhere)
            fact_kinds = {c.kind for c in candidates if c.edge_citations and c.kind}
            candidates = [c for c in candidates if c.edge_citations
                          or (literature_backed(c) and (not fact_kinds or c.kind in fact_kinds))]
            # curated facts before literature-only items (stable: each group keeps its score order): one paper's
            # co-mention ("Metformin, but not leptin, regulates AMPK") outscored metformin's curated targets
            # and the facts in their own order (evidence, passages mentioning the item, degree): equal scores made
            # the order depend on what else the workspace held (a fresh-clone CI run listed RTN4 before APP)
            candidates.sort(key=lambda c: (not c.edge_citations, c.fact_rank if c.edge_citations else 0))
        if kind == "factoid":
            chosen = candidates[: self.settings.exact_factoid_max]
        else:
            chosen = [c for c in candidates if c.score >= self.settings.exact_list_cutoff
                      or ((graph_answered or (self.keep_facts and graph_said)) and c.edge_citations)]
            chosen = (chosen or candidates[:1])[: self.settings.exact_list_max]
        exact = [self._item(c, hits, entity_terms) for c in chosen]
        return ExactResult(kind, exact, candidates=candidates)

    # ------------------------------------------------------------------------------------------
    def _entity_terms(self, result: RetrievalResult) -> list[str]:
        terms = [t for e in result.entities for t in (e.mention, e.name)]
        return list(dict.fromkeys(t for t in terms if t and len(t) >= 2))

    def _sentences(self, hits: Sequence[PassageHit]) -> list[list[str]]:
        return [[s for s in sentence_texts(h.text) if len(s) > 15] for h in hits]

    def candidates(self, result: RetrievalResult, hits: Sequence[PassageHit], facts: Any,
                   entity_terms: Sequence[str]) -> list[Candidate]:
        """Every candidate of the passages (stored mentions, mutation and number patterns) and of the facts."""
        sentences = self._sentences(hits)
        question_ids = {e.node_id for e in result.entities}
        q_norm = f" {_word_norm(result.question)} "
        blocked = {_word_norm(t) for t in entity_terms}
        alias: dict[str, str] = {}  # abbreviation -> its long form (normalised), from "long form (ABBR)"
        for short, long_form in abbreviations([h.text for h in hits]).items():
            ns, nl = _word_norm(short), _word_norm(long_form)
            if nl in blocked or f" {nl} " in q_norm:
                blocked.add(ns)  # a question entity's abbreviation ("OCD" for obsessive compulsive disorder)
            else:
                alias.setdefault(ns, nl)
        out: dict[str, Candidate] = {}

        def add(key: str, surface: str, pos: int, node_id: str | None = None, name: str = "", kind: str = "",
                stored: bool = True) -> Candidate | None:
            n = _word_norm(surface)
            if "\n" in surface or len(n.split()) > 6 or surface.count("(") != surface.count(")"):
                return None  # a chunking accident ("deprenyl) in the treatment of ..."), not a name
            if not n or n in blocked or f" {n} " in q_norm or n in _STOP or len(n) < 2:
                return None
            n = alias.get(n, n)  # an abbreviation joins its long form ("PRP" -> "platelet rich plasma")
            key = by_norm.get(n, key)  # one candidate per spelling: a chunk or pattern joins the stored phrase
            cand = out.setdefault(key, Candidate(key, node_id, name, kind))
            cand.surfaces[surface] += 1
            cand.passages.add(pos)
            cand.stored = cand.stored or stored
            by_norm.setdefault(n, key)
            return cand

        by_norm: dict[str, str] = {}

        if self.store is not None and hits:
            mentions = self.store.passage_mentions([h.passage_id for h in hits])
            position = {h.passage_id: i for i, h in enumerate(hits)}
            groups: dict[tuple[Any, Any], list[dict[str, Any]]] = {}  # (passage, phrase) -> rows, first-seen order
            for record in mentions.to_dict("records"):  # plain rows: a DataFrame per group cost 0.6 s per answer
                groups.setdefault((record["passage_id"], record["nounphrase_id"]), []).append(record)
            for (pid, np_id), group in groups.items():
                pos = position.get(str(pid))
                if pos is None:
                    continue
                row = self._link(group, result.question)
                surface = _surface(hits[pos].text, str(row["mention"]))
                if surface is None:
                    continue
                node = str(row["entity_id"]) if row["entity_id"] else None
                if node in question_ids:
                    continue
                key = node if (node and self.graph) else str(np_id)
                add(key, surface, pos, node, str(row["entity_name"] or ""), _kind_of(str(row["entity_label"] or "")))
        for pos, sents in enumerate(sentences):  # chunks and patterns the stored noun phrases miss
            for sentence in sents:
                for chunk in chunks(sentence):
                    size = len(chunk)
                    for i in range(size):
                        for j in range(i + 1, min(size, i + 4) + 1):
                            surface = " ".join(chunk[i:j])
                            cand = add(f"chunk:{_norm(surface)}", surface, pos, stored=False)
                            if cand is not None:
                                if i == 0 and j == size:
                                    cand.whole += 1
                                else:
                                    cand.parts += 1
                for member in coordination_members(sentence):
                    n = alias.get(_word_norm(member), _word_norm(member))
                    cand = out.get(by_norm.get(n, f"chunk:{_norm(member)}"))
                    if cand is not None:
                        cand.listed += 1
                for m in MUTATION.finditer(sentence):
                    add(f"pattern:{m.group(0).lower()}", m.group(0), pos, kind="Mutation")
                if expected_type(result.question) == "Number":
                    for m in NUMBER.finditer(sentence):
                        add(f"pattern:{m.group(0).strip().lower()}", m.group(0).strip(), pos, kind="Number")
        if self.graph and facts is not None:
            self._fact_candidates(facts, question_ids, out)
        lowered = [[s.lower() for s in sents] for sents in sentences]
        for cand in out.values():  # the sentences naming each candidate, in the passages it occurs in
            terms = cand.terms()
            low = [t.lower() for t in terms]
            cand.sentences = [(pos, s) for pos in sorted(cand.passages) for s, sl in zip(sentences[pos], lowered[pos])
                              if any(t in sl for t in low) and names_any(s, terms)]  # substring test first: cheap
        return [c for c in out.values() if c.sentences or c.edge_citations]

    def _link(self, group: list[dict[str, Any]], question: str) -> dict[str, Any]:
        """The MAPS_TO reading of one noun phrase (its rows of :meth:`passage_mentions`, in order): the expected
        kind if one of its links has it, else the most confident (the first of equals; a missing confidence
        last); no link = the unlinked row."""
        linked = [r for r in group if not _missing(r["entity_id"]) and str(r["entity_id"]) != ""]
        if not linked or not self.graph:
            row = dict(group[0])
            if not self.graph:
                row["entity_id"], row["entity_name"], row["entity_label"] = (
                    row["entity_id"] if row["entity_id"] else "", "", "")
            return row
        wanted = expected_type(question)
        fit = [r for r in linked if types_agree(wanted, _kind_of(str(r["entity_label"])))] if wanted else linked
        pick = fit or linked
        return max(pick, key=lambda r: -math.inf if _missing(r["confidence"]) else float(r["confidence"]))

    def _fact_candidates(self, facts: Any, question_ids: set[str], out: dict[str, Candidate]) -> None:  # facts: FactsResult
        """The listed targets of the facts (:attr:`FactsResult.items` in the facts' own order: evidence, passages
        mentioning the item, degree; :mod:`engram_kit.answering.facts`), each citing its claim's edges. The
        facts' order is taken as it is (``fact_rank``), not derived again."""
        items = getattr(facts, "items", None) or []
        for rank, (item, claim) in enumerate(zip(items, getattr(facts, "claims", []))):
            cites = [c for c in claim.citations if c.kind == "edge"]
            if not cites or item.node_id in question_ids:
                continue
            cand = out.setdefault(item.node_id, Candidate(item.node_id, item.node_id, item.name,
                                                          _kind_of(item.node_id.partition("::")[0])))
            cand.node_name = cand.node_name or item.name
            cand.edge_citations = list(dict.fromkeys(cites))
            cand.fact_rank = min(cand.fact_rank, rank)

    # ------------------------------------------------------------------------------------------
    def features(self, candidates: Sequence[Candidate], result: RetrievalResult, hits: Sequence[PassageHit],
                 entity_terms: Sequence[str]) -> np.ndarray:
        """The feature matrix, shape (len(candidates), len(FEATURES)), each in [0, 1] (see module docstring)."""
        n = max(len(hits), 1)
        rank_w = np.array([1.0 / (1 + i) for i in range(n)])
        expected = expected_type(result.question)
        words = keywords(result.question, entity_terms)
        edge_nodes = self._edge_nodes(result, candidates) if self.graph else set()
        contained = _contained(candidates)
        listing = question_type(result.question) == "list"  # a coordination marks list answers, not a factoid's
        rows = []
        for c in candidates:
            f: dict[str, float] = {}
            f["freq"] = float(rank_w[list(c.passages)].sum() / rank_w.sum()) if c.passages else 0.0
            f["spread"] = len(c.passages) / n
            cooc = [s for _, s in c.sentences if names_any(s, entity_terms)] if entity_terms else []
            f["entity_cooc"] = len(cooc) / len(c.sentences) if c.sentences else 0.0
            f["cooc_count"] = min(1.0, len(cooc) / 3)
            f["keyword_cooc"] = max((sum(names_term(s, w) for w in words) / len(words) for _, s in c.sentences),
                                    default=0.0) if words else 0.0
            kind = c.kind if (c.node_id and self.graph and c.kind) else guess_type(c.text)
            f["type_match"] = float(bool(expected) and bool(kind) and types_agree(expected, kind))
            f["type_mismatch"] = float(bool(expected) and bool(kind) and not types_agree(expected, kind))
            f["graph_fact"] = float(bool(c.edge_citations))
            f["graph_edge"] = float(c.node_id in edge_nodes)
            f["stored"] = float(c.stored)
            f["linked"] = float(bool(c.node_id) and self.graph)
            f["whole_chunk"] = c.whole / (c.whole + c.parts) if c.whole + c.parts else 0.0
            tokens = re.findall(r"\w+", c.text.lower())
            f["generic"] = float(all(t in GENERIC or t in _STOP for t in tokens))
            f["name_form"] = float(bool(re.search(r"[A-Z].*[A-Z0-9]|\d|^[A-Z][a-z]+$", c.text.strip())))
            f["length"] = min(1.0, len(tokens) / 4)
            f["contained"] = float(c.key in contained)
            f["listed"] = min(1.0, c.listed / 2) if listing else 0.0
            c.features = {k: (0.0 if k in self.disabled else v) for k, v in f.items()}
            rows.append([c.features[k] for k in FEATURES])
        return np.array(rows, dtype=np.float64).reshape(len(candidates), len(FEATURES))

    def score(self, candidates: Sequence[Candidate], result: RetrievalResult, hits: Sequence[PassageHit],
              entity_terms: Sequence[str]) -> None:
        """Set each candidate's ``score`` = logistic(bias + weights . features), in [0, 1]."""
        if not candidates:
            return
        self._apply(candidates, self.features(candidates, result, hits, entity_terms))

    def _apply(self, candidates: Sequence[Candidate], x: np.ndarray) -> None:
        if not len(candidates):
            return
        z = self.bias + x.reshape(len(candidates), len(FEATURES)) @ self.weights
        for c, s in zip(candidates, 1.0 / (1.0 + np.exp(-z))):
            c.score = float(np.clip(s, 0.0, 1.0))

    def _edge_nodes(self, result: RetrievalResult, candidates: Sequence[Candidate]) -> set[str]:
        """Candidate nodes joined to a question entity by a graph edge."""
        question_ids = [e.node_id for e in result.entities]
        nodes = [c.node_id for c in candidates if c.node_id]
        if self.store is None or not question_ids or not nodes:
            return set()
        edges = self.store.edges_among(list(dict.fromkeys(question_ids + nodes)))
        if edges.empty:
            return set()
        qs = set(question_ids)
        out = set(edges.loc[edges["source"].isin(qs), "target"]) | set(edges.loc[edges["target"].isin(qs), "source"])
        return {str(x) for x in out} - qs

    # ------------------------------------------------------------------------------------------
    def _item(self, c: Candidate, hits: Sequence[PassageHit], entity_terms: Sequence[str]) -> ExactAnswer:
        supporting = [(p, s) for p, s in c.sentences if not entity_terms or names_any(s, entity_terms)]
        chosen = (supporting or c.sentences)[:3]
        cites = [Citation("passage", hits[p].passage_id, _label(hits[p])) for p, _ in chosen]
        cites += c.edge_citations[:2]
        synonyms = [s for s in c.terms() if _norm(s) != _norm(c.text)]
        synonyms = list(dict.fromkeys(synonyms))
        return ExactAnswer(c.text, tuple(synonyms), c.node_id, round(c.score, 4), tuple(dict.fromkeys(cites)))

    def yes_no(self, result: RetrievalResult, hits: Sequence[PassageHit], entity_terms: Sequence[str]
               ) -> tuple[YesNo | None, tuple[Citation, ...]]:
        """The verdict of a yes/no question and the sentences it rests on (:mod:`engram_kit.answering.yesno`)."""
        from engram_kit.answering.structure import relation_patterns

        words = keywords(result.question, entity_terms)
        per_entity = [[t for t in (e.mention, e.name) if t and len(t) >= 2] for e in result.entities]
        relations = relation_patterns(result.question, result.entities, result.graph_schema())
        evidence: list[Evidence] = []
        weaker: list[Evidence] = []
        for i, (hit, sents) in enumerate(zip(hits, self._sentences(hits))):
            for s in sents:
                weight = evidence_weight(s, per_entity, words, relations)
                if weight <= 0:
                    continue
                item = Evidence(s, Citation("passage", hit.passage_id, _label(hit)), weight / (1 + i), polarity(s))
                (evidence if weight >= 1 else weaker).append(item)
        return decide(evidence or weaker, self.settings.yesno_no_share)


def graph_answers(facts: Any) -> bool:  # FactsResult
    """Whether the graph itself answers the question: the composer's facts of the asked relation (or of the
    profile's fallback relation) hold at least one edge from a question entity."""
    return facts is not None and any(c.kind == "edge" for claim in getattr(facts, "claims", ()) or ()
                                     for c in claim.citations)


def literature_answers(candidates: Sequence[Candidate], cutoff: float) -> bool:
    """Whether the passages themselves answer: a candidate the facts do not hold scores at least ``cutoff``,
    shares a sentence with a question entity and is not of another type than the one asked. Then the facts'
    targets compete on score like any candidate instead of being listed whatever their score: on BioASQ 12b dev
    (recent drugs, trials and symptoms Hetionet lacks) listing them first gave oracle list F1 0.270 against
    0.309 with this test (own retrieval 0.232 -> 0.259), factoid MRR 0.342 -> 0.351 (0.315 -> 0.323); never
    listing them first gave 0.326, but then the BACE1 list of the bundled sample (an unrelated UCHL1 gene list in
    the top passages) would again lead with co-mentioned genes."""
    return any(not c.edge_citations and c.score >= cutoff and c.features.get("entity_cooc", 0.0) > 0
               and c.features.get("type_mismatch", 0.0) == 0 for c in candidates)


def typed_phrase(c: Candidate) -> bool:
    """Whether an unlinked candidate may stand beside a graph that answers: not of another type than the one
    asked, and either of that type or a noun phrase the extractor stored at ingestion (a recognised mention, not
    a chunk of words). Without it, "Which drugs treat Parkinson's disease?" within two papers listed "concerns"
    and "daily", and "Which diseases is TP53 associated with?" "human", "mutation" and "TP53 mutation" (a
    newcomer's reading of the bundled sample, 2026-12-03). On BioASQ 12b dev (oracle / own retrieval): factoid
    MRR 0.351 -> 0.355 / 0.323 -> 0.327, list F1 0.332 -> 0.330 / 0.267 -> 0.261; requiring both a stored phrase
    and a type match cost list F1 0.332 -> 0.305 / 0.267 -> 0.244 and was not kept."""
    f = c.features
    return f.get("type_mismatch", 0.0) == 0 and (f.get("type_match", 0.0) > 0 or f.get("stored", 0.0) > 0)


def literature_backed(c: Candidate) -> bool:
    """Whether a candidate the graph facts do not hold may still join a graph-answered list: it must be a node
    of the expected kind and share a sentence with a question entity. Without this gate, when the graph lists
    BACE1's interaction partners, genes that merely occur in the same top passages (a UCHL1 gene list, DBH and
    IL1A in another study) outranked them, and for "Which drugs treat Parkinson's disease?" an unlinked
    "symptoms" joined the drugs. Applied only when the graph answers (:func:`graph_answers`): on BioASQ 12b dev
    (recent drugs and trials Hetionet lacks) a co-occurrence requirement on every list lowered list F1, and this
    gate with the fact targets it lists costs oracle list F1 0.310 -> 0.281 and factoid MRR 0.351 -> 0.342 there
    (Hetionet's facts are rarely BioASQ's gold answers; measured 2026-12-03, benchmarks/results/bioasq_answers.md).
    Dropping, without the gate, every node of another kind than the one asked cost factoid MRR 0.342 -> 0.292 and
    was not kept."""
    return bool(c.node_id) and c.features.get("type_match", 0.0) > 0 and c.features.get("entity_cooc", 0.0) > 0


_COORD_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|and/or)\s+|(?<=\w)/(?=\w)")


def coordination_members(sentence: str) -> list[str]:
    """The members of the coordinations in ``sentence`` ("A, B and C", "A or B", "A/B/C"): the chunk
    (:func:`chunks`) next to each separator, for a clause holding at least two of them (a list of names, the
    form a list answer takes in the literature).

    >>> coordination_members("Trikafta combines elexacaftor, tezacaftor and ivacaftor.")
    ['elexacaftor', 'tezacaftor', 'ivacaftor']
    """
    out: list[str] = []
    for clause in re.split(r"[;:()\[\]]|\.\s", sentence):
        pieces = [p for p in _COORD_SPLIT.split(clause) if p.strip()]
        if len(pieces) < 2:
            continue
        members = [(found[-1] if i == 0 else found[0]) for i, piece in enumerate(pieces) if (found := chunks(piece))]
        if len(members) < 2:
            continue
        # the first member as long as the longest other one ("Trikafta combines elexacaftor, ..." -> elexacaftor)
        members[0] = members[0][-max(len(m) for m in members[1:]):]
        out += [" ".join(m) for m in members if len(m) <= 4]
    return out


def _contained(candidates: Sequence[Candidate]) -> set[str]:
    """Keys of candidates whose name is a proper part of a longer candidate's name that occurs in at least half
    as many passages ("shunt" inside "ventriculoperitoneal shunt", "KRAS" inside "KRAS G12C"): the longer name is
    the answer a reader would give."""
    norms = [(c.key, f" {_norm(c.text)} ", len(c.passages)) for c in candidates]
    longer = sorted(norms, key=lambda t: -len(t[1]))[:400]
    # One string of the longer names, searched with str.find: a Python test per (name, longer name) pair cost
    # 0.3 s per answer. A padded name holds no "\n", so each hit lies inside one longer name.
    joined = "\n".join(m for _, m, _ in longer)
    starts = list(itertools.accumulate((len(m) + 1 for _, m, _ in longer[:-1]), initial=0))
    out = set()
    for key, n, count in norms:
        at = joined.find(n)
        while at != -1:
            i = bisect.bisect_right(starts, at) - 1
            k, m, other = longer[i]
            if len(m) > len(n) and k != key and other >= count / 2:
                out.add(key)
                break
            at = joined.find(n, at + 1)
    return out


def _missing(value: Any) -> bool:
    """Whether a table cell is empty in pandas' sense (None or NaN)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def _norm(text: str) -> str:
    text = re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()
    return re.sub(r"(?<=[a-z]{3})s$", "", text)


def _word_norm(text: str) -> str:
    """:func:`_norm` with the plural "s" dropped from every word, so "symptoms" in a question blocks the
    candidate "symptom" and "mutations" the candidate "mutation"."""
    return " ".join(re.sub(r"(?<=[a-z]{3})s$", "", w) for w in re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


_ABBR = re.compile(r"\(\s*([A-Za-z][A-Za-z0-9\-]{1,9})\s*\)")


def abbreviations(texts: Iterable[str]) -> dict[str, str]:
    """``{abbreviation: long form}`` defined in ``texts`` as "long form (ABBR)" (Schwartz & Hearst, PSB 2003:
    the abbreviation's letters found in order in the words before it, its first letter starting a word; at most
    ``min(len + 5, 2 len)`` words). An abbreviation needs a capital letter; the first definition wins.

    >>> abbreviations(["Platelet-rich plasma (PRP) and bone marrow aspirate."])
    {'PRP': 'Platelet-rich plasma'}
    """
    out: dict[str, str] = {}
    for text in texts:
        for m in _ABBR.finditer(text):
            short = m.group(1)
            if short in out or not any(ch.isupper() for ch in short) or not short[0].isalnum():
                continue
            before = re.split(r"[.;:()\[\]]", text[: m.start()])[-1]
            words = before.split()[-min(len(short) + 5, 2 * len(short)):]
            long_form = _long_form(short, " ".join(words))
            if long_form and len(long_form) > len(short):
                out[short] = long_form
    return out


def _long_form(short: str, text: str) -> str | None:
    """The shortest end of ``text`` holding the letters of ``short`` in order, the first one starting a word."""
    s, i = len(short) - 1, len(text) - 1
    while s >= 0:
        ch = short[s].lower()
        if not ch.isalnum():
            s -= 1
            continue
        while i >= 0 and (text[i].lower() != ch or (s == 0 and i > 0 and text[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return None
        i -= 1
        s -= 1
    return text[i + 1:].strip() or None


def _surface(text: str, name: str) -> str | None:
    """How ``text`` spells the noun phrase ``name`` (case-insensitive, whole words, plural allowed), or None."""
    if not name or len(name) > 80:
        return None
    if text.isascii() and name.isascii() and name.lower() not in text.lower():  # no pattern compiled for a miss
        return None
    m = _name_regex(name).search(text)
    return m.group(0) if m else None


@lru_cache(maxsize=16_384)
def _name_regex(name: str) -> re.Pattern[str]:
    """The compiled pattern of :func:`_surface` (more distinct names per answer than ``re``'s cache holds)."""
    return re.compile(rf"(?<!\w){re.escape(name)}(?:e?s)?(?!\w)", re.IGNORECASE)

