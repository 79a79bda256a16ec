"""The store seam (issue 15, item 1; issue 33 item 4): a graph backend is one module, its statement pack and one
registration line.

The toy backend below keeps each workspace's graph in an in-memory LadybugDB database owned by this module (a
stand-in for "some other Cypher engine"). It implements only the primitives :class:`CypherStore` asks for
(execute, transaction, writability) and the lifecycle/load methods of :class:`GraphStore`; every read, the
literature write path, delete and the document repository come from the shared base. Its dialect is its own
statement pack, :data:`MEMORY_STATEMENTS`, written here in one place: LadybugDB's pack with a statement, a fragment
of the evidence desk and the desk's prompt note changed, so the test can see that the store, the desk's templates
and plans and the answer layer send the toy's text. The one registration line is the ``register_backend(...)``
call in the fixture; nothing else in the product is touched.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import ladybug as lb
import pandas as pd
import pytest

from engram_kit.errors import QueryError, ReadOnlyError
from engram_kit.kg.schema import HETIONET_SCHEMA, GraphSchema
from engram_kit.store.base import GraphStore
from engram_kit.store.cypher_store import CypherStore
from engram_kit.plugins import PluginError
from engram_kit.store.registry import StoreBackend, backend_names, get_backend, register_backend, unregister_backend
from engram_kit.store.statements import StatementPack
from engram_kit.store.statements.ladybug import LADYBUG_STATEMENTS

# --- the toy backend: everything a new backend has to write ------------------------------------------------------
_SERVERS: dict[str, tuple[Any, GraphSchema]] = {}  # the "server": one in-memory database per workspace
_SENT: list[str] = []  # every Cypher text the toy ran, to check it is the toy's own dialect

#: The toy's dialect: its own pack, derived from LadybugDB's with three texts of its own (equivalent Cypher, told
#: apart by the marker ``count(*)`` / the parentheses / the note).
MEMORY_STATEMENTS: StatementPack = LADYBUG_STATEMENTS.derive(
    "memory",
    statements={"count_nodes": "MATCH (n:{label}) RETURN count(*) AS n"},
    fragments={"split_count": "(CASE WHEN {expr} IS NULL OR {expr} = '' THEN 0 "
                              "ELSE size(string_split({expr}, '|')) END)"},
    prompt_note="the toy memory dialect (LadybugDB Cypher; use label(n))",
)


class MemoryStore(CypherStore):
    """Toy Cypher backend: an in-memory LadybugDB database per name, kept for the life of the process."""

    statements = MEMORY_STATEMENTS

    def __init__(self, name: str, *, schema: GraphSchema | None = None, read_only: bool = False) -> None:
        if name not in _SERVERS:
            _SERVERS[name] = (lb.Database(None), schema or HETIONET_SCHEMA)
        database, self.schema = _SERVERS[name]
        self.name, self.read_only = name, read_only
        self._conn: Any = lb.Connection(database)
        if not read_only:
            self.create_schema()

    def _execute(self, cypher: str, parameters: dict[str, Any] | None = None, *, what: str = "query") -> pd.DataFrame:
        _SENT.append(cypher)
        try:
            return self._conn.execute(cypher, parameters or {}).get_as_df()
        except RuntimeError as exc:
            raise QueryError(f"memory store failed on {what}: {exc}") from exc

    @contextmanager
    def _transaction(self, *, read_only: bool = False) -> Iterator[None]:
        self._conn.execute("BEGIN TRANSACTION READ ONLY" if read_only else "BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            try:
                self._conn.execute("ROLLBACK")
            except RuntimeError:
                pass  # a failed statement already rolled back
            raise
        self._conn.execute("COMMIT")

    def _require_writable(self, operation: str) -> None:
        if self.read_only:
            raise ReadOnlyError(f"{operation}: the memory store {self.name} is read-only")

    def create_schema(self) -> None:
        for ddl in self.statements.ddl(self.schema):
            self._execute(ddl, what="schema")

    def load_knowledge_graph(self, nodes: pd.DataFrame, edges: pd.DataFrame, *, progress: bool = True) -> None:
        for label, frame in self._node_frames(nodes).items():
            self._execute(self.statements.statement("copy_node_table", schema=self.schema, label=label),
                          {"frame": frame})
        for (rel_type, (source, target)), frame in self._edge_frames(edges, nodes).items():
            if len(self.schema.rel_spec(rel_type).pairs) > 1:
                cypher = self.statements.statement("copy_rel_table_pair", schema=self.schema, rel_type=rel_type,
                                                   source_label=source, target_label=target)
            else:
                cypher = self.statements.statement("copy_rel_table", schema=self.schema, rel_type=rel_type)
            self._execute(cypher, {"frame": frame})

    def query(self, cypher: str, parameters: dict[str, Any] | None = None) -> pd.DataFrame:
        return self._execute(cypher, parameters)

    def read_only_query(self, cypher: str, parameters: dict[str, Any] | None = None, *, timeout_s: float = 10.0,
                        max_rows: int = 100_000, max_bytes: int = 0, max_memory_mb: int = 0) -> pd.DataFrame:
        self._conn.set_query_timeout(int(timeout_s * 1000))
        try:
            with self._transaction(read_only=True):
                return self._execute(cypher, parameters).head(max_rows + 1)
        finally:
            self._conn.set_query_timeout(0)

    @property
    def closed(self) -> bool:
        return self._conn is None

    def close(self) -> None:
        self._conn = None


# --- tests --------------------------------------------------------------------------------------------------------
@pytest.fixture
def memory_backend():
    register_backend(StoreBackend("memory", lambda path, options, schema: MemoryStore(str(path), schema=schema),
                                  lambda path, manifest, read_only, options: MemoryStore(str(path), read_only=read_only)))
    yield
    unregister_backend("memory")
    _SERVERS.clear()
    _SENT.clear()


def test_the_builtin_backends_are_registered_and_unknown_names_are_refused():
    assert backend_names()[:2] == ("ladybug", "neo4j")
    with pytest.raises(PluginError, match="ladybug, neo4j"):
        get_backend("postgres")
    with pytest.raises(PluginError, match="already registered"):
        register_backend(get_backend("ladybug"))


def test_the_base_classes_are_complete():
    """Every method callers use is on GraphStore; the two real backends leave nothing abstract."""
    from engram_kit.store.ladybug import LadybugStore
    from engram_kit.store.neo4j import Neo4jStore

    for method in ("read_only_query", "ppr_engine", "backend_manifest", "run_statement", "article_passages",
                   "replace_same_as", "edges_among", "counts"):
        assert hasattr(GraphStore, method), method
    assert "schema" in GraphStore.__annotations__ and not hasattr(GraphStore, "schema")  # no default graph
    assert not LadybugStore.__abstractmethods__ and not Neo4jStore.__abstractmethods__
    assert issubclass(LadybugStore, CypherStore) and issubclass(Neo4jStore, CypherStore)
    # the shared bodies are defined once, on the base, not copied onto the subclasses
    for method in ("write_literature", "delete_article", "counts", "passage_mentions", "article_mentions"):
        assert method not in vars(LadybugStore) and method not in vars(Neo4jStore), method
        assert method in vars(CypherStore), method


def test_a_toy_backend_runs_a_workspace(memory_backend, workspace, sample_records, tmp_path):
    from engram_kit.cli import DEMO_QUESTION
    from engram_kit.workspace import Workspace

    path = tmp_path / "toy"
    ws = Workspace.create(path, graph="hetionet", backend="memory")
    try:
        ws.settings.progress = False
        assert isinstance(ws.store, MemoryStore) and ws.manifest["backend"] == "memory"
        embedded, toy = workspace.store.counts(), ws.store.counts()
        for label in ws.store.schema.labels + ws.store.schema.rel_types:
            assert toy[label] == embedded[label], label
        report = ws.ingest(sample_records[:12])
        assert ws.store.counts()["Article"] == 12 and report is not None
        answer = ws.ask(DEMO_QUESTION)
        assert answer.retrieval.passages and answer.retrieval.entities
        _check_the_toy_dialect_reaches_every_layer(ws, workspace)
        article = ws.store.articles()["id"].iloc[0]
        assert ws.store.article_passages(article)["article_id"].eq(article).all()
        assert ws.store.delete_article(article) >= 1 and ws.store.counts()["Article"] == 11
        with pytest.raises(Exception, match="read-only|read only|Cannot execute write"):
            ws.store.read_only_query("MATCH (d:Disease) SET d.name = 'x' RETURN d.id")
    finally:
        ws.close()
    reopened = Workspace.open(path, read_only=True)
    try:
        assert isinstance(reopened.store, MemoryStore) and reopened.store.counts()["Article"] == 11
    finally:
        reopened.close()


class _PromptLLM:
    """An LLM stub that records the system prompts it is given and plans nothing."""

    name = "stub"

    def __init__(self) -> None:
        self.systems: list[str] = []

    def structured(self, messages: Any, schema: Any, *, system: str = "", max_tokens: int = 1024) -> Any:
        self.systems.append(system)
        return schema.model_validate({"queries": []} if "queries" in schema.model_fields else {"claims": []})


def _check_the_toy_dialect_reaches_every_layer(ws: Any, embedded: Any) -> None:
    """The toy's pack (:data:`MEMORY_STATEMENTS`) is what the store, the desk's intent plans and keyword templates and
    its LLM prompt use, and the desk answers on the toy as on the embedded store (same claims, same template)."""
    assert ws.store.statements is MEMORY_STATEMENTS and ws.store.dialect == "memory"
    _SENT.clear()
    ws.store.counts()
    assert "MATCH (n:Gene) RETURN count(*) AS n" in _SENT  # the toy's own count_nodes
    toy_desk, embedded_desk = ws.evidence_desk(), embedded.evidence_desk()
    for question, negated in (("Which pathways does TP53 participate in?", None),  # intent plan (evidence order)
                              ("Which side effects do drugs treating type 2 diabetes cause?", None),  # two hops
                              ("Which genes are associated with Parkinson's disease?", True)):  # keyword template
        _SENT.clear()
        toy, reference = toy_desk.investigate(question, include_negated=negated), \
            embedded_desk.investigate(question, include_negated=negated)
        assert toy.template == reference.template and toy.outcome == reference.outcome == "supported", question
        assert [c.text for c in toy.claims] == [c.text for c in reference.claims], question
        if "pathways" in question or "Parkinson" in question:  # evidence columns: the toy's split_count fragment
            assert any("(CASE WHEN r.sources IS NULL" in text for text in _SENT), question
    toy_llm, embedded_llm = _PromptLLM(), _PromptLLM()
    ws.evidence_desk(toy_llm).investigate("Which genes does BACE1 interact with?")
    embedded.evidence_desk(embedded_llm).investigate("Which genes does BACE1 interact with?")
    assert "read-only Cypher in the toy memory dialect (LadybugDB Cypher; use label(n))." in toy_llm.systems[0]
    # the embedded prompt is the text the committed desk cassette was recorded with
    assert ("read-only Cypher in the LadybugDB dialect (Neo4j-like; typed relationship tables; use label(n) instead "
            "of labels(n)). Rules:") in embedded_llm.systems[0]


def test_locked_store_is_a_graph_store_that_serialises_every_call():
    """The agents' lock wrapper is a complete GraphStore (no type: ignore where it is handed to the retriever),
    delegates the engine and the base's attributes, and holds the lock for every call."""
    import threading

    from engram_kit.agents.graph import LockedStore

    assert issubclass(LockedStore, GraphStore) and not LockedStore.__abstractmethods__
    inner = MemoryStore("locked")
    lock = threading.RLock()
    locked = LockedStore(inner, lock)
    try:
        assert (locked.dialect, locked.read_only, locked.schema) == (inner.dialect, inner.read_only, inner.schema)
        assert type(locked.ppr_engine()) is type(inner.ppr_engine()) and locked.wrapped is inner
        assert locked.counts() == inner.counts()
        assert list(locked.run_statement("count_nodes", label="Gene").iloc[0]) == [0]
        holding, release, done = threading.Event(), threading.Event(), threading.Event()

        def hold() -> None:
            with lock:
                holding.set()
                release.wait(10)

        holder = threading.Thread(target=hold)
        holder.start()
        holding.wait(10)
        caller = threading.Thread(target=lambda: (locked.counts(), done.set()))
        caller.start()
        assert not done.wait(0.3)  # blocked while another thread holds the lock
        release.set()
        assert done.wait(10)
        holder.join()
        caller.join()
        assert not locked.closed
        locked.close()
        assert locked.closed and inner.closed
    finally:
        _SERVERS.clear()


def test_compaction_asks_the_backend_and_skips_one_without_compact(tmp_path):
    """``ws.compact()`` routes the graph through the backend's ``compact`` (no backend names in compaction.py);
    a backend without one is skipped with its note."""
    from types import SimpleNamespace

    from engram_kit.compaction import CompactReport, _compact_graph
    from engram_kit.store.registry import GraphCompaction

    calls: list[tuple[Any, Any]] = []
    old, new = MemoryStore("old"), MemoryStore("new")

    def compact(path: Any, store: GraphStore) -> GraphCompaction:
        calls.append((path, store))
        return GraphCompaction(new, 300, 100)

    try:
        register_backend(StoreBackend("memory-compact", lambda p, o, s: old, lambda p, m, r, o: old, compact=compact))
        register_backend(StoreBackend("memory-keep", lambda p, o, s: old, lambda p, m, r, o: old,
                                      compact_note="the toy reuses its space"))
        documents = SimpleNamespace(store=old)
        ws = SimpleNamespace(manifest={"backend": "memory-compact"}, path=tmp_path, store=old, _index=object(),
                             _documents=documents)
        report = CompactReport()
        _compact_graph(ws, report)
        assert calls == [(tmp_path, old)] and ws.store is new and documents.store is new and ws._index is None
        assert (report.graph_bytes_before, report.graph_bytes_after, report.skipped) == (300, 100, [])
        ws = SimpleNamespace(manifest={"backend": "memory-keep"}, path=tmp_path, store=old)
        report = CompactReport()
        _compact_graph(ws, report)
        assert ws.store is old and report.skipped == ["the toy reuses its space"]
        assert get_backend("neo4j").compact is None and get_backend("ladybug").compact is not None
    finally:
        unregister_backend("memory-compact")
        unregister_backend("memory-keep")
        _SERVERS.clear()
