"""The store interface: what every graph backend (embedded LadybugDB, Neo4j + GDS) implements.

Stages above the store (ingestion, retrieval, agents) talk only to :class:`GraphStore`; Cypher text lives in
the backend's statement pack (:attr:`GraphStore.statements`, :mod:`engram_kit.store.statements`), asked for by
statement name, never in callers.

Graph model
-----------
Domain layer: one node table per Hetionet kind (label ``Gene``, ``Compound``...; properties ``id``,
``name``, ``identifier``) and one relationship table per metaedge (``BINDS_CbG``...; properties
``sources``, ``license``, ``unbiased``, ``pubmed_ids`` where Hetionet has them).
Literature layer: ``Article``, ``Section``, ``Passage``, ``NounPhrase``; ``HAS_SECTION``
(Article->Section), ``CONTAINS`` (Section->Passage), ``MENTIONS {count}`` (Passage|Section|Article ->
NounPhrase), ``MAPS_TO {confidence, method}`` (NounPhrase -> any domain node), ``SAME_AS``
(NounPhrase -> NounPhrase hub).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from engram_kit.kg.schema import GraphSchema
from engram_kit.kg.tables import EDGE_COLUMNS as EDGE_COLUMNS  # re-exported: the columns load_knowledge_graph takes
from engram_kit.kg.tables import NODE_COLUMNS as NODE_COLUMNS
from engram_kit.records import LiteratureBatch, SameAsEdge

if TYPE_CHECKING:
    from engram_kit.store.ppr_engine import PPREngine
    from engram_kit.store.statements import StatementPack



class GraphStore(ABC):
    """A property-graph store holding the domain layer and the literature layer.

    Implementations: :class:`engram_kit.store.ladybug.LadybugStore` (embedded, default) and
    :class:`engram_kit.store.neo4j.Neo4jStore` (server), both through the shared Cypher-store base
    :class:`engram_kit.store.cypher_store.CypherStore`; backends are found by name in
    :mod:`engram_kit.store.registry`.
    All frame-returning methods return :class:`pandas.DataFrame` with the documented columns (possibly
    empty, never None). Writes raise :class:`~engram_kit.errors.ReadOnlyError` on a read-only store.
    """

    #: Every Cypher text this backend sends (its dialect): statements by name, the desk's fragments, DDL. Set by
    #: each backend class (``statements = LADYBUG_STATEMENTS``); callers ask it for text, never branch on a name.
    statements: StatementPack
    read_only: bool = False
    #: The domain layer this store holds (labels, relationship types, properties); set by ``__init__`` (no default:
    #: a store holds the graph it was created for).
    schema: GraphSchema

    @property
    def dialect(self) -> str:
        """The name of this store's statement pack (``"ladybug"``, ``"neo4j"``), for messages; no code branches on
        it (ask :attr:`statements` for the text instead)."""
        return self.statements.name

    # --- schema and bulk load ------------------------------------------------------------------
    @abstractmethod
    def create_schema(self) -> None:
        """Create all node and relationship tables/constraints; idempotent."""

    @abstractmethod
    def load_knowledge_graph(self, nodes: pd.DataFrame, edges: pd.DataFrame, *, progress: bool = True) -> None:
        """Bulk-load the domain layer (bulk COPY path where the backend has one).

        Parameters
        ----------
        nodes : DataFrame with columns :data:`NODE_COLUMNS`; ``kind`` is a Hetionet kind.
        edges : DataFrame with columns :data:`EDGE_COLUMNS`; ``metaedge`` an abbreviation (``"CbG"``).
        """

    # --- literature layer writes -----------------------------------------------------------------
    @abstractmethod
    def write_literature(self, batch: LiteratureBatch) -> None:
        """Write one batch atomically (all or nothing), merging on ids so re-writing is idempotent.

        Existing articles with the same id are replaced: their old sections, passages and MENTIONS
        edges are removed first inside the same transaction. NounPhrases are merged, never duplicated.
        """

    @abstractmethod
    def delete_article(self, article_id: str) -> int:
        """Delete an article, its sections, passages and their edges; NounPhrases no longer mentioned
        by anything are deleted too. Returns the number of passages removed (0 if absent)."""

    @abstractmethod
    def set_article_status(self, article_id: str, status: str, error: str = "") -> None:
        """Set ``status`` (one of :data:`engram_kit.records.STATUSES`) and its error message."""

    # --- reads ---------------------------------------------------------------------------------
    @abstractmethod
    def counts(self) -> dict[str, int]:
        """Node count per label and relationship count per type (zero counts included)."""

    @abstractmethod
    def get_nodes(self, ids: Sequence[str]) -> pd.DataFrame:
        """Domain or NounPhrase nodes by id. Columns: ``id, label, name``; unknown ids are absent."""

    @abstractmethod
    def get_passages(self, ids: Sequence[str]) -> pd.DataFrame:
        """Passages by id, in no particular order. Columns: the fields of
        :class:`~engram_kit.records.PassageRecord`. Unknown ids are absent."""

    @abstractmethod
    def articles(self, source: str | None = None) -> pd.DataFrame:
        """All articles (optionally of one source). Columns: fields of ArticleRecord + ``passages``."""

    @abstractmethod
    def literature_edges(self) -> pd.DataFrame:
        """Edges of the literature layer used by PPR. Columns ``source, target, rel_type, weight``:
        Passage->NounPhrase MENTIONS (weight = count), NounPhrase->entity MAPS_TO (weight =
        confidence), NounPhrase->NounPhrase SAME_AS (weight 1)."""

    @abstractmethod
    def passage_mentions(self, passage_ids: Sequence[str]) -> pd.DataFrame:
        """Entities each passage mentions. Columns ``passage_id, nounphrase_id, mention, entity_id,
        entity_name, entity_label, confidence, method`` (entity columns empty when unlinked)."""

    @abstractmethod
    def edges_among(self, node_ids: Sequence[str], *, include_negated: bool = False) -> pd.DataFrame:
        """Domain edges whose both endpoints are in ``node_ids``. Columns ``source, target, rel_type`` then the
        schema's edge properties; negated assertions (KGX) only with ``include_negated``."""

    @abstractmethod
    def node_ids_by_label(self) -> dict[str, list[str]]:
        """All node ids per label: the 11 domain labels and ``NounPhrase`` (empty lists included), sorted."""

    @abstractmethod
    def domain_edges(self) -> pd.DataFrame:
        """All domain (knowledge-graph) edges, e.g. to build the in-memory CSR graph. Columns ``source,
        target, rel_type``."""

    # --- document repository ------------------------------------------------------------------------
    @abstractmethod
    def article_passages(self, article_id: str) -> pd.DataFrame:
        """Passages of one article in passage order. Columns: fields of PassageRecord (``index`` as ``idx``)."""

    @abstractmethod
    def article_sections(self, article_id: str) -> pd.DataFrame:
        """Sections of one article in order. Columns: ``id, article_id, title, idx, summary``."""

    @abstractmethod
    def article_mentions(self, article_ids: Sequence[str]) -> pd.DataFrame:
        """MENTIONS edges of articles from every level. Columns ``article_id, level (Passage|Section|Article),
        source_id, nounphrase_id, name, entity_type, count``."""

    @abstractmethod
    def nounphrase_links(self, nounphrase_ids: Sequence[str]) -> pd.DataFrame:
        """MAPS_TO edges of NounPhrases. Columns ``nounphrase_id, name, entity_type, entity_id, entity_name,
        confidence, method``."""

    @abstractmethod
    def nounphrases_linked_to(self, entity_ids: Sequence[str]) -> list[str]:
        """Ids of the NounPhrases with a MAPS_TO edge to any of ``entity_ids``, sorted."""

    @abstractmethod
    def nounphrase_articles(self, nounphrase_ids: Sequence[str]) -> pd.DataFrame:
        """Distinct (NounPhrase, article) pairs: the articles whose passages, sections or summary mention each
        NounPhrase. Columns ``nounphrase_id, article_id``."""

    @abstractmethod
    def same_as_edges_from(self, nounphrase_ids: Sequence[str]) -> pd.DataFrame:
        """Outgoing SAME_AS edges of NounPhrases. Columns ``nounphrase_id, hub_id``."""

    @abstractmethod
    def replace_same_as(self, nounphrase_ids: Sequence[str], edges: Sequence[SameAsEdge]) -> None:
        """In one transaction: delete the outgoing SAME_AS edges of ``nounphrase_ids``, then merge ``edges``."""

    @abstractmethod
    def delete_orphan_nounphrases(self, nounphrase_ids: Sequence[str]) -> int:
        """Delete those of ``nounphrase_ids`` that nothing mentions and no alias points to; return how many."""

    def run_statement(self, name: str, parameters: dict[str, Any] | None = None, **identifiers: str) -> pd.DataFrame:
        """Run a statement of this store's pack (:attr:`statements`) by name (the agents' reads, the ingest's commit).

        ``identifiers`` fill ``{label}``-style placeholders with schema identifiers only; values go in
        ``parameters``. Raises :class:`~engram_kit.errors.QueryError` for a name the pack lacks.
        """
        return self.query(self.statements.statement(name, schema=self.schema, **identifiers), parameters)

    @abstractmethod
    def query(self, cypher: str, parameters: dict[str, Any] | None = None) -> pd.DataFrame:
        """Run one Cypher statement and return its rows. No guard here: the evidence desk guards."""

    @abstractmethod
    def read_only_query(self, cypher: str, parameters: dict[str, Any] | None = None, *,
                        timeout_s: float = 10.0, max_rows: int = 100_000, max_bytes: int = 64 * 1024 * 1024,
                        max_memory_mb: int = 2048) -> pd.DataFrame:
        """Run one untrusted statement the database itself keeps read-only, aborted after ``timeout_s`` seconds
        (> 0), reading at most ``max_rows + 1`` rows and about ``max_bytes`` bytes of them.

        The evidence desk's second line of defence after its static guard: the embedded store runs it in a
        child process (plan check for file/write operators, ``READ ONLY`` transaction, query timeout, hard
        backstop, ``max_memory_mb`` resident-memory cap: :mod:`engram_kit.store.isolated`); Neo4j refuses any
        plan whose ``EXPLAIN`` query type is not ``"r"`` and runs it in a READ session inside a transaction with
        a server-side timeout (its memory is bounded by the server's own transaction memory settings).

        Raises
        ------
        QueryGuardError
            If the database refused or would have refused a write.
        QueryError
            On timeout (the message says so) or any other database error.
        """

    # --- retrieval engine and configuration ----------------------------------------------------------
    def ppr_engine(self) -> PPREngine | None:
        """Where personalised PageRank runs for this store: ``None`` = the embedded CSR solver (the
        :class:`~engram_kit.retrieval.retriever.Retriever`'s default,
        :class:`~engram_kit.retrieval.retriever.CSRPPREngine`); a server backend returns its own engine (Neo4j:
        :class:`~engram_kit.store.gds.GDSPPREngine`, GDS ``pageRank.stream`` with ``sourceNodes``)."""
        return None

    def backend_manifest(self) -> dict[str, Any]:
        """What the workspace manifest records about this store's connection (never a secret): ``{}`` for a
        file store (its path is the workspace's), ``{"neo4j": {uri, user, database, ...}}`` for Neo4j."""
        return {}

    @property
    @abstractmethod
    def closed(self) -> bool:
        """True after :meth:`close` (every data method then raises); how a caller asks before using a store it
        did not open, e.g. ``ws.compact()`` on a closed workspace. Backend-specific: the embedded store has no
        connection left, Neo4j no driver."""

    @abstractmethod
    def close(self) -> None:
        """Release the database; idempotent."""

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
