"""Graph store backends by name: how a workspace creates and reopens its :class:`~engram_kit.store.base.GraphStore`.

A workspace records its backend's name in ``manifest["backend"]`` and asks :data:`engram_kit.plugins.backends` for
the store; it never branches on the name. A new backend is one module defining a
:class:`~engram_kit.store.base.GraphStore` (usually a :class:`~engram_kit.store.cypher_store.CypherStore` subclass)
plus one registration line, ``plugins.backends.register("name", StoreBackend(...))`` (``tests/test_store_backends.py``
adds a toy one that way), or an entry point in the group ``engram_kit.backends``. The built-in ``ladybug`` and
``neo4j`` entries below are registered lazily in :mod:`engram_kit.plugins`.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram_kit import plugins
from engram_kit.kg.schema import GraphSchema
from engram_kit.store.base import GraphStore

#: ``create(workspace folder, options, schema) -> store``: a new, writable store (schema created) for a new workspace.
CreateStore = Callable[[Path, Any, "GraphSchema | None"], GraphStore]
#: ``reopen(workspace folder, manifest, read_only, options) -> store``: the store a manifest records.
ReopenStore = Callable[[Path, dict[str, Any], bool, Any], GraphStore]


@dataclass(frozen=True)
class GraphCompaction:
    """What a backend's ``compact`` did: the reopened, writable store and the store's on-disk size (bytes)
    before and after."""

    store: GraphStore
    bytes_before: int
    bytes_after: int


#: ``compact(workspace folder, store) -> GraphCompaction``: rewrite the store from its live rows so deleted text
#: leaves the disk; closes ``store`` and returns the reopened one (:func:`engram_kit.compaction.compact_workspace`).
CompactStore = Callable[[Path, GraphStore], GraphCompaction]


@dataclass(frozen=True)
class StoreBackend:
    """One graph backend a workspace can use.

    Attributes
    ----------
    name : str
        Recorded as ``manifest["backend"]``; the ``backend=`` argument of ``Workspace.create``.
    create : CreateStore
        Opens the store of a new workspace. ``options`` is the backend's connection object passed to
        ``Workspace.create`` (Neo4j: a :class:`~engram_kit.store.neo4j.Neo4jConfig`; None = from the environment).
    reopen : ReopenStore
        Opens the store of an existing workspace from its manifest (secrets come from ``options`` or the
        environment, never from the manifest).
    description : str
        One line for ``engram`` help and error messages.
    compact : CompactStore or None
        Rewrites the store so deleted rows leave its files (``ws.compact()``, ``engram purge``); None for a backend
        that reclaims freed space itself or cannot be rewritten from here.
    compact_note : str
        Why ``compact`` is None; listed in the compaction report's ``skipped``.
    """

    name: str
    create: CreateStore
    reopen: ReopenStore
    description: str = ""
    compact: CompactStore | None = None
    compact_note: str = ""


def _check_backend(name: str, obj: object) -> None:
    """:attr:`engram_kit.plugins.Registry.validate` of the backends: a :class:`StoreBackend` of the same name."""
    if not isinstance(obj, StoreBackend) or obj.name != name:
        raise plugins.PluginError(f"The store backend {name!r} must be a StoreBackend named {name!r}; got {obj!r}.")


plugins.backends.validate = _check_backend


def register_backend(backend: StoreBackend, *, replace: bool = False) -> StoreBackend:
    """Deprecated alias of ``plugins.backends.register(backend.name, backend, ...)``; returns ``backend``.

    Raises
    ------
    PluginError
        If the name is taken and ``replace`` is False.
    """
    return plugins.backends.register(backend.name, backend, description=backend.description, replace=replace)


def unregister_backend(name: str) -> None:
    """Deprecated alias of ``plugins.backends.unregister(name)``."""
    plugins.backends.unregister(name)


def backend_names() -> tuple[str, ...]:
    """Names of the registered backends, in registration order (``ladybug`` first); imports no backend."""
    return plugins.backends.names()


def get_backend(name: str) -> StoreBackend:
    """The backend registered as ``name`` (``plugins.backends.get``).

    Raises
    ------
    PluginError
        For an unknown name, listing the registered ones.
    """
    backend: StoreBackend = plugins.backends.get(name)
    return backend


# --- the built-in backends --------------------------------------------------------------------------------------
def _ladybug_create(path: Path, options: Any, schema: GraphSchema | None) -> GraphStore:
    from engram_kit.store.ladybug import LadybugStore

    return LadybugStore(path / "graph.lbug", schema=schema)


def _ladybug_reopen(path: Path, manifest: dict[str, Any], read_only: bool, options: Any) -> GraphStore:
    from engram_kit.store.ladybug import LadybugStore

    return LadybugStore(path / "graph.lbug", read_only=read_only)


def _ladybug_compact(path: Path, store: GraphStore) -> GraphCompaction:
    """Copy the live rows into a fresh ``graph.lbug`` beside the workspace, then swap it in (two renames; a crash
    between them leaves ``graph.lbug.old`` and ``graph.compact``, never a half-written store in use)."""
    from engram_kit.store.rewrite import copy_graph, folder_bytes, swap_in

    live = path / "graph.lbug"
    before = sum(folder_bytes(p) for p in path.glob("graph.lbug*"))
    scratch = path / "graph.compact"
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir()
    fresh = _ladybug_create(scratch, None, store.schema)
    try:
        copy_graph(store, fresh)
    finally:
        fresh.close()
    store.close()
    for extra in path.glob("graph.lbug.*"):  # the old database's write-ahead log and lock files
        if extra.is_file():
            extra.unlink()
    swap_in(live, scratch / "graph.lbug")
    for extra in scratch.glob("graph.lbug.*"):
        extra.rename(path / extra.name)
    shutil.rmtree(scratch)
    reopened = _ladybug_reopen(path, {}, False, None)
    return GraphCompaction(reopened, before, sum(folder_bytes(p) for p in path.glob("graph.lbug*")))


def _neo4j_create(path: Path, options: Any, schema: GraphSchema | None) -> GraphStore:
    from engram_kit.store.neo4j import Neo4jConfig, Neo4jStore

    return Neo4jStore(options if options is not None else Neo4jConfig.from_env(), schema=schema)


def _neo4j_reopen(path: Path, manifest: dict[str, Any], read_only: bool, options: Any) -> GraphStore:
    from engram_kit.store.neo4j import Neo4jConfig, Neo4jStore

    config = options if options is not None else Neo4jConfig.from_manifest(manifest.get("neo4j", {}))
    return Neo4jStore(config, read_only=read_only)


#: The built-in backends, registered lazily in :mod:`engram_kit.plugins` as ``ladybug`` and ``neo4j``.
LADYBUG = StoreBackend("ladybug", _ladybug_create, _ladybug_reopen,
                       "embedded LadybugDB file in the workspace folder (default)", compact=_ladybug_compact)
NEO4J = StoreBackend("neo4j", _neo4j_create, _neo4j_reopen,
                     "Neo4j 5 server + Graph Data Science (PPR on the server); docs/scaling-out.md",
                     compact_note="the graph is on Neo4j, which reuses freed store space itself")
