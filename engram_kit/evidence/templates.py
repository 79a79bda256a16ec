"""Offline question templates of the evidence desk: entity + relation questions answered from the graph.

Two families, both sending their queries through the same guard and artifacts as any other query and
turning each row into one claim that cites it:

* **Hetionet templates** (:data:`TEMPLATES`, :class:`Template`): one metaedge each, Hetionet v1.0 semantics
  (Himmelstein et al., eLife 2017; undirected metaedges matched in both directions). Two queries: the related
  entities, ordered by evidence with the same rule as the intent plans (:mod:`engram_kit.evidence.plans`:
  number of sources, then of publications, then the unbiased flag, all descending, then by name; ``LIMIT``
  :data:`LIST_LIMIT`), each row carrying ``n_sources, n_publications, unbiased``, and their total count. The
  desk reaches them on Hetionet only when the question's intent is not recognised (or negated assertions are
  asked for). Offered only on a graph that
  has the metaedge (:meth:`Template.applies_to`), i.e. on Hetionet. Their Cypher is built by
  :func:`template_cypher` from the template's schema identifiers, in the dialect of the store's statement pack
  (its ``split_count`` fragment: :mod:`engram_kit.store.statements`); this module holds no dialect text.
* **Edge templates** (:data:`EDGE_TEMPLATES`, :class:`EdgeTemplate`): schema-driven, for any graph: the
  edges between the question entity and entities of one label (phenotypes of a disease or gene, diseases of
  a gene, genes of a disease...), every edge of an entity, or the two-hop paths gene -> disease -> phenotype.
  Which relationship types and directions to query is read from the store's graph schema
  (:class:`~engram_kit.kg.schema.GraphSchema`), so a template applies wherever its labels are connected.
  Their rows come from the statements ``entity_edges_*`` of the store's pack (``store.statements``) and carry
  what each edge asserts and who says so: ``subject``/``object`` (the stored direction), ``rel_type``, and
  every edge property (KGX: ``predicate, negated, primary_knowledge_source, aggregator_knowledge_source,
  publications, qualifiers, ...``; Hetionet: ``sources, pubmed_ids, ...``). Negated assertions are left out
  unless asked for; then they come back flagged (``negated = true``) and their claims say ``NOT:``. Paths
  never go through a negated edge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engram_kit.errors import QueryError
from engram_kit.evidence.plans import evidence_columns
from engram_kit.kg.schema import METAEDGE_BY_REL_TYPE, GraphSchema
from engram_kit.settings import Settings

if TYPE_CHECKING:
    from engram_kit.store.statements import StatementPack

#: Related entities listed per template query (claims cite these rows), by default: ``Settings.desk_list_limit``
#: (a desk passes its workspace's ``DeskLimits.list_limit`` to :func:`template_cypher`).
LIST_LIMIT: int = Settings.desk_list_limit
#: Second-hop edges listed by a path template (disease -> phenotype rows for up to LIST_LIMIT diseases), by
#: default: ``Settings.desk_path_limit``.
PATH_LIMIT: int = Settings.desk_path_limit


@dataclass(frozen=True)
class Template:
    """One question shape.

    Attributes
    ----------
    name : str
        Key of :data:`TEMPLATE_BY_NAME` (what :func:`template_cypher` takes).
    cues : str
        Regular expression (case-insensitive) that the question must match.
    source_label : str
        Label of the question entity the query starts from.
    rel_type : str
        Hetionet relationship type followed.
    target_label : str
        Label of the related entities.
    outgoing : bool or None
        True: ``(source)-[rel]->(target)``; False: ``(source)<-[rel]-(target)``; None: either direction.
    phrase : str
        Claim format with ``{source}`` and ``{target}`` (names), e.g. ``"{source} treats {target}"``.
    """

    name: str
    cues: str
    source_label: str
    rel_type: str
    target_label: str
    outgoing: bool | None
    phrase: str

    def matches(self, question: str) -> bool:
        return re.search(self.cues, question, re.IGNORECASE) is not None

    def applies_to(self, schema: GraphSchema) -> bool:
        """True when ``schema`` has this template's metaedge and labels (Hetionet)."""
        return self.rel_type in schema.rel_types and {self.source_label, self.target_label} <= set(schema.labels)

    def pattern(self) -> str:
        """The relationship pattern from ``s`` to ``t`` (the relationship bound to ``r``, for its evidence)."""
        rel = f"[r:{self.rel_type}]"
        if self.outgoing is None:
            return f"(s:{self.source_label} {{id: $id}})-{rel}-(t:{self.target_label})"
        if self.outgoing:
            return f"(s:{self.source_label} {{id: $id}})-{rel}->(t:{self.target_label})"
        return f"(s:{self.source_label} {{id: $id}})<-{rel}-(t:{self.target_label})"


#: Templates, checked in order (first matching template with a matching entity wins).
TEMPLATES: tuple[Template, ...] = (
    Template("gene_pathways", r"\bpathways?\b", "Gene", "PARTICIPATES_GpPW", "Pathway", True,
             "{source} participates in the pathway {target}"),
    Template("pathway_genes", r"\bgenes?\b|\bmembers?\b|\bparticipat", "Pathway", "PARTICIPATES_GpPW", "Gene", False,
             "{target} participates in {source}"),
    Template("gene_processes", r"\bprocess(es)?\b", "Gene", "PARTICIPATES_GpBP", "BiologicalProcess", True,
             "{source} participates in the biological process {target}"),
    Template("compound_side_effects", r"side[- ]effects?|adverse", "Compound", "CAUSES_CcSE", "SideEffect", True,
             "{source} causes the side effect {target}"),
    Template("compound_palliates", r"\bpalliat", "Compound", "PALLIATES_CpD", "Disease", True,
             "{source} palliates {target}"),
    Template("disease_palliated_by", r"\bpalliat", "Disease", "PALLIATES_CpD", "Compound", False,
             "{target} palliates {source}"),
    Template("compound_treats", r"\btreat|\bindicat|\bused for\b", "Compound", "TREATS_CtD", "Disease", True,
             "{source} treats {target}"),
    Template("disease_treated_by", r"\btreat|\bdrugs?\b|\bcompounds?\b|\bmedication|\btherap", "Disease",
             "TREATS_CtD", "Compound", False, "{target} treats {source}"),
    Template("compound_targets", r"\bbinds?\b|\btargets?\b|\bbinding\b", "Compound", "BINDS_CbG", "Gene", True,
             "{source} binds {target}"),
    Template("gene_binders", r"\bbinds?\b|\btarget|\binhibitors?\b|\bdrugs?\b|\bcompounds?\b", "Gene", "BINDS_CbG",
             "Compound", False, "{target} binds {source}"),
    Template("gene_interactions", r"\binteract", "Gene", "INTERACTS_GiG", "Gene", None,
             "{source} interacts with {target}"),
    Template("disease_genes", r"\bgenes?\b|\bassociat", "Disease", "ASSOCIATES_DaG", "Gene", True,
             "{source} is associated with the gene {target}"),
    Template("gene_diseases", r"\bdiseases?\b|\bassociat|\bdisorders?\b", "Gene", "ASSOCIATES_DaG", "Disease", False,
             "{target} is associated with {source}"),
    Template("disease_resembles", r"\bresembl|\bsimilar", "Disease", "RESEMBLES_DrD", "Disease", None,
             "{source} resembles {target}"),
    Template("compound_resembles", r"\bresembl|\bsimilar", "Compound", "RESEMBLES_CrC", "Compound", None,
             "{source} resembles {target}"),
    Template("disease_symptoms", r"\bsymptoms?\b|\bpresent", "Disease", "PRESENTS_DpS", "Symptom", True,
             "{source} presents the symptom {target}"),
    Template("disease_anatomy", r"\blocali[sz]|\btissues?\b|\banatom|\bwhere\b", "Disease", "LOCALIZES_DlA",
             "Anatomy", True, "{source} localizes to {target}"),
    Template("class_members", r"\bmembers?\b|\bincludes?\b|\bcompounds?\b|\bdrugs?\b", "PharmacologicClass",
             "INCLUDES_PCiC", "Compound", True, "{source} includes {target}"),
)


def _check_templates() -> dict[str, Template]:
    """Name -> template, after checking every template follows a Hetionet metaedge."""
    for t in TEMPLATES:
        if t.rel_type not in METAEDGE_BY_REL_TYPE:
            raise QueryError(f"Template {t.name!r} uses unknown relationship type {t.rel_type!r}.")
    return {t.name: t for t in TEMPLATES}


#: Template name -> :class:`Template`.
TEMPLATE_BY_NAME: dict[str, Template] = _check_templates()
#: Query kinds of a template: the related entities and their total count.
TEMPLATE_KINDS: tuple[str, ...] = ("list", "count")


def template_cypher(name: str, kind: str, statements: StatementPack, *, schema: GraphSchema,
                    limit: int = LIST_LIMIT) -> str:
    """Cypher of template ``name`` (``kind`` ``"list"`` or ``"count"``, parameter ``$id``: the source node id) in
    the dialect of ``statements`` (the store's pack, ``store.statements``); a listing returns at most ``limit`` rows
    (>= 1; the workspace's ``desk_list_limit``), ordered by the evidence columns of ``schema``'s rel properties
    (the store's ``schema``; a template applies only to a schema with its metaedge: Hetionet).

    Raises
    ------
    QueryError
        If the template or kind is unknown.
    """
    template = TEMPLATE_BY_NAME.get(name)
    if template is None or kind not in TEMPLATE_KINDS:
        raise QueryError(f"No desk template Cypher for {name!r}/{kind!r}; templates: {', '.join(TEMPLATE_BY_NAME)}; "
                         f"kinds: {', '.join(TEMPLATE_KINDS)}.")
    if kind == "count":
        return f"MATCH {template.pattern()} RETURN s.name AS source, count(DISTINCT t) AS n"
    ev = evidence_columns(schema, "r", statements)
    return (f"MATCH {template.pattern()} RETURN DISTINCT s.name AS source, t.name AS target, t.id AS target_id, "
            f"{ev['n_sources']} AS n_sources, {ev['n_publications']} AS n_publications, "
            f"{ev['unbiased']} AS unbiased "
            f"ORDER BY n_sources DESC, n_publications DESC, unbiased DESC, target LIMIT {int(limit)}")


# ------------------------------------------------------------------------------------------------
# Schema-driven edge templates (any graph)
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EdgeQuery:
    """One registry statement a template sends: its name, schema identifiers and purpose.

    ``statement`` is an ``entity_edges_*`` statement name of the store's pack; ``identifiers`` fill its
    ``{label}`` placeholder (the other end's label), if any; the entity ids go in ``$ids``.
    """

    statement: str
    identifiers: tuple[tuple[str, str], ...]
    purpose: str


@dataclass(frozen=True)
class EdgeTemplate:
    """A question shape answered with edges and their provenance, on any graph schema.

    Attributes
    ----------
    name : str
        Template name (shown as ``DeskResult.template``).
    cues : str
        Regular expression (case-insensitive) the question must match.
    source_labels : tuple of str
        Labels of the question entity it starts from; ``()`` = any label.
    target_label : str
        Label of the related entities; ``""`` = any (every edge of the entity).
    via_label : str
        For a path template: the label of the middle node (source -> via -> target); ``""`` otherwise.
    description : str
        What the template lists, for notes (``"phenotypes"``).
    """

    name: str
    cues: str
    source_labels: tuple[str, ...]
    target_label: str
    via_label: str = ""
    description: str = ""

    def matches(self, question: str) -> bool:
        return re.search(self.cues, question, re.IGNORECASE) is not None

    def fits(self, label: str) -> bool:
        """Whether an entity of ``label`` can start this template."""
        return not self.source_labels or label in self.source_labels

    def applies_to(self, schema: GraphSchema) -> bool:
        """True when ``schema`` connects the template's labels (in either direction, and hop by hop for a
        path); a template with no target label applies to every schema."""
        labels = set(schema.labels)
        if self.source_labels and not set(self.source_labels) & labels:
            return False
        if not self.target_label:
            return True
        if self.via_label:
            return any(connects(schema, s, self.via_label) for s in self.source_labels) and \
                connects(schema, self.via_label, self.target_label)
        return any(connects(schema, s, self.target_label) for s in (self.source_labels or schema.labels))

    def queries(self, schema: GraphSchema, source_label: str, entity_name: str) -> list[EdgeQuery]:
        """The first-hop listings for an entity of ``source_label``: outgoing edges where the schema has
        ``source -> target`` pairs, incoming ones where it has ``target -> source`` pairs (a path template's
        first hop goes to ``via_label``)."""
        other = self.via_label or self.target_label
        what = self.via_label or self.description or "entities"
        if not other:
            return [EdgeQuery("entity_edges_out", (), f"{self.name}: edges with {entity_name} as subject"),
                    EdgeQuery("entity_edges_in", (), f"{self.name}: edges with {entity_name} as object")]
        out = []
        if has_pair(schema, source_label, other):
            out.append(EdgeQuery("entity_edges_out_to", (("label", other),),
                                 f"{self.name}: {what} of {entity_name} ({entity_name} as subject)"))
        if has_pair(schema, other, source_label):
            out.append(EdgeQuery("entity_edges_in_from", (("label", other),),
                                 f"{self.name}: {what} of {entity_name} ({entity_name} as object)"))
        return out

    def second_hop(self, schema: GraphSchema) -> list[EdgeQuery]:
        """A path template's second hop (``via -> target`` edges of the first hop's ``via`` nodes)."""
        if not self.via_label:
            return []
        out = []
        if has_pair(schema, self.via_label, self.target_label):
            out.append(EdgeQuery("entity_edges_out_to", (("label", self.target_label),),
                                 f"{self.name}: {self.target_label} of those {self.via_label} nodes"))
        if has_pair(schema, self.target_label, self.via_label):
            out.append(EdgeQuery("entity_edges_in_from", (("label", self.target_label),),
                                 f"{self.name}: {self.target_label} of those {self.via_label} nodes (as subject)"))
        return out


def has_pair(schema: GraphSchema, source_label: str, target_label: str) -> bool:
    """Whether some relationship type of ``schema`` is stored ``source_label -> target_label``."""
    return any((source_label, target_label) in spec.pairs for spec in schema.rel_specs)


def connects(schema: GraphSchema, a: str, b: str) -> bool:
    """Whether ``schema`` has an edge between labels ``a`` and ``b`` in either stored direction."""
    return has_pair(schema, a, b) or has_pair(schema, b, a)


_PHENOTYPE_CUES = r"\bphenotyp|\bclinical features?\b|\bsigns?\b|\bsymptoms?\b|\bmanifestations?\b|\bfeatures?\b"
_DISEASE_CUES = r"\bdiseases?\b|\bdisorders?\b|\bconditions?\b|\bsyndromes?\b"
#: Edge templates, checked in order after the Hetionet ones (first matching template with a fitting entity
#: wins). Labels are Biolink categories (a KGX graph's labels); each applies only where the schema connects
#: them, except ``entity_edges``, which applies everywhere.
EDGE_TEMPLATES: tuple[EdgeTemplate, ...] = (
    EdgeTemplate("gene_disease_phenotype_paths", r"\bpaths?\b|\bvia\b|\bthrough\b|\bchains?\b",
                 ("Gene",), "PhenotypicFeature", "Disease", "phenotypes through diseases"),
    EdgeTemplate("phenotypes_of", _PHENOTYPE_CUES, ("Disease", "Gene"), "PhenotypicFeature", description="phenotypes"),
    EdgeTemplate("diseases_with_phenotype", _DISEASE_CUES, ("PhenotypicFeature",), "Disease", description="diseases"),
    EdgeTemplate("genes_of", r"\bgenes?\b|\bgenetic|\bcaus", ("Disease", "PhenotypicFeature"), "Gene",
                 description="genes"),
    EdgeTemplate("diseases_of_gene", _DISEASE_CUES + r"|\bassociat|\bcaus", ("Gene",), "Disease",
                 description="diseases"),
    EdgeTemplate("entity_edges",
                 r"\bedges?\b|\brelations?(hips?)?\b|\bprovenance\b|\bsources?\b|\bevidence\b|\blinked\b"
                 r"|\bconnect|\bneighbou?rs?\b|\bknown about\b|\bassertions?\b|\bnegated\b|\btell me about\b"
                 r"|\brelated\b|\bassociat",
                 (), "", description="edges"),
)
