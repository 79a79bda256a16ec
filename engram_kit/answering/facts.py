"""Graph facts for an answer: the edges of the relation the question asks about, ranked by evidence.

:class:`GraphFacts` reads the question's intent (:func:`~engram_kit.answering.intent.parse_intent`) with the
retrieval's resolved entities as anchors and runs the evidence desk's plan queries
(:mod:`engram_kit.evidence.plans`: one hop ordered by number of sources, publications and the unbiased
flag; two hops by the number of linking middle nodes) directly on the store. It returns

* up to ``top_n`` claims, each citing the edge(s) it rests on (``"Hetionet TREATS_CtD"``);
* a total note: ``"22 compounds treat type 2 diabetes mellitus; top 10 shown, ranked by evidence"`` or
  ``"Metformin causes 139 side effects; 10 shown and 129 more"``;
* an explicit ``"The graph has no compounds that bind BACE1"`` when the relation has no edge for the entity.

An unknown intent gives no claims and a note saying the relation was not recognised, so the composer falls
back to the edges near the question's entities and says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from engram_kit.answering.assertions import VERB_PHRASES
from engram_kit.answering.intent import Hop, Intent, _hops_between, parse_intent
from engram_kit.answering.listing import hop_phrase, plan_queries
from engram_kit.answering.types import Citation, Claim
from engram_kit.kg.schema import GraphSchema
from engram_kit.settings import Settings

#: Answers listed (the total is always stated).
TOP_N: int = Settings.answer_top_n
#: Targets read per relation (then ordered, :meth:`GraphFacts._order`): enough for every side effect of a drug
#: (Donepezil has 348), bounded so a hub's listing stays one small query.
ITEM_POOL: int = Settings.answer_item_pool
#: Anchors whose same-name nodes of other labels are looked up (:meth:`GraphFacts.same_name_readings`).
READING_ANCHORS: int = Settings.answer_reading_anchors


def kind_words(label: str, n: int = 2) -> str:
    """Readable plural (or singular for ``n == 1``) of a label: ``SideEffect`` -> ``side effects``."""
    words = " ".join(w.lower() for w in re.findall(r"[A-Z][a-z]+|[a-z]+", label)) or label
    if n == 1:
        return words
    if words.endswith("ss"):
        return words + "es"
    if words.endswith("y") and words[-2:-1] not in ("a", "e", "o", "u"):  # pathway -> pathways, study -> studies
        return words[:-1] + "ies" if words != "anatomy" else "anatomy terms"
    return words + "s"


def relation_sentence(hop: Hop, anchor: str, n: int, target_label: str) -> str:
    """``"22 compounds treat type 2 diabetes mellitus"`` / ``"Metformin causes 139 side effects"``: the count
    placed on the side of the stored edge where the targets are."""
    verb = VERB_PHRASES.get(hop.verb, hop.verb)
    things = f"{n} {kind_words(target_label, n)}"
    if hop.forward:  # anchor is the stored subject
        return f"{anchor} {verb} {things}"
    plural_verb = verb if n == 1 else _plural_verb(verb)
    return f"{things} {plural_verb} {anchor}"


def _plural_verb(verb: str) -> str:
    head, _, rest = verb.partition(" ")
    if head == "is":
        head = "are"
    elif head.endswith("es") and head[:-2].endswith(("ss", "sh", "ch", "x")):
        head = head[:-2]
    elif head.endswith("s"):
        head = head[:-1]
    return f"{head} {rest}".strip()


@dataclass(frozen=True)
class FactItem:
    """One target of the asked relation: node id and name, its evidence key (one hop: sources, publications,
    unbiased; two hops: linking middle nodes), ``literature`` = passages of the workspace mentioning it (>= 0),
    ``degree`` = its edges in the graph (>= 0), and the listing ``row`` it came from."""

    node_id: str
    name: str
    evidence: tuple[int, ...]
    literature: int
    degree: int
    row: dict[str, Any] = field(compare=False, hash=False, repr=False)


@dataclass
class FactsResult:
    """Claims (asked relation, by evidence), notes (totals, declines) and the intent they came from.

    ``items`` are every target found (up to :data:`ITEM_POOL`, ranked as the claims; the claims are the first
    ``top_n``); ``substituted_from`` is the asked intent when the graph had no edge of it and ``intent`` is the
    profile's fallback relation (:attr:`engram_kit.kg.profiles.GraphProfile.relation_fallbacks`), else None.
    """

    intent: Intent
    claims: list[Claim] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    total: int | None = None
    items: list[FactItem] = field(default_factory=list)
    substituted_from: Intent | None = None
    anchor_id: str = ""
    anchor_name: str = ""
    graph_name: str = ""


class GraphFacts:
    """Edges of the asked relation for an answer (see the module docstring).

    Parameters
    ----------
    store : the workspace graph store (``read_only_query`` and its statement pack, ``statements``, are used).
    schema : the graph schema (default: the store's, else Hetionet v1.0).
    graph_name : name shown in citations; default the format's (``schema.profile.short_name``: ``"Hetionet"``).
    top_n : claims listed, >= 1.
    """

    def __init__(self, store: Any, schema: GraphSchema | None = None, *, graph_name: str = "",
                 top_n: int = TOP_N) -> None:
        if top_n < 1:
            raise ValueError(f"top_n must be >= 1, got {top_n}.")
        self.store = store
        self.schema = schema or store.schema  # every GraphStore (and LockedStore) has one
        self.graph_name = graph_name or self.schema.profile.short_name  # the format's name ("Hetionet", "KGX")
        self.top_n = top_n

    def answer(self, question: str, anchors: list[tuple[str, str, str, str]]) -> FactsResult:
        """Facts for ``question``; ``anchors`` are ``(mention, label, node_id, name)`` of the resolved entities,
        best first."""
        if self.schema.negation_property:  # a graph with negated assertions keeps its subgraph claims (NOT: ...)
            intent = parse_intent(question, [(m, label) for m, label, _, _ in anchors], self.schema)
            return FactsResult(Intent(intent.anchor_label, ""))
        anchors = anchors + self.same_name_readings(anchors)
        intent = parse_intent(question, [(m, label) for m, label, _, _ in anchors], self.schema)
        if not intent.known or not intent.hops or not intent.anchor_label:
            # with no entity there are no edges near it to show: say only that the relation was not read
            nearest = "the graph facts below are the edges nearest the question's entities" if anchors else \
                "no graph facts are shown"
            why = intent.explanation.rstrip(". ")
            note = f"Relation not recognised ({why[:1].lower() + why[1:]}); {nearest}." if not intent.known else ""
            return FactsResult(intent, notes=[note] if note else [])
        anchor = next(a for a in anchors if a[1] == intent.anchor_label)
        _, _, anchor_id, anchor_name = anchor
        out = self._listing(intent, anchor_id, anchor_name)
        if out.claims:
            if substitute := substituted_relation_note(intent, anchor_name):
                out.notes.insert(0, substitute)
            return out
        fallback = self._fallback(intent, anchor_id, anchor_name)
        if fallback is None:
            return out
        # the asked relation has no edge: say so, then what the graph holds instead (the profile's fallback)
        fallback.notes.insert(0, f"{no_answer_sentence(intent, anchor_name)[:-1]}; what it holds instead:")
        fallback.substituted_from = intent
        return fallback

    def _listing(self, intent: Intent, anchor_id: str, anchor_name: str) -> FactsResult:
        """Claims, items and notes of one plan: every target of the relation (up to :data:`ITEM_POOL`) ranked by
        evidence, ties broken by literature support then degree (:meth:`_order`), the first ``top_n`` as
        claims."""
        listing, total = plan_queries(intent, anchor_id, anchor_name, self.schema, self.store.statements, ITEM_POOL)
        rows = _records(self.store.read_only_query(listing.cypher, listing.parameters))
        n = None
        if total is not None:
            trows = _records(self.store.read_only_query(total.cypher, total.parameters))
            n = int(trows[0]["n"]) if trows and trows[0].get("n") is not None else 0
        out = FactsResult(intent, total=n, anchor_id=anchor_id, anchor_name=anchor_name, graph_name=self.graph_name)
        hops, target = intent.hops, intent.target_label
        if not rows:
            out.notes.append(no_answer_sentence(intent, anchor_name))
            return out
        out.items = self._order(rows, target, two_hop=len(hops) > 1)
        shown = out.items[: self.top_n]
        for item in shown:
            out.claims.append(self._claim(intent, anchor_id, anchor_name, item))
        if n is not None:
            if len(hops) == 1:
                head = relation_sentence(hops[0], anchor_name, n, target)
                rule = "ranked by evidence (sources, publications, unbiased)"
            else:
                head = (f"{n} {kind_words(target, n)} are linked to {anchor_name} through "
                        f"{kind_words(hops[0].to_label)} ({hops[0].rel_type}, then {hops[1].rel_type})")
                rule = f"ranked by the number of linking {kind_words(hops[0].to_label)}"
            more = n - len(shown)
            if len(shown) > 1 and len({item.evidence for item in shown}) == 1:
                # ten rows of one source each: the order shown is the tie-break, so say what it is
                rule += "; the ones shown tie on that, so they are ordered by the passages mentioning them, then degree"
            # The count left out goes with "top N shown" (a trailing "and 12 more" read as part of the rule).
            listed = f"top {len(shown)} shown ({more} more not shown), {rule}" if more > 0 else f"all shown, {rule}"
            out.notes.append(f"{head[0].upper() + head[1:]}; {listed}.")
        return out

    def _fallback(self, intent: Intent, anchor_id: str, anchor_name: str) -> FactsResult | None:
        """The listing of the first fallback relation (the profile's ``relation_fallbacks`` of a hop's verb,
        same labels) that has rows, or None. Only single-hop plans fall back."""
        if len(intent.hops) != 1:
            return None
        hop = intent.hops[0]
        for verb in self.schema.profile.relation_fallbacks.get(hop.verb, ()):
            for other in _hops_between(self.schema, hop.from_label, hop.to_label):
                if other.verb != verb:
                    continue
                alt = replace(intent, hops=(other,), explanation=f"{intent.explanation} (no {hop.rel_type} edge; "
                              f"{other.rel_type} instead)")
                found = self._listing(alt, anchor_id, anchor_name)
                if found.claims:
                    return found
        return None

    def _order(self, rows: list[dict[str, Any]], label: str, *, two_hop: bool) -> list[FactItem]:
        """Rows as :class:`FactItem`, ordered by evidence (one hop: sources, publications, unbiased; two hops:
        linking middle nodes), then literature support (passages mentioning the item), then graph degree, then
        name: tied evidence is never ordered by name alone (issue 29: 348 Donepezil side effects of one source
        each were listed A to Z)."""
        ids = [str(r["target_id"]) for r in rows]
        literature = self._counts(
            f"MATCH (p:Passage)-[:MENTIONS]->(:NounPhrase)-[:MAPS_TO]->(t:{label}) WHERE t.id IN $ids "
            "RETURN t.id AS id, count(DISTINCT p) AS n", ids)
        rels = [spec.rel_type for spec in self.schema.rel_specs if any(label in pair for pair in spec.pairs)]
        degree = self._counts(f"MATCH (t:{label})-[r:{'|'.join(rels)}]-() WHERE t.id IN $ids "
                              "RETURN t.id AS id, count(r) AS n", ids) if rels else {}
        items = []
        for row in rows:
            node = str(row["target_id"])
            evidence = (int(row.get("support") or 0),) if two_hop else \
                tuple(int(row.get(k) or 0) for k in ("n_sources", "n_publications", "unbiased"))
            items.append(FactItem(node, str(row["target"]), evidence, literature.get(node, 0), degree.get(node, 0),
                                  row))
        items.sort(key=lambda i: (tuple(-e for e in i.evidence), -i.literature, -i.degree, i.name))
        return items

    def literature_counts(self, node_ids: list[str]) -> dict[str, int]:
        """``node id -> passages of the workspace mentioning it`` (a linked mention, MAPS_TO); ids no passage
        mentions are absent."""
        out: dict[str, int] = {}
        by_label: dict[str, list[str]] = {}
        for node in node_ids:
            label = node.partition("::")[0].replace(" ", "")
            if label in self.schema.labels:
                by_label.setdefault(label, []).append(node)
        for label, ids in by_label.items():
            out |= self._counts(f"MATCH (p:Passage)-[:MENTIONS]->(:NounPhrase)-[:MAPS_TO]->(t:{label}) "
                                "WHERE t.id IN $ids RETURN t.id AS id, count(DISTINCT p) AS n", ids)
        return out

    def _counts(self, cypher: str, ids: list[str]) -> dict[str, int]:
        """``id -> n`` from a counting query over ``ids`` (empty on no ids)."""
        if not ids:
            return {}
        return {str(r["id"]): int(r["n"]) for r in _records(self.store.read_only_query(cypher, {"ids": ids}))}

    def same_name_readings(self, anchors: list[tuple[str, str, str, str]]) -> list[tuple[str, str, str, str]]:
        """Nodes of the other labels named exactly like an anchor (case-insensitive), as extra anchors after
        the given ones: retrieval keeps one reading of a name, and "hypertension" in "side effects of drugs
        that treat hypertension" came back as the side effect Hypertension only, so the plan listed side
        effects of drugs that *cause* hypertension. With the disease reading beside it, the intent picks
        the plan that uses the question's relations (treats, then causes). First :data:`READING_ANCHORS`
        anchors only; at most one node per label and name."""
        out: list[tuple[str, str, str, str]] = []
        seen = {a[2] for a in anchors}
        for mention, label, _, name in anchors[:READING_ANCHORS]:
            if not name:  # a blocked mention (another entity's words), not an anchor
                continue
            for other in self.schema.labels:
                if other == label:
                    continue
                frame = self.store.read_only_query(
                    f"MATCH (n:{other}) WHERE lower(n.name) = $name RETURN n.id AS id, n.name AS name LIMIT 1",
                    {"name": name.lower()})
                for row in _records(frame):
                    if str(row["id"]) not in seen:
                        seen.add(str(row["id"]))
                        out.append((mention, other, str(row["id"]), str(row["name"])))
        return out

    def _claim(self, intent: Intent, anchor_id: str, anchor_name: str, item: FactItem) -> Claim:
        hops, row = intent.hops, item.row
        target_id, target_name = item.node_id, item.name
        if len(hops) == 1:
            hop = hops[0]
            evidence = []
            if row.get("n_sources"):
                evidence.append(f"{int(row['n_sources'])} source{'s' if int(row['n_sources']) != 1 else ''}")
            if row.get("n_publications"):
                evidence.append(f"{int(row['n_publications'])} publication"
                                f"{'s' if int(row['n_publications']) != 1 else ''}")
            if row.get("unbiased") == 1:
                evidence.append("unbiased")
            if item.literature:
                evidence.append(f"{item.literature} passages mention it" if item.literature != 1 else "1 passage mentions it")
            text = hop_phrase(hop, anchor_name, target_name) + (f" ({', '.join(evidence)})" if evidence else "")
            return Claim(text, (self._edge_citation(hop, anchor_id, target_id),))
        first, second = hops
        via = [(str(p[0]), str(p[1])) for p in (row.get("via") or [])]
        names = ", ".join(name for _, name in via)
        support = int(row.get("support") or len(via))
        text = f"{two_hop_sentence(first, second, anchor_name, target_name, support)} (e.g. {names})"
        citations: list[Citation] = []
        for via_id, _ in via[:2]:
            citations += [self._edge_citation(first, anchor_id, via_id), self._edge_citation(second, via_id, target_id)]
        return Claim(text, tuple(citations))

    def _edge_citation(self, hop: Hop, from_id: str, to_id: str) -> Citation:
        source, target = (from_id, to_id) if hop.forward else (to_id, from_id)
        return Citation("edge", f"{source} -[{hop.rel_type}]-> {target}", f"{self.graph_name} {hop.rel_type}")


def substituted_relation_note(intent: Intent, anchor_name: str) -> str:
    """A sentence when the plan uses none of the relations the question names: "Which drugs are used to *treat*
    heart failure?" read heart failure as the side effect Cardiac failure, which no compound treats in Hetionet,
    so the plan lists the compounds that *cause* it; without this note the answer read "28 compounds cause
    Cardiac failure" as if it answered the question. Empty when a hop's verb is one the question names, or the
    question names none."""
    asked = [v for v in intent.verbs if v not in {hop.verb for hop in intent.hops}]
    if not intent.verbs or len(asked) < len(intent.verbs) or not intent.hops:
        return ""
    named = " or ".join(f"'{VERB_PHRASES.get(v, v)}'" for v in asked)
    return (f"The graph has no {named} relation between {kind_words(intent.target_label)} and {anchor_name} "
            f"(a {kind_words(intent.anchor_label, 1)}); what it holds instead:")


def two_hop_sentence(first: Hop, second: Hop, anchor: str, target: str, n: int) -> str:
    """``"63 compounds that treat hypertension cause Nausea"`` / ``"Benzodiazepines includes 4 compounds that
    treat epilepsy syndrome"``: each hop worded in its stored direction, ``n`` middle nodes."""
    vias = f"{n} {kind_words(first.to_label, n)}"
    v1, v2 = VERB_PHRASES.get(first.verb, first.verb), VERB_PHRASES.get(second.verb, second.verb)
    if first.forward:  # anchor is the subject of the first edge: "genes that Metformin binds"
        clause = f"that {anchor} {v1}"
    else:  # the middle nodes are its subjects: "compounds that treat hypertension"
        clause = f"that {v1 if n == 1 else _plural_verb(v1)} {anchor}"
    if second.forward:  # middle nodes are subjects of the second edge
        return f"{vias} {clause} {v2 if n == 1 else _plural_verb(v2)} {target}"
    return f"{target} {v2} {vias} {clause}"


def no_answer_sentence(intent: Intent, anchor: str) -> str:
    """``"The graph has no compounds that bind BACE1 (no BINDS_CbG edge)."``, or the two-hop equivalent."""
    hops, target = intent.hops, intent.target_label
    if len(hops) == 1:
        return f"The graph has no {_no_phrase(hops[0], anchor, target)} (no {hops[0].rel_type} edge)."
    return (f"The graph has no {kind_words(target)} linked to {anchor} through {kind_words(hops[0].to_label)} "
            f"({hops[0].rel_type}, then {hops[1].rel_type}).")


def _no_phrase(hop: Hop, anchor: str, target_label: str) -> str:
    """``"compounds that bind BACE1"`` / ``"side effects that Warfarin causes"``."""
    verb = VERB_PHRASES.get(hop.verb, hop.verb)
    if hop.forward:
        return f"{kind_words(target_label)} that {anchor} {verb}"
    return f"{kind_words(target_label)} that {_plural_verb(verb)} {anchor}"


def _records(frame: Any) -> list[dict[str, Any]]:
    return frame.to_dict(orient="records") if hasattr(frame, "to_dict") else list(frame)
