"""Question intent, offline: which relation(s) a question asks about and which kind of entity it wants.

The intent is read against the graph schema, not against question patterns: every relationship type of
the schema (:class:`~engram_kit.kg.schema.RelSpec`) has a *verb* (the part of its name before ``_``:
``TREATS_CtD`` -> ``treats``, a Biolink ``HAS_PHENOTYPE`` -> ``has phenotype``) and the label pairs it
connects. Two small vocabularies map words of a question onto those:

* :data:`RELATION_WORDS`: phrases -> a verb (``"side effect"`` -> ``causes``, ``"target"`` -> ``binds``,
  ``"drug for"`` -> ``treats``). A verb the schema does not have matches nothing.
* :data:`KIND_WORDS`: phrases -> a label (``"drugs"``, ``"medications"`` -> ``Compound``; ``"proteins"`` ->
  ``Gene``). Every schema label also matches its own words (``PhenotypicFeature`` -> "phenotypic feature(s)").

A plan is a chain of one or two hops from the question's anchor entity (the entity the question is about)
to the asked kind, each hop one relationship type between two labels that the schema connects. Plans are
scored, and the best is kept:

* ``+2`` per hop whose verb the question names, ``+1.5`` when the last hop ends in the first kind the
  question names (the asked kind: "*which compounds* treat X"), ``+1`` per named kind used as a middle
  node (two hops: "side effects of *drugs* that treat X"); a two-hop plan must use two named kinds.
* Ties: the plan using more of the distinct relations the question names ("side effects caused by drugs
  that *treat* hypertension" names treats and causes: hypertension the Disease, treats then causes, beats
  Hypertension the side effect, causes twice), then fewer hops, then the schema's more common relation for
  that label pair when no verb was named (:data:`DEFAULT_VERBS` order).

Aggregates: ``"how many ..."`` asks for a count (with an anchor: of the related entities; without one: of
the asked kind); ``"most"``, ``"top"``, ``"highest number"`` without an anchor asks for a ranking of the
asked kind by the number of related entities of the other named kind ("which compounds treat the most
diseases").

When no plan scores (no relation word and no kind word that the anchor's label connects to), the intent is
``unknown`` and callers fall back and say so (:attr:`Intent.explanation`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engram_kit.kg.schema import METAEDGE_BY_REL_TYPE, GraphSchema, require_schema

#: Question phrases -> relation verb (lower case; the part of a relationship type's name before "_").
#: Checked all at once: a question may name several relations (two hops).
RELATION_WORDS: tuple[tuple[str, str], ...] = (
    (r"\btreat|\btherap|\bcures?\b|\bcuring\b|\bindicat|\bused (for|to treat|against)\b|\bprescri|\bdrugs? for\b"
     r"|\bmedications? for\b|\bmedicines? for\b|\bmanag", "treats"),
    (r"\bpalliat|\brelie(f|ve)|\bsymptomatic", "palliates"),
    (r"\bside[- ]effects?\b|\badverse\b|\bcaus|\binduce[sd]?\b|\btoxicit", "causes"),
    (r"\bassociat|\blinked\b|\bimplicated\b|\brisk\b|\bsusceptib|\bgenetic|\bmutat|\bgwas\b|\bcaus", "associates"),
    (r"\bbinds?\b|\bbinding\b|\btargets?\b|\btargeting\b|\btargeted\b|\binhibit|\bagonist|\bantagonist",
     "binds"),
    (r"\bpathways?\b|\bparticipat|\binvolved\b|\bprocess(es)?\b|\bfunctions?\b|\bcomponents?\b|\bmembers?\b",
     "participates"),
    (r"\bexpress", "expresses"),
    (r"\blocali[sz]|\bwhere\b|\baffects?\b|\btissues?\b|\borgans?\b|\banatom", "localizes"),
    (r"\bsymptoms?\b|\bpresent|\bsigns?\b|\bmanifest", "presents"),
    (r"\bresembl|\bsimilar|\balike\b|\brelated to\b", "resembles"),
    (r"\bclass(es)?\b|\bincludes?\b|\bbelongs?\b|\bcategor|\bkinds? of drug", "includes"),
    (r"\binteract", "interacts"),
    (r"\bupregulat|\bup-regulat|\bincrease[sd]?\b|\boverexpress|\belevat", "upregulates"),
    (r"\bdownregulat|\bdown-regulat|\bdecrease[sd]?\b|\breduce[sd]?\b|\bsuppress|\brepress", "downregulates"),
    (r"\bregulat", "regulates"),
    (r"\bcovar|\bco-?express", "covaries"),
    (r"\bphenotyp|\bclinical features?\b|\bfeatures?\b", "has phenotype"),
)
#: Question phrases -> node label (lay synonyms; every schema label also matches its own words). Longer
#: phrases first: "drug class" is a class, not a drug.
KIND_WORDS: tuple[tuple[str, str], ...] = (
    (r"\bside[- ]effects?\b|\badverse (effects?|events?|reactions?)\b", "SideEffect"),
    (r"\b(pharmacologic(al)?|drug|therapeutic|chemical|medication) class(es)?\b|\bclass(es)? of (drugs?|compounds?)\b"
     r"|\bclass(es)?\b", "PharmacologicClass"),
    (r"\bbiological process(es)?\b|\bprocess(es)?\b", "BiologicalProcess"),
    (r"\bcellular components?\b|\bcompartments?\b|\borganelles?\b", "CellularComponent"),
    (r"\bmolecular functions?\b|\bfunctions?\b", "MolecularFunction"),
    (r"\bcompounds?\b|\bdrugs?\b|\bmedications?\b|\bmedicines?\b|\bchemicals?\b|\bsubstances?\b|\btreatments?\b"
     r"|\btherapies\b|\btherapeutics?\b|\binhibitors?\b|\bagents?\b|\bpills?\b", "Compound"),
    (r"\bgenes?\b|\bproteins?\b|\breceptors?\b|\benzymes?\b", "Gene"),
    (r"\bdiseases?\b|\bdisorders?\b|\bconditions?\b|\billness(es)?\b|\bindications?\b|\bsyndromes?\b", "Disease"),
    (r"\bpathways?\b", "Pathway"),
    (r"\bsymptoms?\b|\bsigns?\b", "Symptom"),
    (r"\banatom(y|ies|ical)\b|\btissues?\b|\borgans?\b|\bbody parts?\b|\bstructures?\b", "Anatomy"),
    (r"\bphenotypes?\b|\bclinical features?\b", "PhenotypicFeature"),
)
#: When a question names no verb, the relation assumed between two labels: the first of these verbs the
#: schema has for the pair (the relation a reader means by "genes of a disease", "drugs for a disease").
DEFAULT_VERBS: tuple[str, ...] = ("treats", "associates", "binds", "participates", "causes", "presents",
                                  "localizes", "includes", "has phenotype", "interacts", "resembles",
                                  "expresses", "palliates", "upregulates", "downregulates", "regulates",
                                  "covaries")
_COUNT = re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b", re.IGNORECASE)
_RANK = re.compile(r"\bmost\b|\btop\b|\bhighest number\b|\blargest number\b|\bthe greatest\b|\bby number of\b",
                   re.IGNORECASE)


def verb_of(rel_type: str) -> str:
    """The verb of a relationship type: ``TREATS_CtD`` -> ``treats``; ``HAS_PHENOTYPE`` -> ``has phenotype``
    (a Hetionet name ends in its metaedge abbreviation, which is dropped)."""
    meta = METAEDGE_BY_REL_TYPE.get(rel_type)
    if meta is not None:  # Hetionet: the metaedge's own verb
        return meta.verb
    return rel_type.replace("_", " ").lower()


def _label_words(label: str) -> str:
    """Regex of a label's own words, plural allowed: ``SideEffect`` -> ``side effects?``."""
    words = re.findall(r"[A-Z][a-z]+|[a-z]+", label)
    return r"\b" + r"[ -]".join(w.lower() for w in words) + r"s?\b" if words else r"(?!)"


@dataclass(frozen=True)
class Hop:
    """One step of a plan: follow ``rel_type`` from a node of ``from_label`` to one of ``to_label``.

    ``forward`` is True when the stored edge points from ``from_label`` to ``to_label`` (the schema's
    pair), so a claim keeps the stored subject and object. ``directed`` is the schema's flag (only then does
    a same-label hop need the direction in its pattern).
    """

    rel_type: str
    from_label: str
    to_label: str
    forward: bool
    directed: bool = False

    @property
    def verb(self) -> str:
        return verb_of(self.rel_type)


@dataclass(frozen=True)
class Intent:
    """What a question asks, read offline against a schema (see the module docstring).

    Attributes
    ----------
    anchor_label : label of the entity the question is about ("" for an aggregate over the whole graph).
    target_label : label of the entities asked for ("" when unknown).
    hops : the relation chain from anchor to target (one or two hops; empty when unknown).
    aggregate : ``""`` (a listing), ``"count"`` or ``"rank"``.
    verbs : relation verbs named in the question (after the schema filter).
    kinds : labels named in the question, in order of appearance.
    score : plan score (0 = unknown).
    explanation : one sentence saying what was understood, or why nothing was.
    """

    anchor_label: str
    target_label: str
    hops: tuple[Hop, ...] = ()
    aggregate: str = ""
    verbs: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    score: float = 0.0
    explanation: str = ""
    anchor_candidates: tuple[str, ...] = field(default=(), compare=False)

    @property
    def known(self) -> bool:
        """Whether a relation chain (or a plain count of a kind) was recognised."""
        return bool(self.hops) or (self.aggregate == "count" and bool(self.target_label))

    def describe(self) -> str:
        chain = " -> ".join([self.anchor_label or "*"] + [f"[{h.rel_type}] {h.to_label}" for h in self.hops])
        return f"{chain}{' (' + self.aggregate + ')' if self.aggregate else ''}"


def _spans(text: str, patterns: tuple[tuple[str, str], ...], blocked: list[tuple[int, int]]
           ) -> list[tuple[int, int, str]]:
    """Non-overlapping matches (start, end, value) of ``patterns`` in ``text`` outside ``blocked`` spans,
    earlier patterns first (so longer phrases listed first win), sorted by position."""
    taken: list[tuple[int, int, str]] = []
    for pattern, value in patterns:
        for m in re.finditer(pattern, text, re.IGNORECASE):
            s, e = m.span()
            if any(s < b and a < e for a, b in blocked) or any(s < b and a < e for a, b, _ in taken):
                continue
            taken.append((s, e, value))
    return sorted(taken)


def mention_spans(question: str, mentions: list[str]) -> list[tuple[int, int]]:
    """Character spans of entity mentions in ``question`` (case-insensitive; every occurrence)."""
    spans = []
    lowered = question.lower()
    for mention in mentions:
        if not mention:
            continue
        start = lowered.find(mention.lower())
        while start >= 0:
            spans.append((start, start + len(mention)))
            start = lowered.find(mention.lower(), start + 1)
    return spans


def _kind_patterns(schema: GraphSchema) -> tuple[tuple[str, str], ...]:
    """The format's own kind words (``schema.profile.kind_words``), the generic :data:`KIND_WORDS`, then every
    label's own words; only labels the schema has."""
    labels = set(schema.labels)
    own = tuple((_label_words(label), label) for label in schema.labels)
    return tuple((p, label) for p, label in schema.profile.kind_words + KIND_WORDS if label in labels) + own


def _relation_words(schema: GraphSchema) -> tuple[tuple[str, str], ...]:
    """The format's own relation words (``schema.profile.relation_words``), then :data:`RELATION_WORDS`."""
    return schema.profile.relation_words + RELATION_WORDS


def question_word_spans(question: str, schema: GraphSchema | None = None) -> list[tuple[int, int]]:
    """Character spans of the relation words (:data:`RELATION_WORDS`) and kind words (:data:`KIND_WORDS` and
    the schema's own label words) in ``question``, each widened to whole words ("treat" -> "treatments").

    The evidence desk reads what is left of a question without them (and without function words) as a
    candidate entity name when its extractor finds none ("Which pills treat *diabetes type 2*?").
    """
    schema = require_schema(schema, "question_word_spans()")
    spans = []
    for pattern, _ in _relation_words(schema) + _kind_patterns(schema):
        for m in re.finditer(pattern, question, re.IGNORECASE):
            start, end = m.span()
            while start > 0 and question[start - 1].isalnum():
                start -= 1
            while end < len(question) and question[end].isalnum():
                end += 1
            spans.append((start, end))
    return sorted(set(spans))


def _hops_between(schema: GraphSchema, a: str, b: str) -> list[Hop]:
    """Every hop the schema allows from label ``a`` to label ``b`` (either stored direction)."""
    out = []
    for spec in schema.rel_specs:
        for source, target in spec.pairs:
            if (source, target) == (a, b):
                out.append(Hop(spec.rel_type, a, b, True, spec.directed))
            elif (source, target) == (b, a) and (a != b or not spec.directed):
                out.append(Hop(spec.rel_type, a, b, False, spec.directed))
    # one hop per rel type (a same-label undirected type appears once)
    seen: dict[str, Hop] = {}
    for hop in out:
        seen.setdefault(hop.rel_type, hop)
    return list(seen.values())


def _verb_rank(verb: str, schema: GraphSchema | None = None) -> int:
    """Rank of ``verb`` when no relation is named: the format's ``default_verbs`` first, then :data:`DEFAULT_VERBS`."""
    order = (schema.profile.default_verbs if schema is not None else ()) + DEFAULT_VERBS
    return order.index(verb) if verb in order else len(order)


def parse_intent(question: str, anchors: list[tuple[str, str]] | None = None,
                 schema: GraphSchema | None = None) -> Intent:
    """The intent of ``question`` (see the module docstring for the scoring rule).

    Parameters
    ----------
    question : the question text.
    anchors : ``(mention, label)`` of the entities found in the question, best first; their spans are not
        read for kind or relation words ("Alzheimer's *disease*" is not a kind word). The plan starts from
        the first anchor whose label gives the best plan.
    schema : the graph schema (default Hetionet v1.0).

    Returns
    -------
    Intent
        ``known`` False (score 0) with an explanation when nothing was recognised.
    """
    schema = require_schema(schema, "parse_intent()")
    anchors = anchors or []
    blocked = mention_spans(question, [m for m, _ in anchors])
    # a kind word right before an entity names the entity's own kind ("the gene TP53"), not the asked kind
    starts = {a for a, _ in blocked}
    kinds = [label for s, e, label in _spans(question, _kind_patterns(schema), blocked)
             if not any(question[e:a].strip() == "" and a >= e for a in starts)]
    schema_verbs = {verb_of(spec.rel_type) for spec in schema.rel_specs}
    verbs = tuple(dict.fromkeys(v for p, v in _relation_words(schema) if v in schema_verbs and any(
        not any(s < b and a < e for a, b in blocked) for s, e in
        (m.span() for m in re.finditer(p, question, re.IGNORECASE)))))
    # "how many" counts; "top ... by number of" ranks
    aggregate = ("rank" if _RANK.search(question) and not re.search(r"\bhow many\b", question, re.IGNORECASE)
                 else "count" if _COUNT.search(question) else "")
    kinds_t = tuple(dict.fromkeys(kinds))
    anchor_labels = [label for _, label in anchors if label in schema.labels]
    if not anchor_labels:
        return _unanchored(kinds_t, verbs, aggregate, schema)
    best: Intent | None = None
    best_key: tuple = ()
    for anchor in dict.fromkeys(anchor_labels):
        for plan, score, tie in _plans(anchor, kinds_t, verbs, schema):
            covered = len({hop.verb for hop in plan} & set(verbs))
            key = (score, covered, -len(plan), -tie, -anchor_labels.index(anchor))
            if score > 0 and (best is None or key > best_key):
                target = plan[-1].to_label
                best = Intent(anchor, target, tuple(plan), aggregate, verbs, kinds_t, score,
                              _explain(anchor, plan, aggregate), tuple(anchor_labels))
                best_key = key
    if best is None:
        named = ", ".join(kinds_t) or "none"
        return Intent(anchor_labels[0], "", (), aggregate, verbs, kinds_t, 0.0,
                      f"Could not tell which relation the question asks about (relation words: "
                      f"{', '.join(verbs) or 'none'}; kinds named: {named}; entity kind: {anchor_labels[0]}).",
                      tuple(anchor_labels))
    return best


def _plans(anchor: str, kinds: tuple[str, ...], verbs: tuple[str, ...], schema: GraphSchema):
    """Candidate plans from ``anchor`` with their score and tie-break (verb rank sum)."""
    asked = [k for k in kinds]
    target = asked[0] if asked else ""
    for label in schema.labels:
        for hop in _hops_between(schema, anchor, label):
            verb_hit = hop.verb in verbs
            kind_hit = bool(target) and label == target
            # a question that names the kind it wants ("what compounds ...") is not answered by a plan that
            # ends at another kind, however well its verb matches ("reduce" -> Disease downregulates Gene)
            if not (verb_hit or kind_hit) or (target and not kind_hit):
                continue
            score = 2.0 * verb_hit + 1.5 * kind_hit
            yield [hop], score, _verb_rank(hop.verb, schema)
    if len(asked) >= 2:
        for via in dict.fromkeys(asked[1:]):
            for first in _hops_between(schema, anchor, via):
                for second in _hops_between(schema, via, target):
                    if second.rel_type == first.rel_type and via == target:
                        continue
                    score = 2.0 * (first.verb in verbs) + 2.0 * (second.verb in verbs) + 1.5 + 1.0
                    yield [first, second], score, _verb_rank(first.verb, schema) + _verb_rank(second.verb, schema)


def _unanchored(kinds: tuple[str, ...], verbs: tuple[str, ...], aggregate: str, schema: GraphSchema) -> Intent:
    """Aggregates over the whole graph: "how many diseases", "which compounds treat the most diseases"."""
    if not kinds:
        return Intent("", "", (), aggregate, verbs, kinds, 0.0,
                      "No entity of the graph was found in the question, and it names no kind of entity to count.")
    target = kinds[0]
    if aggregate == "rank" and len(kinds) >= 2:
        other = kinds[1]
        hops = sorted(_hops_between(schema, target, other), key=lambda h: (h.verb not in verbs, _verb_rank(h.verb, schema)))
        if hops:
            hop = hops[0]
            reverse = Hop(hop.rel_type, other, target, not hop.forward, hop.directed)
            return Intent("", target, (reverse,), "rank", verbs, kinds, 1.0 + 2.0 * (hop.verb in verbs),
                          f"Ranking {target} nodes by their number of {other} neighbours via {hop.rel_type}.")
    if aggregate == "count":
        if len(kinds) >= 2:
            hops = sorted(_hops_between(schema, kinds[1], target),
                          key=lambda h: (h.verb not in verbs, _verb_rank(h.verb, schema)))
            if hops and hops[0].verb in verbs:
                return Intent("", target, (hops[0],), "count", verbs, kinds, 1.0,
                              f"Counting {target} nodes with at least one {hops[0].rel_type} edge.")
        return Intent("", target, (), "count", verbs, kinds, 1.0, f"Counting {target} nodes in the graph.")
    return Intent("", target, (), aggregate, verbs, kinds, 0.0,
                  f"No entity of the graph was found in the question (it asks about {target}); name one, "
                  "e.g. a disease, compound or gene.")


def _explain(anchor: str, plan: list[Hop], aggregate: str) -> str:
    chain = " -> ".join([anchor] + [f"{h.verb} -> {h.to_label}" for h in plan])
    what = {"count": "Counting", "rank": "Ranking"}.get(aggregate, "Listing")
    return f"{what} {plan[-1].to_label} along {chain}."
