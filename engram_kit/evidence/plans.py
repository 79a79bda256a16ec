"""Intent plans of the evidence desk: one- and two-hop listings and aggregates, ordered by evidence.

An :class:`~engram_kit.answering.intent.Intent` (relation chain + asked kind, read offline from the question
against the schema) becomes bounded read-only Cypher: a listing of the top :data:`TOP_N` answers and a
total, each run through the desk's guard and cited row by row.

**Evidence rule** (one hop; the order of the listing, all descending, then by name):

1. ``n_sources``: number of knowledge sources asserting the edge (Hetionet ``sources``, ``|``-joined; KGX
   primary + aggregator knowledge sources);
2. ``n_publications``: number of PubMed ids / publications attached to the edge;
3. ``unbiased``: 1 when Hetionet flags the edge as coming from a systematic (not literature-curated) screen
   such as GWAS, else 0; a KGX edge's ``knowledge_level`` ranks ``knowledge_assertion`` (3) over
   ``logical_entailment`` (2), ``statistical_association`` (1) and others (0) in the same place.

Two hops (``anchor -> via -> target``): targets ranked by ``support``, the number of distinct middle nodes
linking them to the anchor (e.g. side effects by the number of the disease's drugs that cause them), then
by name; a few middle nodes are named in each row (``via``: ``[id, name]`` pairs).

Aggregates: ``count`` returns the number of distinct targets (or of nodes of a kind); ``rank`` lists the
nodes of the asked kind with the most neighbours along the relation (e.g. compounds by number of
indications).

Every listing row becomes one claim naming the row's target (the validator checks it names a value of the
row it cites); the total is its own claim citing the count row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram_kit.answering.assertions import VERB_PHRASES
from engram_kit.answering.facts import kind_words, no_answer_sentence, two_hop_sentence
from engram_kit.answering.intent import Hop, Intent
from engram_kit.evidence.artifacts import Artifact
from engram_kit.evidence.claims import DeskClaim
from engram_kit.kg.schema import GraphSchema
from engram_kit.settings import Settings

#: Answers listed per plan (the total is always given beside it), by default: ``Settings.desk_top_n`` (the desk
#: passes its workspace's ``DeskLimits.top_n``).
TOP_N: int = Settings.desk_top_n
#: Middle nodes named per two-hop answer row: ``Settings.desk_via_shown``.
VIA_SHOWN: int = Settings.desk_via_shown


def _split_count(expr: str, dialect: str) -> str:
    """Cypher for the number of ``|``-joined values in the string ``expr`` (0 when null or empty)."""
    split = "string_split" if dialect == "ladybug" else "split"
    return f"CASE WHEN {expr} IS NULL OR {expr} = '' THEN 0 ELSE size({split}({expr}, '|')) END"


def evidence_columns(schema: GraphSchema, rel: str, dialect: str) -> dict[str, str]:
    """Cypher expressions of the evidence columns (``n_sources, n_publications, unbiased``) of relationship
    variable ``rel`` for ``schema`` (see the module docstring); a property the schema lacks gives ``0``."""
    props = schema.rel_properties
    sources = []
    if "sources" in props:
        sources.append(_split_count(f"{rel}.sources", dialect))
    if "primary_knowledge_source" in props:
        sources.append(f"CASE WHEN {rel}.primary_knowledge_source IS NULL OR {rel}.primary_knowledge_source = '' "
                       "THEN 0 ELSE 1 END")
    if "aggregator_knowledge_source" in props:
        sources.append(_split_count(f"{rel}.aggregator_knowledge_source", dialect))
    pubs = [_split_count(f"{rel}.{p}", dialect) for p in ("pubmed_ids", "publications") if p in props]
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


def plan_queries(intent: Intent, anchor_id: str, anchor_name: str, schema: GraphSchema, dialect: str,
                 top_n: int = TOP_N) -> tuple[PlanQuery, PlanQuery | None]:
    """The listing query and the total query of ``intent`` (see the module docstring).

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
        ev = evidence_columns(schema, "r", dialect)
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
    def first_few(expr: str) -> str:
        return (f"list_slice(collect(DISTINCT {expr}), 0, {VIA_SHOWN})" if dialect == "ladybug"
                else f"collect(DISTINCT {expr})[0..{VIA_SHOWN}]")

    listing = (f"MATCH {pattern} {where} RETURN a.name AS anchor, t.name AS target, t.id AS target_id, "
               f"count(DISTINCT v) AS support, {first_few('[v.id, v.name]')} AS via "
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


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s" if not word.endswith("s") else f"{n} {word}"


def evidence_words(row: dict[str, Any]) -> str:
    """The evidence columns of a listing row in words: ``"3 sources, 2 publications, unbiased"`` ("" when
    the row has none)."""
    evidence = []
    if row.get("n_sources"):
        evidence.append(_plural(int(row["n_sources"]), "source"))
    if row.get("n_publications"):
        evidence.append(_plural(int(row["n_publications"]), "publication"))
    if row.get("unbiased") == 1:
        evidence.append("unbiased")
    return ", ".join(evidence)


def distinct_target_names(rows: list[tuple[str, dict[str, Any]]]) -> dict[str, str]:
    """Row id -> the target's name as a claim shows it: the name, or, where two rows of the listing name
    different nodes alike (Hetionet has "Apoptosis" from Pathway Commons, ``Pathway::PC7_1684``, and from
    WikiPathways, ``Pathway::WP254_r84652``: two gene sets), the name with its node id, so the reader sees
    two concepts and can tell which is which (issue 34 item 7)."""
    ids_by_name: dict[str, set[str]] = {}
    for _, row in rows:
        ids_by_name.setdefault(str(row.get("target")), set()).add(str(row.get("target_id", "")))
    return {rid: (f"{row.get('target')} ({row.get('target_id')})"
                  if len(ids_by_name[str(row.get("target"))]) > 1 and row.get("target_id") else str(row.get("target")))
            for rid, row in rows}


def plan_claims(intent: Intent, listing: Artifact, total: Artifact | None, anchor_name: str = ""
                ) -> tuple[list[DeskClaim], list[str]]:
    """Claims (each citing its row) and notes for a plan's artifacts (see the module docstring); an anchored
    plan with no rows says the graph has none (:func:`~engram_kit.answering.facts.no_answer_sentence`)."""
    claims: list[DeskClaim] = []
    notes: list[str] = []
    if intent.hops and intent.anchor_label and listing.status == "ok" and not listing.rows:
        return claims, [no_answer_sentence(intent, anchor_name)]
    hops, target = intent.hops, intent.target_label
    rows = [(rid, listing.row(rid) or {}) for rid in listing.row_ids]
    if not hops:
        if rows:
            n = rows[0][1].get("n")
            claims.append(DeskClaim(f"The graph has {n} {target} nodes", (f"{listing.id}:{rows[0][0]}",)))
        return claims, notes
    n_total = None
    total_row = total.row("r1") if total is not None else None
    if total_row is not None and total_row.get("n") is not None:
        n_total = int(total_row["n"])
    hop = hops[-1]
    if intent.anchor_label == "" and intent.aggregate == "rank":
        for rid, row in rows:
            claims.append(DeskClaim(f"{row.get('target')}: {row.get('n')} {hop.from_label} neighbour(s) via "
                                    f"{hop.rel_type}", (f"{listing.id}:{rid}",)))
        if n_total is not None:
            notes.append(f"{n_total} {target} nodes have a {hop.rel_type} edge; top {len(rows)} shown by count.")
        return claims, notes
    if intent.anchor_label == "":
        if rows:
            claims.append(DeskClaim(f"{rows[0][1].get('n')} {target} nodes have a {hop.rel_type} edge in the graph",
                                    (f"{listing.id}:{rows[0][0]}",)))
        return claims, notes
    if intent.aggregate != "count":
        shown = distinct_target_names(rows)
        for rid, row in rows:
            anchor, name = str(row.get("anchor")), shown[rid]
            if len(hops) == 1:
                ev = evidence_words(row)
                text = hop_phrase(hop, anchor, name) + (f" ({ev})" if ev else "")
            else:
                named = ", ".join(str(pair[1]) for pair in (row.get("via") or []))
                text = (f"{two_hop_sentence(hops[0], hop, anchor, name, int(row.get('support') or 0))} "
                        f"(e.g. {named}; {hops[0].rel_type}, {hop.rel_type})")
            claims.append(DeskClaim(text, (f"{listing.id}:{rid}",)))
    if total is not None and total_row is not None and n_total is not None:
        anchor = str(total_row.get("anchor"))
        if n_total == 0:
            notes.append(no_answer_sentence(intent, anchor))
        else:
            how = " and ".join(h.rel_type for h in hops)
            claims.append(DeskClaim(f"{anchor} has {n_total} {target} node(s) via {how} in the graph",
                                    (f"{total.id}:r1",)))
            if intent.aggregate != "count" and n_total > len(rows):
                notes.append(f"{n_total} {kind_words(target, n_total)} in total; top {len(rows)} shown, ordered by "
                             f"{'evidence (sources, publications, unbiased)' if len(hops) == 1 else 'support'}.")
    return claims, notes
