"""Purge: rewrite a workspace's graph store and vector store so deleted text is gone from disk.

Deleting a document removes its nodes, edges and vectors from what the stores *answer*, but both stores
keep the deleted bytes in their files until they are rewritten: LadybugDB marks deleted rows and reuses
pages later; chromadb keeps deleted embeddings and documents in its SQLite file (write-ahead log, free
pages) and in the HNSW index files, which grow on every add/delete cycle. :func:`compact_workspace`
(``ws.compact()``, ``engram purge``) rewrites both from the rows that are still there:

1. **Vectors** (local chromadb folder): every live vector is exported and written into a fresh collection in
   ``vectors.compact/`` by a fresh interpreter (:mod:`engram_kit.store.vector_rebuild` says why); the old folder is renamed aside, the new one renamed into place, the old one
   deleted. A vector store on a Chroma server is left alone (compaction there is the server's job; the
   report says so).
2. **Graph**: the store's backend does it (``compact`` of its
   :class:`~engram_kit.store.registry.StoreBackend`). Embedded LadybugDB: the domain layer and the whole
   literature layer are read out (:func:`copy_graph`, :mod:`engram_kit.store.export`) and written into a
   fresh database file, which then replaces the old one the same way. A backend without ``compact`` (Neo4j,
   which reuses freed store space itself) is left alone and the report says why.
3. **Derived caches**: the literature-map cache (``cache/litmap``, per-document sentence graphs) is deleted;
   maps rebuild it on use.
4. **History** (optional): the originals of ``superseded`` document versions are deleted too.

Each swap is two renames; a crash between them leaves ``<name>.old`` and ``<name>.compact`` beside the
workspace, never a half-written store in use (the new copy is complete before the first rename).
"""

from __future__ import annotations

import logging
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engram_kit.errors import WorkspaceError
from engram_kit.store.rewrite import copy_graph as copy_graph  # re-exported: the backends' compact uses them
from engram_kit.store.rewrite import folder_bytes as folder_bytes
from engram_kit.store.rewrite import swap_in as swap_in

log = logging.getLogger(__name__)


@dataclass
class CompactReport:
    """What :func:`compact_workspace` did. Sizes in bytes, before and after; ``skipped`` says what was not
    rewritten and why."""

    graph_bytes_before: int = 0
    graph_bytes_after: int = 0
    vector_bytes_before: int = 0
    vector_bytes_after: int = 0
    vectors_kept: int = 0
    history_removed: int = 0
    seconds: float = 0.0
    skipped: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        lines = [f"graph:   {self.graph_bytes_before:,} -> {self.graph_bytes_after:,} bytes",
                 f"vectors: {self.vector_bytes_before:,} -> {self.vector_bytes_after:,} bytes ({self.vectors_kept} kept)"]
        if self.history_removed:
            lines.append(f"history: {self.history_removed} superseded originals deleted")
        lines += [f"skipped: {s}" for s in self.skipped]
        lines.append(f"in {self.seconds:.1f} s")
        return "\n".join(lines)


def _compact_vectors(ws: Any, report: CompactReport) -> None:
    from engram_kit.store.vector_rebuild import export_rows, rebuild_in_subprocess

    entry = ws.manifest.get("vector_store") or {"kind": "local"}
    live = ws.path / "vectors"
    if entry.get("kind", "local") != "local":
        report.skipped.append("vectors are on a Chroma server: compaction there is the server's")
        return
    if not live.exists():
        return
    report.vector_bytes_before = folder_bytes(live)
    source = ws.vectors
    fresh = ws.path / "vectors.compact"
    if fresh.exists():
        shutil.rmtree(fresh)
    model = ws.manifest["embedding_model"]
    export = ws.path / "vectors.compact.rows"
    try:
        exported = export_rows(source, export)
        source.close()
        ws._vectors = None  # the workspace reopens its vector store lazily
        # and the vectors questions read: for a writer the same, now closed, store (a purge then a question failed
        # with "The vector store ... is closed")
        ws.__dict__.pop("_search_vectors", None)
        # built by a fresh interpreter, so the new index files hold no heap bytes of this process (which may have
        # just handled the deleted text): engram_kit.store.vector_rebuild says why
        report.vectors_kept = rebuild_in_subprocess(export, fresh, dimension=int(model["dimension"]),
                                                    model_name=model["name"])
    except BaseException:
        if fresh.exists():
            shutil.rmtree(fresh)
        raise
    finally:
        export.unlink(missing_ok=True)
    if report.vectors_kept != exported:
        shutil.rmtree(fresh)
        raise WorkspaceError(f"The rebuilt vector store holds {report.vectors_kept} vectors, not the {exported} "
                             "exported; the workspace's vectors are unchanged. Run `engram check`, then purge again.")
    _release_chroma(live)
    swap_in(live, fresh)
    report.vector_bytes_after = folder_bytes(live)


def _release_chroma(path: Path) -> None:
    """chromadb caches one client system per folder in the process; drop it so the folder can be swapped and
    reopened fresh."""
    try:
        from chromadb.api.shared_system_client import SharedSystemClient

        SharedSystemClient._identifier_to_system.pop(str(path), None)  # no public API for this
    except Exception:  # older/newer chromadb: reopening still works, the cache is per path
        log.debug("could not drop chromadb's cached client for %s", path, exc_info=True)


def _compact_graph(ws: Any, report: CompactReport) -> None:
    # The backend says how (or whether) its store is rewritten, so a new backend needs no edit here.
    from engram_kit.store.registry import get_backend

    backend = get_backend(ws.manifest.get("backend", "ladybug"))
    if backend.compact is None:
        report.skipped.append(backend.compact_note or f"the {backend.name} graph backend has no compaction")
        return
    done = backend.compact(ws.path, ws.store)
    report.graph_bytes_before, report.graph_bytes_after = done.bytes_before, done.bytes_after
    ws.store = done.store
    documents = ws.__dict__.get("_documents")
    if documents is not None:
        documents.store = ws.store
    ws._index = None  # the retrieval index is rebuilt from the new store on next use


def compact_workspace(ws: Any, *, drop_history: bool = False) -> CompactReport:
    """Rewrite the stores of ``ws`` from their live rows (see the module docstring); returns the sizes.

    Parameters
    ----------
    ws : a writable :class:`~engram_kit.workspace.Workspace`.
    drop_history : also delete the stored originals of superseded document versions.

    Raises
    ------
    ReadOnlyError
        On a read-only workspace.
    WorkspaceError
        If the graph store is not open.
    """
    ws._require_writable("compact the workspace")  # the workspace's own guard
    if ws.store.closed:
        raise WorkspaceError(f"The workspace at {ws.path} is closed; open it again to compact it.")
    t0 = time.perf_counter()
    report = CompactReport()
    if drop_history:
        report.history_removed = ws.documents.drop_history()
    _compact_vectors(ws, report)
    _compact_graph(ws, report)
    # Literature-map caches hold per-document sentence graphs (sentences included) keyed by content hash, so a
    # deleted document's text stayed there after a purge (second newcomer run). They are derived: rebuilt on use.
    litmap = ws.path / "cache" / "litmap"
    if litmap.exists():
        shutil.rmtree(litmap)
    report.seconds = round(time.perf_counter() - t0, 2)
    log.info("compacted %s: %s", ws.path, report)
    return report
