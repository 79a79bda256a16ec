"""A Workspace shared between threads (issue 31 item 1): concurrent writes serialise, reads run beside them,
never a hang. Before the fix eight threads ingesting into one open workspace hung for minutes (threads stuck
in a second BEGIN TRANSACTION on the store's one connection) and once failed with "Could not connect to
tenant default_tenant" (two chromadb clients built at once).

The deadline cannot hang the suite: pytest-timeout (a dev dependency) ends the test at 900 s with every
thread's stack, and the threads are joined against a deadline of their own first."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from engram_kit.ingestion.pubmed import read_pubmed
from engram_kit.workspace import Workspace

WRITERS, PER_WRITER, READERS = 8, 2, 2
DEADLINE_S = 600.0  # a hang is minutes of no progress; the work itself takes well under a minute here


@pytest.mark.slow
@pytest.mark.timeout(900, method="thread")
def test_eight_threads_ingest_into_one_workspace_with_readers_beside_them(tmp_path, sample_paths):
    records = list(read_pubmed(sample_paths.abstracts))[: WRITERS * PER_WRITER]
    ws = Workspace.create(tmp_path / "ws", data=sample_paths)
    ws.settings.progress = False
    # new PMIDs, so every writer adds articles of its own
    batches = [[dataclasses.replace(r, pmid=str(99_000_000 + w * 100 + j))
                for j, r in enumerate(records[w * PER_WRITER:(w + 1) * PER_WRITER])] for w in range(WRITERS)]
    errors: list[str] = []
    reads: list[int] = []
    writing = threading.Event()

    def write(batch: list) -> None:
        try:
            writing.set()
            report = ws.ingest(batch)
            if report.ingested != len(batch) or report.errors:
                errors.append(f"ingest report: {report.ingested} of {len(batch)}, errors {report.errors}")
        except Exception as exc:  # collected, the test fails on any
            errors.append(f"ingest: {exc!r}")

    def read() -> None:
        writing.wait(30)
        try:
            for _ in range(3):
                ws.retrieve("Which genes are associated with Alzheimer's disease?")
                reads.append(int(ws.store.query("MATCH (a:Article) RETURN count(a) AS n")["n"].iloc[0]))
        except Exception as exc:
            errors.append(f"read: {exc!r}")

    threads = [threading.Thread(target=write, args=(b,), daemon=True) for b in batches]
    threads += [threading.Thread(target=read, daemon=True) for _ in range(READERS)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + DEADLINE_S
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    stuck = [t.name for t in threads if t.is_alive()]
    assert not stuck, f"threads still running after {DEADLINE_S:.0f} s: {stuck}"
    assert errors == []
    # every article once, complete, with its vectors; reads saw counts between none and all of them
    pmids = {r.pmid for b in batches for r in b}
    stored = ws.store.query("MATCH (a:Article) RETURN a.id AS id, a.status AS status")
    ours = stored[stored["id"].isin({f"pubmed:{p}" for p in pmids})]
    assert len(ours) == WRITERS * PER_WRITER
    assert set(ours["status"]) == {"complete"}
    report = ws.check()
    assert report.consistent, report
    assert len(reads) == READERS * 3 and all(0 <= n <= WRITERS * PER_WRITER for n in reads)
    ws.close()
