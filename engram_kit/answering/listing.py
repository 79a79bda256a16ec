"""The listing and total queries of an intent: one- and two-hop listings and aggregates, ordered by evidence.

Built here, in :mod:`engram_kit.answering`, because both the graph-facts answerer
(:mod:`engram_kit.answering.facts`) and the evidence desk's plans (:mod:`engram_kit.evidence.plans`, which
re-exports these names and holds the evidence rule in its module notes) run them; the desk sits a layer above
(docs/architecture.md, import layers). The text moved verbatim from ``evidence/plans.py``; the pieces where engines differ are fragments of the
store's statement pack (``store.statements``, :mod:`engram_kit.store.statements`), so no dialect text is here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engram_kit.answering.assertions import VERB_PHRASES
from engram_kit.answering.intent import Hop, Intent
from engram_kit.kg.schema import GraphSchema
from engram_kit.settings import Settings

if TYPE_CHECKING:
    from engram_kit.store.statements import StatementPack

#: Answers listed per plan (the total is always given beside it), by default: ``Settings.desk_top_n`` (the desk
#: passes its workspace's ``DeskLimits.top_n``).
TOP_N: int = Settings.desk_top_n
#: Middle nodes named per two-hop answer row: ``Settings.desk_via_shown``.
VIA_SHOWN: int = Settings.desk_via_shown


def evidence_columns(schema: GraphSchema, rel: str, statements: StatementPack) -> dict[str, str]:
    """Cypher expressions of the evidence columns (``n_sources, n_publications, unbiased``) of relationship
    variable ``rel`` for ``schema`` (see the module docstring), in the dialect of ``statements`` (the store's
    pack); a property the schema lacks gives ``0``."""
    def split_count(expr: str) -> str:  # number of |-joined values, 0 when null or empty
        return statements.fragment("split_count", expr=expr)

    props = schema.rel_properties
    sources = []
    if "sources" in props:
        sources.append(split_count(f"{rel}.sources"))
    if "primary_knowledge_source" in props:
        sources.append(f"CASE WHEN {rel}.primary_knowledge_source IS NULL OR {rel}.primary_knowledge_source = '' "
                       "THEN 0 ELSE 1 END")
    if "aggregator_knowledge_source" in props:
        sources.append(split_count(f"{rel}.aggregator_knowledge_source"))
    pubs = [split_count(f"{rel}.{p}") for p in ("pubmed_ids", "publications") if p in props]
    if "unbiased" in props:
        level = f"CASE WHEN {rel}.unbiased = 'true' THEN 1 ELSE 0 END"
    elif "knowledge_level" in props:
        level = (f"CASE {rel}.knowledge_level WHEN 'knowledge_assertion' THEN 3 WHEN 'logical_entailment' THEN 2 "
                 f"WHEN 'statistical_association' THEN 1 ELSE 0 END")
    else:
        level = "0"
    return {"n_sources": " + ".join(sources) or "0", "n_publications": " + ".join(pubs) or "0", "unbiased": level}


def _rel_pattern(left: str, hop: Hop, rel: str, right: str) -> str:
    """``(left)-[rel:TYPE]->(right)`` in the stored direction when it matters (a directed same-label type),
    else undirected (labels fix the direction of every other Hetionet type)."""
    body = f"[{rel}:{hop.rel_type}]"
    if hop.directed or hop.from_label == hop.to_label and hop.directed:
        return f"{left}-{body}->{right}" if hop.forward else f"{left}<-{body}-{right}"
    return f"{left}-{body}-{right}"


@dataclass(frozen=True)
class PlanQuery:
    """One query of a plan: its text, parameters and purpose."""

    cypher: str
    parameters: dict[str, Any]
    purpose: str


def plan_queries(intent: Intent, anchor_id: str, anchor_name: str, schema: GraphSchema, statements: StatementPack,
                 top_n: int = TOP_N) -> tuple[PlanQuery, PlanQuery | None]:
    """The listing query and the total query of ``intent`` (see the module docstring), in the dialect of
    ``statements`` (the store's pack, ``store.statements``).

    Raises
    ------
    ValueError
        If the intent is not known (no hops and no count).
    """
    if not intent.known:
        raise ValueError(f"Intent not understood: {intent.explanation}")
    hops = intent.hops
    target = intent.target_label
    if not hops:  # count of a kind
        count = f"MATCH (t:{target}) RETURN count(t) AS n"
        return PlanQuery(count, {}, f"number of {target} nodes in the graph"), None
    if intent.anchor_label == "" and intent.aggregate == "rank":
        hop = hops[0]
        pattern = _rel_pattern(f"(o:{hop.from_label})", hop, "r", f"(t:{target})")
        listing = (f"MATCH {pattern} RETURN t.name AS target, t.id AS target_id, count(DISTINCT o) AS n "
                   f"ORDER BY n DESC, target LIMIT {top_n}")
        total = f"MATCH {pattern} RETURN count(DISTINCT t) AS n"
        return (PlanQuery(listing, {}, f"{target} ranked by number of {hop.from_label} via {hop.rel_type}"),
                PlanQuery(total, {}, f"number of {target} with a {hop.rel_type} edge"))
    if intent.anchor_label == "":  # count of a kind with a relation
        hop = hops[0]
        pattern = _rel_pattern(f"(o:{hop.from_label})", hop, "r", f"(t:{target})")
        return PlanQuery(f"MATCH {pattern} RETURN count(DISTINCT t) AS n", {},
                         f"number of {target} with a {hop.rel_type} edge"), None
    anchor = f"(a:{intent.anchor_label} {{id: $id}})"
    params = {"id": anchor_id}
    if len(hops) == 1:
        hop = hops[0]
        pattern = _rel_pattern(anchor, hop, "r", f"(t:{target})")
        ev = evidence_columns(schema, "r", statements)
        listing = (f"MATCH {pattern} WHERE t.id <> a.id RETURN a.name AS anchor, t.name AS target, t.id AS target_id, "
                   f"{ev['n_sources']} AS n_sources, {ev['n_publications']} AS n_publications, "
                   f"{ev['unbiased']} AS unbiased "
                   f"ORDER BY n_sources DESC, n_publications DESC, unbiased DESC, target LIMIT {top_n}")
        total = f"MATCH {pattern} WHERE t.id <> a.id RETURN a.name AS anchor, count(DISTINCT t) AS n"
        what = f"{target} linked to {anchor_name} by {hop.rel_type}"
        return (PlanQuery(listing, params, f"{what}, by evidence"), PlanQuery(total, params, f"number of {what}"))
    first, second = hops[0], hops[1]
    pattern = (_rel_pattern(anchor, first, "r1", f"(v:{first.to_label})") + ", "
               + _rel_pattern("(v)", second, "r2", f"(t:{target})"))
    where = "WHERE t.id <> a.id"
    via = statements.fragment("first_distinct", expr="[v.id, v.name]", n=VIA_SHOWN)
    listing = (f"MATCH {pattern} {where} RETURN a.name AS anchor, t.name AS target, t.id AS target_id, "
               f"count(DISTINCT v) AS support, {via} AS via "
               f"ORDER BY support DESC, target LIMIT {top_n}")
    total = f"MATCH {pattern} {where} RETURN a.name AS anchor, count(DISTINCT t) AS n, count(DISTINCT v) AS n_via"
    what = f"{target} linked to {anchor_name} through {first.to_label} ({first.rel_type}, {second.rel_type})"
    return PlanQuery(listing, params, f"{what}, by support"), PlanQuery(total, params, f"number of {what}")


def hop_phrase(hop: Hop, left: str, right: str) -> str:
    """``left`` and ``right`` (names, ``left`` at the hop's from-end) joined by the relation, subject first as
    stored: ``"Metformin treats type 2 diabetes mellitus"``."""
    verb = VERB_PHRASES.get(hop.verb, hop.verb)
    subject, obj = (left, right) if hop.forward else (right, left)
    return f"{subject} {verb} {obj}"
