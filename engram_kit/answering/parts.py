"""Questions with two parts, answered in both: "drugs that treat X (and) might also help Y", "shared by X and Y".

A question naming two entities of the graph can ask for two things at once, and answering only the relation
of one of them silently drops the other half (issue 29: "Which drugs that treat type 2 diabetes might also
help Alzheimer's disease?" listed the four drugs that treat Alzheimer's disease). Two shapes are read:

* **shared** ("Which genes are shared by X and Y?", "... associated with both X and Y", "in common"): the
  asked relation is listed for each entity and the rows are intersected (node ids), never X's rows alone.
* **then** ("drugs that treat X might *also* help Y"): part 1 is the asked relation for the entity named
  first (the relative clause: "drugs that treat X"); part 2 keeps the part-1 items that the graph (a direct
  edge) or the literature (a passage whose linked mentions name both) connects to the second entity. When
  the graph has no edge of the first relation, part 1 says so and part 2 cannot be answered; when no item
  connects, part 2 says so.

Both shapes need two anchors of the graph; the relation is read by
:func:`~engram_kit.answering.intent.parse_intent` with the other entity's words blocked (its "disease" is
not a kind word of the question).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engram_kit.answering.facts import kind_words
from engram_kit.answering.types import Citation, Claim
from engram_kit.settings import Settings

if TYPE_CHECKING:
    from engram_kit.answering.facts import FactItem, FactsResult, GraphFacts

__all__ = ["PartsResult", "SHARED_CUE", "THEN_CUE", "answer_parts", "edge_ends", "question_shape"]

_EDGE_REF = re.compile(r"^(?P<source>.+?) -\[(?P<rel>[^\]]+)\]-> (?P<target>.+)$")


def edge_ends(ref: str) -> tuple[str, str, str]:
    """``(source, rel_type, target)`` of an edge citation's ``ref`` (``"<source> -[REL]-> <target>"``; node ids
    may hold spaces: ``"Side Effect::C0027497"``). Raises ValueError on another form."""
    match = _EDGE_REF.match(ref)
    if match is None:
        raise ValueError(f"not an edge reference: {ref!r} (expected '<source> -[REL]-> <target>')")
    return match["source"], match["rel"], match["target"]

#: Wording of a question asking for what two entities have in common.
SHARED_CUE = re.compile(r"\b(shared?|in common|common to|both|overlap\w*)\b", re.IGNORECASE)
#: Wording of a question asking for a second property of a first list ("might *also* help", "as well").
THEN_CUE = re.compile(r"\b(also|too|as well|in addition|additionally)\b", re.IGNORECASE)
#: Part-2 items listed in a claim at most.
PART2_SHOWN: int = Settings.answer_part2_shown


@dataclass
class PartsResult:
    """A two-part answer: ``shape`` (``"shared"`` or ``"then"``), the part-1 (and for ``shared`` part-2)
    :class:`~engram_kit.answering.facts.FactsResult`, the items that answer the whole question (``kept``: the
    intersection, or the part-1 items linked to the second entity, each with its link evidence), claims and
    notes to show (part 1 first), and the two entities' names."""

    shape: str
    first: FactsResult
    second: FactsResult | None
    kept: list[tuple[FactItem, tuple[Citation, ...]]] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    names: tuple[str, str] = ("", "")


def question_shape(question: str) -> str:
    """``"shared"``, ``"then"`` or ``""`` from the question's wording (:data:`SHARED_CUE`, :data:`THEN_CUE`)."""
    if SHARED_CUE.search(question):
        return "shared"
    if THEN_CUE.search(question):
        return "then"
    return ""


def answer_parts(facts: GraphFacts, question: str, anchors: list[tuple[str, str, str, str]],
                 starts: dict[str, int]) -> PartsResult | None:
    """The two-part answer of ``question`` (see the module docstring), or None when it does not have two parts.

    Parameters
    ----------
    facts : the graph facts reader.
    anchors : ``(mention, label, node_id, name)`` of the resolved entities.
    starts : node id -> the mention's position in the question (the entity named first is part 1's).
    """
    shape = question_shape(question)
    distinct = list({a[2]: a for a in anchors}.values())
    if not shape or len(distinct) < 2:
        return None
    first, second = sorted(distinct, key=lambda a: starts.get(a[2], 0))[:2]
    if shape == "shared" and first[1] != second[1]:
        return None
    one = facts.answer(question, [first, (second[0], "", "", "")])
    if not (one.intent.known and one.intent.hops):
        return None
    if shape == "shared":
        two = facts.answer(question, [second, (first[0], "", "", "")])
        return _shared(one, two, first[3], second[3])
    return _then(facts, one, first[3], second)


def _shared(one: FactsResult, two: FactsResult, a: str, b: str) -> PartsResult:
    """Rows of both entities, intersected by node id (ordered as the first entity's)."""
    out = PartsResult("shared", one, two, names=(a, b))
    theirs = {item.node_id: item for item in two.items}
    target = kind_words(one.intent.target_label)
    for item in one.items:
        if item.node_id in theirs:
            both = (_item_citation(one, item), _item_citation(two, theirs[item.node_id]))
            out.kept.append((item, tuple(c for c in both if c is not None)))
    if not one.items or not two.items:
        missing = a if not one.items else b
        out.notes.append(f"The graph lists no {target} for {missing}, so none can be shared by {a} and {b}.")
        return out
    out.notes.append(f"{len(out.kept)} {target} are shared by {a} ({len(one.items)}) and {b} ({len(two.items)}), "
                     f"intersected by graph node; {'all' if len(out.kept) <= PART2_SHOWN else f'top {PART2_SHOWN}'} "
                     "shown, ordered as for " + a + ".")
    for item, shared in out.kept[:PART2_SHOWN]:
        if shared:
            out.claims.append(Claim(f"{item.name}: linked to both {a} and {b}", shared))
    return out


def _then(facts: GraphFacts, one: FactsResult, a: str, second: tuple[str, str, str, str]) -> PartsResult:
    """Part 1 = ``one`` (the first entity's relation); part 2 = its items linked to ``second``."""
    _, label, b_id, b = second
    out = PartsResult("then", one, None, names=(a, b))
    out.notes += one.notes
    out.claims += one.claims
    target = kind_words(one.intent.target_label)
    if not one.items:
        out.notes.append(f"Part 2 cannot be answered: with no {target} in part 1 there is nothing to check "
                         f"against {b}.")
        return out
    ids = [item.node_id for item in one.items]
    graph = _graph_links(facts, ids, b_id)
    for node, cites in _path_links(facts, one.intent.target_label, ids, label, b_id).items():
        graph.setdefault(node, []).extend(cites)
    literature = _literature_links(facts, one.intent.target_label, ids, label, b_id)
    for item in one.items:
        cites = list(graph.get(item.node_id, ())) + list(literature.get(item.node_id, ()))[:2]
        if cites:
            out.kept.append((item, tuple(cites)))
    out.kept.sort(key=lambda kc: (-sum(c.kind == "edge" for c in kc[1]), -kc[0].literature))
    if not out.kept:
        out.notes.append(f"Part 2: none of the {len(one.items)} {target} has a graph edge to {b} or a passage "
                         f"that mentions it together with {b}.")
        return out
    out.notes.append(f"Part 2: {len(out.kept)} of the {len(one.items)} {target} are linked to {b} (a graph edge "
                     "or a passage mentioning both).")
    for item, linked in out.kept[:PART2_SHOWN]:
        cites = list(linked)
        how = []
        ends = {id(c): edge_ends(c.ref)[::2] for c in cites if c.kind == "edge"}
        direct = [c for c in cites if id(c) in ends and b_id in ends[id(c)] and item.node_id in ends[id(c)]]
        paths = [c for c in cites if id(c) in ends and item.node_id in ends[id(c)] and c not in direct]
        if direct:
            how.append(f"{len(direct)} graph edge{'s' if len(direct) != 1 else ''}")
        if paths:
            how.append(f"{len(paths)} graph path{'s' if len(paths) != 1 else ''} through a shared neighbour")
        papers = [c for c in cites if c.kind == "passage"]
        if papers:
            how.append(f"{len(papers)} passage{'s' if len(papers) != 1 else ''} mentioning both")
        if not edges_of(cites):  # literature only: lead with the item's part-1 edge, so the claim reads as the
            own = _item_citation(one, item)  # graph statement it is (a quoted line is always a copied sentence)
            cites = ([own] if own is not None else []) + cites
        out.claims.append(Claim(f"{item.name} is also linked to {b} ({', '.join(how)})", tuple(cites[:6])))
    return out


def edges_of(cites: list[Citation]) -> list[Citation]:
    """The edge citations among ``cites``."""
    return [c for c in cites if c.kind == "edge"]


def _item_citation(result: FactsResult, item: FactItem) -> Citation | None:
    """The edge citation of ``item`` in ``result``'s claims (the claim whose reference names it), if shown."""
    for claim in result.claims:
        for cite in claim.citations:
            if cite.kind == "edge" and item.node_id in edge_ends(cite.ref)[::2]:
                return cite
    hops = result.intent.hops
    if len(hops) != 1 or not result.anchor_id:
        return None
    hop = hops[0]
    source, target = (result.anchor_id, item.node_id) if hop.forward else (item.node_id, result.anchor_id)
    return Citation("edge", f"{source} -[{hop.rel_type}]-> {target}", f"{result.graph_name} {hop.rel_type}")


def _graph_links(facts: GraphFacts, ids: list[str], b_id: str) -> dict[str, list[Citation]]:
    """Direct graph edges between each of ``ids`` and ``b_id``."""
    edges = facts.store.edges_among([*ids, b_id])
    out: dict[str, list[Citation]] = {}
    for row in _records(edges):
        source, target, rel = str(row["source"]), str(row["target"]), str(row["rel_type"])
        other = target if source == b_id else source if target == b_id else None
        if other is not None and other != b_id:
            out.setdefault(other, []).append(
                Citation("edge", f"{source} -[{rel}]-> {target}", f"{facts.graph_name} {rel}"))
    return out


def _path_links(facts: GraphFacts, label: str, ids: list[str], b_label: str, b_id: str
                ) -> dict[str, list[Citation]]:
    """Two-edge graph paths from each of ``ids`` (nodes of ``label``) through a middle node to ``b_id``: every
    middle label the schema connects to both ends, every relationship type between them (a drug that binds a
    gene associated with the disease). Per item: the two edges of each path, in stored direction."""
    b_label = b_label.replace(" ", "")
    schema = facts.schema
    out: dict[str, list[Citation]] = {}

    def rels(x: str, y: str) -> dict[str, bool]:  # rel type -> stored x -> y
        found: dict[str, bool] = {}
        for spec in schema.rel_specs:
            for s, t in spec.pairs:
                if (s, t) == (x, y):
                    found[spec.rel_type] = True
                elif (s, t) == (y, x):
                    found.setdefault(spec.rel_type, False)
        return found

    for middle in schema.labels:
        first, second = rels(label, middle), rels(middle, b_label)
        if not first or not second or middle in (label,):
            continue
        # the relationship-type expression in the store's own dialect (its statement pack)
        r1_type, r2_type = (facts.store.statements.fragment("rel_type", rel=rel) for rel in ("r1", "r2"))
        frame = facts.store.read_only_query(
            f"MATCH (t:{label})-[r1:{'|'.join(first)}]-(m:{middle})-[r2:{'|'.join(second)}]-(b:{b_label} {{id: $b}}) "
            f"WHERE t.id IN $ids RETURN DISTINCT t.id AS id, {r1_type} AS r1, m.id AS m, {r2_type} AS r2",
            {"ids": ids, "b": b_id})
        for row in _records(frame):
            t, m, r1, r2 = str(row["id"]), str(row["m"]), str(row["r1"]), str(row["r2"])
            e1 = f"{t} -[{r1}]-> {m}" if first.get(r1, True) else f"{m} -[{r1}]-> {t}"
            e2 = f"{m} -[{r2}]-> {b_id}" if second.get(r2, True) else f"{b_id} -[{r2}]-> {m}"
            out.setdefault(t, []).extend([Citation("edge", e1, f"{facts.graph_name} {r1}"),
                                          Citation("edge", e2, f"{facts.graph_name} {r2}")])
    return out


def _literature_links(facts: GraphFacts, label: str, ids: list[str], b_label: str, b_id: str
                      ) -> dict[str, list[Citation]]:
    """Passages whose linked mentions name both an item of ``ids`` and ``b_id``, per item (best first)."""
    b_label = b_label.replace(" ", "")
    frame = facts.store.read_only_query(
        f"MATCH (p:Passage)-[:MENTIONS]->(:NounPhrase)-[:MAPS_TO]->(t:{label}) WHERE t.id IN $ids "
        f"MATCH (p)-[:MENTIONS]->(:NounPhrase)-[:MAPS_TO]->(b:{b_label} {{id: $b}}) "
        "RETURN DISTINCT t.id AS id, p.id AS passage, p.article_id AS article", {"ids": ids, "b": b_id})
    out: dict[str, list[Citation]] = {}
    for row in _records(frame):
        article = str(row["article"])
        prefix, _, number = article.partition(":")
        label_text = f"PMID:{number}" if prefix.lower() in ("pmid", "pubmed") else article
        out.setdefault(str(row["id"]), []).append(Citation("passage", str(row["passage"]), label_text))
    return out


def _records(frame: Any) -> list[dict[str, Any]]:
    return frame.to_dict(orient="records") if hasattr(frame, "to_dict") else list(frame)
