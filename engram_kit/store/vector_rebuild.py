"""Build a local vector store from exported rows in a fresh interpreter (the vector half of ``engram purge``).

Why a separate process: chromadb's HNSW index writes its whole preallocated level-0 block to
``data_level0.bin``, including slots no vector uses yet, and those slots hold whatever the process's allocator
handed back, i.e. bytes the process held before. Rebuilt inside the process that had just read or deleted a
document, a purged store could keep fragments of the deleted text in that file (a deleted document's title
was found there in one run of ``tests/test_documents.py`` out of six). The parent exports the live rows
(:func:`export_rows`) and this module, run as ``python -m engram_kit.store.vector_rebuild EXPORT DEST
DIMENSION MODEL``, reads only that export, so the new files can hold nothing the live rows do not.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engram_kit.errors import WorkspaceError

__all__ = ["export_rows", "rebuild_in_subprocess"]


def export_rows(source: Any, export: Path) -> int:
    """Write every live row of the vector store ``source`` (a :class:`~engram_kit.store.vectors.VectorStore`) to
    ``export``, one pickled ``(ids, embeddings (n, dimension) float32, metadatas)`` page after another (a page at a
    time in memory, as :meth:`~engram_kit.store.vectors.VectorStore.iter_rows` reads them); returns the row count."""
    rows = 0
    with export.open("wb") as out:
        for page in source.iter_rows():
            pickle.dump(page, out, protocol=pickle.HIGHEST_PROTOCOL)
            rows += len(page[0])
    return rows


def _read_pages(export: Path) -> Iterator[tuple[list[str], Any, list[Any]]]:
    with export.open("rb") as stream:
        while True:
            try:
                yield pickle.load(stream)  # our own export, written by the parent a moment ago
            except EOFError:
                return


def rebuild_in_subprocess(export: Path, dest: Path, *, dimension: int, model_name: str) -> int:
    """Build the store at ``dest`` from ``export`` in a fresh Python process; returns the vectors the new store
    counts once written (the caller compares it with what it exported).

    Raises
    ------
    WorkspaceError
        If the child process fails (its last lines of stderr are in the message); ``dest`` may then be
        partial and is the caller's to remove.
    """
    done = subprocess.run([sys.executable, "-m", __name__, str(export), str(dest), str(dimension), model_name],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise WorkspaceError(f"Rebuilding the vector store in {dest} failed (exit {done.returncode}): {tail}. The "
                             "workspace's vectors are unchanged; run `engram purge` again, or `engram check` first.")
    return int(done.stdout.strip().splitlines()[-1])


def _main(argv: list[str]) -> int:
    from engram_kit.store.vectors import VectorStore

    export, dest, dimension, model_name = Path(argv[0]), Path(argv[1]), int(argv[2]), argv[3]
    target = VectorStore(dest, dimension=dimension, model_name=model_name)
    try:
        for ids, embeddings, metadatas in _read_pages(export):
            target.upsert(ids, embeddings, metadatas)
        stored = target.count()
    finally:
        target.close()
    print(stored)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
