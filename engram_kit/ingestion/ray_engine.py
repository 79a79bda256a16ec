"""PubMed ingestion on Ray Data: the map stage in an actor pool, then the reduce and load of
:mod:`engram_kit.ingestion.shards` (``Workspace.ingest(..., engine="ray")``, ``engram ingest --engine ray``).

The same code runs on a laptop's local Ray (started here, ``ray.init(num_cpus=<cores>)``, and stopped at the
end) and on a Ray cluster (``address="auto"`` or ``ray://head:10001``; see ``docs/scaling-out.md``).

Pipeline
--------
1. **Read** (Ray tasks, one per input file; in the driver on a local Ray when the files total at most
   :data:`DRIVER_READ_BYTES`): PubMed baseline/update XML (``pubmedNNnNNNN.xml.gz``), JSON
   Lines or MEDLINE files, read by :func:`~engram_kit.ingestion.pubmed.read_pubmed` (streaming). Each file's
   records (a PMID listed twice kept once, as :func:`~engram_kit.ingestion.pubmed.unique_records`) are cut
   into shards of ``Settings.batch_size`` records, the local path's batches; records whose PMID is stored
   ``complete`` with the same content hash are dropped (an update file maps only new or changed PMIDs), and
   shards already written by an earlier run are not emitted again (resume).
2. **Map** (a Ray Data actor pool, ``map_batches(..., compute=ActorPoolStrategy)``): each actor opens the
   workspace read-only once, builds the :class:`~engram_kit.ingestion.pipeline.BatchPreparer` the local
   forked workers run (extraction, linking, embedding, single-threaded) and writes each shard's Parquet files
   atomically (:func:`~engram_kit.ingestion.shards.write_shard`). No second implementation: a shard holds
   exactly what a local worker hands its writer. Actors are restarted and their tasks retried when a worker
   dies (``max_restarts=-1``, ``max_task_retries=-1``); a retried shard replaces nothing (atomic rename).
3. **Reduce and load** in this process (:func:`~engram_kit.ingestion.shards.reduce_shards`,
   :func:`~engram_kit.ingestion.shards.load_reduced`), then the ``DeleteCitation`` PMIDs of the input files
   are deleted.

Shards live in ``<workspace>/shards/`` unless ``shards=`` names another folder; on a cluster that folder and
the workspace must be on storage every node sees (NFS, EFS, a mounted bucket), since actors open the
workspace's caches and write the shards there.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import resource
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from engram_kit.errors import BackendUnavailableError, DataError
from engram_kit.ingestion import shards as shardlib
from engram_kit.ingestion.pipeline import IngestReport, content_hash
from engram_kit.ingestion.pubmed import (
    PubMedRecord,
    read_deleted_pmids,
    read_pubmed,
    read_pubmed_skipping,
    unique_records,
)
from engram_kit.settings import Settings

if TYPE_CHECKING:
    from engram_kit.workspace import Workspace

log = logging.getLogger(__name__)

#: Environment variables handed to Ray workers (model cache, offline switches, the import path).
WORKER_ENV: tuple[str, ...] = ("PYTHONPATH", "ENGRAM_MODEL_CACHE", "ENGRAM_DATA", "HF_HUB_OFFLINE",
                               "TRANSFORMERS_OFFLINE", "ANONYMIZED_TELEMETRY", "HF_HOME")
#: On a local Ray, input files of at most this many bytes in all are read in the driver (no read tasks); larger
#: inputs, and every input on a cluster, are read by Ray tasks so that no process holds them all.
DRIVER_READ_BYTES = 256 * 2**20


def _ray() -> Any:
    """The ``ray`` module, or a clear error naming the extra to install."""
    try:
        import ray
        import ray.data
    except ImportError as exc:
        raise BackendUnavailableError("engine='ray' needs Ray Data: pip install 'engram-kit[scale]' "
                                      "(or pip install 'ray[data]').") from exc
    return ray


def _record_dict(record: PubMedRecord) -> dict[str, Any]:
    data = dataclasses.asdict(record)
    data["authors"] = list(record.authors)
    return data


def _record(data: dict[str, Any]) -> PubMedRecord:
    return PubMedRecord(**{**data, "authors": tuple(data.get("authors") or ())})


def read_shards(row: dict[str, Any], *, root: str, batch_size: int, known: dict[str, str],
                skip_bad: bool) -> Iterator[dict[str, Any]]:
    """The read stage of one input file (a Ray Data ``flat_map`` function): one output row per shard still to
    map, ``{"dir", "records"}`` (the shard's folder and its records as JSON).

    ``known`` maps ``pubmed:<pmid>`` to the content hash of articles stored ``complete``; those are dropped.
    """
    path, key = Path(row["path"]), row["key"]
    bad: list[str] = []
    records = unique_records(read_pubmed_skipping(path, bad) if skip_bad else read_pubmed(path))
    index, chunk = 0, []
    for record in records:
        chunk.append(record)
        if len(chunk) == batch_size:
            yield from _shard_row(Path(root), key, index, chunk, known)
            index, chunk = index + 1, []
    if chunk:
        yield from _shard_row(Path(root), key, index, chunk, known)


def _shard_row(root: Path, key: str, index: int, chunk: list[PubMedRecord],
               known: dict[str, str]) -> Iterator[dict[str, Any]]:
    todo = [r for r in chunk if known.get(f"pubmed:{r.pmid}") != content_hash(r)]
    path = shardlib.shard_dir(root, key, index)
    if todo and not shardlib.is_finished(path):
        yield {"dir": str(path), "records": json.dumps([_record_dict(r) for r in todo])}


class PrepareActor:
    """A map actor: the workspace's :class:`~engram_kit.ingestion.pipeline.BatchPreparer`, loaded once, run on one
    shard per call (``batch_size=1``), single-threaded.

    Parameters
    ----------
    workspace : path of the workspace (opened read-only).
    opener : how to open it, ``opener(path, read_only=True)`` -> a workspace with ``ingestion_extractor``,
        ``resolver`` and ``embedder``; :func:`ingest_ray` passes ``type(ws).open`` (``Workspace.open``, pickled by
        reference), so this module, a layer below the workspace, never imports it (docs/architecture.md).
    settings : ``Settings.to_dict()`` of the ingesting workspace (batch size, linking thresholds).
    env : environment variables to set before any model loads.
    fault : test hook, ``{"shard": folder name, "marker": path, "mode": "exit" | "raise"}``: on that shard,
        ``exit`` kills this worker process the first time (the marker file records it), after the batch is
        prepared and before its shard is written; ``raise`` fails the shard every time.
    """

    def __init__(self, workspace: str, opener: Callable[..., Any], settings: dict[str, Any], env: dict[str, str],
                 fault: dict[str, str] | None = None) -> None:
        os.environ.update(env)
        os.environ["ENGRAM_EMBED_THREADS"] = "1"
        from engram_kit.ingestion.pipeline import BatchPreparer
        from engram_kit.settings import Settings

        t0 = time.perf_counter()
        ws = opener(workspace, read_only=True)
        self.preparer = BatchPreparer(extractor=ws.ingestion_extractor, resolver=ws.resolver,
                                      embedder=ws.embedder, settings=Settings.from_dict(settings))
        self.preparer.single_threaded()
        self.fault = fault
        self.init_seconds = time.perf_counter() - t0  # reported with the actor's first shard

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, list[Any]]:
        """Prepare, embed and write the shards of ``batch`` (columns ``dir``, ``records``); returns one stats row
        per shard: ``dir, records, mentions, linked, prepare_s, embed_s``."""
        out: dict[str, list[Any]] = {k: [] for k in ("dir", "records", "mentions", "linked", "prepare_s", "embed_s",
                                                       "init_s", "pid", "cpu_s", "rss_mb")}
        for folder, payload in zip(batch["dir"], batch["records"]):
            records = [_record(d) for d in json.loads(str(payload))]
            prepared = self.preparer.prepare(records, embed=True)
            self._maybe_fail(Path(str(folder)))
            shardlib.write_shard(Path(str(folder)), prepared)
            for k, v in (("dir", str(folder)), ("records", len(records)), ("mentions", prepared.found),
                         ("linked", prepared.linked), ("prepare_s", prepared.seconds),
                         ("embed_s", prepared.embed_seconds), ("init_s", self.init_seconds)):
                out[k].append(v)
            usage = resource.getrusage(resource.RUSAGE_SELF)  # this worker process since it started
            out["pid"].append(os.getpid())
            out["cpu_s"].append(usage.ru_utime + usage.ru_stime)
            out["rss_mb"].append(usage.ru_maxrss / 1024)
            self.init_seconds = 0.0
        return out

    def _maybe_fail(self, folder: Path) -> None:
        fault = self.fault
        if not fault or folder.name != fault["shard"]:
            return
        if fault["mode"] == "raise":
            raise RuntimeError(f"injected failure on shard {folder}")
        marker = Path(fault["marker"])
        if not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(1)  # a worker killed mid-shard: Ray restarts the actor and retries the shard


@dataclasses.dataclass
class RayRun:
    """Timings and counts of a Ray ingest beyond :class:`~engram_kit.ingestion.pipeline.IngestReport`."""

    shards_mapped: int = 0
    #: Seconds the actors spent opening the workspace and loading models, summed over actors.
    actor_init_s: float = 0.0
    #: CPU seconds of the map actors' processes (start-up, model loads and the map), summed over actors.
    actor_cpu_s: float = 0.0
    #: Largest peak RSS of one actor process, and the sum of the actors' peaks, MB.
    actor_peak_rss_mb: float = 0.0
    actors_rss_mb: float = 0.0
    shards_total: int = 0
    ray_start_s: float = 0.0
    map_s: float = 0.0
    reduce_s: float = 0.0
    load_s: float = 0.0
    deleted: int = 0
    nounphrases_in: int = 0
    nounphrases_out: int = 0
    maps_to_in: int = 0
    maps_to_out: int = 0


def ingest_ray(ws: Workspace, sources: Sequence[str | Path], *, address: str | None = None,
               workers: int = 0, shards: str | Path | None = None, skip_bad: bool = False,
               actor_cpus: float | None = None, fault: dict[str, str] | None = None,
               load_fault_hook: Any = None, chunk_articles: int | None = None) -> IngestReport:
    """Ingest PubMed files into ``ws`` with the map stage on Ray (module docstring).

    Parameters
    ----------
    ws : a writable workspace.
    sources : input files, in order (a PMID in several keeps the last file's version).
    address : a running Ray cluster (``"auto"``, ``"ray://host:10001"``); None starts a local Ray for this call
        (or uses the one already initialised in this process) and stops what it started.
    workers : map actors; 0 = one per CPU of the Ray cluster.
    shards : the shard folder (default ``<workspace>/shards``).
    skip_bad : skip invalid JSON Lines records instead of failing.
    actor_cpus : logical CPUs per actor (default ``Settings.ray_actor_cpus`` on a local Ray, 1 on a cluster).
    fault, load_fault_hook, chunk_articles : test hooks (see :class:`PrepareActor`,
        :func:`~engram_kit.ingestion.shards.load_reduced`).

    Returns
    -------
    IngestReport
        With ``stage_seconds`` ``ray_start, map, reduce, load`` (wall) and ``prepare, embed`` (summed over actors);
        :class:`RayRun` figures in ``report.engine_details``.

    Raises
    ------
    BackendUnavailableError
        Without Ray installed.
    DataError
        For a missing or malformed input file (nothing is loaded into the workspace).
    """
    t0 = time.perf_counter()
    paths = [Path(s) for s in sources]
    for path in paths:
        if not path.is_file():
            raise DataError(f"{path}: no such file; check the path.")
        read_pubmed(path)  # unsupported file type: fail before Ray starts
    root = Path(shards) if shards is not None else ws.path / "shards"
    root.mkdir(parents=True, exist_ok=True)
    settings = ws.settings
    recipe = f"{ws.embedder.name}|batch={settings.batch_size}"
    keys = [shardlib.file_key(p, recipe) for p in paths]
    run = RayRun()
    report = IngestReport()
    report.stage_seconds = {"ray_start": 0.0, "map": 0.0, "prepare": 0.0, "embed": 0.0, "reduce": 0.0, "load": 0.0}
    todo_files = [(p, k) for p, k in zip(paths, keys) if shardlib.file_done(root, k) is None]
    if todo_files:
        _map(ws, todo_files, root, address=address, workers=workers, skip_bad=skip_bad, actor_cpus=actor_cpus,
             fault=fault, run=run, report=report)
    t1 = time.perf_counter()
    shard_set = shardlib.shard_paths(root, keys)
    reduced = shardlib.reduce_shards(shard_set)
    run.shards_total = len(shard_set)
    run.reduce_s = time.perf_counter() - t1
    run.nounphrases_in, run.nounphrases_out = reduced.rows_in["nounphrases"], len(reduced.tables["nounphrases"])
    run.maps_to_in, run.maps_to_out = reduced.rows_in["maps_to"], len(reduced.tables["maps_to"])
    t2 = time.perf_counter()
    try:
        loaded = shardlib.load_reduced(reduced, ws.store, ws.vectors,
                                       chunk_articles=chunk_articles or ws.settings.load_chunk_articles,
                                       fault_hook=load_fault_hook)
        run.deleted = shardlib.delete_pmids(ws.store, ws.vectors, [p for path in paths for p in read_deleted_pmids(path)])
    finally:
        ws._bump_literature_version()
    run.load_s = time.perf_counter() - t2
    report.ingested = report.passages = loaded.loaded
    report.unchanged += loaded.unchanged
    report.stage_seconds.update(ray_start=run.ray_start_s, map=run.map_s, reduce=run.reduce_s, load=run.load_s)
    report.seconds = time.perf_counter() - t0
    report.engine_details = dataclasses.asdict(run)
    log.info("Ray ingestion: %s; %s", report, run)
    return report


def _map(ws: Workspace, files: list[tuple[Path, str]], root: Path, *, address: str | None, workers: int,
         skip_bad: bool, actor_cpus: float | None, fault: dict[str, str] | None, run: RayRun,
         report: IngestReport) -> None:
    """Run the read + map stages for ``files`` on Ray and mark each file's shards done."""
    ray = _ray()
    t0 = time.perf_counter()
    started = False
    env = {k: os.environ[k] for k in WORKER_ENV if k in os.environ}
    if not ray.is_initialized():
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        kwargs: dict[str, Any] = dict(include_dashboard=False, log_to_driver=False, configure_logging=False)
        if address is None:
            # A local Ray's raylet and workers are this process's children and inherit its environment; a job
            # runtime_env would only keep the actors off the workers Ray pre-started (a runtime env must match).
            kwargs["num_cpus"] = cores
        else:
            kwargs["runtime_env"] = {"env_vars": env}
        _init_with_retry(ray, address, kwargs, ws.settings.ray_init_attempts)
        started = True
    run.ray_start_s = time.perf_counter() - t0
    try:
        local = address is None
        cpus = float(ray.cluster_resources().get("CPU", 1))
        n_actors = workers or max(1, int(cpus if local else cpus - 1))
        per_actor = actor_cpus if actor_cpus is not None else (ws.settings.ray_actor_cpus if local else 1.0)
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = bool(ws.settings.progress)
        ctx.print_on_execution_start = False
        known = _known_hashes(ws)
        t1 = time.perf_counter()
        read_kwargs: dict[str, Any] = {"root": str(root), "batch_size": ws.settings.batch_size, "known": known,
                       "skip_bad": skip_bad}
        if local and sum(p.stat().st_size for p, _ in files) <= DRIVER_READ_BYTES:
            # Small input on one machine: read here (under a second for the 6,107 shared abstracts) rather than
            # in a Ray task, which costs one more worker process importing the ingestion code, and a
            # repartition stage, on the cores the actors need.
            shard_rows = [row for p, k in files for row in read_shards({"path": str(p), "key": k}, **read_kwargs)]
            if not shard_rows:
                _mark_done(root, files)
                run.map_s = time.perf_counter() - t1
                return
            ds = ray.data.from_items(shard_rows, override_num_blocks=len(shard_rows))  # one block per shard
        else:
            ds = ray.data.from_items([{"path": str(p), "key": k} for p, k in files], override_num_blocks=len(files))
            ds = ds.flat_map(read_shards, fn_kwargs=read_kwargs, num_cpus=ws.settings.ray_read_cpus)
            # One block per shard: a file's shards leave its read task as one block, which one actor would then
            # map alone. Streaming repartition (no shuffle) splits it as it arrives.
            ds = ds.repartition(target_num_rows_per_block=1)
        ds = ds.map_batches(PrepareActor, batch_size=1, batch_format="numpy",
                            fn_constructor_kwargs={"workspace": str(ws.path), "opener": type(ws).open,
                                                   "settings": ws.settings.to_dict(),
                                                   "env": env, "fault": fault},
                            # Ray Data's actor pools default to max_restarts=-1 and max_task_retries=-1:
                            # a dead actor is replaced and its shard re-run.
                            compute=ray.data.ActorPoolStrategy(size=n_actors), num_cpus=per_actor)
        cpu: dict[int, float] = {}
        rss: dict[int, float] = {}
        for row in ds.iter_rows():
            pid = int(row["pid"])
            cpu[pid] = max(cpu.get(pid, 0.0), float(row["cpu_s"]))
            rss[pid] = max(rss.get(pid, 0.0), float(row["rss_mb"]))
            run.shards_mapped += 1
            report.read += int(row["records"])
            report.mentions += int(row["mentions"])
            report.linked_mentions += int(row["linked"])
            report.stage_seconds["prepare"] += float(row["prepare_s"])
            report.stage_seconds["embed"] += float(row["embed_s"])
            run.actor_init_s += float(row["init_s"])
        run.map_s = time.perf_counter() - t1
        run.actor_cpu_s = sum(cpu.values())
        run.actor_peak_rss_mb, run.actors_rss_mb = max(rss.values(), default=0.0), sum(rss.values())
        _mark_done(root, files)
    finally:
        if started:
            ray.shutdown()


def _mark_done(root: Path, files: list[tuple[Path, str]]) -> None:
    """Mark each input file's shard set finished (re-running it maps nothing)."""
    for _, key in files:
        folder = root / key
        count = sum(1 for p in folder.iterdir() if p.name.isdigit()) if folder.is_dir() else 0
        shardlib.mark_file_done(root, key, count, -1)


def _init_with_retry(ray: Any, address: str | None, kwargs: dict[str, Any],
                     attempts: int = Settings.ray_init_attempts) -> None:
    """``ray.init``, retried up to ``attempts`` times (``Settings.ray_init_attempts``) after a start-up timeout
    (the half-started processes are shut down first)."""
    for attempt in range(1, attempts + 1):
        try:
            ray.init(address=address, **kwargs)
            return
        except Exception as exc:  # Ray raises a bare Exception for this
            if "timed out during startup" not in str(exc) or attempt == attempts:
                raise
            log.warning("Ray start-up timed out (attempt %d of %d); retrying", attempt, attempts)
            ray.shutdown()


def _known_hashes(ws: Workspace) -> dict[str, str]:
    """``pubmed:<pmid>`` -> content hash of the articles stored ``complete`` (dropped from the map)."""
    frame = ws.store.articles(source="pubmed")
    if frame.empty:
        return {}
    done = frame[frame["status"] == "complete"]
    return dict(zip(done["id"], done["content_hash"]))
