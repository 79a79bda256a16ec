"""Entity search for the evidence desk: by node id or CURIE, by name (the workspace resolver), or in a question.

The resolver's cascade (exact, alias, char 3-gram TF-IDF, embedding re-rank; see
:mod:`engram_kit.resolution.resolver`) ranks candidates with a confidence in [0, 1]; the desk shows them so
a planner (template or LLM) starts its queries from node ids rather than from guessed names.

Identifiers are looked up before names, in text and in questions: a whole node id (``"Gene::HGNC:10848"``)
or the CURIE after ``::`` (``"HGNC:10848"``, ``"mondo:0016355"``; case-insensitive), so a question can name
exactly one of several same-named nodes (a Biolink graph has an ``SHH`` gene per species). Labels come from
the store's graph schema (``PhenotypicFeature`` on a KGX graph, Hetionet's kinds otherwise).

Lay and clinical name variants (question entities only, :func:`question_entities`):

* **Variants** (:func:`name_variants`): a mention with no exact or alias reading is also looked up in the
  forms clinicians and lay people write for the same name: "carcinoma"/"neoplasm"/"malignancy" -> "cancer"
  (the Disease Ontology slim of Hetionet names organ cancers "breast cancer", "lung cancer" and has no
  "... carcinoma" node), "carcinoma of the breast" -> "breast carcinoma", "diabetes type 2" / "type II" ->
  "type 2 diabetes". Only exact or alias hits of a variant count (never a fuzzy match of a rewritten
  name), at ``Settings.name_variant_factor`` (0.9) times their confidence, method ``"variant"``.
* **Fallback** (nothing found at the floor): a question names its entity on purpose, so when neither its
  identifiers nor its extracted mentions give any reading at ``min_confidence`` (and the question is not a
  whole-graph aggregate such as "How many diseases are in the graph?"), the words left after
  function, relation and kind words (:func:`residual_spans`: "Which pills treat *diabetes type 2*?") and the
  extracted mentions are resolved again, and the best reading of each is kept (the desk says so in a note)
  when it reaches ``Settings.name_seed_confidence`` (0.5, the resolver's settings; an extracted mention: a
  name the gazetteer knows) or
  ``min_confidence`` (a leftover span: "What is the meaning of life?" reads 'life' as Amoxapine at 0.51).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from engram_kit.answering.intent import parse_intent, question_word_spans
from engram_kit.resolution.identifiers import IDENTIFIER_IN_TEXT
from engram_kit.resolution.policy import setting_not_side_effect
from engram_kit.errors import DataError, QueryError
from engram_kit.extraction import EntityExtractor
from engram_kit.kg.schema import GraphSchema, require_schema
from engram_kit.resolution import EntityResolver

#: A node id (``Gene::HGNC:10848``) or a prefixed identifier (``HGNC:10848``, ``REACT:R-HSA-5358346``,
#: ``DOID:10652``) inside a question. Case-insensitive look-up; a token that is no node's id is ignored.
_IDENTIFIER_TOKEN = IDENTIFIER_IN_TEXT


def graph_label(kind: str, schema: GraphSchema | None = None) -> str:
    """Node kind -> label of ``schema`` (default Hetionet): ``"Side Effect"`` -> ``"SideEffect"``; a KGX kind is
    its label (``"PhenotypicFeature"``). An unknown kind is returned unchanged (never raises: a search result
    must not fail on a label the schema does not list, e.g. a stub node's ``NamedThing``)."""
    try:
        return require_schema(schema, "entity search").label_of_kind(kind)
    except DataError:
        return kind


@dataclass(frozen=True)
class EntityMatch:
    """One candidate graph entity for a text.

    ``mention`` is the text searched (or the question span); ``label`` the graph label (``Gene``);
    ``confidence`` in [0, 1]; ``method`` ``id`` for an id look-up, ``variant`` for a reading of a name variant
    (:func:`name_variants`), else the resolver's method.
    """

    mention: str
    node_id: str
    name: str
    kind: str
    label: str
    confidence: float
    method: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def matches_frame(matches: list[EntityMatch]) -> pd.DataFrame:
    """Matches as a DataFrame (one row each, columns = :class:`EntityMatch` fields)."""
    return pd.DataFrame([m.to_dict() for m in matches], columns=list(EntityMatch.__dataclass_fields__))


def identifier_matches(tokens: list[str], nodes: pd.DataFrame, schema: GraphSchema | None = None) -> list[EntityMatch]:
    """Nodes whose id or identifier (CURIE) equals one of ``tokens``, case-insensitively; confidence 1.0,
    method ``"id"``, in token order.

    Parameters
    ----------
    tokens : candidate ids / CURIEs (``"Gene::23621"``, ``"HGNC:10848"``, ``"mondo:0016355"``).
    nodes : the workspace node table (``id, kind, identifier, name``).
    schema : the store's graph schema (labels of the matches).
    """
    wanted = {t.casefold(): t for t in tokens if t.strip()}
    if not wanted or nodes.empty:
        return []
    ids = nodes["id"].astype(str).str.casefold()
    identifiers = nodes["identifier"].astype(str).str.casefold()
    out: list[EntityMatch] = []
    for key, token in wanted.items():
        hit = nodes.loc[(ids == key) | (identifiers == key)]
        for row in hit.itertuples(index=False):
            out.append(EntityMatch(token, str(row.id), str(row.name), str(row.kind), graph_label(str(row.kind), schema),
                                   1.0, "id"))
    return out


def search_entities(text: str, resolver: EntityResolver, nodes: pd.DataFrame, *, limit: int = 5,
                    schema: GraphSchema | None = None) -> list[EntityMatch]:
    """Graph entities for ``text``: an exact node id (``"Gene::7157"``) or CURIE (``"HGNC:10848"``) first, else
    resolver candidates.

    Parameters
    ----------
    text : a node id, a CURIE, or a name / synonym / misspelling.
    resolver : the workspace resolver.
    nodes : the workspace node table (``id, kind, identifier, name``).
    limit : candidates returned, >= 1.
    schema : the store's graph schema (default Hetionet): gives each match's label.

    Raises
    ------
    QueryError
        If ``text`` is empty.
    """
    text = text.strip()
    if not text:
        raise QueryError("Entity search needs a name, a node id or a CURIE (e.g. 'BACE1', 'Gene::23621' or "
                         "'HGNC:10848').")
    hits = identifier_matches([text], nodes, schema)
    if hits:
        return hits[:limit]
    return [EntityMatch(text, c.node_id, c.name, c.kind, graph_label(c.kind, schema), float(c.confidence), c.method)
            for c in resolver.resolve(text)[:limit]]


def question_entities(question: str, extractor: EntityExtractor, resolver: EntityResolver, *,
                      min_confidence: float = 0.5, schema: GraphSchema | None = None,
                      nodes: pd.DataFrame | None = None) -> list[EntityMatch]:
    """Node ids / CURIEs written in ``question`` (when ``nodes`` is given), then every candidate
    (>= ``min_confidence``) of every mention the extractor finds, best first per mention.

    Unlike retrieval seeding, all candidates are kept, so a template can pick the reading of the kind it
    needs ("metformin" as a Compound for "what does metformin treat?"). An identifier match (confidence 1.0)
    outranks a name match of the same label.

    Parameters
    ----------
    schema : the store's graph schema (labels of the matches; default Hetionet).
    nodes : the workspace node table; None skips the identifier look-up.
    """
    out: list[EntityMatch] = []
    if nodes is not None:
        out += identifier_matches(_IDENTIFIER_TOKEN.findall(question), nodes, schema)
    seen = {m.node_id for m in out}
    mentions = extractor.extract(question)
    for mention in mentions:
        candidates = _with_variants(mention.text, resolver.resolve(mention, context=question), resolver, question)
        # Once a mention's best reading passes the floor, its other exact-name readings stay too: the context
        # share can push "hypertension" the Disease below the floor in "side effects of drugs that treat
        # hypertension", and only the template or intent knows which kind the question needs.
        best = max((c.confidence for c in candidates), default=0.0)
        for c in candidates:
            if setting_not_side_effect(mention, c.kind):  # "trauma patients": a setting, not the Side Effect
                continue
            alternative = best >= min_confidence and c.method in ("exact", "alias", "identifier", "variant")
            if (c.confidence >= min_confidence or alternative) and c.node_id not in seen:
                out.append(EntityMatch(mention.text, c.node_id, c.name, c.kind, graph_label(c.kind, schema),
                                       float(c.confidence), c.method))
    if out or parse_intent(question, [], require_schema(schema, "entity search")).known:
        return out  # found, or a whole-graph aggregate ("How many diseases are in the graph?") needing none
    # Nothing at the floor: read the extracted mentions and the question's leftover words once more and keep
    # the best reading of each (see the module docstring); the floor is calibrated for mentions in documents.
    # A leftover span is no name the extractor recognised, so its reading still needs the floor ("meaning of
    # life": 'life' reads as Amoxapine at 0.51); a recognised mention needs name_seed_confidence (the
    # resolver's confidence of a name typed in a question before the document-link calibration, issue 14).
    floors = {m.text: resolver.settings.name_seed_confidence for m in mentions}
    for span in residual_spans(question, [(m.start, m.end) for m in mentions], schema):
        floors.setdefault(span, min_confidence)
    for text, floor in floors.items():
        candidates = _with_variants(text, resolver.resolve(text, context=question), resolver, question)
        if candidates and candidates[0].confidence >= floor and candidates[0].node_id not in seen:
            c = candidates[0]
            seen.add(c.node_id)
            out.append(EntityMatch(text, c.node_id, c.name, c.kind, graph_label(c.kind, schema),
                                   float(c.confidence), c.method))
    return out


#: Name rewrites of :func:`name_variants`: (pattern, replacement), case-insensitive, applied repeatedly.
NAME_REWRITES: tuple[tuple[str, str], ...] = (
    # the Disease Ontology slim names cancers "<organ> cancer"
    (r"\b(adeno)?carcinomas?\b|\bmalignant (neoplasms?|tumou?rs?)\b|\bneoplasms?\b|\bmalignanc(y|ies)\b",
     "cancer"),
    (r"^(\w+) of the (\w+)$", r"\2 \1"),           # carcinoma of the breast -> breast carcinoma
    (r"\btype II\b", "type 2"), (r"\btype I\b", "type 1"),
    (r"^(.+?),? type (\d)$", r"type \2 \1"),          # diabetes type 2 -> type 2 diabetes
)
#: Words that never name an entity in a question (question words, auxiliaries, determiners, prepositions,
#: aggregate words): what :func:`residual_spans` removes besides relation and kind words.
FUNCTION_WORDS = frozenset("""
a about against all also among an and any are as at be been being between both by can could did do does
each either for from give had has have help helps how i in into is it its list many me might more most much
my name neither no nor not number of on one or other others our per please show so some such tell than that
the their them there these they this those through to top up us used using was we were what when where which
while who whom whose why will with within without would you your known according
graph knowledge database network hetionet total exist exists altogether
""".split())


def name_variants(text: str) -> list[str]:
    """Other forms of the name ``text`` (see the module docstring), without ``text`` itself, at most 8."""
    found = [text.strip()]
    for current in found:
        for pattern, replacement in NAME_REWRITES:
            variant = re.sub(pattern, replacement, current, flags=re.IGNORECASE).strip()
            if variant and variant.lower() not in {f.lower() for f in found}:
                found.append(variant)
        if len(found) > 8:
            break
    return found[1:9]


def _with_variants(text: str, candidates: list[Any], resolver: EntityResolver, context: str) -> list[Any]:
    """``candidates`` of ``text`` plus the exact / alias readings of its name variants (method ``variant``, at
    ``resolver.settings.name_variant_factor`` of their confidence) when ``text`` itself has no exact or alias
    reading; best first."""
    if any(c.method in ("exact", "alias", "identifier") for c in candidates):
        return candidates
    from engram_kit.resolution.resolver import Candidate

    extra: dict[str, Any] = {}
    factor = resolver.settings.name_variant_factor
    for variant in name_variants(text):
        for c in resolver.resolve(variant, context=context):
            if c.method in ("exact", "alias") and c.node_id not in extra:
                extra[c.node_id] = Candidate(c.node_id, c.name, c.kind, c.confidence * factor, "variant")
    merged = {c.node_id: c for c in candidates}
    for node_id, c in extra.items():
        if node_id not in merged or merged[node_id].confidence < c.confidence:
            merged[node_id] = c
    return sorted(merged.values(), key=lambda c: -c.confidence)


def residual_spans(question: str, taken: list[tuple[int, int]] | None = None,
                   schema: GraphSchema | None = None) -> list[str]:
    """Runs of the question's words that are not function words (:data:`FUNCTION_WORDS`), relation or kind
    words (:func:`~engram_kit.answering.intent.question_word_spans`) or inside ``taken`` spans, each with a
    word of three letters or more: "Which pills treat diabetes type 2?" -> ``["diabetes type 2"]``."""
    blocked = question_word_spans(question, schema) + list(taken or [])
    runs: list[list[str]] = [[]]
    for m in re.finditer(r"[\w'\u2019-]+", question):
        word = m.group().strip("'\u2019-")
        inside = any(m.start() < b and a < m.end() for a, b in blocked)
        if inside or not word or word.lower() in FUNCTION_WORDS:
            runs.append([])
        else:
            runs[-1].append(word)
    return [" ".join(run) for run in runs if any(len(w) >= 3 and w.isalpha() for w in run)]
