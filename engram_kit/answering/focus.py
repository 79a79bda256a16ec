"""The answer's own graph: question entities, answer items, and the edges and passages that support them.

The answer graph used to draw every co-mention of the top passages (issue 29: "Which genes does BACE1
interact with?" showed a 20-gene cluster around GDF15 from one passage's UCHL1 gene list). :func:`focus_result`
narrows a :class:`~engram_kit.retrieval.results.RetrievalResult` to what the :class:`~engram_kit.answering.Answer`
rests on, so :func:`engram_kit.exports.build_answer_graph` draws only that:

* nodes: the question entities (seeds), then the answer items (``Answer.exact`` node ids, then the
  endpoints of the edges the graph claims cite), then the entities of cited passages that are already
  among them, at most :data:`MAX_FOCUS_NODES`;
* edges: the cited edges and any other graph edge among those nodes;
* passages: the cited ones only (their mentions of other entities are dropped).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd

from engram_kit.answering.parts import edge_ends
from engram_kit.answering.types import Answer
from engram_kit.kg.schema import LABEL_TO_KIND
from engram_kit.retrieval.results import RetrievalResult
from engram_kit.settings import Settings

__all__ = ["MAX_FOCUS_NODES", "focus_nodes", "focus_result"]

#: Nodes of an answer's graph at most (the issue's bound: a reader can take in 40 nodes).
MAX_FOCUS_NODES: int = Settings.answer_focus_max_nodes


def focus_nodes(answer: Answer, limit: int = MAX_FOCUS_NODES) -> list[str]:
    """Node ids the answer rests on, in order: question entities, exact answer items, cited edges' endpoints."""
    out: list[str] = [e.node_id for e in answer.retrieval.entities]
    out += [x.node_id for x in answer.exact if x.node_id]
    for claim in answer.claims:
        for cite in claim.citations:
            if cite.kind == "edge":
                source, _, target = edge_ends(cite.ref)
                out += [source, target]
    return list(dict.fromkeys(n for n in out if n))[:limit]


def focus_result(answer: Answer, store: Any, limit: int = MAX_FOCUS_NODES) -> tuple[RetrievalResult, pd.DataFrame]:
    """``(result, mentions)`` for :func:`~engram_kit.exports.build_answer_graph`: the answer's retrieval
    narrowed to :func:`focus_nodes` (names and kinds read from ``store``; PPR kept where the subgraph had it),
    the edges among them, and its cited passages with their mentions of those nodes only."""
    result = answer.retrieval
    ids = focus_nodes(answer, limit)
    seeds = {e.node_id for e in result.entities}
    ppr = dict(zip(result.subgraph_nodes["id"], result.subgraph_nodes["ppr"])) \
        if not result.subgraph_nodes.empty else {}
    found = store.get_nodes(ids) if ids else pd.DataFrame(columns=["id", "label", "name"])
    names = {str(r["id"]): (str(r["name"]), LABEL_TO_KIND.get(str(r["label"]), str(r["label"])))
             for r in found.to_dict(orient="records")}
    nodes = pd.DataFrame([{"id": n, "name": names[n][0], "kind": names[n][1], "ppr": float(ppr.get(n, 0.0)),
                           "is_seed": n in seeds} for n in ids if n in names],
                         columns=["id", "name", "kind", "ppr", "is_seed"])
    edges = store.edges_among(list(nodes["id"])) if len(nodes) else result.subgraph_edges.iloc[0:0]
    cited = {c.ref for claim in answer.claims for c in claim.citations if c.kind == "passage"}
    cited |= {c.ref for x in answer.exact for c in x.citations if c.kind == "passage"}
    passages = [p for p in result.passages if p.passage_id in cited]
    keep = set(nodes["id"])
    passages = [dataclasses.replace(p, paths=tuple(path for path in p.paths if path.nodes[-1] in keep))
                for p in passages]
    mentions = store.passage_mentions([p.passage_id for p in passages]) if passages else pd.DataFrame()
    if not mentions.empty and "entity_id" in mentions.columns:
        mentions = mentions[mentions["entity_id"].astype(str).isin(keep)]
    narrowed = dataclasses.replace(result, subgraph_nodes=nodes, subgraph_edges=edges, passages=passages)
    return narrowed, mentions
