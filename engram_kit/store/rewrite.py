"""Rewriting a store on disk: copy its rows into a fresh store, swap the copy in, measure a folder.

What a backend's ``compact`` (:mod:`engram_kit.store.registry`) and :mod:`engram_kit.compaction` (the whole
workspace: graph, vectors, history) share. It sits in :mod:`engram_kit.store` so the backends need nothing from
the workspace-level compaction module above them (docs/architecture.md, import layers).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from engram_kit.store.base import GraphStore
from engram_kit.store.export import literature_batches, read_domain, read_literature


def folder_bytes(path: Path) -> int:
    """Bytes of a file, or of every file under a folder (0 when absent)."""
    if path.is_file():
        return path.stat().st_size
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return 0


def swap_in(live: Path, fresh: Path) -> None:
    """Put ``fresh`` where ``live`` is: rename ``live`` aside, ``fresh`` into place, delete the old copy."""
    old = live.with_name(live.name + ".old")
    if old.exists():
        shutil.rmtree(old) if old.is_dir() else old.unlink()
    if live.exists():
        live.rename(old)
    fresh.rename(live)
    if old.exists():
        shutil.rmtree(old) if old.is_dir() else old.unlink()


def copy_graph(source: GraphStore, target: GraphStore) -> None:
    """Write the domain layer and the whole literature layer of ``source`` into the empty, writable ``target``
    (:mod:`engram_kit.store.export`); what a backend's ``compact`` uses to build its fresh copy."""
    nodes, edges = read_domain(source)
    frames = read_literature(source)
    target.load_knowledge_graph(nodes, edges, progress=False)
    for batch in literature_batches(frames):
        target.write_literature(batch)
