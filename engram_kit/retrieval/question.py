"""Question -> weighted seed entities: kind priors, specificity weights, pins and drops, unresolved terms.

The mentions of a question are found and resolved by the same extractor and resolver as passages (and the
same lexicon as :meth:`Workspace.search_entities`); this module decides which readings become PPR seeds
and with what weight.

* **Kind priors.** When one mention resolves with equal confidence to nodes of several kinds, the reading
  whose kind has the highest prior wins and the others are dropped, with the reason recorded on the
  entity (``ResolvedEntity.reason``). Hetionet repeats thousands of disease names as SIDER Side Effect
  terms ("colorectal cancer" is both), and a question about a disease means the disease; a Side Effect
  (or Biolink PhenotypicFeature) reading is kept only when no other kind matches. Priors are by kind name
  (:data:`KIND_PRIORS`), not by question.
* **Specificity.** A seed's weight is ``confidence * max(n, 1) ** -specificity_exponent`` where ``n`` is the
  number of passages that mention the node (HippoRAG's IDF-like node specificity, Gutierrez et al. 2024),
  so generic words many passages mention (the Anatomy node "blood") cannot take most of the restart mass
  from the specific entity of the question ("BRCA1"). Knowledge-graph degree was tried first and failed
  that case on the bundled sample (BRCA1 has more curated edges than "blood" has there). The exponent is
  ``Settings.seed_specificity`` (0 = off).
* **Pins and drops.** ``seeds=`` adds nodes the user names (weight 1 before normalisation, method
  ``"pinned"``); ``exclude=`` removes nodes from the seeds.
* **Unresolved terms.** Mentions that did not resolve, and question words that look biomedical (gene-like
  symbols such as "BRCA1" or "IL-6", drug/disease suffixes) but are covered by no resolved mention, are
  reported so the user sees what the graph did not understand.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from engram_kit.errors import QueryError
from engram_kit.settings import Settings

#: Prior of a node kind when one mention matches several kinds with equal confidence (higher wins).
#: Diseases, drugs and genes are what biomedical questions are about; Side Effect / PhenotypicFeature terms
#: duplicate many disease names (SIDER, HPO) and Anatomy names are generic words ("blood", "heart").
#: Kinds not listed get ``Settings.default_kind_prior``.
KIND_PRIORS: dict[str, float] = {
    # Hetionet kinds
    "Disease": 1.0, "Compound": 0.95, "Gene": 0.9, "Pathway": 0.8, "Biological Process": 0.75,
    "Molecular Function": 0.7, "Cellular Component": 0.7, "Pharmacologic Class": 0.7, "Symptom": 0.6,
    "Anatomy": 0.5, "Side Effect": 0.4,
    # Biolink categories (KGX graphs)
    "ChemicalEntity": 0.95, "SmallMolecule": 0.95, "Drug": 0.95, "Protein": 0.9,
    "PhenotypicFeature": 0.6, "AnatomicalEntity": 0.5,
}

#: Question words that look biomedical: gene/protein-like symbols (letters with digits or hyphenated
#: capitals: "BRCA1", "IL-6", "TNF-alpha", "p53") and common drug/disease suffixes.
BIOMEDICAL_TERM = re.compile(
    r"\b(?:[A-Za-z]{1,6}\d+[A-Za-z\d]*|[A-Z]{2,}[a-z]?-?\d*[A-Za-z]*|\w{3,}(?:mab|nib|vir|mycin|cillin|"
    r"statin|olol|pril|sartan|azole|itis|oma|emia|osis|pathy|gene)s?)\b"
)
#: Upper-case words that are English, not entity names (question openers and units).
_NOT_TERMS = frozenset({"DNA", "RNA", "I", "A", "USA", "UK", "FDA", "WHO", "COVID", "OR", "AND"})


@dataclass(frozen=True)
class SeedCandidate:
    """One resolved reading of one question mention, before seed weighting."""

    mention: str
    start: int
    end: int
    node_id: str
    name: str
    kind: str
    confidence: float
    method: str


def kind_prior(kind: str) -> float:
    """Prior of a node kind, in (0, 1] (see :data:`KIND_PRIORS`)."""
    return KIND_PRIORS.get(kind, Settings.default_kind_prior)


def choose_readings(candidates: list[SeedCandidate], *, use_kind_priors: bool = True
                    ) -> list[tuple[SeedCandidate, str]]:
    """The readings of one mention that become seeds, each with the reason it was chosen.

    ``candidates`` are the mention's readings that passed the confidence threshold, best first. The tied
    best readings are kept; with ``use_kind_priors`` only those of the highest-prior kind among the tie.
    """
    if not candidates:
        return []
    top = max(c.confidence for c in candidates)
    tied = [c for c in candidates if c.confidence >= top - 1e-9]
    if not use_kind_priors or len({c.kind for c in tied}) == 1:
        why = "best match" if len(tied) == 1 else f"tied best match ({len(tied)} readings kept)"
        return [(c, why) for c in tied]
    best_prior = max(kind_prior(c.kind) for c in tied)
    kept = [c for c in tied if kind_prior(c.kind) >= best_prior - 1e-9]
    dropped = sorted({c.kind for c in tied if c not in kept})
    why = f"kind prior: {kept[0].kind} preferred over {', '.join(dropped)} for the same name"
    return [(c, why) for c in kept]


def seed_weights(confidences: np.ndarray, degrees: np.ndarray, exponent: float) -> np.ndarray:
    """Seed weights ``confidence * max(frequency, 1) ** -exponent``, normalised to sum 1.

    Parameters
    ----------
    confidences : ndarray (k,), resolution confidences in [0, 1].
    degrees : ndarray (k,), the frequency of each seed node (the retriever passes the number of passages that
        mention it; any count >= 0 works, e.g. a degree).
    exponent : specificity exponent >= 0 (0: weights proportional to confidence).

    Returns
    -------
    ndarray (k,), float64, sum 1 (empty for k = 0).
    """
    conf = np.asarray(confidences, dtype=np.float64)
    if conf.size == 0:
        return conf
    w = conf * np.maximum(np.asarray(degrees, dtype=np.float64), 1.0) ** (-float(exponent))
    total = w.sum()
    return w / total if total > 0 else np.full(conf.size, 1.0 / conf.size)


def biomedical_terms(question: str, covered: Iterable[tuple[int, int]]) -> list[str]:
    """Words of ``question`` that look biomedical (:data:`BIOMEDICAL_TERM`) and lie outside every
    ``(start, end)`` span of ``covered`` (resolved mentions), in order, without repeats."""
    spans = list(covered)
    out: list[str] = []
    for m in BIOMEDICAL_TERM.finditer(question):
        word = m.group(0)
        if word.upper() in _NOT_TERMS or word.isdigit():
            continue
        if any(s < m.end() and m.start() < e for s, e in spans):
            continue
        if word not in out:
            out.append(word)
    return out


def check_pins(seeds: Mapping[str, float] | Iterable[str] | None, exclude: Iterable[str] | None
               ) -> tuple[dict[str, float], set[str]]:
    """Normalise the user's pinned seeds (``{node_id: weight}`` or node ids, weight 1) and exclusions.

    Raises
    ------
    QueryError
        If a pinned weight is negative or not a number.
    """
    pinned: dict[str, float] = {}
    if seeds is not None:
        items = seeds.items() if isinstance(seeds, Mapping) else ((s, 1.0) for s in seeds)
        for node_id, weight in items:
            try:
                w = float(weight)
            except (TypeError, ValueError):
                raise QueryError(f"seed {node_id!r}: weight {weight!r} is not a number; pass e.g. "
                                 "seeds={'Disease::DOID:9352': 1.0}.") from None
            if not w >= 0:
                raise QueryError(f"seed {node_id!r}: weight {w} is negative; seed weights are >= 0.")
            pinned[str(node_id)] = w
    return pinned, {str(x) for x in (exclude or ())}


#: An added word that is a head noun naming another kind of thing than the span: a role of a drug
#: ("dopamine D2" -> "Dopamine D2 Antagonists", a drug class), a reaction to it ("penicillin allergy"), a
#: product made of it. Such a completion is not a variant of the span.
ROLE_HEAD = re.compile(r"^(antagonist|agonist|inhibitor|blocker|modulator|activator|analog|derivative|allerg"
                       r"|poisoning|toxicit|deficien|antibod|vaccin|receptor|sanitiz|product|extract|preparation"
                       r"|combination|metabolite|salt|conjugate)", re.IGNORECASE)
#: An allele written after its gene symbol: "APOE E4", "APOE ε4", "APOE epsilon 4", "APOE*4", or fused
#: "ApoE4" (the gene part must be a Gene name of the lexicon; the whole is not a name of its own).
ALLELE = (re.compile(r"^(?P<gene>[A-Za-z][A-Za-z0-9\-]*[A-Za-z])\d{1,2}$"),  # fused: ApoE4
          re.compile(r"^(?P<gene>[A-Za-z][A-Za-z0-9\-]*?[A-Za-z0-9])(?:[\s\-]+[eE]|[\s\-]*(?:\u03b5|epsilon\s?|\*))"
                     r"\d{1,2}$"))

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")


def variant_candidates(question: str, lexicon, sorted_keys: list[str],  # Lexicon
                       covered: Iterable[tuple[int, int]], stopwords: frozenset[str],
                       settings: Settings | None = None) -> list[SeedCandidate]:
    """Readings of question spans that the gazetteer does not find but entity search does.

    Two variant forms, as in :meth:`Workspace.search_entities` (same lexicon, same normalised keys):

    * a span of words that is a word-boundary prefix of lexicon names ("type 2 diabetes", "high blood
      pressure", "penicillin"): every node behind the shortest such names, confidence
      ``settings.prefix_confidence``;
    * an upper-case abbreviation of 2-5 letters that is a lexicon key ("AD"), confidence
      ``settings.question_abbreviation_confidence``.

    Spans overlapping ``covered`` (already resolved mentions) are skipped, longer spans win, and a span
    whose variants name more than ``settings.max_variant_nodes`` nodes is dropped as too generic. Spans are at most
    ``settings.max_span_words`` words; ``settings`` None: :class:`~engram_kit.settings.Settings` defaults.
    """
    import bisect

    from engram_kit.extraction.normalize import normalize_name

    cfg = settings or Settings()
    taken = list(covered)
    words = list(_WORD.finditer(question))
    out: list[SeedCandidate] = []
    for n in range(min(cfg.max_span_words, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            first, last = words[i], words[i + n - 1]
            start, end = first.start(), last.end()
            if any(s < end and start < e for s, e in taken):
                continue
            if first.group(0).lower() in stopwords or last.group(0).lower() in stopwords:
                continue
            span = question[start:end]
            key = normalize_name(span)
            if not key:
                continue
            found: list[tuple[str, str, str]] = []
            confidence = cfg.prefix_confidence
            method = "prefix"
            gene = allele_gene(span, lexicon) if n <= 3 and not lexicon.get(key) else []
            if gene:  # an allele of a gene reads as the gene ("ApoE4" -> APOE)
                found, confidence, method = gene, cfg.allele_confidence, "allele"
            elif n == 1 and 2 <= len(span) <= 5 and span.isupper() and span.isalpha():
                found = [(e.node_id, e.surface, e.kind) for e in lexicon.get(key)]
                confidence, method = cfg.question_abbreviation_confidence, "abbreviation-variant"
            elif lexicon.get(key):
                continue  # an exact name: the gazetteer and resolver own it
            elif n >= 2 or BIOMEDICAL_TERM.fullmatch(span):
                lo = bisect.bisect_left(sorted_keys, key + " ")
                hi = bisect.bisect_left(sorted_keys, key + " \uffff")
                # a variant adds at most one qualifier word, and not a head noun of another kind of thing
                keys = [k for k in sorted_keys[lo:hi] if _variant_tail(k[len(key):], cfg.max_prefix_tail_words)]
                if keys:
                    fewest = min(k.count(" ") for k in keys)
                    found = [(e.node_id, e.surface, e.kind) for k in keys if k.count(" ") == fewest
                             for e in lexicon.get(k)]
            nodes = {node for node, _, _ in found}
            if not nodes or len(nodes) > cfg.max_variant_nodes:
                continue
            seen: set[str] = set()
            for node, _surface, kind in found:
                if node in seen:
                    continue
                seen.add(node)
                name = lexicon.node_names.get(node, (node, kind))[0]
                out.append(SeedCandidate(span, start, end, node, name, kind, confidence, method))
            taken.append((start, end))
    return out


def _variant_tail(tail: str, max_words: int = Settings.max_prefix_tail_words) -> bool:
    """Whether the words a prefix reading adds to the question's span keep it a variant of the span: at most
    ``max_words`` words (``Settings.max_prefix_tail_words``), none a head noun of another kind of thing
    (:data:`ROLE_HEAD`)."""
    words = tail.split()
    return len(words) <= max_words and not any(ROLE_HEAD.match(w) for w in words)


def allele_gene(span: str, lexicon) -> list[tuple[str, str, str]]:  # Lexicon
    """``(node_id, surface, kind)`` of the Gene that an allele written after its symbol names (:data:`ALLELE`:
    "ApoE4", "APOE E4", "APOE ε4" -> APOE), or []: the fused form first, so "ApoE4" is APOE, not "Apo"."""
    from engram_kit.extraction.normalize import normalize_name

    for pattern in ALLELE:
        match = pattern.match(span)
        if match:
            genes = [(e.node_id, e.surface, e.kind) for e in lexicon.get(normalize_name(match.group("gene")))
                     if e.kind == "Gene"]
            if genes:
                return genes
    return []
