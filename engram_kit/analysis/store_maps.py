"""Literature maps of a workspace's stored documents, with per-document graphs cached on disk.

Each article's passages are joined (in passage order) into one text, its :class:`DocumentGraph` is
built once and cached under ``<cache dir>/<article key>-<content hash>.pkl``; unticking or re-selecting
documents later never reprocesses them, and an edited (re-ingested) article gets a new content hash and
so a new graph. Curated-edge lookups come from the store's typed domain edges.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from engram_kit.analysis.cooccurrence import DocumentGraph, LiteratureMapBuilder
from engram_kit.analysis.kg_link import CuratedEdgeIndex
from engram_kit.analysis.literature_map import LiteratureMap
from engram_kit.errors import DataError
from engram_kit.records import COMPLETE_STATUSES
from engram_kit.kg.schema import METAEDGE_BY_REL_TYPE
from engram_kit.store.base import GraphStore

log = logging.getLogger(__name__)

#: Bumped when DocumentGraph's pickled shape changes, so stale caches are ignored.
CACHE_VERSION = 1


def article_text(store: GraphStore, article_id: str) -> str:
    """All passages of one article joined by blank lines, in passage order ("" if it has none)."""
    passages = store.article_passages(article_id)
    if passages.empty:
        return ""
    order = "idx" if "idx" in passages.columns else "index"
    return "\n\n".join(passages.sort_values(order)["text"].astype(str))


def _cache_path(cache_dir: Path, article_id: str, content_hash: str) -> Path:
    key = hashlib.sha1(article_id.encode()).hexdigest()[:16]
    return cache_dir / f"v{CACHE_VERSION}-{key}-{(content_hash or 'nohash')[:16]}.pkl"


def document_graphs(store: GraphStore, builder: LiteratureMapBuilder, *, article_ids: Sequence[str] | None = None,
                    cache_dir: Path | None = None, progress: bool = False) -> list[DocumentGraph]:
    """Per-article co-occurrence graphs of stored articles (status ``complete`` only).

    Parameters
    ----------
    store : the workspace store.
    builder : extraction + resolution + patterns used to build each graph.
    article_ids : articles to include (default: every complete article).
    cache_dir : folder for the per-article pickle cache (None: no cache).

    Raises
    ------
    DataError
        If a requested article id is unknown or not complete.
    """
    articles = store.articles()
    if articles.empty:
        return []
    complete = articles[articles["status"].isin(COMPLETE_STATUSES)].set_index("id")
    wanted = list(complete.index) if article_ids is None else list(article_ids)
    unknown = [a for a in wanted if a not in complete.index]
    if unknown:
        raise DataError(f"No complete article with id {', '.join(unknown[:5])}; list them with `engram docs`.")
    graphs: list[DocumentGraph] = []
    todo: dict[str, str] = {}
    for article_id in wanted:
        path = _cache_path(cache_dir, article_id, str(complete.at[article_id, "content_hash"])) if cache_dir else None
        if path is not None and path.exists():
            with open(path, "rb") as fh:
                graphs.append(pickle.load(fh))
        else:
            todo[article_id] = article_text(store, article_id)
    if todo:
        built = builder.build_many({k: v for k, v in todo.items() if v}, progress=progress)
        if cache_dir is not None:
            cache_dir.mkdir(parents=True, exist_ok=True)
            for graph in built:
                path = _cache_path(cache_dir, graph.doc_id, str(complete.at[graph.doc_id, "content_hash"]))
                with open(path, "wb") as fh:
                    pickle.dump(graph, fh, protocol=pickle.HIGHEST_PROTOCOL)
        graphs.extend(built)
    order = {a: i for i, a in enumerate(wanted)}
    return sorted(graphs, key=lambda g: order.get(g.doc_id, len(order)))


def literature_map_from_store(store: GraphStore, builder: LiteratureMapBuilder, *,
                              article_ids: Sequence[str] | None = None, cache_dir: Path | None = None,
                              progress: bool = False) -> LiteratureMap:
    """A :class:`LiteratureMap` over stored articles (see :func:`document_graphs`)."""
    iterable = document_graphs(store, builder, article_ids=article_ids, cache_dir=cache_dir, progress=progress)
    return LiteratureMap(iterable)


def curated_edge_index(store: GraphStore, node_ids: Sequence[str]) -> CuratedEdgeIndex:
    """Curated (Hetionet) edges among ``node_ids`` as a pair -> metaedges lookup for
    :func:`~engram_kit.analysis.link_to_knowledge_graph`. One store query."""
    ids = [n for n in dict.fromkeys(node_ids) if "::" in n]  # literature-only NounPhrase ids have no curated edges
    edges = store.edges_among(ids) if len(ids) > 1 else pd.DataFrame(columns=["source", "target", "rel_type"])
    triples = [
        (s, METAEDGE_BY_REL_TYPE[r].abbreviation if r in METAEDGE_BY_REL_TYPE else r, t)
        for s, t, r in zip(edges["source"], edges["target"], edges["rel_type"])
    ]
    return CuratedEdgeIndex(triples)
