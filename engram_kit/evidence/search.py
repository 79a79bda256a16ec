"""Entity search for the evidence desk: by node id or CURIE, by name (the workspace resolver), or in a question.

The resolver's cascade (exact, alias, char 3-gram TF-IDF, embedding re-rank; see
:mod:`engram_kit.resolution.resolver`) ranks candidates with a confidence in [0, 1]; the desk shows them so
a planner (template or LLM) starts its queries from node ids rather than from guessed names.

Identifiers are looked up before names, in text and in questions: a whole node id (``"Gene::HGNC:10848"``)
or the CURIE after ``::`` (``"HGNC:10848"``, ``"mondo:0016355"``; case-insensitive), so a question can name
exactly one of several same-named nodes (a Biolink graph has an ``SHH`` gene per species). Labels come from
the store's graph schema (``PhenotypicFeature`` on a KGX graph, Hetionet's kinds otherwise).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from engram_kit.resolution.identifiers import IDENTIFIER_IN_TEXT
from engram_kit.errors import DataError, QueryError
from engram_kit.extraction import EntityExtractor
from engram_kit.kg.schema import HETIONET_SCHEMA, GraphSchema
from engram_kit.resolution import EntityResolver

#: A node id (``Gene::HGNC:10848``) or a prefixed identifier (``HGNC:10848``, ``REACT:R-HSA-5358346``,
#: ``DOID:10652``) inside a question. Case-insensitive look-up; a token that is no node's id is ignored.
_IDENTIFIER_TOKEN = IDENTIFIER_IN_TEXT


def graph_label(kind: str, schema: GraphSchema | None = None) -> str:
    """Node kind -> label of ``schema`` (default Hetionet): ``"Side Effect"`` -> ``"SideEffect"``; a KGX kind is
    its label (``"PhenotypicFeature"``). An unknown kind is returned unchanged (never raises: a search result
    must not fail on a label the schema does not list, e.g. a stub node's ``NamedThing``)."""
    try:
        return (schema or HETIONET_SCHEMA).label_of_kind(kind)
    except DataError:
        return kind


@dataclass(frozen=True)
class EntityMatch:
    """One candidate graph entity for a text.

    ``mention`` is the text searched (or the question span); ``label`` the graph label (``Gene``);
    ``confidence`` in [0, 1]; ``method`` ``id`` for an id look-up, else the resolver's method.
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
    for mention in extractor.extract(question):
        candidates = resolver.resolve(mention, context=question)
        # Once a mention's best reading passes the floor, its other exact-name readings stay too: the context
        # share can push "hypertension" the Disease below the floor in "side effects of drugs that treat
        # hypertension", and only the template or intent knows which kind the question needs.
        best = max((c.confidence for c in candidates), default=0.0)
        for c in candidates:
            alternative = best >= min_confidence and c.method in ("exact", "alias", "identifier")
            if (c.confidence >= min_confidence or alternative) and c.node_id not in seen:
                out.append(EntityMatch(mention.text, c.node_id, c.name, c.kind, graph_label(c.kind, schema),
                                       float(c.confidence), c.method))
    return out
