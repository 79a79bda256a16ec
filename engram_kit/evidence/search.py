"""Entity search for the evidence desk: by node id, by name (the workspace resolver), or in a question.

The resolver's cascade (exact, alias, char 3-gram TF-IDF, embedding re-rank; see
:mod:`engram_kit.resolution.resolver`) ranks candidates with a confidence in [0, 1]; the desk shows them so
a planner (template or LLM) starts its queries from node ids rather than from guessed names.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from engram_kit.errors import QueryError
from engram_kit.extraction import EntityExtractor
from engram_kit.kg.schema import kind_to_label
from engram_kit.resolution import EntityResolver


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


def search_entities(text: str, resolver: EntityResolver, nodes: pd.DataFrame, *, limit: int = 5) -> list[EntityMatch]:
    """Graph entities for ``text``: an exact node id (``"Gene::7157"``) first, else resolver candidates.

    Parameters
    ----------
    text : a node id or a name / synonym / misspelling.
    resolver : the workspace resolver.
    nodes : the workspace node table (``id, kind, identifier, name``).
    limit : candidates returned, >= 1.

    Raises
    ------
    QueryError
        If ``text`` is empty.
    """
    text = text.strip()
    if not text:
        raise QueryError("Entity search needs a name or a node id (e.g. 'BACE1' or 'Gene::23621').")
    hit = nodes.loc[nodes["id"] == text]
    if not hit.empty:
        row = hit.iloc[0]
        return [EntityMatch(text, str(row["id"]), str(row["name"]), str(row["kind"]), kind_to_label(str(row["kind"])),
                            1.0, "id")]
    return [EntityMatch(text, c.node_id, c.name, c.kind, kind_to_label(c.kind), float(c.confidence), c.method)
            for c in resolver.resolve(text)[:limit]]


def question_entities(question: str, extractor: EntityExtractor, resolver: EntityResolver, *,
                      min_confidence: float = 0.5) -> list[EntityMatch]:
    """Every candidate (>= ``min_confidence``) of every mention found in ``question``, best first per mention.

    Unlike retrieval seeding, all candidates are kept, so a template can pick the reading of the kind it
    needs ("metformin" as a Compound for "what does metformin treat?").
    """
    out: list[EntityMatch] = []
    for mention in extractor.extract(question):
        for c in resolver.resolve(mention, context=question):
            if c.confidence >= min_confidence:
                out.append(EntityMatch(mention.text, c.node_id, c.name, c.kind, kind_to_label(c.kind),
                                       float(c.confidence), c.method))
    return out
