"""Wording of knowledge-graph assertions in answers: what an edge says, under which conditions, and who says so.

An edge is evidence for exactly what it asserts, so a claim built from it keeps the assertion's meaning:

* **direction**: the subject comes first (``"SHH (human) has phenotype Cleft palate"``); the store keeps
  edges subject -> object, so the stored order is the wording order (symmetric predicates read either way);
* **negation**: a negated assertion is never worded as the plain triple; it reads
  ``"NOT: SHH (human) has phenotype Tetralogy of Fallot (negated assertion, source infores:...)"``;
* **qualifiers**: a qualified assertion carries them
  (``"... has phenotype Cleft palate (qualifiers: frequency HP:0040283 'Occasional')"``);
* **provenance**: the citation label names the graph, the predicate, the primary (and aggregator) knowledge
  sources and the publications (``"Monarch KG sample: biolink:has_phenotype, source infores:hpo-annotations,
  PMID:8896572"``). Hetionet claims keep their established wording and label (``"Hetionet TREATS_CtD"``).

Used by :class:`~engram_kit.answering.ExtractiveComposer` (graph claims) and
:class:`~engram_kit.answering.llm.LLMComposer` (the evidence shown to the model and its citation check).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engram_kit.kg.schema import METAEDGE_BY_REL_TYPE
from engram_kit.retrieval.results import EdgeEvidence
from engram_kit.settings import Settings

#: Metaedge verb -> phrase used in a Hetionet graph claim ("Donepezil treats Alzheimer's disease").
VERB_PHRASES: dict[str, str] = {
    "associates": "is associated with", "interacts": "interacts with", "localizes": "localizes to",
    "participates": "participates in", "covaries": "covaries with", "resembles": "resembles",
}

#: Names of common qualifier values (so a claim can say ``HP:0040283 'Occasional'`` without the ontology).
#: Sources: Human Phenotype Ontology (hp.obo): the six frequency terms under HP:0040279 "Frequency" and the
#: main onset terms under HP:0003674 "Onset"; PATO for the biological sex qualifiers. Others are named from
#: the graph's own nodes when it has them (see :func:`qualifier_phrase`), else shown as the bare CURIE.
QUALIFIER_VALUE_NAMES: dict[str, str] = {
    # HPO frequency (HP:0040279): the frequencies HPO annotations (and Monarch's edges) qualify phenotypes with
    "HP:0040280": "Obligate", "HP:0040281": "Very frequent", "HP:0040282": "Frequent",
    "HP:0040283": "Occasional", "HP:0040284": "Very rare", "HP:0040285": "Excluded",
    # HPO onset (HP:0003674)
    "HP:0030674": "Antenatal onset", "HP:0011460": "Embryonal onset", "HP:0011461": "Fetal onset",
    "HP:0003577": "Congenital onset", "HP:0003623": "Neonatal onset", "HP:0003593": "Infantile onset",
    "HP:0011463": "Childhood onset", "HP:0003621": "Juvenile onset", "HP:0003581": "Adult onset",
    "HP:0003584": "Late onset",
    # PATO biological sex
    "PATO:0000383": "female", "PATO:0000384": "male",
}

#: Words that state a negation in an English sentence (the LLM citation check requires one for a negated
#: assertion): "not", "no", "never", "n't", "absent", "lacks", "negated", ...
NEGATION_CUES = re.compile(
    r"\b(not|no|never|none|neither|nor|cannot|without|absent|absence|lacks?|lacking|negated|negative)\b|n't",
    re.IGNORECASE,
)
#: Publications shown in a citation label before "+N more".
MAX_LABEL_PUBLICATIONS: int = Settings.answer_label_publications
#: Suffix of KGX qualifier property names dropped when shown (``frequency_qualifier`` -> ``frequency``).
_QUALIFIER_SUFFIX = "_qualifier"


def is_hetionet(edge: EdgeEvidence) -> bool:
    """True for a Hetionet edge (its rel type is a Hetionet metaedge and its predicate not a CURIE)."""
    return edge.rel_type in METAEDGE_BY_REL_TYPE and ":" not in edge.predicate


def predicate_phrase(edge: EdgeEvidence) -> str:
    """The verb phrase of an edge: Hetionet ``"treats"``, ``"interacts with"``; Biolink the predicate's local
    name in words (``biolink:has_phenotype`` -> ``"has phenotype"``)."""
    meta = METAEDGE_BY_REL_TYPE.get(edge.rel_type)
    if meta is not None and ":" not in edge.predicate:
        return VERB_PHRASES.get(meta.verb, meta.verb)
    local = (edge.predicate or edge.rel_type).rpartition(":")[2]
    return local.replace("_", " ").lower()


def _values(value: Any) -> list[str]:
    return [str(v) for v in (value if isinstance(value, (list, tuple)) else [value]) if str(v)]


def _named(value: str, names: Mapping[str, str]) -> str:
    name = names.get(value) or QUALIFIER_VALUE_NAMES.get(value)
    return f"{value} '{name}'" if name and name != value else value


def qualifier_phrase(edge: EdgeEvidence, names: Mapping[str, str] | None = None) -> str:
    """``"frequency HP:0040283 'Occasional'; onset HP:0003577 'Congenital onset'"``, or ``""`` without qualifiers.

    Parameters
    ----------
    edge : the edge.
    names : CURIE -> name of values known beside :data:`QUALIFIER_VALUE_NAMES` (e.g. the graph's nodes).
    """
    names = names or {}
    parts = []
    for key, value in edge.qualifier_map.items():
        kind = key[: -len(_QUALIFIER_SUFFIX)] if key.endswith(_QUALIFIER_SUFFIX) else key
        values = ", ".join(_named(v, names) for v in _values(value))
        # KGX's generic ``qualifiers`` column holds bare CURIEs: "(qualifiers: FYECO:...)", not "qualifiers qualifiers"
        parts.append(values if kind == "qualifiers" else f"{kind.replace('_', ' ')} {values}")
    return "; ".join(parts)


def qualifier_terms(edge: EdgeEvidence, names: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Strings any one of which states a qualifier of ``edge``: each value's CURIE and its name (if known).
    Empty for an unqualified edge."""
    names = names or {}
    terms: list[str] = []
    for value in edge.qualifier_map.values():
        for v in _values(value):
            terms.append(v)
            name = names.get(v) or QUALIFIER_VALUE_NAMES.get(v)
            if name:
                terms.append(name)
    return tuple(dict.fromkeys(terms))


def _sources(edge: EdgeEvidence) -> str:
    """``"source infores:x"`` / ``"via omim, hpoa"`` / both, from the edge's knowledge sources."""
    parts = []
    if edge.primary_knowledge_source:
        parts.append("source " + ", ".join(s for s in edge.primary_knowledge_source.split("|") if s))
    if edge.aggregator_knowledge_source:
        parts.append("via " + ", ".join(s for s in edge.aggregator_knowledge_source.split("|") if s))
    return ", ".join(parts)


def assertion_text(edge: EdgeEvidence, source_name: str, target_name: str,
                   names: Mapping[str, str] | None = None) -> str:
    """The claim an edge supports, worded with its direction, negation and qualifiers.

    Parameters
    ----------
    edge : the edge (``source`` = subject, ``target`` = object).
    source_name, target_name : display names of ``edge.source`` / ``edge.target``.
    names : CURIE -> name for qualifier values (see :func:`qualifier_phrase`).

    Returns
    -------
    str
        ``"SHH (human) has phenotype Cleft palate"``; qualified: ``"... (qualifiers: frequency HP:0040283
        'Occasional')"``; negated: ``"NOT: SHH (human) has phenotype Tetralogy of Fallot (negated assertion,
        source infores:hpo-annotations)"`` -- never the bare triple for a negated or qualified edge.

    Examples
    --------
    >>> e = EdgeEvidence("Gene::A", "PhenotypicFeature::HP:1", "HAS_PHENOTYPE", "biolink:has_phenotype",
    ...                  negated=True, primary_knowledge_source="infores:hpo-annotations")
    >>> assertion_text(e, "A", "B")
    'NOT: A has phenotype B (negated assertion, source infores:hpo-annotations)'
    """
    plain = f"{source_name} {predicate_phrase(edge)} {target_name}"
    qualifiers = qualifier_phrase(edge, names)
    if edge.negated:
        details = ["negated assertion" + (f", {_sources(edge)}" if _sources(edge) else "")]
        if qualifiers:
            details.append(f"qualifiers: {qualifiers}")
        return f"NOT: {plain} ({'; '.join(details)})"
    return f"{plain} (qualifiers: {qualifiers})" if qualifiers else plain


def edge_label(edge: EdgeEvidence, graph_name: str = "") -> str:
    """The citation label of an edge claim.

    Hetionet: ``"Hetionet TREATS_CtD"`` (unchanged wording). Any other graph: ``"<graph name>: <predicate>"``
    then the knowledge sources, up to :data:`MAX_LABEL_PUBLICATIONS` publications and ``negated``, e.g.
    ``"Monarch KG sample: biolink:has_phenotype, source infores:hpo-annotations, PMID:8896572"``.

    Parameters
    ----------
    edge : the edge.
    graph_name : the graph's display name (workspace manifest ``knowledge_graph.name``); ``""`` -> ``"KGX graph"``.
    """
    if is_hetionet(edge):
        return f"Hetionet {edge.rel_type}"
    parts = [f"{graph_name or 'KGX graph'}: {edge.predicate or edge.rel_type}"]
    if _sources(edge):
        parts.append(_sources(edge))
    publications = [p for p in edge.publications.split("|") if p]
    if publications:
        more = len(publications) - MAX_LABEL_PUBLICATIONS
        parts.append(", ".join(publications[:MAX_LABEL_PUBLICATIONS]) + (f" +{more} more" if more > 0 else ""))
    if edge.negated:
        parts.append("negated")
    return ", ".join(parts)


def states_negation(sentence: str) -> bool:
    """True when ``sentence`` words a negation (:data:`NEGATION_CUES`)."""
    return bool(NEGATION_CUES.search(sentence))


def states_qualifier(sentence: str, terms: tuple[str, ...]) -> bool:
    """True when ``sentence`` names any of ``terms`` (case-insensitive), or when there are none."""
    lowered = sentence.lower()
    return not terms or any(term.lower() in lowered for term in terms)
