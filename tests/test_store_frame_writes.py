"""The LadybugDB literature write path (``LOAD FROM`` Arrow tables, CREATE where an edge cannot exist yet,
unchanged MAPS_TO edges left alone) writes exactly what the backend-neutral ``UNWIND`` path of
:class:`~engram_kit.store.cypher_store.CypherStore` writes, keeps replace-on-rewrite and rolls a failing batch
back. Runs on the real Hetionet slice of ``test_store.py`` (its fixtures are reused).
"""

# ruff: noqa: F811  (test_store.py's fixtures are imported by name; pytest passes them as arguments)
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from engram_kit.errors import IngestionError, QueryError
from engram_kit.kg.schema import HETIONET_SCHEMA
from engram_kit.records import LiteratureBatch, MapsToEdge, MentionEdge, PassageRecord, SameAsEdge, SectionRecord
from engram_kit.store.cypher_store import CypherStore
from engram_kit.store.ladybug import LadybugStore
from tests.test_store import (  # noqa: F401  (fixtures used by name)
    _article,
    _copy_db,
    _genes,
    _nounphrase,
    db_path,
    kg_frames,
    loaded_db,
    store,
    two_articles,
)


class UnwindStore(LadybugStore):
    """The LadybugDB store with the base's write path: ``UNWIND $rows`` MERGE/CREATE and the unconditional
    replace-on-rewrite lookups (what every store did before the frame path)."""

    _run_rows = CypherStore._run_rows
    _insert_batch_rows = CypherStore._insert_batch_rows
    _any_article_stored = CypherStore._any_article_stored


_DUMPS = {
    "articles": "MATCH (a:Article) RETURN a.id, a.source, a.title, a.pmid, a.year, a.doi, a.authors, a.status, "
                "a.error, a.content_hash ORDER BY a.id",
    "sections": "MATCH (a:Article)-[:HAS_SECTION]->(s:Section) RETURN a.id, s.id, s.article_id, s.title, s.idx, "
                "s.summary ORDER BY s.id",
    "passages": "MATCH (s:Section)-[:CONTAINS]->(p:Passage) RETURN s.id, p.id, p.article_id, p.text, p.idx, p.year, "
                "p.page_start, p.char_start, p.char_end ORDER BY p.id",
    "nounphrases": "MATCH (n:NounPhrase) RETURN n.id, n.name, n.normalized, n.entity_type ORDER BY n.id",
    "mentions": "MATCH (x)-[r:MENTIONS]->(n:NounPhrase) RETURN x.id AS s, n.id AS t, r.count ORDER BY s, t",
    "maps_to": "MATCH (n:NounPhrase)-[r:MAPS_TO]->(e) RETURN n.id AS s, e.id AS t, r.confidence, r.method "
               "ORDER BY s, t",
    "same_as": "MATCH (n:NounPhrase)-[:SAME_AS]->(h:NounPhrase) RETURN n.id AS s, h.id AS t ORDER BY s, t",
}


def _dump(store: LadybugStore) -> dict[str, list[tuple]]:
    """Every literature node and edge with its properties, sorted (NaN/None as None)."""
    out = {}
    for name, cypher in _DUMPS.items():
        frame = store.query(cypher).astype(object)
        out[name] = [tuple(None if pd.isna(v) else v for v in row) for row in frame.itertuples(index=False)]
    return out


def _scenario(kg_frames, a: LiteratureBatch, b: LiteratureBatch) -> list[LiteratureBatch]:
    """Batches exercising every branch of the frame path, in order (see the test)."""
    (g1, _), (g2, _), (g3, _), (g4, _) = _genes(kg_frames, 4)
    shared, only_a, unlinked = a.nounphrases
    fresh = _nounphrase("freshly coined", "gene")
    # a again, shorter: passage #p1 and only_a (its private NounPhrase) go; shared's MAPS_TO to g1 changes
    # confidence (stored pair, other values), shared gains g2 (stored NounPhrase, new pair), fresh -> g3 is new.
    rewrite = _article("pubmed:101", 1, [(0, shared.id), (0, fresh.id), (0, unlinked.id)])
    rewrite.nounphrases = [shared, fresh, unlinked]
    rewrite.maps_to = [MapsToEdge(shared.id, g1, 0.6, "fuzzy"), MapsToEdge(shared.id, g2, 0.9, "exact"),
                       MapsToEdge(fresh.id, g3, 0.75, "synonym")]
    # No article: a section and passage under the stored pubmed:202, a mention from a stored passage (MERGE on
    # a stored source), MAPS_TO of a NounPhrase the batch does not carry, a new SAME_AS.
    extra = LiteratureBatch(
        sections=[SectionRecord("pubmed:202#s1", "pubmed:202", "Methods", 1)],
        passages=[PassageRecord("pubmed:202#p9", "pubmed:202", "pubmed:202#s1", "Extra passage.", "pubmed", 9,
                                pmid="202", char_start=0, char_end=14)],
        nounphrases=[_nounphrase("late arrival", "gene")],
        mentions=[MentionEdge("pubmed:202#p0", "np:gene:late arrival", 2),
                  MentionEdge("pubmed:202#p9", shared.id, 1), MentionEdge("pubmed:202#p9", shared.id, 2)],
        maps_to=[MapsToEdge(b.nounphrases[1].id, g4, 0.5, "fuzzy"), MapsToEdge("np:gene:late arrival", g4, 0.8, "exact")],
        same_as=[SameAsEdge("np:gene:late arrival", shared.id)],
    )
    return [a, b, rewrite, extra, rewrite]


def test_frame_path_writes_what_the_unwind_path_writes(db_path, kg_frames, two_articles, tmp_path):
    a, b = two_articles
    twin = _copy_db(db_path, tmp_path / "twin")
    batches = _scenario(kg_frames, a, b)
    with LadybugStore(db_path, schema=HETIONET_SCHEMA) as frames, UnwindStore(twin) as unwind:
        for step, batch in enumerate(batches):
            frames.write_literature(batch)
            unwind.write_literature(batch)
            assert _dump(frames) == _dump(unwind), f"batch {step}"
            if step == 2:  # the rewrite replaced pubmed:101 and its edges
                dump = _dump(frames)
                assert [p[1] for p in dump["passages"] if p[2] == "pubmed:101"] == ["pubmed:101#p0"]
                assert not [m for m in dump["mentions"] if m[0] == "pubmed:101#p1"]
                assert a.nounphrases[1].id not in {n[0] for n in dump["nounphrases"]}  # orphan removed
                links = {(s, t): (c, m) for s, t, c, m in dump["maps_to"]}
                (g1, _), (g2, _) = _genes(kg_frames, 2)
                assert links[(a.nounphrases[0].id, g1)] == (0.6, "fuzzy")
                assert links[(a.nounphrases[0].id, g2)] == (0.9, "exact")
        assert frames.counts()["Passage"] == 1 + 3 + 1


def test_failing_batch_of_new_articles_leaves_nothing(store, two_articles, kg_frames, monkeypatch):
    a, b = two_articles
    store.write_literature(a)
    before = _dump(store)
    (_, _), (_, _), (g3, _) = _genes(kg_frames, 3)
    batch = _article("pubmed:303", 2, [(0, a.nounphrases[0].id), (1, "np:gene:brand new")])
    batch.nounphrases = [a.nounphrases[0], _nounphrase("brand new")]
    batch.maps_to = [MapsToEdge("np:gene:brand new", g3, 0.7, "exact"),
                     MapsToEdge("np:gene:brand new", "Gene::999999999", 0.9, "exact")]
    with pytest.raises(IngestionError, match=r"pubmed:303.*nothing of it is stored.*Gene::999999999"):
        store.write_literature(batch)
    assert _dump(store) == before
    # a failure in the last statement of the path (after nodes and MENTIONS were written) leaves nothing either
    batch.maps_to = batch.maps_to[:1]
    original = LadybugStore._run_frame

    def failing(self, name, columns, rows, **identifiers):
        if name == "load_create_maps_to":
            raise QueryError("injected failure")
        return original(self, name, columns, rows, **identifiers)

    monkeypatch.setattr(LadybugStore, "_run_frame", failing)
    with pytest.raises(IngestionError, match="injected failure"):
        store.write_literature(batch)
    with pytest.raises(IngestionError, match="injected failure"):  # a rewrite of a keeps its previous version
        store.write_literature(_scenario(kg_frames, a, b)[2])
    monkeypatch.undo()
    assert _dump(store) == before
    store.write_literature(batch)  # usable after the rollbacks
    assert store.articles()["id"].tolist() == ["pubmed:101", "pubmed:303"]


def test_frame_statements_do_not_pile_up_prepared_statements(store, kg_frames):
    """ladybug caches a prepared statement per DataFrame/Arrow parameter object for the connection's life
    (~13 MiB each for a COPY); the store prepares those itself, so the cache stays the same size."""
    genes = _genes(kg_frames, 8)
    sizes = []
    for i, (gene, name) in enumerate(genes):
        np_ = _nounphrase(name)
        batch = _article(f"pubmed:{900 + i}", 2, [(0, np_.id), (1, np_.id)])
        batch.nounphrases = [np_]
        batch.maps_to = [MapsToEdge(np_.id, gene, 0.5 + i / 100, "exact")]
        store.write_literature(batch)
        sizes.append(len(store._conn._pybind_implicit_prepared_cache))
    assert sizes[-1] == sizes[1], sizes
    assert store.counts()["Article"] == 8


def test_bulk_load_frees_its_copy_statements(tmp_path, kg_frames):
    nodes, edges = kg_frames
    with LadybugStore(Path(tmp_path) / "graph.lbug", schema=HETIONET_SCHEMA) as fresh:
        fresh.load_knowledge_graph(nodes, edges, progress=False)
        assert not any(key[1] and key[1][0][1][0] == "pointer"
                       for key in fresh._conn._pybind_implicit_prepared_cache)
