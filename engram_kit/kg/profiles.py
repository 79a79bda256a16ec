"""Graph profiles: everything that differs between knowledge-graph formats, in one object per format.

A :class:`GraphProfile` holds what the rest of engram-kit must know about a graph format beyond its
schema (labels, relationship types, properties): its display names and provenance/citation wording,
which agents and evidence-desk templates apply to it, how its edges carry provenance, and kind priors
for entity linking and retrieval. Profiles are found by the schema's ``name`` through a registry
(:func:`register_profile`, :func:`profile_for`); a schema exposes its own as
:attr:`engram_kit.kg.schema.GraphSchema.profile`.

Adding a graph format means writing one module with a loader producing a
:class:`~engram_kit.kg.graph.KnowledgeGraph` whose schema has a new ``name``, plus one line
``register_profile(GraphProfile(name="mygraph", ...))``. A schema whose name has no registered profile
gets the generic profile (:data:`GENERIC_PROFILE` behaviour: Biolink-style provenance columns, every
agent and template that the schema's labels and relationship types allow).

No module outside this one compares ``schema.name`` with a format's name: ask the profile instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from engram_kit.kg.graph import KnowledgeGraph


def _no_priors() -> Mapping[str, float]:
    return MappingProxyType({})


@dataclass(frozen=True)
class GraphProfile:
    """What differs between graph formats (see the module docstring).

    Attributes
    ----------
    name : the schema name this profile belongs to (``GraphSchema.name``: ``"hetionet"``, ``"kgx"``).
    short_name : the format's name in running text: "not applicable to a <short_name> graph".
    display_name : the graph's name when the workspace manifest gives none (citations, headings).
    description : the graph named in prompts and schema descriptions ("Hetionet v1.0",
        "a Biolink KGX graph").
    llm_wording : how an LLM prompt names the graph; ``{name}`` is replaced by the graph's display name.
    desk_example : an example question the offline evidence desk answers on this format (help text).
    edge_label : edge field shown as an edge's label in graphs and neighbourhoods: ``"rel_type"`` or
        ``"predicate"`` (the Biolink predicate CURIE).
    predicates_are_names : whether users may name relationships by predicate (``"biolink:treats"``) as well
        as by relationship type.
    edges_stored_once : whether the format stores each undirected edge once with ``source < target`` (Hetionet
        does); answers then state an edge between two question entities once, in that orientation.
    unlisted_agents : names of registered agents routing does not even list for this format (Hetionet: the
        phenotype agent, whose questions the pathway and drug agents cover). Every other registered agent is
        listed; one whose required labels/relationship types the schema lacks is listed as "not applicable".
    desk_templates : names of the evidence-desk templates that may answer offline, or None for every template
        whose labels and relationship types the schema has.
    kind_priors : node kind -> prior weight in [0, 1] used to break ties between equally good candidate
        entities of different kinds (higher wins; kinds absent count 0). Entity linking and retrieval read it as
        ``schema.profile.kind_priors``; empty means no preference.
    relation_fallbacks : asked relation verb -> the verbs whose edges an answer lists instead when the graph
        has no edge of the asked one for the question's entity (Hetionet: a question about drugs that *treat*
        a disease with no ``TREATS_CtD`` edge is answered from ``PALLIATES_CpD``, its other curated indication
        relation, Himmelstein et al. 2017), each said to be a substitute. Verbs as :func:`engram_kit.answering.intent.verb_of`
        names them; empty means no fallback.
    """

    name: str
    short_name: str = ""
    display_name: str = ""
    description: str = ""
    llm_wording: str = "{name}"
    desk_example: str = "'Which edges does <identifier> have?'"
    edge_label: str = "predicate"
    predicates_are_names: bool = True
    edges_stored_once: bool = False
    unlisted_agents: tuple[str, ...] = ()
    desk_templates: tuple[str, ...] | None = None
    kind_priors: Mapping[str, float] = field(default_factory=_no_priors)
    relation_fallbacks: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if not self.short_name:
            object.__setattr__(self, "short_name", self.name.upper())
        if not self.display_name:
            object.__setattr__(self, "display_name", f"{self.short_name} graph")
        if not self.description:
            object.__setattr__(self, "description", f"a {self.display_name}")
        if self.edge_label not in ("rel_type", "predicate"):
            raise ValueError(f"GraphProfile.edge_label must be 'rel_type' or 'predicate', not {self.edge_label!r}.")
        bad = {k: v for k, v in self.kind_priors.items() if not 0.0 <= float(v) <= 1.0}
        if bad:
            raise ValueError(f"GraphProfile.kind_priors must lie in [0, 1]; got {bad}.")
        object.__setattr__(self, "kind_priors", MappingProxyType(dict(self.kind_priors)))
        object.__setattr__(self, "relation_fallbacks",
                           MappingProxyType({k: tuple(v) for k, v in self.relation_fallbacks.items()}))

    # --- wording ----------------------------------------------------------------------------------
    def graph_for_llm(self, graph_name: str) -> str:
        """The graph as an LLM prompt names it (``llm_wording`` with ``{name}`` = ``graph_name``)."""
        return self.llm_wording.format(name=graph_name or self.display_name)

    def lists_agent(self, agent: str) -> bool:
        """Whether routing lists ``agent`` for this format (see ``unlisted_agents``)."""
        return agent not in self.unlisted_agents

    def allows_template(self, template: str) -> bool:
        """Whether the offline evidence desk may use the template named ``template`` (see ``desk_templates``)."""
        return self.desk_templates is None or template in self.desk_templates

    def kind_prior(self, kind: str) -> float:
        """``kind_priors[kind]``, 0.0 for a kind without a prior."""
        return float(self.kind_priors.get(kind, 0.0))

    # --- provenance -------------------------------------------------------------------------------
    def edge_provenance(self, column: Callable[[str], pd.Series]) -> dict[str, pd.Series]:
        """The Biolink provenance columns of an edge frame (``primary_knowledge_source``,
        ``aggregator_knowledge_source``, ``publications``, ``qualifiers`` as stored JSON text) from the stored
        columns (``column(name)``: that column as str, ``""`` where absent). Default: stored under these names."""
        return {name: column(name) for name in ("primary_knowledge_source", "aggregator_knowledge_source",
                                                "publications", "qualifiers")}

    def neighbour_provenance(self, edges: pd.DataFrame) -> pd.DataFrame:
        """Fill the Hetionet-style ``sources`` and ``pubmed_ids`` columns of a neighbourhood frame from the
        Biolink columns (``primary``/``aggregator_knowledge_source``, ``publications``), in place; returns it."""
        edges["sources"] = ["|".join(x for x in (p, a) if x)
                            for p, a in zip(edges["primary_knowledge_source"], edges["aggregator_knowledge_source"])]
        edges["pubmed_ids"] = edges["publications"].map(_pubmed_ids)
        return edges

    def manifest_provenance(self, kg: KnowledgeGraph) -> dict[str, Any]:
        """Manifest facts beyond name and release: the number of negated edges (the schema's negation property)
        and the primary knowledge sources of the edges."""
        sources = kg.edges.get("primary_knowledge_source", pd.Series(dtype=object))
        negation = kg.schema.negation_property
        negated = kg.edges[negation].astype(bool).sum() if negation and negation in kg.edges.columns else 0
        return {"n_negated_edges": int(negated),
                "primary_knowledge_sources": sorted({s for s in sources.dropna().astype(str) if s})}


class KGXProfile(GraphProfile):
    """Biolink KGX graphs: the manifest also records the Biolink model version the graph was read against."""

    def manifest_provenance(self, kg: KnowledgeGraph) -> dict[str, Any]:
        """The generic facts plus ``biolink_model_version`` (from :func:`engram_kit.kg.biolink.biolink_model_version`,
        the version the loader validated categories and predicates against)."""
        from engram_kit.kg.biolink import biolink_model_version

        return {"biolink_model_version": biolink_model_version(), **super().manifest_provenance(kg)}


def _pubmed_ids(publications: Any) -> str:
    """``"PMID:1|PMID:2|doi:x"`` -> ``"1|2"`` (the PubMed ids of a ``|``-joined publications field)."""
    return "|".join(p.partition(":")[2] for p in str(publications or "").split("|") if p.upper().startswith("PMID:"))


class HetionetProfile(GraphProfile):
    """Hetionet v1.0 (Himmelstein et al., eLife 2017): provenance in ``sources`` and ``pubmed_ids``."""

    def edge_provenance(self, column: Callable[[str], pd.Series]) -> dict[str, pd.Series]:
        """Hetionet keeps ``sources`` and ``pubmed_ids``; they become ``primary_knowledge_source`` and
        ``PMID:``-prefixed ``publications``; no aggregator or qualifiers."""
        sources = column("sources")
        return {"primary_knowledge_source": sources,
                "aggregator_knowledge_source": pd.Series("", index=sources.index, dtype=object),
                "publications": column("pubmed_ids").map(lambda ids: "|".join(f"PMID:{i}" for i in ids.split("|") if i)),
                "qualifiers": pd.Series("", index=sources.index, dtype=object)}

    def neighbour_provenance(self, edges: pd.DataFrame) -> pd.DataFrame:
        """Hetionet's own ``sources``/``pubmed_ids`` columns are kept as stored."""
        return edges

    def manifest_provenance(self, kg: KnowledgeGraph) -> dict[str, Any]:
        """Nothing: Hetionet's provenance is per edge."""
        return {}


#: Hetionet v1.0: the pathway and drug agents read its metaedges; the phenotype agent is not listed.
HETIONET_PROFILE = HetionetProfile(
    name="hetionet", short_name="Hetionet", display_name="Hetionet", description="Hetionet v1.0",
    llm_wording="{name}", desk_example="'What does metformin treat?'", edge_label="rel_type",
    predicates_are_names=False, edges_stored_once=True, unlisted_agents=("phenotype",),
    # An ordering, not fitted weights: a question naming a disease, gene or drug means that entity far more
    # often than a same-named side effect or anatomy term (SIDER side effects reuse disease names).
    kind_priors={"Disease": 1.0, "Gene": 0.9, "Compound": 0.9, "Anatomy": 0.6, "Symptom": 0.5,
                 "Pathway": 0.5, "Biological Process": 0.5, "Molecular Function": 0.4, "Cellular Component": 0.4,
                 "Pharmacologic Class": 0.4, "Side Effect": 0.2},
    # Hetionet's indications come in two curated kinds (PharmacotherapyDB): disease-modifying (TREATS) and
    # symptomatic (PALLIATES); a disease with no disease-modifying drug (Parkinson's) has symptomatic ones.
    relation_fallbacks={"treats": ("palliates",), "palliates": ("treats",)},
)
#: Biolink KGX graphs (e.g. Monarch KG): Hetionet's agents are listed as not applicable, the phenotype agent runs.
KGX_PROFILE = KGXProfile(
    name="kgx", short_name="KGX", display_name="KGX graph", description="a Biolink KGX graph",
    llm_wording="{name}, a Biolink KGX graph",
    desk_example="'What phenotypes does <disease> have?' or 'Which edges does <CURIE> have?'",
    edge_label="predicate", predicates_are_names=True, edges_stored_once=False,
    kind_priors={"Disease": 1.0, "Gene": 0.9, "PhenotypicFeature": 0.7},
)

_PROFILES: dict[str, GraphProfile] = {}


def register_profile(profile: GraphProfile, *, replace_existing: bool = False) -> GraphProfile:
    """Register ``profile`` under ``profile.name``; returns it (so a module can keep it as a constant).

    Raises
    ------
    ValueError
        If a different profile is already registered under that name and ``replace_existing`` is False.
    """
    known = _PROFILES.get(profile.name)
    if known is not None and known is not profile and not replace_existing:
        raise ValueError(f"A graph profile named {profile.name!r} is already registered; pick another schema name "
                         "or pass replace_existing=True.")
    _PROFILES[profile.name] = profile
    return profile


def unregister_profile(name: str) -> None:
    """Remove the profile registered under ``name`` (tests); unknown names are ignored."""
    _PROFILES.pop(name, None)


def profile_for(name: str) -> GraphProfile:
    """The profile of the schema named ``name``; a generic one (every agent and template the schema allows,
    Biolink-style provenance columns, no kind priors) when none is registered."""
    found = _PROFILES.get(name)
    return found if found is not None else replace(GENERIC_PROFILE, name=name or "graph", short_name="",
                                                   display_name="", description="")


def registered_profiles() -> dict[str, GraphProfile]:
    """Registered profiles by schema name (a copy)."""
    return dict(_PROFILES)


#: Template of the fallback profile (see :func:`profile_for`).
GENERIC_PROFILE = GraphProfile(name="graph")

register_profile(HETIONET_PROFILE)
register_profile(KGX_PROFILE)
