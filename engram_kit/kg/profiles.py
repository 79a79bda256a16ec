"""Graph profiles: everything that differs between knowledge-graph formats, in one object per format.

A :class:`GraphProfile` holds what the rest of engram-kit must know about a graph format beyond its
schema (labels, relationship types, properties): its display names and provenance/citation wording,
which agents and evidence-desk templates apply to it, how its edges carry provenance, and kind priors
for entity linking and retrieval, the words questions use for its relations and kinds. A profile is registered
together with its loader as a graph format (:class:`engram_kit.kg.formats.GraphFormat` in
``engram_kit.plugins.formats``), found by the schema's ``name`` (:func:`profile_for`); a schema exposes its own as
:attr:`engram_kit.kg.schema.GraphSchema.profile`.

Adding a graph format means writing one module with a loader producing a
:class:`~engram_kit.kg.graph.KnowledgeGraph` whose schema has a new ``name`` and a ``GraphFormat`` holding the
loader and the profile, plus one registration line (``plugins.formats.register_lazy("mygraph",
"my_module:MY_FORMAT")``; see :mod:`engram_kit.kg.formats`). A schema whose name has no registered format
gets the generic profile (:data:`GENERIC_PROFILE` behaviour: Biolink-style provenance columns, every
agent and template that the schema's labels and relationship types allow). :func:`register_profile` and
:func:`registered_profiles` remain as deprecated aliases.

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
    relation_words : ``(regex, verb)`` pairs read before the generic
        :data:`engram_kit.answering.intent.RELATION_WORDS`: how questions name this format's relations when its
        relationship types are not verbs (a format whose relation is ``INDICATION``: "treat" -> ``indication``). Verbs as ``verb_of`` names them.
    kind_words : ``(regex, label)`` pairs read before the generic ``KIND_WORDS``: lay words for this format's
        labels (a format labelling drugs ``Drug``: "drugs", "medications" -> ``Drug``).
    default_verbs : verbs ranked first when a question names no relation between two labels (before the
        generic ``DEFAULT_VERBS``).
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
    relation_words: tuple[tuple[str, str], ...] = ()
    kind_words: tuple[tuple[str, str], ...] = ()
    default_verbs: tuple[str, ...] = ()

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


def _pubmed_ids(publications: Any) -> str:
    """``"PMID:1|PMID:2|doi:x"`` -> ``"1|2"`` (the PubMed ids of a ``|``-joined publications field)."""
    return "|".join(p.partition(":")[2] for p in str(publications or "").split("|") if p.upper().startswith("PMID:"))


def register_profile(profile: GraphProfile, *, replace_existing: bool = False) -> GraphProfile:
    """Deprecated: register a :class:`~engram_kit.kg.formats.GraphFormat` (loader + profile) in
    ``engram_kit.plugins.formats`` instead. Registers ``profile`` as a format without a loader (or replaces the
    profile of the format of that name, keeping its loader); returns it.

    Raises
    ------
    PluginError
        If a format of that name is registered and ``replace_existing`` is False.
    """
    import dataclasses
    import warnings

    from engram_kit import plugins
    from engram_kit.kg.formats import GraphFormat

    warnings.warn("register_profile is deprecated: register a GraphFormat(name, profile, loader) in "
                  "engram_kit.plugins.formats", DeprecationWarning, stacklevel=2)
    try:
        known = plugins.formats.get(profile.name)
    except plugins.PluginError:
        known = None
    if isinstance(known, GraphFormat) and known.profile is profile:
        return profile
    entry = dataclasses.replace(known, profile=profile) if isinstance(known, GraphFormat) else \
        GraphFormat(name=profile.name, profile=profile, description=profile.description)
    plugins.formats.register(profile.name, entry, description=profile.description, replace=replace_existing)
    return profile


def unregister_profile(name: str) -> None:
    """Remove the format registered under ``name`` (tests); unknown names are ignored."""
    from engram_kit import plugins

    plugins.formats.unregister(name)


def profile_for(name: str) -> GraphProfile:
    """The profile of the schema named ``name``: that of the graph format registered under it
    (``engram_kit.plugins.formats``); a generic one (every agent and template the schema allows, Biolink-style
    provenance columns, no kind priors) when none is registered."""
    from engram_kit import plugins

    try:
        found = plugins.formats.get(name) if name else None
    except plugins.PluginError:
        found = None
    profile = getattr(found, "profile", None)
    if isinstance(profile, GraphProfile):
        return profile
    return replace(GENERIC_PROFILE, name=name or "graph", short_name="", display_name="", description="")


def registered_profiles() -> dict[str, GraphProfile]:
    """Deprecated: the profiles of the registered graph formats by name (imports every format module)."""
    from engram_kit import plugins

    return {name: fmt.profile for name, fmt in plugins.formats.items() if hasattr(fmt, "profile")}


#: Template of the fallback profile (see :func:`profile_for`).
GENERIC_PROFILE = GraphProfile(name="graph")


def __getattr__(name: str) -> Any:
    """``HETIONET_PROFILE``, ``KGX_PROFILE`` and their classes moved to their format modules; still importable
    from here."""
    moved = {"HETIONET_PROFILE": "engram_kit.kg.hetionet", "HetionetProfile": "engram_kit.kg.hetionet",
             "KGX_PROFILE": "engram_kit.kg.kgx", "KGXProfile": "engram_kit.kg.kgx"}
    if name in moved:
        import importlib

        return getattr(importlib.import_module(moved[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
