"""Noise control for literature maps: boilerplate text, generic entities, rare pairs, PMI weights.

A co-occurrence map of raw text is dominated by three kinds of noise (Van Eck & Waltman, "VOSviewer",
Scientometrics 84, 2010; the Empirica literature-mapping defaults):

1. **Text that is not science**: journal names, author affiliations, copyright lines and reference lists.
   :func:`boilerplate_reason` classifies a sentence; the builder drops such sentences before pairing.
2. **Generic entities** ("cells", "cancer", "patients", "death", "growth") that co-occur with everything and
   so sit on every shortest path. Two complementary remedies:

   * a stoplist (:data:`GENERIC_ENTITY_NAMES`, matched on the normalised Hetionet name or surface form)
     removes the worst offenders outright;
   * :func:`document_frequency_factor` down-weights every entity by how many documents of the corpus
     mention it, an IDF (Sparck Jones, J. Documentation 28, 1972) rescaled to (0, 1].
3. **Chance pairs** seen in one or two sentences: :data:`DEFAULT_MIN_OCCURRENCE` (4 sentences, the
   Empirica default) drops them; optionally, :func:`pmi_weights` replaces counts by the PMI-normalised
   weights of Microsoft GraphRAG's NLP noun graph.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

from engram_kit.settings import Settings

__all__ = [
    "BOILERPLATE_PATTERNS",
    "DEFAULT_MIN_OCCURRENCE",
    "GENERIC_ENTITY_NAMES",
    "boilerplate_reason",
    "cut_reference_section",
    "document_frequency_factor",
    "is_generic",
    "pmi_weights",
]

#: Minimum number of sentences an edge needs in the merged map: 4, the minimum-occurrence default of the
#: Empirica literature-mapping tool (VOSviewer's term-map default is 10 occurrences, for larger corpora).
DEFAULT_MIN_OCCURRENCE: int = Settings.map_min_occurrence

#: Normalised names (:func:`engram_kit.extraction.normalize_name`) of entities too generic to map.
#: Curated from the most frequent entities of the 430 bundled abstracts and the generic words the issue
#: names ("cells", "cancer", "patients"): Hetionet Side Effect / Biological Process / Disease nodes whose
#: names are everyday words in an abstract ("death", "growth", "injury", "surgery", "stress").
#: Specific processes (apoptosis, inflammation) and organs (brain, liver) are *not* listed: the
#: document-frequency factor down-weights them; sample fluids and tissue words (blood, serum, plasma) are.
GENERIC_ENTITY_NAMES: frozenset[str] = frozenset({
    "cell", "cells", "cancer", "cancers", "tumor", "tumors", "tumour", "tumours", "neoplasm", "neoplasms",
    "patient", "patients", "disease", "diseases", "disorder", "disorders", "syndrome", "protein", "proteins",
    "gene", "genes", "death", "growth", "injury", "injuries", "stress", "surgery", "disability",
    "pathogenesis", "behavior", "behaviour", "gene expression", "secretion", "infection", "infections",
    "body weight", "weight", "toxicity", "drug", "drugs", "mortality", "recurrence", "lesion", "lesions",
    "blood", "serum", "plasma", "tissue", "tissues", "body",
})

#: (reason, compiled pattern) pairs; a sentence matching any is boilerplate. Patterns are searched in the
#: sentence; see :func:`boilerplate_reason` for the length conditions.
BOILERPLATE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("copyright", re.compile(r"(copyright|\u00a9|\(c\)\s*(19|20)\d\d|all rights reserved|published by "
                             r"(elsevier|wiley|springer)|john wiley & sons)", re.I)),
    ("truncation", re.compile(r"\(?abstract truncated", re.I)),
    ("affiliation", re.compile(r"(\bdepartment of\b|\bdept\.|\bfaculty of\b|\bschool of medicine\b|"
                               r"\buniversity\b.*\b(usa|uk|china|japan|germany|france|italy|canada)\b|"
                               r"\binstitute (of|for)\b.*,\s*[A-Z][a-z]+|[\w.+-]+@[\w-]+\.[\w.]+|"
                               r"\bcorresponding author\b)", re.I)),
    ("reference", re.compile(r"(\b(19|20)\d\d\s*;\s*\d+\s*(\(\d+\))?\s*:\s*\d+|\bdoi:\s*10\.\d+|"
                             r"\bPMID:?\s*\d+|^\s*\[\d+\]\s+[A-Z][a-z]+\s+[A-Z]{1,3}\b|"
                             r"^[A-Z][a-z]+ [A-Z]{1,2}, [A-Z][a-z]+ [A-Z]{1,2}(, [A-Z][a-z]+ [A-Z]{1,2})*)")),
)

_REFERENCE_HEADING = re.compile(r"^\s*(references|bibliography|literature cited|works cited)\s*:?\s*$",
                                re.I | re.M)


def cut_reference_section(text: str) -> int:
    """Offset where a reference list starts (a line reading "References", "Bibliography"...), else len(text).

    Only a heading in the second half of the text counts, so a title like "References to ..." at the top
    of a document does not erase it.
    """
    for match in _REFERENCE_HEADING.finditer(text):
        if match.start() >= len(text) // 2:
            return match.start()
    return len(text)


def boilerplate_reason(sentence: str, journal_names: Iterable[str] = ()) -> str | None:
    """Why a sentence is not scientific content, or None when it is.

    Parameters
    ----------
    sentence : str
        One sentence (see :func:`engram_kit.analysis.sentences.split_sentences`).
    journal_names : iterable of str
        Journal titles of the corpus (e.g. :attr:`PubMedRecord.journal`); a sentence that is (mostly) a
        journal name is reported as ``"journal"``.

    Returns
    -------
    str or None
        One of ``"journal"``, ``"copyright"``, ``"truncation"``, ``"affiliation"``, ``"reference"``.

    Notes
    -----
    The affiliation and reference patterns fire on any match, so they are kept narrow: an e-mail
    address, "Department of", a ``2010;12(3):45`` citation, a ``doi:``, a ``PMID``, or a sentence that
    starts as an author list ``Smith J, Doe A``.
    """
    stripped = sentence.strip()
    low = stripped.lower().rstrip(".")
    for journal in journal_names:
        name = journal.strip().lower().rstrip(".")
        if name and (low == name or (name in low and len(low) <= len(name) + 20)):
            return "journal"
    for reason, pattern in BOILERPLATE_PATTERNS:
        if pattern.search(stripped):
            return reason
    return None


def is_generic(name: str, stoplist: Iterable[str] | None = None) -> bool:
    """Whether an entity with this normalised name is on the generic-entity stoplist.

    Parameters
    ----------
    name : str
        Normalised entity name (``normalize_name`` of the Hetionet name or the surface form).
    stoplist : iterable of str, optional
        Normalised names; default :data:`GENERIC_ENTITY_NAMES`.
    """
    names = GENERIC_ENTITY_NAMES if stoplist is None else stoplist
    return name in names


def document_frequency_factor(df: int, n_documents: int) -> float:
    """Down-weighting factor of an entity mentioned in ``df`` of ``n_documents`` documents.

    ``f = log(1 + N / df) / log(1 + N)``: 1 for an entity of a single document, falling to
    ``log 2 / log(1 + N)`` (0.15 for N = 100) for one mentioned everywhere. An edge's analysis weight is
    multiplied by ``f(a) * f(b)``, which lengthens the ``1 / weight`` distances through ubiquitous entities
    and so lowers their betweenness.

    Parameters
    ----------
    df : int
        Documents mentioning the entity, in [1, n_documents].
    n_documents : int
        Documents in the corpus (the selected ones), >= 1.

    Returns
    -------
    float
        In (0, 1]; 1.0 when ``n_documents == 1``.
    """
    if n_documents <= 1:
        return 1.0
    df = min(max(df, 1), n_documents)
    return math.log1p(n_documents / df) / math.log1p(n_documents)


def pmi_weights(
    edge_counts: Mapping[tuple[str, str], float], node_counts: Mapping[str, float]
) -> dict[tuple[str, str], float]:
    """PMI-normalised edge weights, as in Microsoft GraphRAG's NLP noun graph.

    ``w'(a, b) = p(a, b) * log2(p(a, b) / (p(a) p(b)))`` with ``p(a, b) = w(a, b) / sum of edge weights``
    and ``p(a) = count(a) / sum of node counts`` (GraphRAG ``build_noun_graph._calculate_pmi_edge_weights``,
    graphrag 1.x; Church & Hanks, "Word association norms, mutual information, and lexicography", 1990).

    Parameters
    ----------
    edge_counts : mapping (a, b) -> float
        Co-occurrence weights (sentences), > 0.
    node_counts : mapping entity -> float
        Sentence counts of the entities, > 0 for every endpoint.

    Returns
    -------
    dict (a, b) -> float
        Only edges with a positive value (pairs seen more often than chance); weights are small
        (probabilities times bits), but only their ratios matter to Louvain and to betweenness.
    """
    total_edges = float(sum(edge_counts.values()))
    total_nodes = float(sum(node_counts.values()))
    out: dict[tuple[str, str], float] = {}
    if total_edges <= 0 or total_nodes <= 0:
        return out
    for (a, b), weight in edge_counts.items():
        p_ab = weight / total_edges
        p_a, p_b = node_counts[a] / total_nodes, node_counts[b] / total_nodes
        value = p_ab * math.log2(p_ab / (p_a * p_b))
        if value > 0:
            out[(a, b)] = value
    return out
