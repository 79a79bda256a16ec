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

The queries are portable Cypher except where engines differ (splitting a ``|``-joined string, the first few of a
collected list); those pieces are fragments of the store's statement pack (``store.statements``,
:mod:`engram_kit.store.statements`), so this module holds no dialect text.
"""

from __future__ import annotations

from typing import Any

from engram_kit.answering.facts import kind_words, no_answer_sentence, two_hop_sentence
from engram_kit.answering.intent import Intent
# The listing and total queries of an intent (and the hop's sentence) are built one layer down, where the
# graph-facts answerer uses them too; re-exported here for the desk.
from engram_kit.answering.listing import TOP_N as TOP_N
from engram_kit.answering.listing import VIA_SHOWN as VIA_SHOWN
from engram_kit.answering.listing import PlanQuery as PlanQuery
from engram_kit.answering.listing import evidence_columns as evidence_columns
from engram_kit.answering.listing import hop_phrase as hop_phrase
from engram_kit.answering.listing import plan_queries as plan_queries
from engram_kit.evidence.artifacts import Artifact
from engram_kit.evidence.claims import DeskClaim


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
