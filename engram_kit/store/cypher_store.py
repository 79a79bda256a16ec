"""The Cypher-store base: every backend-neutral method body of a Cypher graph store, written once.

:class:`CypherStore` implements the whole of :class:`~engram_kit.store.base.GraphStore` except connection,
transaction and bulk-load mechanics: literature writes (one transaction per batch, replace-on-rewrite, orphan
NounPhrase clean-up), delete and status, every read, and the document repository. Its bodies only call
``_run``/``_run_count``/``_run_rows`` with statement *names* (the text comes from the backend's statement pack,
``self.statements``: :mod:`engram_kit.store.statements`) and ``_transaction``; so the embedded store
(:class:`~engram_kit.store.ladybug.LadybugStore`) and the server store (:class:`~engram_kit.store.neo4j.Neo4jStore`)
share write, delete and reprocess semantics by construction.

A new Cypher backend subclasses :class:`CypherStore` and implements the primitives it names as abstract
(``_execute``, ``_transaction``, ``_require_writable``), names its statement pack (``statements = ...``: its
dialect, written beside it) and implements the lifecycle and load methods of
:class:`~engram_kit.store.base.GraphStore` (``create_schema``, ``load_knowledge_graph``, ``query``,
``read_only_query``, ``close``); ``tests/test_store_backends.py`` shows one added by one module and one
registration line (:func:`engram_kit.store.registry.register_backend`).
"""

from __future__ import annotations

import logging
import time
from abc import abstractmethod
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
import pandas as pd

from engram_kit.errors import DataError, EngramError, IngestionError
from engram_kit.kg.schema import GraphSchema
from engram_kit.records import STATUSES, LiteratureBatch, SameAsEdge
from engram_kit.store.base import EDGE_COLUMNS, NODE_COLUMNS, GraphStore
from engram_kit.store.cypher import (
    LITERATURE_LABELS,
    LITERATURE_NODE_PROPERTIES,
    LITERATURE_REL_TYPES,
    MENTION_SOURCE_LABELS,
)

#: Rows per ``UNWIND $rows`` statement in literature writes (bigger lists plan worse, smaller ones
#: pay per-statement overhead; 2,000 measured near-optimal for 10k-row batches on LadybugDB).
UNWIND_CHUNK_ROWS = 2_000
#: Prefix of NounPhrase ids (see :mod:`engram_kit.records`).
NOUNPHRASE_PREFIX = "np:"
#: Columns of :meth:`CypherStore.get_nodes`.
NODE_FRAME_COLUMNS: tuple[str, ...] = ("id", "label", "name")
#: Columns of :meth:`CypherStore.edges_among` and :meth:`CypherStore.domain_edges`.
EDGE_FRAME_COLUMNS: tuple[str, ...] = ("source", "target", "rel_type")
#: Columns of :meth:`CypherStore.literature_edges`.
LITERATURE_EDGE_COLUMNS: tuple[str, ...] = ("source", "target", "rel_type", "weight")
#: Columns of :meth:`CypherStore.passage_mentions`.
PASSAGE_MENTION_COLUMNS: tuple[str, ...] = (
    "passage_id", "nounphrase_id", "mention", "entity_id", "entity_name", "entity_label", "confidence", "method",
)
_NULLABLE_INT_COLUMNS: tuple[str, ...] = ("year", "page_start", "page_end")

logger = logging.getLogger(__name__)


class CypherStore(GraphStore):
    """A :class:`~engram_kit.store.base.GraphStore` whose data methods are Cypher statements run by name.

    Subclasses provide the three primitives below and the lifecycle/load methods of the base, set
    :attr:`statements` (the backend's :class:`~engram_kit.store.statements.StatementPack`) and, in ``__init__``,
    :attr:`schema`.
    """

    # --- primitives a backend implements ----------------------------------------------------------------
    @abstractmethod
    def _execute(self, cypher: str, parameters: dict[str, Any] | None = None, *,
                 what: str = "query") -> pd.DataFrame:
        """Run one statement (inside the open transaction, if any) and return its rows.

        Raises :class:`~engram_kit.errors.QueryError` (or ``ReadOnlyError``) naming ``what`` on failure."""

    @abstractmethod
    def _transaction(self, *, read_only: bool = False) -> AbstractContextManager[None]:
        """A context in which every ``_execute`` runs in one transaction: commit on exit, roll back and
        re-raise on any exception."""

    @abstractmethod
    def _require_writable(self, operation: str) -> None:
        """Raise :class:`~engram_kit.errors.ReadOnlyError` naming ``operation`` on a read-only (or closed) store."""

    # --- statement execution ---------------------------------------------------------------------------
    def _run(self, name: str, parameters: dict[str, Any] | None = None, **identifiers: str) -> pd.DataFrame:
        return self._execute(self.statements.statement(name, schema=self.schema, **identifiers), parameters,
                             what=f"statement {name!r}" + (f" {identifiers}" if identifiers else ""))


    def _run_count(self, name: str, parameters: dict[str, Any] | None = None, **identifiers: str) -> int:
        frame = self._run(name, parameters, **identifiers)
        return int(frame.iloc[0, 0]) if len(frame) else 0


    def _run_rows(self, name: str, rows: list[dict[str, Any]], **identifiers: str) -> int:
        """Run an ``UNWIND $rows`` statement in chunks; return the summed count it reports."""
        return sum(self._run_count(name, {"rows": chunk}, **identifiers) for chunk in _chunks(rows))


    # --- bulk-load validation (shared by every backend's load path) -------------------------------------
    def _domain_is_empty(self) -> bool:
        return all(self._run_count("count_nodes", label=label) == 0 for label in self.schema.labels)


    def _node_labels(self, nodes: pd.DataFrame) -> pd.Series:
        """Label of every row of a node frame (its ``kind`` through the schema)."""
        return nodes["kind"].map({kind: self.schema.label_of_kind(str(kind)) for kind in nodes["kind"].unique()})


    def _node_frames(self, nodes: pd.DataFrame) -> dict[str, pd.DataFrame]:
        """Split the node frame by label into COPY-ready frames (the schema's node properties, in order)."""
        missing = [c for c in NODE_COLUMNS if c not in nodes.columns]
        if missing:
            raise DataError(f"Node frame lacks columns {missing}; expected {list(NODE_COLUMNS)}.")
        duplicated = nodes["id"][nodes["id"].duplicated()]
        if len(duplicated):
            raise DataError(f"Node frame has {len(duplicated)} duplicated ids, e.g. {duplicated.iloc[0]!r}; "
                            f"ids must be unique.")
        labels = self._node_labels(nodes)
        out: dict[str, pd.DataFrame] = {}
        for label in self.schema.labels:
            part = nodes[labels == label]
            if len(part):
                out[label] = pd.DataFrame({
                    prop: (part["id"].astype(str).to_numpy() if prop == "id"
                           else _text_column(part[prop]).to_numpy() if prop in part.columns
                           else np.full(len(part), None, dtype=object))
                    for prop in self.schema.node_properties
                })
        return out


    def _edge_rel_types(self, edges: pd.DataFrame) -> pd.Series:
        """Relationship type of every edge row: its ``rel_type`` column, else its Hetionet ``metaedge``."""
        if "rel_type" in edges.columns:
            names = edges["rel_type"]
        elif "metaedge" in edges.columns:
            names = edges["metaedge"]
        else:
            raise DataError(f"Edge frame needs a 'rel_type' (or Hetionet 'metaedge') column; has {list(edges.columns)}.")
        return names.map({name: self.schema.rel_spec(str(name)).rel_type for name in names.unique()})


    def _edge_frames(self, edges: pd.DataFrame,
                     nodes: pd.DataFrame) -> dict[tuple[str, tuple[str, str]], pd.DataFrame]:
        """Split the edge frame by (relationship type, endpoint label pair) into COPY-ready frames, checking
        that every endpoint is a node whose label pair the schema allows for that type."""
        missing = [c for c in ("source", "target") if c not in edges.columns]
        if missing:
            raise DataError(f"Edge frame lacks columns {missing}; expected {list(EDGE_COLUMNS)}.")
        label_of = pd.Series(self._node_labels(nodes).to_numpy(), index=nodes["id"].astype(str).to_numpy())
        sources, targets = edges["source"].astype(str), edges["target"].astype(str)
        keys = pd.DataFrame({"rel_type": self._edge_rel_types(edges).to_numpy(),
                             "source_label": label_of.reindex(sources.to_numpy()).to_numpy(),
                             "target_label": label_of.reindex(targets.to_numpy()).to_numpy()}, index=edges.index)
        out: dict[tuple[str, tuple[str, str]], pd.DataFrame] = {}
        for (rel_type, source_label, target_label), index in keys.groupby(
                ["rel_type", "source_label", "target_label"], sort=False, dropna=False).groups.items():
            spec = self.schema.rel_spec(str(rel_type))
            pair = (source_label, target_label)
            if pair not in spec.pairs:
                end = "source" if all(source_label != p[0] for p in spec.pairs) else "target"
                example = (sources if end == "source" else targets).loc[index[0]]
                allowed = ", ".join(f"{a}->{b}" for a, b in spec.pairs)
                raise DataError(
                    f"{len(index)} {spec.predicate} edges have a {end} that is not a node of an allowed kind "
                    f"({allowed}) in the node frame, e.g. {example!r}; fix the edge file or add the node."
                )
            part = edges.loc[index]
            frame = pd.DataFrame({"from": sources.loc[index].to_numpy(), "to": targets.loc[index].to_numpy()})
            for prop, type_ in self.schema.rel_properties.items():
                if prop not in part.columns:
                    frame[prop] = np.full(len(part), False if type_ == "BOOLEAN" else None, dtype=object)
                elif type_ == "BOOLEAN":
                    frame[prop] = part[prop].fillna(False).astype(bool).to_numpy()
                else:
                    frame[prop] = _text_column(part[prop]).to_numpy()
            out[(spec.rel_type, pair)] = frame
        return out


    # --- literature writes ------------------------------------------------------------------------------
    def write_literature(self, batch: LiteratureBatch) -> None:
        """Write one batch atomically (all or nothing); re-writing the same batch is idempotent.

        Articles already stored with the same ids are replaced: their sections, passages and MENTIONS
        edges are deleted first, in the same transaction, and NounPhrases they alone mentioned are removed
        at the end unless the batch mentions them again. NounPhrases are merged on id; MAPS_TO edges are
        merged with their confidence and method updated; SAME_AS edges are merged.

        Raises
        ------
        ReadOnlyError
            On a read-only store (nothing is written).
        IngestionError
            If anything fails: the transaction is rolled back, so nothing of the batch is left and the
            previously stored data is intact. The message names the batch's article ids and the cause
            (e.g. a MAPS_TO to an entity that is not in the graph, a passage whose section is missing).

        Notes
        -----
        The replace-on-rewrite lookups and deletes run only when one of the batch's articles is stored
        (:meth:`_any_article_stored`). Statements are ``UNWIND $rows`` in chunks of :data:`UNWIND_CHUNK_ROWS`
        (LadybugDB scans Arrow tables instead, see :meth:`LadybugStore._insert_batch_rows
        <engram_kit.store.ladybug.LadybugStore._insert_batch_rows>`). Measured on 2 cores: 1,000
        one-passage articles with 10 mentions each (10,000 MENTIONS, ~8,000 new NounPhrases and MAPS_TO)
        in 1.8 s on top of the full Hetionet partial (``benchmarks/store_load.py``); 0.35 s on the test
        slice.
        """
        self._require_writable("write_literature")
        if not any((batch.articles, batch.sections, batch.passages, batch.nounphrases, batch.mentions,
                    batch.maps_to, batch.same_as)):
            return
        article_ids = [a.id for a in batch.articles]
        t0 = time.perf_counter()
        try:
            rows = _batch_rows(batch, self.schema)
            with self._transaction():
                self._write_batch_rows(article_ids, rows)
        except EngramError as exc:
            raise IngestionError(
                f"Literature batch of {len(article_ids)} articles ({_preview(article_ids)}) was not written, "
                f"nothing of it is stored: {exc}"
            ) from exc
        except Exception as exc:
            raise IngestionError(
                f"Literature batch of {len(article_ids)} articles ({_preview(article_ids)}) was not written, "
                f"nothing of it is stored: unexpected {type(exc).__name__}: {exc}"
            ) from exc
        logger.info("Wrote %d articles, %d passages, %d mentions to %s in %.2f s", len(batch.articles),
                    len(batch.passages), len(batch.mentions), type(self).__name__, time.perf_counter() - t0)


    def _write_batch_rows(self, article_ids: list[str], rows: dict[str, Any]) -> None:
        """Body of :meth:`write_literature`; runs inside the transaction, raises on any shortfall.

        The replace-on-rewrite lookups and deletes (seven statements) run only when one of ``article_ids``
        is stored already: one id check saves them for a batch of new articles, the common case of an
        ingest.
        """
        orphan_candidates: list[str] = []
        if article_ids and self._any_article_stored(article_ids):
            orphan_candidates = self._nounphrases_of_articles(article_ids)
            self._delete_articles_content(article_ids)
        self._insert_batch_rows(rows)
        self._delete_orphan_nounphrases(orphan_candidates)


    def _any_article_stored(self, article_ids: list[str]) -> bool:
        """Whether any of ``article_ids`` is stored (a backend may override this with a cheaper lookup)."""
        return self._run_count("count_articles_by_id", {"ids": article_ids}) > 0


    def _insert_batch_rows(self, rows: dict[str, Any]) -> None:
        """Create the batch's nodes and edges (no stored version of its articles is left at this point).

        A backend may override this to write some rows its own way (LadybugDB ``COPY``) and hand the rest,
        in the same ``rows`` shape, to this method; every check and error message below then still applies.

        Parameters
        ----------
        rows : dict
            As :func:`_batch_rows` returns: ``articles, sections, passages, nounphrases, same_as`` lists of
            row dicts, ``mentions`` and ``maps_to`` dicts label -> list of row dicts.

        Raises
        ------
        DataError
            On any shortfall (an endpoint that is neither in the batch nor stored) or a MAPS_TO to an
            entity that is not in the graph.
        """
        self._expect(self._run_rows("create_articles", rows["articles"]), rows["articles"], "articles")
        self._expect(self._run_rows("create_sections", rows["sections"]), rows["sections"],
                     "sections (is each section's article in the batch?)")
        self._expect(self._run_rows("create_passages", rows["passages"]), rows["passages"],
                     "passages (is each passage's section in the batch?)")
        self._expect(self._run_rows("merge_nounphrases", rows["nounphrases"]), rows["nounphrases"], "nounphrases")
        for label, label_rows in rows["mentions"].items():
            self._expect(self._run_rows("merge_mentions", label_rows, label=label), label_rows,
                         f"MENTIONS from {label} (do the {label} and NounPhrase ids exist?)")
        for label, label_rows in rows["maps_to"].items():
            written = self._run_rows("merge_maps_to", label_rows, label=label)
            if written != len(label_rows):
                self._raise_missing_entities(label, label_rows)
        self._expect(self._run_rows("merge_same_as", rows["same_as"]), rows["same_as"],
                     "SAME_AS (are both NounPhrases stored or in the batch?)")


    @staticmethod
    def _expect(written: int, rows: list[dict[str, Any]], what: str) -> None:
        if written != len(rows):
            raise DataError(f"only {written} of {len(rows)} {what} were written.")


    def _raise_missing_entities(self, label: str, rows: list[dict[str, Any]], *,
                                check_nounphrases: bool = True) -> None:
        """Raise the DataError naming the endpoints of MAPS_TO ``rows`` that are not stored.

        ``check_nounphrases=False`` looks up the entities only (for rows whose NounPhrases the batch
        creates, after a failed statement rolled the transaction back) and returns without raising when
        none is missing, so the caller re-raises its own error.
        """
        entity_ids = sorted({r["entity_id"] for r in rows})
        found = set(self._run("nodes_by_id", {"ids": entity_ids}, label=label)["id"])
        missing = [e for e in entity_ids if e not in found]
        if check_nounphrases:
            nounphrase_ids = sorted({r["nounphrase_id"] for r in rows})
            found_np = set(self._run("nodes_by_id", {"ids": nounphrase_ids}, label="NounPhrase")["id"])
            missing += [n for n in nounphrase_ids if n not in found_np]
        elif not missing:
            return
        raise DataError(
            f"MAPS_TO edges point to {len(missing)} nodes that are not in the graph: {_preview(missing)}. "
            f"Link mentions only to entities of the loaded knowledge graph (is it loaded?)."
        )


    def _nounphrases_of_articles(self, article_ids: list[str]) -> list[str]:
        if not article_ids:
            return []
        found: set[str] = set()
        for name in ("nounphrases_mentioned_by_passages", "nounphrases_mentioned_by_sections",
                     "nounphrases_mentioned_by_articles"):
            found.update(self._run(name, {"article_ids": article_ids})["id"])
        return sorted(found)


    def _delete_orphan_nounphrases(self, candidates: list[str]) -> None:
        """Delete the candidates that nothing mentions and no alias points to.

        Repeated until nothing changes: removing an orphan alias can orphan its SAME_AS hub (the hub
        pattern keeps alias chains one level deep, so this takes two rounds at most in practice).
        """
        for _ in range(5):
            if not candidates or self._run_count("delete_orphan_nounphrases", {"ids": candidates}) == 0:
                return
            candidates = self._run("nodes_by_id", {"ids": candidates}, label="NounPhrase")["id"].tolist()


    def _delete_articles_content(self, article_ids: list[str]) -> int:
        """Delete passages, sections and the articles themselves (with their edges); return passages removed."""
        if not article_ids:
            return 0
        params = {"article_ids": article_ids}
        n_passages = self._run_count("count_passages_of_articles", params)
        self._run("delete_passages_of_articles", params)
        self._run("delete_sections_of_articles", params)
        self._run("delete_articles", params)
        return n_passages


    def delete_article(self, article_id: str) -> int:
        """Delete an article, its sections, passages and their edges, and NounPhrases left unmentioned.

        Returns
        -------
        int
            Number of passages removed (0 if the article is absent).

        Raises
        ------
        ReadOnlyError
            On a read-only store.
        IngestionError
            If the delete failed (rolled back, nothing removed).
        """
        self._require_writable("delete_article")
        try:
            with self._transaction():
                candidates = self._nounphrases_of_articles([article_id])
                removed = self._delete_articles_content([article_id])
                self._delete_orphan_nounphrases(candidates)
        except EngramError as exc:
            raise IngestionError(f"Could not delete article {article_id!r}, nothing was removed: {exc}") from exc
        return removed


    def set_article_status(self, article_id: str, status: str, error: str = "") -> None:
        """Set an article's ``status`` (one of :data:`~engram_kit.records.STATUSES`) and error message.

        Raises
        ------
        ReadOnlyError
            On a read-only store.
        DataError
            If the status is not one of STATUSES or the article is not stored.
        """
        self._require_writable("set_article_status")
        if status not in STATUSES:
            raise DataError(f"Article status {status!r} is unknown; use one of {', '.join(STATUSES)}.")
        if self._run_count("set_article_status", {"id": article_id, "status": status, "error": error}) == 0:
            raise DataError(f"Article {article_id!r} is not in the store; write it before setting its status.")


    # --- reads ------------------------------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        """Node count per label and relationship count per type, zero counts included.

        Returns
        -------
        dict
            15 node labels (11 domain, 4 literature) then 29 relationship types (24 domain, 5 literature).
        """
        out = {label: self._run_count("count_nodes", label=label) for label in self.schema.labels + LITERATURE_LABELS}
        for rel in self.schema.rel_types + LITERATURE_REL_TYPES:
            out[rel] = self._run_count("count_rels", rel_type=rel)
        return out


    def get_nodes(self, ids: Sequence[str]) -> pd.DataFrame:
        """Domain or NounPhrase nodes by id; unknown ids are absent.

        Returns
        -------
        DataFrame
            Columns ``id, label, name``, one row per id found, in no particular order.
        """
        by_label: dict[str, list[str]] = defaultdict(list)
        for node_id in dict.fromkeys(str(i) for i in ids):
            label = _label_of_id(node_id, self.schema)
            if label is not None:
                by_label[label].append(node_id)
        frames = []
        for label, label_ids in by_label.items():
            frame = self._run("nodes_by_id", {"ids": label_ids}, label=label)
            frames.append(frame.assign(label=label))
        if not frames:
            return pd.DataFrame({c: pd.Series(dtype=object) for c in NODE_FRAME_COLUMNS})
        return pd.concat(frames, ignore_index=True)[list(NODE_FRAME_COLUMNS)]


    def node_ids_by_label(self) -> dict[str, list[str]]:
        """All node ids per label (11 domain labels and NounPhrase), sorted; empty lists included."""
        return {label: self._run("node_ids", label=label)["id"].tolist()
                for label in (*self.schema.labels, "NounPhrase")}


    def domain_edges(self, *, include_negated: bool = False) -> pd.DataFrame:
        """All domain (knowledge-graph) edges, e.g. to build the in-memory CSR graph for PPR.

        Parameters
        ----------
        include_negated : bool
            Keep negated assertions (KGX ``negated = true``). Default False: PPR and agent traversals must
            never spread relevance along "X does not cause Y".

        Returns
        -------
        DataFrame
            Columns ``source, target, rel_type``; ~1.36M rows for the shared Hetionet partial.
        """
        name = "rel_endpoints" if include_negated else "rel_endpoints_asserted"
        frames = [self._run(name, rel_type=rel).assign(rel_type=rel) for rel in self.schema.rel_types]
        return pd.concat(frames, ignore_index=True)[list(EDGE_FRAME_COLUMNS)]


    def get_passages(self, ids: Sequence[str]) -> pd.DataFrame:
        """Passages by id (unknown ids absent). Columns: fields of :class:`~engram_kit.records.PassageRecord`;
        ``year``, ``page_start``, ``page_end`` are nullable ``Int64``."""
        frame = self._run("passages_by_id", {"ids": list(dict.fromkeys(str(i) for i in ids))})
        return _with_nullable_ints(frame.rename(columns={"idx": "index"}))


    def articles(self, source: str | None = None) -> pd.DataFrame:
        """All articles, optionally of one source, sorted by id.

        Returns
        -------
        DataFrame
            Fields of :class:`~engram_kit.records.ArticleRecord` plus ``passages`` (int, passages stored).
        """
        if source is None:
            frame = self._run("articles_all")
        else:
            frame = self._run("articles_by_source", {"source": source})
        frame = _with_nullable_ints(frame)
        frame["passages"] = frame["passages"].astype("int64")
        return frame


    def literature_edges(self) -> pd.DataFrame:
        """Literature-layer edges used by PPR: Passage->NounPhrase MENTIONS (weight = count),
        NounPhrase->entity MAPS_TO (weight = confidence in [0, 1]), NounPhrase->hub SAME_AS (weight 1).

        Returns
        -------
        DataFrame
            Columns ``source, target, rel_type, weight`` (weight float64).
        """
        frames = [
            self._run("passage_mention_edges").assign(rel_type="MENTIONS"),
            self._run("maps_to_edges").assign(rel_type="MAPS_TO"),
            self._run("same_as_edges").assign(rel_type="SAME_AS"),
        ]
        frame = pd.concat(frames, ignore_index=True)[list(LITERATURE_EDGE_COLUMNS)]
        frame["weight"] = frame["weight"].astype("float64")
        return frame


    def passage_mentions(self, passage_ids: Sequence[str]) -> pd.DataFrame:
        """Entities each passage mentions, one row per (passage, NounPhrase, linked entity).

        Returns
        -------
        DataFrame
            Columns ``passage_id, nounphrase_id, mention, entity_id, entity_name, entity_label,
            confidence, method``; for an unlinked NounPhrase the entity columns and ``method`` are ``""``
            and ``confidence`` is NaN.
        """
        frame = self._run("passage_mentions", {"ids": list(dict.fromkeys(str(i) for i in passage_ids))})
        for column in ("entity_id", "entity_name", "entity_label", "method"):
            frame[column] = frame[column].astype(object).where(frame[column].notna(), "")
        frame["confidence"] = frame["confidence"].astype("float64")
        return frame[list(PASSAGE_MENTION_COLUMNS)]


    def edges_among(self, node_ids: Sequence[str], *, include_negated: bool = False) -> pd.DataFrame:
        """Domain edges (every relationship type of the schema) whose both endpoints are in ``node_ids``.

        One query over the union of the rel types with an ``IN $ids`` filter on both ends; measured on the
        full Hetionet partial: 15 ms for 40 ids, 65-100 ms for 200 ids including 40 hub nodes (per-metaedge
        queries were 4x slower).

        Parameters
        ----------
        node_ids : node ids (``"Gene::7157"``, ``"Gene::HGNC:10848"``); duplicates ignored.
        include_negated : keep negated assertions (KGX ``negated = true``). Default False: subgraphs, evidence
            paths and agent traversals must never show "X does not cause Y" as an edge between X and Y.
            Negated edges are few, so they are dropped here rather than by a second statement.

        Returns
        -------
        DataFrame
            Columns ``source, target, rel_type`` (first, as callers index them), then every rel property of
            :attr:`schema` (Hetionet: ``sources, license, unbiased, pubmed_ids``; KGX: ``edge_id, predicate,
            negated`` (bool, missing = False), ``category, primary_knowledge_source, ...``). Edges as stored
            (subject -> object; Hetionet stores an undirected edge once, in its metaedge's direction).
        """
        columns = [*EDGE_FRAME_COLUMNS, *(p for p in self.schema.rel_properties if p not in EDGE_FRAME_COLUMNS)]
        ids = list(dict.fromkeys(str(i) for i in node_ids))
        if len(ids) < 2:
            return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
        frame = self._run("edges_among", {"ids": ids})[columns]
        negation = self.schema.negation_property
        if negation:
            flags = frame[negation].astype(object).where(frame[negation].notna(), False).astype(bool)
            frame[negation] = flags
            if not include_negated:
                frame = frame[~flags]
        return frame.reset_index(drop=True)


    # --- document repository ----------------------------------------------------------------------------
    def article_passages(self, article_id: str) -> pd.DataFrame:
        """Passages of one article in passage order; columns as :meth:`get_passages`."""
        frame = self._run("article_passages", {"article_id": article_id})
        return _with_nullable_ints(frame.rename(columns={"idx": "index"}))


    def article_sections(self, article_id: str) -> pd.DataFrame:
        """Sections of one article in order: ``id, article_id, title, index, summary``."""
        return self._run("article_sections", {"article_id": article_id}).rename(columns={"idx": "index"})


    def article_mentions(self, article_ids: Sequence[str]) -> pd.DataFrame:
        """MENTIONS edges of articles from every level: ``article_id, level, source_id, nounphrase_id, name,
        entity_type, count`` (``level`` is Passage, Section or Article)."""
        params = {"article_ids": list(dict.fromkeys(str(i) for i in article_ids))}
        frames = [self._run("article_mentions_from", params, label=label).assign(level=label)
                  for label in ("Passage", "Section")]
        frames.append(self._run("article_mentions_from_articles", params).assign(level="Article"))
        columns = ["article_id", "level", "source_id", "nounphrase_id", "name", "entity_type", "count"]
        return pd.concat(frames, ignore_index=True)[columns]


    def nounphrase_links(self, nounphrase_ids: Sequence[str]) -> pd.DataFrame:
        """MAPS_TO edges of NounPhrases: ``nounphrase_id, name, entity_type, entity_id, entity_name, confidence,
        method``."""
        frame = self._run("nounphrase_links", {"ids": list(dict.fromkeys(str(i) for i in nounphrase_ids))})
        frame["confidence"] = frame["confidence"].astype("float64")
        return frame


    def nounphrases_linked_to(self, entity_ids: Sequence[str]) -> list[str]:
        """Ids of NounPhrases with a MAPS_TO edge to any of ``entity_ids``, sorted."""
        ids = list(dict.fromkeys(str(i) for i in entity_ids))
        return sorted(self._run("nounphrases_linked_to", {"ids": ids})["id"]) if ids else []


    def nounphrase_articles(self, nounphrase_ids: Sequence[str]) -> pd.DataFrame:
        """Distinct ``nounphrase_id, article_id`` pairs over Passage, Section and Article mentions."""
        params = {"ids": list(dict.fromkeys(str(i) for i in nounphrase_ids))}
        frames = [self._run("nounphrase_articles_from", params, label=label) for label in ("Passage", "Section")]
        frames.append(self._run("nounphrase_articles_from_articles", params))
        return pd.concat(frames, ignore_index=True).drop_duplicates(ignore_index=True)


    def same_as_edges_from(self, nounphrase_ids: Sequence[str]) -> pd.DataFrame:
        """Outgoing SAME_AS edges of NounPhrases: ``nounphrase_id, hub_id``."""
        return self._run("same_as_from", {"ids": list(dict.fromkeys(str(i) for i in nounphrase_ids))})


    def replace_same_as(self, nounphrase_ids: Sequence[str], edges: Sequence[SameAsEdge]) -> None:
        """Delete the outgoing SAME_AS edges of ``nounphrase_ids`` and merge ``edges``, in one transaction.

        Raises
        ------
        ReadOnlyError
            On a read-only store.
        IngestionError
            If an edge names a NounPhrase that is not stored (rolled back, nothing changed).
        """
        self._require_writable("replace_same_as")
        rows = [{"nounphrase_id": e.nounphrase_id, "hub_id": e.hub_id} for e in dict.fromkeys(edges)]
        try:
            with self._transaction():
                self._run("delete_same_as_from", {"ids": list(dict.fromkeys(str(i) for i in nounphrase_ids))})
                self._expect(self._run_rows("merge_same_as", rows), rows, "SAME_AS (are both NounPhrases stored?)")
        except EngramError as exc:
            raise IngestionError(f"Could not update the SAME_AS alias hubs, nothing changed: {exc}") from exc


    def delete_orphan_nounphrases(self, nounphrase_ids: Sequence[str]) -> int:
        """Delete those of ``nounphrase_ids`` that nothing mentions and no alias points to; return how many."""
        self._require_writable("delete_orphan_nounphrases")
        ids = list(dict.fromkeys(str(i) for i in nounphrase_ids))
        before = len(self._run("nodes_by_id", {"ids": ids}, label="NounPhrase")) if ids else 0
        if ids:
            with self._transaction():
                self._delete_orphan_nounphrases(ids)
        return before - (len(self._run("nodes_by_id", {"ids": ids}, label="NounPhrase")) if ids else 0)


# --- batch preparation -------------------------------------------------------------------------------
def _chunks(rows: list[dict[str, Any]], size: int = UNWIND_CHUNK_ROWS) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(rows), size):
        yield rows[start:start + size]


def _label_of_id(node_id: str, schema: GraphSchema) -> str | None:
    """Graph label of a node id: ``"Gene::7157"`` -> ``"Gene"``, ``"Gene::HGNC:10848"`` -> ``"Gene"`` (KGX),
    ``"np:..."`` -> ``"NounPhrase"``; None when the prefix is no kind or label of ``schema``."""
    if node_id.startswith(NOUNPHRASE_PREFIX):
        return "NounPhrase"
    kind, sep, _ = node_id.partition("::")
    if not sep:
        return None
    return schema.kinds.get(kind) or (kind if kind in schema.labels else None)


def _text_column(values: pd.Series) -> pd.Series:
    """Strings with missing values as None (LadybugDB NULL), never the text ``"nan"``."""
    return values.astype(object).where(values.notna(), None).map(lambda v: v if v is None else str(v))


def _preview(ids: Sequence[str], limit: int = 5) -> str:
    """``'a', 'b' and 3 more`` for error messages; ``none`` when empty."""
    if not ids:
        return "none"
    shown = ", ".join(repr(i) for i in list(ids)[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def _with_nullable_ints(frame: pd.DataFrame) -> pd.DataFrame:
    for column in _NULLABLE_INT_COLUMNS:
        if column in frame.columns:
            frame[column] = frame[column].astype("Int64")
    return frame


def _check_unique(ids: list[str], what: str) -> None:
    seen: set[str] = set()
    duplicated = [i for i in ids if i in seen or seen.add(i)]  # type: ignore[func-returns-value]
    if duplicated:
        raise DataError(f"the batch has duplicated {what} ids: {_preview(sorted(set(duplicated)))}.")


def _node_rows(batch: LiteratureBatch) -> dict[str, list[dict[str, Any]]]:
    """Parameter rows of the article, section, passage and NounPhrase statements (``index`` -> ``idx``)."""
    _check_unique([a.id for a in batch.articles], "article")
    _check_unique([s.id for s in batch.sections], "section")
    _check_unique([p.id for p in batch.passages], "passage")
    bad_status = [a.id for a in batch.articles if a.status not in STATUSES]
    if bad_status:
        raise DataError(f"articles {_preview(bad_status)} have a status outside {', '.join(STATUSES)}.")
    articles = [{prop: getattr(a, prop) for prop in LITERATURE_NODE_PROPERTIES["Article"]} for a in batch.articles]
    sections = [{"id": s.id, "article_id": s.article_id, "title": s.title, "idx": s.index, "summary": s.summary}
                for s in batch.sections]
    passage_props = [prop for prop in LITERATURE_NODE_PROPERTIES["Passage"] if prop != "idx"]
    passages = [{**{prop: getattr(p, prop) for prop in passage_props}, "idx": p.index} for p in batch.passages]
    nounphrases = {n.id: {"id": n.id, "name": n.name, "normalized": n.normalized, "entity_type": n.entity_type}
                   for n in batch.nounphrases}
    return {"articles": articles, "sections": sections, "passages": passages,
            "nounphrases": list(nounphrases.values())}


def _mention_rows(batch: LiteratureBatch) -> dict[str, list[dict[str, Any]]]:
    """MENTIONS rows per source label; repeated (source, NounPhrase) pairs are summed into one count."""
    counts: dict[tuple[str, str, str], int] = defaultdict(int)
    for m in batch.mentions:
        if m.source_label not in MENTION_SOURCE_LABELS:
            raise DataError(f"mention of {m.nounphrase_id!r} has source_label {m.source_label!r}; use one of "
                            f"{', '.join(MENTION_SOURCE_LABELS)}.")
        if m.count < 1:
            raise DataError(f"mention {m.source_id!r} -> {m.nounphrase_id!r} has count {m.count}; must be >= 1.")
        counts[(m.source_label, m.source_id, m.nounphrase_id)] += m.count
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (label, source_id, nounphrase_id), count in counts.items():
        rows[label].append({"source_id": source_id, "nounphrase_id": nounphrase_id, "count": count})
    return dict(rows)


def _maps_to_rows(batch: LiteratureBatch, schema: GraphSchema) -> dict[str, list[dict[str, Any]]]:
    """MAPS_TO rows per entity label; for a repeated (NounPhrase, entity) pair the last edge wins."""
    unique: dict[tuple[str, str], dict[str, Any]] = {}
    for e in batch.maps_to:
        if not 0.0 <= e.confidence <= 1.0:
            raise DataError(f"MAPS_TO {e.nounphrase_id!r} -> {e.entity_id!r} has confidence {e.confidence}; "
                            f"must be in [0, 1].")
        unique[(e.nounphrase_id, e.entity_id)] = {"nounphrase_id": e.nounphrase_id, "entity_id": e.entity_id,
                                                  "confidence": float(e.confidence), "method": e.method}
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in unique.values():
        label = _label_of_id(row["entity_id"], schema)
        if label is None or label == "NounPhrase":
            raise DataError(f"MAPS_TO target {row['entity_id']!r} is not a knowledge-graph entity id "
                            f"('Kind::identifier', e.g. 'Gene::7157').")
        rows[label].append(row)
    return dict(rows)


def _batch_rows(batch: LiteratureBatch, schema: GraphSchema) -> dict[str, Any]:
    """Turn a batch into parameter rows per statement, validating ids, statuses, labels and ranges.

    Returns
    -------
    dict
        ``articles, sections, passages, nounphrases, same_as``: lists of row dicts; ``mentions`` and
        ``maps_to``: dicts label -> list of row dicts (one statement per label).

    Raises
    ------
    DataError
        On duplicated ids, an unknown status or mention source label, a count < 1, a confidence outside
        [0, 1], or a MAPS_TO target that is not a knowledge-graph id.
    """
    same_as = [{"nounphrase_id": s.nounphrase_id, "hub_id": s.hub_id} for s in dict.fromkeys(batch.same_as)]
    return {**_node_rows(batch), "mentions": _mention_rows(batch), "maps_to": _maps_to_rows(batch, schema),
            "same_as": same_as}
