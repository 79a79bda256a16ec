"""A workspace folder: the store, the CSR cache, the vectors and a manifest, wired together.

Layout::

    <workspace>/
      manifest.json      format version, data and model versions, settings, literature version
      graph.lbug         LadybugDB property graph (domain + literature layers)
      csr/kg.npz         float32 CSR adjacency of the knowledge graph (PPR), built once at creation
      cache/nodes.parquet, cache/lexicon.pkl   node table and gazetteer lexicon (fast reopen)
      vectors/           chromadb persistent collection of passage embeddings (unless they live on a
                         Chroma server: manifest["vector_store"], see docs/scaling-out.md)

The workspace holds no algorithm: it opens stages and hands them to each other. Reopening is lazy
(the embedding model, lexicon and resolver load on first use), so ``Workspace.open`` is fast.
A workspace is single-writer: a second process (a Voila dashboard beside a notebook) opens it with
``read_only=True``.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import warnings
import time
from collections.abc import Callable, Iterable
from functools import wraps
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np
import pandas as pd

from engram_kit.files import write_atomic
from engram_kit.version import __version__
from engram_kit.agents import Investigator, Session
from engram_kit.answering import Answer, AnswerComposer, ExtractiveComposer
from engram_kit.datasets import DataPaths
from engram_kit.embeddings import Embedder, embedder_from_manifest, get_embedder
from engram_kit.errors import DataError, ReadOnlyError, WorkspaceError
from engram_kit.extraction import EntityExtractor
from engram_kit.extraction.extractor import INGESTION_NER
from engram_kit.extraction.lexicon import Lexicon
from engram_kit.ingestion.consistency import UNFINISHED_STATUSES, ConsistencyReport, check_consistency
from engram_kit.ingestion.pipeline import IngestReport, PubMedIngestor
from engram_kit.ingestion.pubmed import (
    PubMedRecord,
    check_pubmed_file,
    read_pubmed,
    read_pubmed_skipping,
    unique_records,
)
from engram_kit.kg.graph import KnowledgeGraph
from engram_kit.kg.schema import GraphSchema
from engram_kit.resolution.resolver import HUMAN_TAXON
from engram_kit.resolution import EntityResolver
from engram_kit.retrieval.graph_index import GraphIndex
from engram_kit.retrieval.results import RetrievalResult
from engram_kit.retrieval.lexical import LexicalIndex
from engram_kit.retrieval.retriever import PPREngine, Retriever, build_lexical_index
from engram_kit.settings import Settings
from engram_kit.store.base import GraphStore
from engram_kit.store.csr import CSRGraph
from engram_kit.store.ladybug import LadybugStore
from engram_kit.store import vector_kinds
from engram_kit.store.registry import get_backend

if TYPE_CHECKING:
    from engram_kit.extraction.gazetteer import Gazetteer
    from engram_kit.store.vectors import ChromaServerConfig, VectorStore

log = logging.getLogger(__name__)

_F = TypeVar("_F", bound=Callable[..., Any])


def _loads_once(method: _F) -> _F:
    """Build a lazily loaded part under the workspace's load lock, so threads sharing a workspace never build
    one part twice (two threads creating the chromadb client of one folder: "Could not connect to tenant
    default_tenant"). A re-entrant lock: parts load parts (resolver -> lexicon, embedder)."""
    @wraps(method)
    def locked(self: Workspace, *args: Any, **kwargs: Any) -> Any:
        with self._load_lock:
            return method(self, *args, **kwargs)
    return cast(_F, locked)


def _writes(method: _F) -> _F:
    """Run a write under the workspace's write lock: concurrent writes of threads sharing a workspace run one
    after the other (issue 31 item 1: eight threads ingesting at once hung in the graph store); reads do
    not take it and run beside them."""
    @wraps(method)
    def locked(self: Workspace, *args: Any, **kwargs: Any) -> Any:
        with self._write_lock:
            return method(self, *args, **kwargs)
    return cast(_F, locked)

MANIFEST = "manifest.json"
#: Bumped when the on-disk layout changes incompatibly.
FORMAT_VERSION = 1
#: Environment variable naming the default workspace folder (CLI and notebooks).
WORKSPACE_ENV = "ENGRAM_WORKSPACE"


def default_workspace_path() -> Path:
    """``$ENGRAM_WORKSPACE`` if set, else ``./engram-workspace``."""
    return Path(os.environ.get(WORKSPACE_ENV, "engram-workspace"))


def holds_workspace(path: str | Path) -> bool:
    """Whether the folder ``path`` already holds a workspace (its manifest or its graph store file).

    ``Workspace.create`` refuses such a folder unless told to overwrite it; the CLI asks this first so that it
    can say so before it announces a build. A missing folder, or a file, holds none.
    """
    path = Path(path)
    return (path / MANIFEST).exists() or (path / "graph.lbug").exists()


class Workspace:
    """One research workspace. Create with :meth:`create`, reopen with :meth:`open`.

    Examples
    --------
    >>> ws = Workspace.create("ws")                       # doctest: +SKIP
    >>> ws.ingest("data/pubmed/abstracts-sample.jsonl.gz")  # doctest: +SKIP
    >>> print(ws.ask("What compounds might reduce neuroinflammation in Alzheimer's disease?").text)  # doctest: +SKIP
    """

    def __init__(self, path: Path, manifest: dict[str, Any], store: GraphStore, *, read_only: bool,
                 embedder: Embedder | None = None) -> None:
        self.path = path
        self.manifest = manifest
        self.store = store
        self.read_only = read_only
        self.settings = Settings.from_dict(manifest.get("settings", {}))
        self._embedder = embedder
        self._load_lock = threading.RLock()  # lazily loaded parts (see _loads_once)
        self._write_lock = threading.RLock()  # writes, one at a time (see _writes)
        self._vectors: VectorStore | None = None
        self._vector_server: ChromaServerConfig | None = None  # set by create(); else rebuilt from the manifest
        self._nodes: pd.DataFrame | None = None
        self._lexicon: Lexicon | None = None
        self._extractor: EntityExtractor | None = None
        self._ingestion_extractor: EntityExtractor | None = None
        self._resolver: EntityResolver | None = None
        self._kg_graph: CSRGraph | None = None
        self._index: tuple[int, GraphIndex] | None = None
        self.composer: AnswerComposer | None = None

    # --- creation and opening -------------------------------------------------------------------
    @classmethod
    def create(cls, path: str | Path, *, data: str | Path | DataPaths | None = None,
               settings: Settings | None = None, overwrite: bool = False,
               embedder: Embedder | None = None, backend: str = "ladybug", neo4j: Any = None,
               vectors: str | ChromaServerConfig = "local", graph: KnowledgeGraph | str | None = None) -> Workspace:
        """Create a workspace and load a knowledge graph into it.

        Which graph is always said by the caller, never assumed: ``graph`` is a loaded
        :class:`~engram_kit.kg.graph.KnowledgeGraph` or the name of a registered graph format
        (``"hetionet"``, ``"kgx"``...: ``engram_kit.plugins.formats.names()``) whose loader reads ``data``
        (None: the format's bundled sample). A :class:`~engram_kit.datasets.DataPaths` names its format itself
        (the bundled folder layout is Hetionet's), so ``data=resolve_data_paths()`` alone is enough. The
        manifest records the format (``knowledge_graph.format``) and every later caller reads the schema from
        the workspace.

        Parameters
        ----------
        path : folder to create (must not hold a workspace unless ``overwrite``).
        data : the format's input: for ``"hetionet"`` a data folder in the bundled or shared layout, or
            :class:`DataPaths`; for ``"kgx"`` the edges file; for another format what its ``data_help`` says. None: the format's
            bundled sample (Hetionet: ``data/`` or ``$ENGRAM_DATA_DIR``).
        settings : parameters recorded in the manifest (default :class:`Settings`).
        overwrite : delete an existing workspace at ``path`` first.
        backend : a store backend of :data:`engram_kit.plugins.backends`: ``"ladybug"`` (embedded, default) or
            ``"neo4j"`` (the graph goes to the Neo4j server of
            ``neo4j``, a :class:`~engram_kit.store.neo4j.Neo4jConfig`, default from ``$NEO4J_URI``...; the
            folder keeps the manifest, caches and vectors). See ``docs/scaling-out.md``.
        vectors : a vector store kind of :data:`engram_kit.plugins.vectors`: ``"local"`` (chromadb in
            ``<path>/vectors``, default), or a Chroma server: its URL (``"http://localhost:8000"``; token from
            ``$CHROMA_TOKEN``) or a :class:`~engram_kit.store.vectors.ChromaServerConfig`. Recorded in
            ``manifest["vector_store"]``.
        graph : a loaded knowledge graph (e.g. from :func:`engram_kit.kg.kgx.load_kgx`), or a format name of
            :data:`engram_kit.plugins.formats` read with ``data`` (see above). Its schema becomes the store's; name,
            release, format and schema are recorded in ``manifest["knowledge_graph"]``. Negated assertions are
            stored but left out of the PPR graph.

        Raises
        ------
        WorkspaceError
            If ``path`` already holds a workspace and ``overwrite`` is False, or no graph is named (neither
            ``graph`` nor a :class:`DataPaths` ``data``; the message lists the registered formats).
        PluginError
            If ``graph`` names no registered format.
        DataError
            If the data files are missing or malformed, or ``vectors`` is not a usable choice.
        PluginError
            If ``backend`` or ``settings.embedding_model`` is not registered (:mod:`engram_kit.plugins`; checked
            before anything is loaded or an existing workspace is replaced).
        BackendUnavailableError
            If the Chroma server of ``vectors`` cannot be reached (checked before anything is loaded).
        """
        path = Path(path)
        settings = settings or Settings()
        if path.exists() and not path.is_dir():
            raise WorkspaceError(f"{path} is a file, not a folder; choose a folder for the workspace (-w DIR).")
        if graph is None and isinstance(data, DataPaths):
            graph = data.graph_format
        if graph is None:
            from engram_kit.kg.formats import format_names

            raise WorkspaceError(f"Name the knowledge graph of {path}: Workspace.create(path, graph=<format>) with "
                                 f"one of {', '.join(format_names())} (data= its input; None: the format's bundled "
                                 "sample), or graph=<a loaded KnowledgeGraph>. CLI: engram init --graph <format>.")
        if isinstance(graph, str):
            from engram_kit.kg.formats import get_format

            graph_format = get_format(graph)  # an unknown name fails here, before anything is loaded
        else:
            graph_format = None
        if not isinstance(graph, str) and (graph.n_nodes == 0 or graph.n_edges == 0):
            raise DataError(f"The knowledge graph {graph.name!r} has {graph.n_nodes} nodes and {graph.n_edges} edges "
                            f"after loading ({graph.report.n_skipped} rows skipped); nothing to build a workspace "
                            "on. Check the load report (report.skipped) and the files.")
        vector_store, vector_server = _vector_store_manifest(path, vectors)
        # The embedder is resolved before anything is loaded or replaced: an unknown name used to fail after the
        # graph was built, leaving a half-written folder, and after `overwrite` had deleted the old workspace.
        emb = embedder or get_embedder(settings.embedding_model)
        get_backend(backend)  # an unknown backend name is refused here too, before the old workspace is replaced
        replacing = holds_workspace(path)
        if replacing:
            if not overwrite:
                raise WorkspaceError(f"{path} already holds a workspace; open it with Workspace.open({str(path)!r}) "
                                     "or pass overwrite=True (CLI: --force) to replace it.")
            _ensure_not_in_use(path)
        started = time.perf_counter()
        # The graph is read before an old workspace is replaced: `engram init --data <missing folder> --force`
        # deleted the workspace and then failed on the folder.
        kg = graph_format.load(data, progress=settings.progress) if graph_format is not None else graph
        assert not isinstance(kg, str)  # a name was loaded just above
        files = {"nodes_file": str(kg.report.nodes_path or ""), "edges_file": str(kg.report.edges_path or "")}
        synonyms_dir: Path | None = kg.synonyms_dir  # a format's own synonym tables (Hetionet's synonyms/)
        if replacing:
            shutil.rmtree(path)
        existed = path.exists()
        store = None
        try:
            (path / "csr").mkdir(parents=True, exist_ok=True)
            (path / "cache").mkdir(parents=True, exist_ok=True)
            store = _new_store(path, backend, neo4j, schema=kg.schema)
            store.create_schema()
            store.load_knowledge_graph(kg.nodes, kg.edges, progress=settings.progress)
            asserted = _asserted_edges(kg)
            csr = CSRGraph.from_id_edges(kg.nodes["id"].to_numpy(dtype=object), asserted["source"].to_numpy(dtype=object),
                                         asserted["target"].to_numpy(dtype=object))
            csr.save(path / "csr" / "kg.npz")
            kg.nodes.to_parquet(path / "cache" / "nodes.parquet", index=False)
            lexicon = Lexicon.build(kg.nodes, synonyms_dir)
            lexicon.save(path / "cache" / "lexicon.pkl")
        except BaseException:
            if store is not None:
                store.close()
            _remove_partial_workspace(path, whole_folder=not existed)
            raise
        manifest = {
            "format_version": FORMAT_VERSION,
            "engram_kit_version": __version__,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "backend": backend,
            **_backend_manifest(store),
            "knowledge_graph": {
                "name": kg.name, "version": kg.version, "format": kg.format, "schema": kg.schema.name, **files,
                "synonyms_dir": str(synonyms_dir) if synonyms_dir else "",
                "n_nodes": int(kg.n_nodes), "n_edges": int(kg.n_edges),
                **_graph_provenance(kg),
            },
            "embedding_model": _embedder_manifest(emb),
            "vector_store": vector_store,
            "settings": settings.to_dict(),
            "literature_version": 0,
            "build_seconds": round(time.perf_counter() - started, 2),
        }
        _write_manifest(path, manifest)
        ws = cls(path, manifest, store, read_only=False, embedder=emb)
        ws._lexicon, ws._kg_graph = lexicon, csr
        ws._vector_server = vector_server  # keeps a token given as an argument (the manifest has none)
        ws.vectors  # noqa: B018 - create the (empty) vector collection now: a read-only `engram ask` before any ingest needs it
        return ws

    @classmethod
    def open(cls, path: str | Path, *, read_only: bool = False, embedder: Embedder | None = None,
             allow_embedder_mismatch: bool = False) -> Workspace:
        """Reopen a workspace (fast: heavy parts load on first use).

        ``embedder`` (default: the recorded model, loaded on first use) must be the model that made the
        workspace's vectors: its name and recipe (:func:`check_embedder`) are compared with
        ``manifest["embedding_model"]``. ``allow_embedder_mismatch=True`` is an expert override that accepts
        another model of the same dimension (rankings then compare vectors of two models); a different
        dimension is refused whatever the override.

        Raises
        ------
        WorkspaceError
            If ``path`` holds no workspace or one of an unsupported format version, or ``embedder`` is not
            the recorded model (both named).
        WorkspaceLockedError
            If another process has it open for writing and ``read_only`` is False.
        """
        path = Path(path)
        manifest_path = path / MANIFEST
        if not manifest_path.exists():
            raise WorkspaceError(f"No workspace at {path}: run `engram init -w {path}` (or Workspace.create({str(path)!r})) "
                                 "first.")
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("format_version") != FORMAT_VERSION:
            raise WorkspaceError(f"{path} has workspace format {manifest.get('format_version')}, this engram-kit "
                                 f"reads format {FORMAT_VERSION}; recreate it with `engram init --force`.")
        if embedder is not None:
            check_embedder(path, manifest["embedding_model"], embedder, allow_mismatch=allow_embedder_mismatch)
        store = _reopen_store(path, manifest, read_only=read_only)
        return cls(path, manifest, store, read_only=read_only, embedder=embedder)

    # --- lazily opened parts ---------------------------------------------------------------------
    @property
    @_loads_once
    def embedder(self) -> Embedder:
        """The passage/question embedder recorded in ``manifest["embedding_model"]`` (the registry backend the
        workspace was built with; see :mod:`engram_kit.embeddings`).

        Raises
        ------
        WorkspaceError
            If that backend is not available in this installation or no longer gives the recorded model.
        """
        if self._embedder is None:
            self._embedder = embedder_from_manifest(self.manifest["embedding_model"])
        return self._embedder

    @property
    @_loads_once
    def vectors(self) -> VectorStore:
        """The passage vector store recorded in ``manifest["vector_store"]`` (local chromadb, or a Chroma server
        whose token comes from ``$CHROMA_TOKEN``); raises BackendUnavailableError if that server is down."""
        if self._vectors is None:
            self._vectors = _open_vector_store(self.path, self.manifest, read_only=self.read_only,
                                               server=self._vector_server)
        return self._vectors

    @property
    @_loads_once
    def search_vectors(self) -> Any:
        """The vectors questions read (nearest neighbours, passage ids, stored vectors): in a read-only open of a
        local store, its NumPy copy (:mod:`engram_kit.store.vector_cache`: no chromadb import, no snapshot copy of
        the folder; made on first use after each write); else, and when no copy can be made, :attr:`vectors`.
        ``check`` and every write use :attr:`vectors` itself."""
        found = self.__dict__.get("_search_vectors")
        if found is None:
            local = (self.manifest.get("vector_store") or {"kind": "local"}).get("kind", "local") == "local"
            if self.read_only and local and self._vectors is None:
                from engram_kit.extraction.gazetteer_cache import user_cache_dir
                from engram_kit.store.vector_cache import cached_vectors

                model = self.manifest["embedding_model"]
                found = cached_vectors(self.path / "vectors", model_name=model["name"],
                                       dimension=int(model["dimension"]), cache_dir=user_cache_dir(),
                                       open_store=lambda: self.vectors)
            self.__dict__["_search_vectors"] = found = found or self.vectors
        return found

    @property
    @_loads_once
    def nodes(self) -> pd.DataFrame:
        """Knowledge-graph node table: ``id, kind, identifier, name``."""
        if self._nodes is None:
            self._nodes = pd.read_parquet(self.path / "cache" / "nodes.parquet")
        return self._nodes

    @property
    @_loads_once
    def lexicon(self) -> Lexicon:
        """The gazetteer lexicon, from the workspace cache; rebuilt from the recorded synonym tables when the
        cache was written by another engram-kit version (saved again unless the workspace is read-only)."""
        if self._lexicon is None:
            cache = self.path / "cache" / "lexicon.pkl"
            try:
                self._lexicon = Lexicon.load(cache)
            except DataError as exc:
                self._lexicon = self._rebuild_lexicon(cache, exc)
        return self._lexicon

    def _rebuild_lexicon(self, cache: Path, reason: Exception) -> Lexicon:
        synonyms = self.manifest["knowledge_graph"].get("synonyms_dir") or None
        if synonyms and not Path(synonyms).is_dir():
            raise WorkspaceError(f"The lexicon cache of {self.path} is unusable ({reason}) and the synonym tables it "
                                 f"was built from ({synonyms}) are gone; recreate the workspace with `engram init --force`.")
        log.info("rebuilding the lexicon of %s: %s", self.path, reason)
        lexicon = Lexicon.build(self.nodes, synonyms)
        if not self.read_only:
            lexicon.save(cache)
        else:
            self.__dict__["_lexicon_rebuilt"] = True  # the file is stale: no gazetteer cache keyed on it
        return lexicon

    @property
    @_loads_once
    def extractor(self) -> EntityExtractor:
        """The extractor of questions and literature maps (dictionary + abbreviations, no NER)."""
        if self._extractor is None:
            self._extractor = EntityExtractor(self.lexicon, gazetteer=self._cached_gazetteer())
        return self._extractor

    def _cached_gazetteer(self) -> Gazetteer | None:
        """The gazetteer of :attr:`lexicon` from its disk cache (:mod:`engram_kit.extraction.gazetteer_cache`;
        built and cached on a miss), or None (the extractor builds it) when the lexicon was rebuilt in memory."""
        from engram_kit.extraction.gazetteer_cache import load_or_build

        lexicon, cache = self.lexicon, self.path / "cache"
        if self.__dict__.get("_lexicon_rebuilt") or not (cache / "lexicon.pkl").is_file():
            return None
        return load_or_build(lexicon, cache / "lexicon.pkl", cache, writable=not self.read_only)

    @property
    @_loads_once
    def ingestion_extractor(self) -> EntityExtractor:
        """The extractor of ingested abstracts and documents: :attr:`extractor` plus the BC5CDR training-split
        term tagger (:data:`~engram_kit.extraction.extractor.INGESTION_NER`), whose spans without a graph node
        are stored as typed, unlinked NounPhrases (retrievable by text)."""
        if self._ingestion_extractor is None:
            self._ingestion_extractor = EntityExtractor(self.lexicon, ner=INGESTION_NER,
                                                        gazetteer=self.extractor.gazetteer)
        return self._ingestion_extractor

    @property
    @_loads_once
    def resolver(self) -> EntityResolver:
        if self._resolver is None:
            graph = self.csr_graph() if (self.path / "csr" / "kg.npz").exists() else None
            degree = dict(zip(graph.node_ids.tolist(), np.asarray(graph.degree, dtype=float).tolist())) \
                if graph is not None else None  # popularity prior between same-kind readings (p21 -> CDKN1A)
            self._resolver = EntityResolver(self.lexicon, self.nodes, embedder=self.embedder,
                                            max_candidates=self.settings.max_candidates, node_prior=degree,
                                            settings=self.settings)
        return self._resolver

    @_loads_once
    def graph_index(self) -> GraphIndex:
        """The combined KG + literature graph for PPR, rebuilt only when the literature changed."""
        version = int(self._read_manifest().get("literature_version", 0))
        if self._index is None or self._index[0] != version:
            if self._kg_graph is None:
                self._kg_graph = CSRGraph.load(self.path / "csr" / "kg.npz")
            articles = self.store.articles()
            sources = dict(zip(articles["id"], articles["source"])) if not articles.empty else {}
            self._index = (version, GraphIndex.build(self._kg_graph, self.store.literature_edges(), sources))
        return self._index[1]

    @_loads_once
    def lexical_index(self) -> LexicalIndex:
        """The BM25 index of the passages (hybrid first stage), rebuilt only when the literature changed."""
        version = int(self._read_manifest().get("literature_version", 0))
        cached = self.__dict__.get("_lexical")
        if cached is None or cached[0] != version:
            cached = self.__dict__["_lexical"] = (version, build_lexical_index(self.store, self.search_vectors))
        return cached[1]

    def retriever(self, *, store: GraphStore | None = None) -> Retriever:
        """A :class:`Retriever` over this workspace, with its PPR engine (GDS on Neo4j, else CSR). ``store``
        replaces the workspace's store for the reads (the agents pass a lock-serialised wrapper)."""
        return Retriever(store=store or self.store, vectors=self.search_vectors, index=self.graph_index,
                         extractor=self.extractor,
                         resolver=self.resolver, embedder=self.embedder, settings=self.settings,
                         ppr_engine=self._ppr_engine(), graph_name=self.manifest["knowledge_graph"]["name"],
                         lexical=self.lexical_index)

    # --- main operations -------------------------------------------------------------------------
    @_writes
    def ingest(self, source: str | Path | Iterable[PubMedRecord], *, total: int | None = None,
               skip_bad: bool = False, workers: int = 1, engine: str = "local",
               address: str | None = None) -> IngestReport:
        """Ingest PubMed records from a file (``.jsonl``, PubMed ``.xml``, MEDLINE ``.nbib``/``.txt``,
        each optionally gzipped) or an iterable of :class:`PubMedRecord`.

        ``workers`` > 1 runs extraction, linking and embedding in that many forked processes while this one
        writes; 0 picks one per core, at most 4 (``engram ingest`` does; see
        :class:`~engram_kit.ingestion.pipeline.PubMedIngestor`). Each batch commits graph, then
        vectors, then ``complete``: after a crash, running the same ingest again completes it (or run
        :meth:`check` with ``repair=True``).

        A file is validated whole in one streaming pass first, so ingestion is all-or-nothing per file:
        an invalid record anywhere raises before anything is written (``skip_bad=True`` skips invalid
        JSON Lines records instead and lists them in ``report.skipped``). A PMID listed twice is ingested
        once and reported in ``report.duplicates``.

        ``engine="ray"`` runs the same extraction, linking and embedding on Ray Data instead (``pip install
        'engram-kit[scale]'``): ``source`` is then a file or a list of files (PubMed baseline/update XML, JSON
        Lines), mapped into Parquet shards under ``<workspace>/shards`` by an actor pool of ``workers`` actors
        (0: one per CPU), reduced and loaded here; ``address`` names a running Ray cluster (None: a local Ray
        for this call). A re-run resumes from the finished shards; an update file's ``DeleteCitation`` PMIDs
        are deleted. See :mod:`engram_kit.ingestion.ray_engine`.

        Raises
        ------
        ReadOnlyError
            On a read-only workspace.
        UnknownFileTypeError, DataError
            For an unsupported or malformed file, naming the file and line; nothing of that file is written.
        """
        self._require_writable("ingest")
        if engine == "ray":
            from engram_kit.ingestion.ray_engine import ingest_ray

            files = [source] if isinstance(source, (str, Path)) else list(source)
            if not all(isinstance(f, (str, Path)) for f in files):
                raise DataError("engine='ray' reads files: pass a path or a list of paths, not records.")
            return ingest_ray(self, files, address=address, workers=workers, skip_bad=skip_bad)  # type: ignore[arg-type]
        if engine != "local":
            raise DataError(f"engine={engine!r} is not an ingestion engine: use 'local' or 'ray'.")
        check = None
        if isinstance(source, (str, Path)):
            check = check_pubmed_file(source, skip_bad=skip_bad)
            bad: list[str] = []
            records: Iterable[PubMedRecord] = unique_records(
                read_pubmed_skipping(Path(source), bad) if skip_bad else read_pubmed(source))
            total = total if total is not None else check.records
        else:
            records = unique_records(source)
        ingestor = PubMedIngestor(store=self.store, vectors=self.vectors, extractor=self.ingestion_extractor,
                                  resolver=self.resolver, embedder=self.embedder, settings=self.settings,
                                  workers=workers)
        try:
            report = ingestor.ingest(records, total=total)
        finally:
            self._bump_literature_version()
        if check is not None:
            report.duplicates, report.skipped = check.duplicates, check.bad
        return report

    @_writes
    def check(self, *, repair: bool = False, progress: bool | None = None) -> ConsistencyReport:
        """Compare the graph's passages with the vector store; with ``repair``, make them agree.

        Finds articles left ``pending`` by an interrupted ingest, passages without vectors and vectors
        without passages. Repair embeds the missing passages from their stored text, deletes orphan vectors
        and marks pending articles complete. See :mod:`engram_kit.ingestion.consistency`.

        Raises
        ------
        ReadOnlyError
            If ``repair`` is asked of a read-only workspace.
        """
        if repair:
            self._require_writable("check --repair")
        report = check_consistency(self.store, self.vectors, self.embedder if repair else None, repair=repair,
                                   progress=self.settings.progress if progress is None else progress)
        if repair and report.repaired:
            self._bump_literature_version()
        return report

    def retrieve(self, question: str, **kwargs: Any) -> RetrievalResult:
        """Ranked passages, resolved entities and the PPR subgraph (see :meth:`Retriever.retrieve`)."""
        return self.retriever().retrieve(question, **kwargs)

    def ask(self, question: str, **kwargs: Any) -> Answer:
        """Retrieve and compose a cited answer (extractive offline; see :mod:`engram_kit.answering`)."""
        result = self.retrieve(question, **kwargs)
        composer = self.composer or self._extractive_composer()
        return composer.compose(result)

    def _extractive_composer(self) -> ExtractiveComposer:
        """The offline composer, with the asked relation's graph facts read from this workspace's store."""
        from engram_kit.answering.exact import ExactAnswerer
        from engram_kit.answering.facts import GraphFacts

        composer = ExtractiveComposer(self.embedder, facts=GraphFacts(self.store))
        composer.exact = ExactAnswerer(self.store, self.settings)
        return composer

    # --- agents, sessions and run bundles (engram_kit.agents, engram_kit.memory, engram_kit.runs) ---
    @_loads_once
    def csr_graph(self) -> CSRGraph:
        """The knowledge graph's CSR adjacency (:class:`~engram_kit.store.csr.CSRGraph`: domain nodes only, cached at
        creation): agents' paths and PPR. Not the graph itself: that is in the store (:attr:`store`)."""
        if self._kg_graph is None:
            self._kg_graph = CSRGraph.load(self.path / "csr" / "kg.npz")
        return self._kg_graph

    def knowledge_graph(self) -> CSRGraph:
        """Deprecated name of :meth:`csr_graph` (it returns the CSR adjacency, not a knowledge graph object).

        Warns with :class:`DeprecationWarning`; will be removed after 0.2."""
        warnings.warn("Workspace.knowledge_graph() is deprecated: it returns the CSR adjacency; call "
                      "Workspace.csr_graph() instead.", DeprecationWarning, stacklevel=2)
        return self.csr_graph()

    def run_agents(self, question: str, *, llm: Any = None, **kwargs: Any) -> Any:
        """Run the routed agents concurrently and return the collected
        :class:`~engram_kit.agents.InvestigationResult` (see :class:`~engram_kit.agents.Investigator`;
        ``llm`` None = offline; ``options=AgentOptions(...)`` tunes the agents)."""
        options = kwargs.pop("options", None)
        return Investigator(self, llm=llm, options=options).run(question, **kwargs)

    def agent_events(self, question: str, *, llm: Any = None, **kwargs: Any) -> Any:
        """The investigation as a synchronous iterator of typed events (usable inside Jupyter)."""
        options = kwargs.pop("options", None)
        return Investigator(self, llm=llm, options=options).iter_events(question, **kwargs)

    def session(self, **kwargs: Any) -> Any:
        """A multi-turn research :class:`~engram_kit.agents.Session` with working and long-term memory."""
        return Session(self, **kwargs)

    def info(self) -> dict[str, Any]:
        """What the workspace holds: manifest facts plus node/relationship counts.

        ``vectors`` is the vector store's count (compare it with ``passages``); ``pending_articles`` counts the
        articles and documents whose ingest did not finish: ``pending`` (a PubMed batch written to the graph
        before its vectors) or ``processing`` (a document an interrupted ingest left half-way). Nonzero means
        ``engram check --repair`` (or re-running the ingest, ``engram reprocess`` for a document) is due.
        """
        counts = self.store.counts()
        kg = self.manifest["knowledge_graph"]
        return {
            "path": str(self.path), "backend": self.manifest["backend"], "read_only": self.read_only,
            "knowledge_graph": f"{kg['name']} {kg['version']}".strip(), "graph_schema": kg.get("schema", "hetionet"),
            "kg_nodes": kg["n_nodes"], "kg_edges": kg["n_edges"],
            **{k: kg[k] for k in ("biolink_model_version", "n_negated_edges") if k in kg},
            "articles": counts.get("Article", 0), "passages": counts.get("Passage", 0),
            "nounphrases": counts.get("NounPhrase", 0), "mentions": counts.get("MENTIONS", 0),
            "maps_to": counts.get("MAPS_TO", 0),
            "embedding_model": self.manifest["embedding_model"]["name"],
            "embedding_backend": self.manifest["embedding_model"].get("backend", "minilm-fp32"),
            "vector_store": _describe_vector_store(self.manifest),
            "vectors": self.vector_count(),
            "pending_articles": int(self.store.articles()["status"].isin(UNFINISHED_STATUSES).sum())
            if counts.get("Article") else 0,
            "created": self.manifest["created"], "engram_kit_version": self.manifest["engram_kit_version"],
            "counts": counts,
        }

    def vector_count(self, *, recorded: bool = True) -> int:
        """Number of passage vectors: for a local store, the count recorded at its last write
        (:mod:`engram_kit.store.vector_count`; read without importing chromadb or snapshotting the store), else,
        or with ``recorded=False``, the store's own count."""
        local = _vectors_in_folder(self.manifest)
        if recorded and local and self._vectors is None:
            from engram_kit.store.vector_count import recorded_vector_count

            count = recorded_vector_count(self.path / "vectors")
            if count is not None:
                return count
            if not (self.path / "vectors").exists():
                return 0  # nothing ingested yet: no store to open (a read-only open would refuse)
        return self.vectors.count()

    def vector_count_drift(self) -> str | None:
        """None when the recorded vector count (:meth:`vector_count`) equals the store's own count, else a
        message naming both and the fix (``engram check`` prints it and fails)."""
        from engram_kit.store.vector_count import recorded_vector_count

        if not _vectors_in_folder(self.manifest):
            return None  # a server store is always asked directly
        recorded, actual = recorded_vector_count(self.path / "vectors"), self.vectors.count()
        if recorded is None or recorded == actual:
            return None
        return (f"the vector count recorded for `engram info` is {recorded:,}, the vector store holds {actual:,}: "
                "run `engram check --repair` (any write rewrites the record)")

    # --- workbench UI support (answer graph, exploration); see engram_kit.exports / .exploration ---
    def compose_answer(self, result: RetrievalResult) -> Answer:
        """Compose the cited answer of an existing retrieval result (``ask`` = ``retrieve`` + this).

        Lets a UI show the resolved entities and passages first and the composed answer after.
        """
        composer = self.composer or self._extractive_composer()
        return composer.compose(result)

    def answer_graph(self, result: RetrievalResult | Answer, *, max_nodes: int | None = 150,
                     extra_edges: pd.DataFrame | None = None):  # AnswerGraph (lazy import)
        """The :class:`~engram_kit.exports.AnswerGraph` of a result: PPR subgraph plus the entities the
        retrieved passages mention, with curated / literature / inferred edges (see :mod:`engram_kit.exports`).
        Given an :class:`Answer`, the graph of what it rests on (question entities, answer items, their edges and
        cited passages, at most 40 nodes: :func:`engram_kit.answering.focus.focus_result`).
        """
        from engram_kit.exports import build_answer_graph

        if isinstance(result, Answer):
            from engram_kit.answering.focus import MAX_FOCUS_NODES, focus_result

            narrowed, focused = focus_result(result, self.store)
            cap = min(max_nodes or MAX_FOCUS_NODES, MAX_FOCUS_NODES)
            return build_answer_graph(narrowed, focused, max_nodes=cap, extra_edges=extra_edges)
        mentions = self.store.passage_mentions([p.passage_id for p in result.passages]) if result.passages else None
        return build_answer_graph(result, mentions, max_nodes=max_nodes, extra_edges=extra_edges)

    def ontology_lookup(self, text: str, *, only_in_graph: bool = True, **kwargs: Any) -> pd.DataFrame:
        """Opt-in *online* lookup of candidate ontology ids for ``text`` at EMBL-EBI OLS4, checked against this
        workspace's graph (a hit counts only when its CURIE is a node here).

        Nothing else in engram-kit calls this: it is the one network call a user makes on purpose. Offline it
        returns an empty frame whose ``attrs["reason"]`` says why (never raises, bounded by ``timeout``).
        ``kwargs`` go to :func:`engram_kit.resolution.ols.ols_candidates` (``ontologies``, ``rows``,
        ``timeout``...).

        Returns
        -------
        DataFrame
            Columns of :func:`~engram_kit.resolution.ols.check_against_graph` (``curie, label, ontology, score,
            in_graph, node_id, node_name``...).
        """
        from engram_kit.resolution.ols import check_against_graph, ols_candidates

        hits = ols_candidates(text, **kwargs)
        checked = check_against_graph(hits, self.nodes, only_in_graph=only_in_graph)
        checked.attrs.update(hits.attrs)
        return checked

    def search_entities(self, text: str, *, limit: int = 20, kinds: set[str] | None = None):
        """Autocomplete over entity names and synonyms (:class:`~engram_kit.exploration.EntitySearch`)."""
        from engram_kit.exploration import EntitySearch

        search = self.__dict__.get("_entity_search")
        if search is None:
            taxa = self.nodes["in_taxon"] if "in_taxon" in self.nodes.columns else pd.Series(dtype=object)
            human = set(self.nodes.loc[taxa.index[taxa == HUMAN_TAXON], "id"]) if len(taxa) else set()
            search = self.__dict__["_entity_search"] = EntitySearch(self.lexicon, human_ids=human)
        return search.search(text, limit=limit, kinds=kinds)

    def neighbourhood(self, node_id: str, *, rel_types: set[str] | list[str] | None = None,
                      limit: int = 300):  # Neighbourhood (lazy import)
        """A node's typed knowledge-graph edges with provenance (:func:`engram_kit.exploration.neighbourhood`)."""
        from engram_kit.exploration import neighbourhood

        name, kind = self.lexicon.node_names.get(node_id, ("", ""))
        return neighbourhood(self.store, node_id, rel_types=rel_types, limit=limit, name=name, kind=kind)

    # --- document repository (PDFs, web pages, text files); see engram_kit.ingestion.documents -----
    @property
    @_loads_once
    def documents(self):  # DocumentRepository (lazy import)
        """The :class:`~engram_kit.ingestion.documents.DocumentRepository` of this workspace: add, list,
        inspect, delete and reprocess uploaded documents (originals kept in ``<workspace>/objects/``)."""
        from engram_kit.ingestion.documents import DocumentPipeline, DocumentRepository

        repository = self.__dict__.get("_documents")
        if repository is None:
            def pipeline() -> DocumentPipeline:
                self._require_writable("process documents")
                return DocumentPipeline(extractor=self.ingestion_extractor, resolver=self.resolver, embedder=self.embedder,
                                        settings=self.settings)

            repository = self.__dict__["_documents"] = DocumentRepository(
                self.path / "objects", self.store, vectors=lambda: self.vectors, pipeline=pipeline,
                on_change=self._bump_literature_version)
        return repository

    @_writes
    def ingest_pdf(self, source: str | Path | bytes, *, filename: str | None = None,
                   as_new: bool = False):
        """Ingest a PDF (a path, or bytes with their ``filename``) as an uploaded document; returns its
        :class:`~engram_kit.ingestion.documents.DocumentReport`. The same path (or file name) ingested again
        with new content replaces the old version (kept as history, never cited) unless ``as_new``.

        Raises
        ------
        ReadOnlyError
            On a read-only workspace.
        IngestionError
            If the document ends in status ``error`` (the message says why; the status is recorded).
        """
        self._require_writable("ingest documents")
        if isinstance(source, bytes):
            return self.documents.add_bytes(source, filename or "upload.pdf", as_new=as_new)
        return self.documents.add_file(source, as_new=as_new)

    @_writes
    def ingest_url(self, url: str, *, as_new: bool = False):  # DocumentReport (lazy import)
        """Fetch a web page (or a PDF) over http(s) and ingest it as an uploaded document (see
        :meth:`~engram_kit.ingestion.documents.DocumentRepository.add_url`)."""
        self._require_writable("ingest documents")
        return self.documents.add_url(url, as_new=as_new)

    @_writes
    def compact(self, *, drop_history: bool = False):  # CompactReport (lazy import)
        """Rewrite the graph store and the vector store from their live rows so deleted text is gone from disk
        (``engram purge``); returns a :class:`~engram_kit.compaction.CompactReport` with bytes before/after.
        ``drop_history`` also deletes the originals of superseded document versions.

        Raises
        ------
        ReadOnlyError
            On a read-only workspace.
        """
        from engram_kit.compaction import compact_workspace

        return compact_workspace(self, drop_history=drop_history)

    # --- evidence desk (bounded read-only Cypher with row-cited claims); see engram_kit.evidence ------
    def evidence_desk(self, llm=None, limits=None):  # LLM | None, DeskLimits | None -> EvidenceDesk
        """An :class:`~engram_kit.evidence.EvidenceDesk` over this workspace's graph: offline templates when
        ``llm`` is None, else LLM-planned queries (any :class:`~engram_kit.llm.LLM`). Queries always run
        read-only, also on a writable workspace. ``limits`` default: the ``desk`` section of :attr:`settings`."""
        from engram_kit.evidence import DeskLimits, EvidenceDesk

        limits = limits if limits is not None else DeskLimits.from_settings(self.settings)
        return EvidenceDesk(self.store, self.extractor, self.resolver, self.nodes, llm=llm, limits=limits,
                            min_confidence=self.settings.min_link_confidence,
                            graph_name=self._graph_display_name())

    def _graph_display_name(self) -> str:
        """``"<name> <release>"`` of the knowledge graph, e.g. ``"Hetionet v1.0"`` or ``"Monarch KG 2024-09"``."""
        kg = self.manifest["knowledge_graph"]
        return f"{kg.get('name', '')} {kg.get('version', '')}".strip()

    def run_desk(self, question: str, *, llm=None, limits=None,  # -> DeskResult
                 include_negated: bool = False):
        """Run the evidence desk on one question; returns a :class:`~engram_kit.evidence.DeskResult`
        (artifacts, row-cited claims, outcome, withheld count). ``include_negated`` lists negated assertions
        (KGX ``negated = true``), flagged ``NOT:``; by default they are left out."""
        return self.evidence_desk(llm, limits).investigate(question, include_negated=include_negated)

    # --- scale-out backend (Neo4j + GDS; docs/scaling-out.md) --------------------------------------
    def _ppr_engine(self) -> PPREngine | None:
        """Where PPR runs: the store's engine (GDS on the server for Neo4j; ``None``, the embedded CSR solver the
        Retriever defaults to, otherwise)."""
        return self.store.ppr_engine()

    @_writes
    def migrate_to_neo4j(self, dest: str | Path, neo4j: Any = None, *, overwrite: bool = False,
                         articles_per_batch: int = 200, vectors: Any = None, method: str = "unwind",
                         import_dir: str | Path | None = None) -> Workspace:
        """Copy this (embedded) workspace into Neo4j: a new workspace folder ``dest`` whose graph is on the server.

        The domain layer is bulk-loaded, the literature layer written batch by batch through the same
        transactional upsert as ingestion; caches, the CSR and the vectors are copied, so ``dest`` answers
        questions exactly as this workspace does (``tests/test_neo4j_live.py`` checks the parity). This
        workspace is left unchanged.

        Parameters
        ----------
        dest : new workspace folder.
        neo4j : a :class:`~engram_kit.store.neo4j.Neo4jConfig`; default from ``$NEO4J_URI`` etc.
        overwrite : replace an existing workspace at ``dest``.
        articles_per_batch : articles per literature transaction, >= 1.
        vectors : where ``dest`` keeps its vectors: None (default) = the same kind as this workspace (a local
            folder is copied as is; a server collection is copied into a new collection on the same server),
            ``"local"``, a Chroma server URL or a :class:`~engram_kit.store.vectors.ChromaServerConfig`.
        method : how the graph goes over: ``"unwind"`` (default: batched UNWIND over Bolt, works with any server)
            or ``"load-csv"`` (CSV files in the server's import folder ``import_dir``, read by ``LOAD CSV``; a
            few times faster, see :func:`engram_kit.store.neo4j_bulk.load_neo4j` and ``docs/scaling-out.md``).
        import_dir : the server's import folder (``server.directories.import``), for ``method="load-csv"``.

        Raises
        ------
        WorkspaceError
            If ``dest`` already holds a workspace and ``overwrite`` is False, or ``dest`` is this workspace.
        BackendUnavailableError
            If Neo4j or the Chroma server of ``vectors`` cannot be reached.
        DataError
            If the Neo4j database already holds a knowledge graph (use an empty database), or ``method`` is
            unknown, or ``"load-csv"`` has no ``import_dir``.
        """
        from engram_kit.store.neo4j_bulk import load_neo4j

        dest = Path(dest)
        if dest.resolve() == self.path.resolve():
            raise WorkspaceError(f"migrate_to_neo4j needs a new folder, not the workspace itself ({self.path}).")
        if (dest / MANIFEST).exists():
            if not overwrite:
                raise WorkspaceError(f"{dest} already holds a workspace; pass overwrite=True (CLI: --force).")
            shutil.rmtree(dest)
        vector_store, vector_server = _vector_store_manifest(dest, _migration_vectors(self, vectors))
        store = _new_store(dest, "neo4j", neo4j, schema=self.store.schema)
        try:
            # _new_store(..., "neo4j") gives a Neo4jStore
            load_neo4j(self.store, store, method=method, import_dir=import_dir,  # type: ignore[arg-type]
                       articles_per_batch=articles_per_batch, progress=self.settings.progress)
            for folder in ("csr", "cache"):
                if (self.path / folder).exists():
                    shutil.copytree(self.path / folder, dest / folder, dirs_exist_ok=True)
            _copy_vectors(self, dest, vector_store, vector_server)
        except BaseException:
            store.close()
            shutil.rmtree(dest, ignore_errors=True)
            raise
        manifest = {**self._read_manifest(), "backend": "neo4j", **_backend_manifest(store),
                    "vector_store": vector_store, "migrated_from": str(self.path)}
        _write_manifest(dest, manifest)
        migrated = type(self)(dest, manifest, store, read_only=False, embedder=self._embedder)
        migrated._vector_server = vector_server
        return migrated

    @_writes
    def close(self) -> None:
        """Close the store and the vector store (if opened); idempotent."""
        self.store.close()
        copy = self.__dict__.pop("_search_vectors", None)
        if copy is not None and copy is not self._vectors:
            copy.close()
        if self._vectors is not None:
            self._vectors.close()
            self._vectors = None

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- literature maps (issue 4) -------------------------------------------------------------------
    def literature_map(self, article_ids: list[str] | None = None, *, progress: bool | None = None):
        """Sentence co-occurrence map of the workspace's complete articles (or ``article_ids``).

        Per-document graphs are cached in ``<workspace>/cache/litmap/`` keyed by content hash, so
        re-selecting documents never reprocesses them. Returns a
        :class:`~engram_kit.analysis.LiteratureMap`; analyse it with
        :func:`~engram_kit.analysis.analyze_structure` and link it with :meth:`curated_edges`.
        """
        from engram_kit.analysis import LiteratureMapBuilder
        from engram_kit.analysis.store_maps import literature_map_from_store

        builder = LiteratureMapBuilder(self.extractor, self.resolver,
                                       min_link_confidence=self.settings.min_link_confidence)
        return literature_map_from_store(self.store, builder, article_ids=article_ids,
                                         cache_dir=self.path / "cache" / "litmap",
                                         progress=self.settings.progress if progress is None else progress)

    def curated_edges(self, node_ids: list[str]):
        """Lookup ``(a, b) -> metaedges`` of the curated Hetionet edges among ``node_ids`` (one query)."""
        from engram_kit.analysis.store_maps import curated_edge_index

        return curated_edge_index(self.store, node_ids)

    # --- internals -------------------------------------------------------------------------------
    def _require_writable(self, what: str) -> None:
        if self.read_only:
            raise ReadOnlyError(f"Cannot {what}: the workspace {self.path} is open read-only. Close the process "
                                "that holds it for writing (e.g. the notebook) or reopen with read_only=False.")

    def _read_manifest(self) -> dict[str, Any]:
        if self.read_only:  # another process may have ingested since we opened
            self.manifest = json.loads((self.path / MANIFEST).read_text())
        return self.manifest

    @_writes
    def _bump_literature_version(self) -> None:
        self.manifest["literature_version"] = int(self.manifest.get("literature_version", 0)) + 1
        _write_manifest(self.path, self.manifest)


def _embedder_manifest(embedder: Embedder) -> dict[str, Any]:
    """``manifest["embedding_model"]``: the full spec of a registered backend, else name and dimension."""
    spec = getattr(embedder, "spec", None)
    if spec is not None and hasattr(spec, "to_manifest"):
        return spec.to_manifest()
    return {"name": embedder.name, "dimension": embedder.dimension}


#: Fields of ``manifest["embedding_model"]`` that make two embedders' vectors the same: the model's name and
#: its recipe (registry backend, tokenizer, input limit, how long texts are pooled).
EMBEDDER_RECIPE_KEYS: tuple[str, ...] = ("name", "backend", "dimension", "tokenizer", "max_tokens", "long_texts",
                                         "window_overlap")


def check_embedder(path: Path, recorded: dict[str, Any], embedder: Embedder, *, allow_mismatch: bool = False) -> None:
    """Refuse an ``embedder`` that did not make the workspace's vectors (``recorded``: its manifest entry).

    Compares :data:`EMBEDDER_RECIPE_KEYS` present on both sides (an embedder outside the registry records
    only name and dimension). A different dimension is always refused (the vectors cannot be compared);
    another name or recipe is refused unless ``allow_mismatch`` (the expert override), then logged.

    Raises
    ------
    WorkspaceError
        Naming each side's model and dimension, the fields that differ, and the fix.
    """
    given = _embedder_manifest(embedder)

    def side(entry: dict[str, Any]) -> str:
        return f"{entry.get('name')!r} ({entry.get('dimension')} dims, backend {entry.get('backend', 'unregistered')!r})"

    if int(given.get("dimension", 0)) != int(recorded.get("dimension", 0)):
        raise WorkspaceError(
            f"The embedder passed to Workspace.open gives {given.get('dimension')}-dimensional vectors of "
            f"{side(given)}, but the workspace at {path} holds {recorded.get('dimension')}-dimensional vectors of "
            f"{side(recorded)}: vectors of different lengths cannot be compared, whatever the override. Open it "
            "without embedder= (the recorded model loads), or ingest into a new workspace made with the other model.")
    differs = [k for k in EMBEDDER_RECIPE_KEYS if k in given and k in recorded and given[k] != recorded[k]]
    if not differs:
        return
    detail = "; ".join(f"{k}: {given[k]!r} given, {recorded[k]!r} recorded" for k in differs)
    if not allow_mismatch:
        raise WorkspaceError(
            f"The embedder passed to Workspace.open is {side(given)}, but the workspace at {path} was embedded with "
            f"{side(recorded)} ({detail}). Ranking would compare vectors of two models. Open it without embedder= "
            "(the recorded model loads), ingest into a new workspace made with the other model, or, if you know the "
            "two give comparable vectors, pass allow_embedder_mismatch=True (expert override).")
    log.warning("Workspace %s opened with another embedder by override (%s): similarities mix two models.",
                   path, detail)


def _write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    """Write atomically (temp file + rename) so a crash never leaves half a manifest."""
    write_atomic(path / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True))


# --- backend selection (embedded LadybugDB or Neo4j) ----------------------------------------------------------
def _new_store(path: Path, backend: str, neo4j: Any = None, *, schema: GraphSchema | None = None) -> GraphStore:
    """Open the graph store of a new workspace at ``path`` (the folder is created) for ``schema``, through the
    backend registry (:mod:`engram_kit.store.registry`); ``neo4j`` is the backend's connection options."""
    store_backend = get_backend(backend)  # raises WorkspaceError naming the registered backends
    path.mkdir(parents=True, exist_ok=True)
    return store_backend.create(path, neo4j, schema)


def _ensure_not_in_use(path: Path) -> None:
    """Refuse to replace a workspace whose graph database is open, in this process or another (``--force`` must
    never pull the files from under a notebook that is using them).

    Raises
    ------
    WorkspaceLockedError
        If another process holds the database for writing.
    WorkspaceError
        If this process has it open.
    """
    from engram_kit.store.ladybug import open_in_this_process

    database = path / "graph.lbug"
    if not database.exists():
        return
    if open_in_this_process(database):
        raise WorkspaceError(f"{path} is open in this process; close that workspace before replacing it.")
    LadybugStore(database).close()  # takes the write lock or raises WorkspaceLockedError naming the fix


def _remove_partial_workspace(path: Path, *, whole_folder: bool) -> None:
    """Undo a failed create: the whole folder if create made it, else only what create writes (never a user's
    other files in a folder that already existed)."""
    if whole_folder:
        shutil.rmtree(path, ignore_errors=True)
        return
    for name in ("csr", "cache", "vectors"):
        shutil.rmtree(path / name, ignore_errors=True)
    for file in (MANIFEST, "graph.lbug", "graph.lbug.wal", "graph.lbug.lock", "graph.lbug.writer"):
        (path / file).unlink(missing_ok=True)


def _graph_provenance(kg: KnowledgeGraph) -> dict[str, Any]:
    """Manifest facts beyond name and release: for a KGX graph the Biolink model version, negated edges
    and the primary knowledge sources; nothing for Hetionet (its provenance is per edge)."""
    return kg.schema.profile.manifest_provenance(kg)


def _asserted_edges(kg: KnowledgeGraph) -> pd.DataFrame:
    """The edges PPR may spread relevance along: all but the negated ones (KGX ``negated = true``)."""
    negation = kg.schema.negation_property
    if not negation or negation not in kg.edges.columns:
        return kg.edges
    return kg.edges[~kg.edges[negation].fillna(False).astype(bool)]


def _reopen_store(path: Path, manifest: dict[str, Any], *, read_only: bool, neo4j: Any = None) -> GraphStore:
    """Reopen the store recorded in ``manifest`` (``backend``, default ``ladybug``) through the backend registry;
    secrets come from ``neo4j`` (the backend's options) or the environment, never from the manifest."""
    return get_backend(manifest.get("backend", "ladybug")).reopen(path, manifest, read_only, neo4j)


def _backend_manifest(store: GraphStore) -> dict[str, Any]:
    """Manifest entries describing the store's connection (never secrets), from the store itself."""
    return store.backend_manifest()


# --- vector store selection (engram_kit.plugins.vectors: local chromadb folder, a Chroma server, ...) -----------
def _vector_store_manifest(path: Path, vectors: Any) -> tuple[dict[str, Any], Any]:
    """The ``manifest["vector_store"]`` entry of a new workspace at ``path``, and its options (or None).

    ``vectors`` is a registered kind's name (``"local"``, the default for None), a Chroma server URL or a
    ``ChromaServerConfig`` (:func:`engram_kit.store.vector_kinds.choose`). A server is contacted once here
    (heartbeat), so a wrong URL fails before the knowledge graph is loaded. The entry never holds the token.

    Raises
    ------
    DataError
        If no registered vector store kind takes ``vectors``.
    """
    kind, options = vector_kinds.choose(vectors)
    entry, options = kind.new_entry(path, options)
    return {"kind": kind.name, **entry}, options


def _open_vector_store(path: Path, manifest: dict[str, Any], *, read_only: bool, server: Any = None) -> VectorStore:
    """Open the vector store ``manifest`` records (no ``vector_store`` key: the local folder, as before).

    Raises
    ------
    WorkspaceError
        If the recorded kind is not registered in this installation.
    """
    kind, entry = vector_kinds.recorded(manifest)
    return kind.open(path, manifest["embedding_model"], entry, read_only, server)


def _vectors_in_folder(manifest: dict[str, Any]) -> bool:
    """Whether the workspace keeps its vectors in ``<workspace>/vectors`` (the ``local`` kind)."""
    kind, _ = vector_kinds.recorded(manifest)
    return kind.in_folder


def _migration_vectors(ws: Workspace, vectors: Any) -> Any:
    """The ``vectors`` choice of a migration: as given, or (None) the same kind as ``ws`` (and, for a server, the
    same server)."""
    if vectors is not None:
        return vectors
    kind, entry = vector_kinds.recorded(ws.manifest)
    options = ws._vector_server or kind.options_from_entry(entry)
    return options if options is not None else kind.name


def _copy_vectors(ws: Workspace, dest: Path, entry: dict[str, str], server: Any) -> None:
    """Copy the vectors of ``ws`` into the store ``entry`` describes for the new workspace ``dest``.

    Local to local is a folder copy (byte-identical index); any copy involving a server goes vector by vector
    (:meth:`VectorStore.copy_from`), and a half-filled new collection is dropped if the copy fails.
    """
    source_local = _vectors_in_folder(ws.manifest)
    if source_local and not (ws.path / "vectors").exists():
        return  # nothing ingested yet: the new store is created on first use
    if source_local and _vectors_in_folder({"vector_store": entry}):
        shutil.copytree(ws.path / "vectors", dest / "vectors", dirs_exist_ok=True)
        return
    source = ws.vectors
    target = _open_vector_store(dest, {"embedding_model": ws.manifest["embedding_model"], "vector_store": entry},
                                read_only=False, server=server)
    try:
        copied = target.copy_from(source)
        log.info("copied %d vectors from %s to %s", copied, source.location, target.location)
    except BaseException:
        target.drop()
        raise
    finally:
        target.close()


def _describe_vector_store(manifest: dict[str, Any]) -> str:
    """One line for ``info()``: ``local`` or ``chroma-server <url> collection <name>`` (the kind's ``describe``)."""
    kind, entry = vector_kinds.recorded(manifest)
    return kind.describe(entry)
