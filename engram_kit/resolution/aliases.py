"""Alias hubs (SAME_AS) and cross-document confidence of MAPS_TO links.

Several NounPhrases often denote one graph entity ("Alzheimer's disease", "Alzheimer disease", "AD" as
a long form...). They are connected in a **hub pattern**: the most trusted NounPhrase of the group is the
hub and every other member gets one ``SAME_AS`` edge to it, so a group of ``n`` aliases costs ``n - 1``
edges instead of the ``n (n - 1) / 2`` of a clique, and any two aliases are two hops apart.

Grouping: each NounPhrase belongs to the group of its *best* entity (highest aggregated confidence, then
the resolver's confidence, then entity id), so it has at most one outgoing SAME_AS edge and hubs have
none. Only NounPhrases that some document still mentions take part; a hub whose last mention was deleted
loses the role and is removed (see :meth:`AliasHubBuilder.update`).

Cross-document confidence
-------------------------
``MAPS_TO.confidence`` stores the resolver's confidence ``c`` of the surface form (per mention, the same in
every document). The evidence that the link is right grows with the number ``n`` of documents that use
the NounPhrase; :func:`aggregate_confidence` combines them with a **discounted noisy-OR** (Pearl,
*Probabilistic Reasoning in Intelligent Systems*, 1988, ch. 4.3)::

    aggregated(c, n) = 1 - (1 - c) * (1 - w * c) ** (n - 1)        for n >= 1; c for n = 0

The first document counts fully; each further document is a weaker, discounted witness (``w`` =
``Settings.repeat_evidence_weight`` = 0.5) because documents reuse the same wording and are not independent.
The result is in ``[c, 1)``, equals ``c`` for one document and grows with ``n``: for ``c = 0.8``,
n = 1, 2, 3 give 0.80, 0.88, 0.93; for ``c = 0.6``, 0.60, 0.72, 0.80. The stored ``MAPS_TO.confidence``
is left as the resolver's value (PubMed re-ingestion rewrites it), the aggregated value is computed on
read by :func:`maps_to_evidence`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from engram_kit.records import SameAsEdge
from engram_kit.settings import Settings
from engram_kit.store.base import GraphStore

log = logging.getLogger(__name__)

#: Columns of :func:`maps_to_evidence`.
EVIDENCE_COLUMNS: tuple[str, ...] = ("nounphrase_id", "name", "entity_type", "entity_id", "entity_name",
                                     "confidence", "method", "documents", "aggregated")


def aggregate_confidence(confidence: float | np.ndarray, documents: int | np.ndarray, *,
                         weight: float = Settings.repeat_evidence_weight) -> float | np.ndarray:
    """Discounted noisy-OR of one link's confidence over the documents that use it.

    Parameters
    ----------
    confidence : resolver confidence ``c`` in [0, 1] (scalar or array).
    documents : number ``n >= 0`` of documents using the NounPhrase (broadcast with ``confidence``).
    weight : discount ``w`` in [0, 1] of each document after the first.

    Returns
    -------
    float or ndarray
        ``1 - (1 - c) (1 - w c)^(n - 1)`` for ``n >= 1``, ``c`` for ``n = 0``; in ``[c, 1]``.

    Examples
    --------
    >>> round(aggregate_confidence(0.8, 3), 3)
    0.928
    """
    c = np.clip(np.asarray(confidence, dtype=np.float64), 0.0, 1.0)
    n = np.maximum(np.asarray(documents, dtype=np.float64), 1.0)
    out = 1.0 - (1.0 - c) * (1.0 - weight * c) ** (n - 1.0)
    return float(out) if out.ndim == 0 else out


def maps_to_evidence(store: GraphStore, nounphrase_ids: Iterable[str]) -> pd.DataFrame:
    """MAPS_TO links of NounPhrases with their document counts and aggregated confidence.

    Returns
    -------
    DataFrame
        Columns :data:`EVIDENCE_COLUMNS`; one row per (NounPhrase, entity); ``documents`` = distinct
        articles mentioning the NounPhrase at any level, ``aggregated`` = :func:`aggregate_confidence`.
    """
    ids = list(dict.fromkeys(nounphrase_ids))
    if not ids:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in EVIDENCE_COLUMNS})
    links = store.nounphrase_links(ids)
    per_np = store.nounphrase_articles(ids).groupby("nounphrase_id")["article_id"].nunique()
    links["documents"] = links["nounphrase_id"].map(per_np).fillna(0).astype("int64")
    links["aggregated"] = aggregate_confidence(links["confidence"].to_numpy(), links["documents"].to_numpy()) \
        if len(links) else np.zeros(0)
    return links[list(EVIDENCE_COLUMNS)]


def plan_hubs(evidence: pd.DataFrame, entity_ids: Iterable[str] | None = None) -> tuple[pd.DataFrame, list[SameAsEdge]]:
    """Choose each group's hub and its SAME_AS edges from :func:`maps_to_evidence` rows.

    Parameters
    ----------
    evidence : rows of :func:`maps_to_evidence`.
    entity_ids : build groups only for these entities (NounPhrases whose best entity is another one are
        left out); None for all.

    Returns
    -------
    (groups, edges)
        ``groups``: one row per member NounPhrase, columns ``entity_id, nounphrase_id, name, aggregated,
        documents, hub_id, is_hub``; ``edges``: member -> hub for every non-hub member (n - 1 per group).
    """
    columns = ["entity_id", "nounphrase_id", "name", "aggregated", "documents", "hub_id", "is_hub"]
    live = evidence[evidence["documents"] > 0]
    if live.empty:
        return pd.DataFrame(columns=columns), []
    ranked = live.sort_values(["nounphrase_id", "aggregated", "confidence", "entity_id"],
                              ascending=[True, False, False, True])
    best = ranked.drop_duplicates("nounphrase_id")  # each NounPhrase in the group of its best entity
    if entity_ids is not None:
        best = best[best["entity_id"].isin(set(entity_ids))]
    # Hub: highest aggregated confidence, then most documents, then the shorter (canonical-looking) name.
    best = best.assign(name_length=best["name"].str.len()).sort_values(
        ["entity_id", "aggregated", "documents", "name_length", "nounphrase_id"],
        ascending=[True, False, False, True, True])
    best["hub_id"] = best.groupby("entity_id")["nounphrase_id"].transform("first")
    best["is_hub"] = best["hub_id"] == best["nounphrase_id"]
    edges = [SameAsEdge(m, h) for m, h in zip(best["nounphrase_id"], best["hub_id"]) if m != h]
    return best[columns].reset_index(drop=True), edges


@dataclass
class HubReport:
    """What an alias-hub update did. ``groups``: rows of :func:`plan_hubs`; seconds of wall time."""

    entities: int = 0
    nounphrases: int = 0
    same_as_edges: int = 0
    removed_nounphrases: int = 0
    seconds: float = 0.0
    groups: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)

    def to_dict(self) -> dict[str, float | int]:
        return {k: v for k, v in self.__dict__.items() if k != "groups"}

    def to_frame(self) -> pd.DataFrame:
        """The member rows of the groups with more than one NounPhrase (the ones with SAME_AS edges)."""
        if self.groups.empty:
            return self.groups
        sizes = self.groups.groupby("entity_id")["nounphrase_id"].transform("size")
        return self.groups[sizes > 1].reset_index(drop=True)


class AliasHubBuilder:
    """Keeps the SAME_AS hub pattern of a store up to date for the entities a change touched.

    Parameters
    ----------
    store : a writable graph store.
    """

    def __init__(self, store: GraphStore) -> None:
        self.store = store

    def update(self, entity_ids: Iterable[str], *, extra_nounphrases: Iterable[str] = ()) -> HubReport:
        """Rebuild the groups of ``entity_ids``: re-elect hubs, replace the members' SAME_AS edges, and
        delete NounPhrases of these groups (or ``extra_nounphrases``) that no document mentions any more.

        Work is proportional to the groups touched (one document's entities), never to the whole store.
        """
        started = time.perf_counter()
        entities = sorted(set(entity_ids))
        members = self.store.nounphrases_linked_to(entities) if entities else []
        evidence = maps_to_evidence(self.store, members)
        groups, edges = plan_hubs(evidence, entities)
        grouped = set(groups["nounphrase_id"]) if not groups.empty else set()
        stale = [n for n in members if n not in grouped]  # unmentioned, or grouped under another entity
        unmentioned = set(evidence.loc[evidence["documents"] == 0, "nounphrase_id"]) | set(extra_nounphrases)
        self.store.replace_same_as(sorted(grouped | (set(stale) & unmentioned)), edges)
        removed = self.store.delete_orphan_nounphrases(sorted(unmentioned)) if unmentioned else 0
        report = HubReport(len(entities), len(grouped), len(edges), removed, time.perf_counter() - started, groups)
        log.info("alias hubs: %d entities, %d NounPhrases, %d SAME_AS edges, %d removed in %.2f s", report.entities,
                 report.nounphrases, report.same_as_edges, removed, report.seconds)
        return report
