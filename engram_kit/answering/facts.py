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
from dataclasses import dataclass, field
from typing import Any

from engram_kit.answering.assertions import VERB_PHRASES
from engram_kit.answering.intent import Hop, Intent, parse_intent
from engram_kit.answering.types import Citation, Claim
from engram_kit.kg.schema import GraphSchema

#: Answers listed (the total is always stated).
TOP_N = 10
#: Anchors whose same-name nodes of other labels are looked up (:meth:`GraphFacts.same_name_readings`).
READING_ANCHORS = 3


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


@dataclass
class FactsResult:
    """Claims (asked relation, by evidence), notes (totals, declines) and the intent they came from."""

    intent: Intent
    claims: list[Claim] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    total: int | None = None


def _evidence_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """The evidence a one-hop listing row is ordered by (sources, publications, unbiased), as in
    :func:`engram_kit.evidence.plans.plan_queries`."""
    return tuple(row.get(k) for k in ("n_sources", "n_publications", "unbiased"))


class GraphFacts:
    """Edges of the asked relation for an answer (see the module docstring).

    Parameters
    ----------
    store : the workspace graph store (``read_only_query`` and ``dialect`` are used).
    schema : the graph schema (default: the store's, else Hetionet v1.0).
    graph_name : name shown in citations (``"Hetionet"``).
    top_n : claims listed, >= 1.
    """

    def __init__(self, store: Any, schema: GraphSchema | None = None, *, graph_name: str = "Hetionet",
                 top_n: int = TOP_N) -> None:
        if top_n < 1:
            raise ValueError(f"top_n must be >= 1, got {top_n}.")
        self.store = store
        self.schema = schema or store.schema  # every GraphStore (and LockedStore) has one: Hetionet by default
        self.graph_name = graph_name
        self.top_n = top_n

    def answer(self, question: str, anchors: list[tuple[str, str, str, str]]) -> FactsResult:
        """Facts for ``question``; ``anchors`` are ``(mention, label, node_id, name)`` of the resolved entities,
        best first."""
        from engram_kit.evidence.plans import plan_queries

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
        listing, total = plan_queries(intent, anchor_id, anchor_name, self.schema, self.store.dialect, self.top_n)
        rows = _records(self.store.read_only_query(listing.cypher, listing.parameters))
        n = None
        if total is not None:
            trows = _records(self.store.read_only_query(total.cypher, total.parameters))
            n = int(trows[0]["n"]) if trows and trows[0].get("n") is not None else 0
        out = FactsResult(intent, total=n)
        hops, target = intent.hops, intent.target_label
        if not rows:
            out.notes.append(no_answer_sentence(intent, anchor_name))
            return out
        for row in rows:
            out.claims.append(self._claim(intent, anchor_id, anchor_name, row))
        if n is not None:
            if len(hops) == 1:
                head = relation_sentence(hops[0], anchor_name, n, target)
                rule = "ranked by evidence (sources, publications, unbiased)"
            else:
                head = (f"{n} {kind_words(target, n)} are linked to {anchor_name} through "
                        f"{kind_words(hops[0].to_label)} ({hops[0].rel_type}, then {hops[1].rel_type})")
                rule = f"ranked by the number of linking {kind_words(hops[0].to_label)}"
            more = n - len(rows)
            if len(hops) == 1 and more > 0 and len(rows) > 1 and len({_evidence_key(r) for r in rows}) == 1:
                # "ranked by evidence" over ten rows of one source each is an alphabetical list: say so
                rule += "; the ones shown tie on evidence, so they are in name order"
            # The count left out goes with "top N shown": after the tie clause, a trailing "and 12 more" read as
            # part of the name order.
            shown = f"top {len(rows)} shown ({more} more not shown), {rule}" if more > 0 else f"all shown, {rule}"
            out.notes.append(f"{head[0].upper() + head[1:]}; {shown}.")
        if substitute := substituted_relation_note(intent, anchor_name):
            out.notes.insert(0, substitute)
        return out

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

    def _claim(self, intent: Intent, anchor_id: str, anchor_name: str, row: dict[str, Any]) -> Claim:
        hops = intent.hops
        target_id, target_name = str(row["target_id"]), str(row["target"])
        if len(hops) == 1:
            hop = hops[0]
            from engram_kit.evidence.plans import hop_phrase

            evidence = []
            if row.get("n_sources"):
                evidence.append(f"{int(row['n_sources'])} source{'s' if int(row['n_sources']) != 1 else ''}")
            if row.get("n_publications"):
                evidence.append(f"{int(row['n_publications'])} publication"
                                f"{'s' if int(row['n_publications']) != 1 else ''}")
            if row.get("unbiased") == 1:
                evidence.append("unbiased")
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
