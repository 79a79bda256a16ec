"""The desk's memory cap bounds the query process's *peak*, not only the level at which it is noticed
(issue 21: "peak RSS of any single refused input < 2 GB").

benchmarks/bad_inputs.py measured ``UNWIND range(1, 300000000) AS x RETURN x`` under the default 2048 MiB cap
at a 2064 MiB peak: the cap is an RSS poll every 50 ms, so the process overshoots by what it allocates in
one poll interval. The peak is measured here the same way, with ``os.wait4`` on a fresh process whose
``ru_maxrss`` covers the query process it started and reaped (and, on Linux, the query process's image
between fork and exec, a copy of the caller's: so the cap tested is well above the caller's size).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

SCRIPT = """
import json, sys
import pandas as pd
from engram_kit.evidence import DeskLimits, QueryRunner
from engram_kit.store.ladybug import LadybugStore
store = LadybugStore(sys.argv[1])
nodes = pd.DataFrame({"id": ["Gene::1", "Gene::2"], "kind": "Gene", "identifier": ["1", "2"], "name": ["A", "B"]})
edges = pd.DataFrame({"source": ["Gene::1"], "metaedge": "GiG", "target": ["Gene::2"], "sources": "t", "license": "",
                      "unbiased": "", "pubmed_ids": ""})
store.load_knowledge_graph(nodes, edges, progress=False)
artifact = QueryRunner(store, DeskLimits(max_memory_mb=int(sys.argv[2]), query_timeout_s=60.0)).run(
    "UNWIND range(1, 300000000) AS x RETURN x")
store.close()  # stops and reaps the query process, so the parent's wait4 counts its peak
print(json.dumps({"status": artifact.status, "error": artifact.error}))
"""


@pytest.mark.slow
def test_a_memory_bomb_peaks_below_the_desk_memory_cap(tmp_path):
    cap_mib = 1536  # above the fork image of the calling process (~0.9 GB), which ru_maxrss also counts
    child = subprocess.Popen([sys.executable, "-c", SCRIPT, str(tmp_path / "graph.lbug"), str(cap_mib)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    _, status, usage = os.wait4(child.pid, 0)
    out, err = child.stdout.read(), child.stderr.read()  # type: ignore[union-attr]
    assert os.waitstatus_to_exitcode(status) == 0, err[-2000:]
    result = json.loads(out.strip().splitlines()[-1])
    assert result["status"] == "failed" and "memory" in result["error"], result
    peak_mib = usage.ru_maxrss / 1024
    assert peak_mib < cap_mib, f"query process peaked at {peak_mib:.0f} MiB, cap {cap_mib} MiB"
