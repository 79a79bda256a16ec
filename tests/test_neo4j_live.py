"""Live Neo4j + GDS suite: the full scenario and the parity check against the embedded store.

Runs against ``NEO4J_URI`` when set, else against the server of ``scripts/neo4j.sh`` (Neo4j 5.26 + OpenGDS 2.13
from Maven Central; CI starts it in scripts/test.sh, and this module starts one itself when java and mvn exist).
The database must be **empty and disposable**: it is wiped at the start and the end.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
#: State file written by ``scripts/neo4j.sh start`` (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, startup time).
SERVER_ENV = Path(os.environ.get("NEO4J_STATE_DIR", ROOT / ".neo4j")) / "neo4j.env"


def _read_env_file(path: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    return {key.strip(): value.strip() for key, value in pairs}


@pytest.fixture(scope="module")
def neo4j_server():
    """Connection settings of a live Neo4j + GDS server, in this order: ``NEO4J_URI`` (+ user, password) from the
    environment; the server ``scripts/neo4j.sh start`` left running (CI starts it in scripts/test.sh); else one
    started here with ``scripts/neo4j.sh`` and stopped after the module. Skips, with the reason, only when there
    is no server and no java/mvn to start one (a user's laptop)."""
    if os.environ.get("NEO4J_URI"):
        yield {key: value for key, value in os.environ.items() if key.startswith("NEO4J_")}
        return
    if SERVER_ENV.is_file():
        yield _read_env_file(SERVER_ENV)
        return
    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    if missing and os.environ.get("CI"):
        # CI must run the live suite (issue 17): scripts/test.sh installs a JDK and Maven where it can
        pytest.fail(f"CI=true but {' and '.join(missing)} not installed: the live Neo4j suite cannot run; install a "
                    "JDK 17+ and Maven (scripts/test.sh does with apt-get as root)")
    if missing:
        pytest.skip(f"live Neo4j suite: no NEO4J_URI, no running scripts/neo4j.sh server, and {' and '.join(missing)} "
                    f"not installed to start one (needs a JDK 17+ and Maven; see docs/scaling-out.md)")
    script = str(ROOT / "scripts" / "neo4j.sh")
    subprocess.run(["bash", script, "start"], check=True)
    try:
        yield _read_env_file(SERVER_ENV)
    finally:
        subprocess.run(["bash", script, "stop"], check=False)


#: Parity thresholds: rank correlation of the top-20 passages and of the top PPR nodes, embedded vs Neo4j.
MIN_SPEARMAN = 0.9
MIN_KENDALL = 0.8


def _wipe(config) -> None:
    from engram_kit.kg.schema import HETIONET_SCHEMA
    from engram_kit.store.neo4j import Neo4jStore

    # a store names its graph's schema (none is assumed); the tests' graph is the Hetionet sample
    store = Neo4jStore(config, schema=HETIONET_SCHEMA, create_schema=False)
    try:
        store.query("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS")
    finally:
        store.close()


@pytest.fixture(scope="module")
def neo4j_config(neo4j_server):
    from engram_kit.store.neo4j import Neo4jConfig

    config = Neo4jConfig(uri=neo4j_server["NEO4J_URI"], user=neo4j_server.get("NEO4J_USER", "neo4j"),
                         password=neo4j_server.get("NEO4J_PASSWORD", ""),
                         database=neo4j_server.get("NEO4J_DATABASE", "neo4j"), projection_name="engram_live_test")
    _wipe(config)
    yield config
    _wipe(config)


@pytest.fixture(scope="module")
def migrated(workspace, neo4j_config, tmp_path_factory):
    """The session workspace (bundled sample + 430 abstracts) copied into Neo4j with ``migrate_to_neo4j``."""
    ws = workspace.migrate_to_neo4j(tmp_path_factory.mktemp("neo4j") / "ws", neo4j_config)
    ws.settings.progress = False
    yield ws
    ws.close()


def _rank_correlations(a: list[str], b: list[str]) -> tuple[float, float]:
    from scipy.stats import kendalltau, spearmanr

    union = list(dict.fromkeys([*a, *b]))
    ra = [a.index(x) if x in a else len(a) for x in union]
    rb = [b.index(x) if x in b else len(b) for x in union]
    return float(spearmanr(ra, rb).statistic), float(kendalltau(ra, rb).statistic)


def test_counts_survive_the_migration(workspace, migrated, neo4j_config):
    # the manifest records the auth *kind* ("auth": "password"), never the secret itself (first live run: the old
    # assertion looked for the word "password" and failed on that key)
    assert migrated.manifest["backend"] == "neo4j" and neo4j_config.password not in str(migrated.manifest)
    assert migrated.store.counts() == workspace.store.counts()


def test_parity_of_passages_and_ppr(workspace, migrated, record_property):
    from engram_kit.cli import DEMO_QUESTION

    embedded = workspace.retrieve(DEMO_QUESTION, top_k=20)
    on_neo4j = migrated.retrieve(DEMO_QUESTION, top_k=20)
    passages_a = [p.passage_id for p in embedded.passages]
    passages_b = [p.passage_id for p in on_neo4j.passages]
    nodes_a = embedded.subgraph_nodes["id"].tolist()[:40]
    nodes_b = on_neo4j.subgraph_nodes["id"].tolist()[:40]
    rho_p, tau_p = _rank_correlations(passages_a, passages_b)
    rho_n, tau_n = _rank_correlations(nodes_a, nodes_b)
    for key, value in {"passages_spearman": rho_p, "passages_kendall": tau_p, "ppr_spearman": rho_n,
                       "ppr_kendall": tau_n}.items():
        record_property(key, round(value, 4))
    print(f"\nparity top-20 passages: Spearman {rho_p:.3f}, Kendall {tau_p:.3f}; "
          f"top-40 PPR nodes: Spearman {rho_n:.3f}, Kendall {tau_n:.3f}")
    assert rho_p >= MIN_SPEARMAN and tau_p >= MIN_KENDALL
    assert rho_n >= MIN_SPEARMAN and tau_n >= MIN_KENDALL
    assert on_neo4j.hub_mass == pytest.approx(embedded.hub_mass, abs=0.02)


def test_gds_scores_are_our_fixed_point(workspace, migrated):
    index = migrated.graph_index()
    graph = index.graph
    seeds = {graph.index["Disease::DOID:10652"]: 1.0}
    from engram_kit.retrieval.ppr import personalized_pagerank

    result = migrated.store.ppr_engine().run(index, seeds, migrated.settings)
    expected = personalized_pagerank(graph, seeds, damping=migrated.settings.damping, tol=1e-9).scores
    assert result.residual < 1e-4
    assert np.abs(result.scores - expected).sum() < 1e-3


def test_full_scenario(migrated, sample_records, tmp_path):
    from engram_kit.cli import DEMO_QUESTION
    from engram_kit.errors import QueryGuardError

    store = migrated.store
    # ingest (a re-ingest of a few records plus a PDF if the PDF pipeline exists), then ask
    report = migrated.ingest(sample_records[:5])
    assert report.failed == 0 if hasattr(report, "failed") else True
    if hasattr(migrated, "ingest_pdf"):
        from pathlib import Path

        pdfs = sorted(Path(__file__).parent.joinpath("fixtures").rglob("*.pdf"))
        if pdfs:
            migrated.ingest_pdf(pdfs[0])
    answer = migrated.ask(DEMO_QUESTION)
    assert answer.retrieval.passages and answer.retrieval.entities
    # an evidence query through the server-side guard, and a refused write
    result = store.read_query("MATCH (c:Compound)-[:TREATS_CtD]->(d:Disease {name: $name}) RETURN c.name AS name",
                              {"name": "Alzheimer's disease"}, max_rows=5)
    assert 0 < len(result.frame) <= 5
    with pytest.raises(QueryGuardError):
        store.read_query("MATCH (d:Disease) SET d.flag = true RETURN d")
    # delete a document: its passages go, orphans go, the projection is refreshed on the next question
    article = store.articles()["id"].iloc[0]
    before = store.counts()
    removed = store.delete_article(article)
    after = store.counts()
    assert removed >= 1 and after["Passage"] == before["Passage"] - removed and after["Article"] == before["Article"] - 1
    assert migrated.ask(DEMO_QUESTION).retrieval.passages


#: A fixed question set for the answer-parity checks (the demo question plus two the bundled sample covers).
PARITY_QUESTIONS: tuple[str, ...] = (
    "What compounds might reduce neuroinflammation in Alzheimer's disease?",
    "Which genes are associated with Parkinson's disease?",
    "What treats type 2 diabetes mellitus?",
)


def _jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def test_gds_ppr_top100_matches_the_csr_solver(migrated, record_property):
    """Same seeds, same damping: GDS pageRank.stream (sourceNodes) and the embedded CSR solver agree on the
    top-100 nodes (parameter mapping: engram_kit.store.gds module notes)."""
    from engram_kit.retrieval.ppr import personalized_pagerank

    index = migrated.graph_index()
    graph = index.graph
    engine = migrated.store.ppr_engine()
    rng = np.random.default_rng(0)
    degree = np.diff(graph.adjacency.indptr)
    overlaps = []
    for seed in rng.choice(np.flatnonzero(degree > 0), size=5, replace=False):
        seeds = {int(seed): 1.0}
        local = personalized_pagerank(graph, seeds, damping=migrated.settings.damping, tol=1e-9).scores
        remote = engine.run(index, seeds, migrated.settings).scores
        top_local = set(np.argsort(-local, kind="stable")[:100].tolist())
        top_remote = set(np.argsort(-remote, kind="stable")[:100].tolist())
        overlaps.append(len(top_local & top_remote) / 100)
    record_property("ppr_top100_overlap_min", min(overlaps))
    assert min(overlaps) >= 0.99, overlaps


def test_answers_desk_and_agents_agree_across_backends(workspace, migrated, record_property):
    """ws.ask, ws.run_desk and the agents give the same claims on both backends. Row order of Cypher results
    without ORDER BY is engine-defined, so claims are compared as sets."""
    for question in PARITY_QUESTIONS:
        ask_a = {c.text for c in workspace.ask(question).claims}
        ask_b = {c.text for c in migrated.ask(question).claims}
        desk_a, desk_b = workspace.run_desk(question), migrated.run_desk(question)
        agents_a = {(agent, c.text) for agent, c in workspace.run_agents(question).agent_claims()}
        agents_b = {(agent, c.text) for agent, c in migrated.run_agents(question).agent_claims()}
        scores = {"ask": _jaccard(ask_a, ask_b),
                  "desk": _jaccard({c.text for c in desk_a.claims}, {c.text for c in desk_b.claims}),
                  "agents": _jaccard(agents_a, agents_b)}
        for key, value in scores.items():
            record_property(f"{key}_jaccard_{PARITY_QUESTIONS.index(question)}", round(value, 3))
        print(f"\n{question!r}: claim-set Jaccard {scores}")
        assert desk_a.outcome == desk_b.outcome
        assert scores["desk"] == 1.0, (desk_a.claims, desk_b.claims)
        assert scores["ask"] >= 0.8 and scores["agents"] >= 0.8, scores


def test_server_enforces_read_only_and_timeouts(neo4j_config, migrated):
    from engram_kit.errors import QueryError, QueryGuardError, ReadOnlyError
    from engram_kit.store.neo4j import Neo4jStore

    store = migrated.store
    slow = "UNWIND range(1, 2000000000) AS x WITH x WHERE x % 7 = 3 RETURN count(x) AS n"
    with pytest.raises(QueryError, match="(?i)timeout|terminated|timed out"):
        store.read_only_query(slow, timeout_s=0.5)
    # the EXPLAIN plan of a write (also hidden in a CALL subquery) is refused before it runs
    for write in ("CREATE (:Scratch {id: 'x'})", "MATCH (d:Disease) CALL (d) { SET d.flag = true } RETURN count(*)"):
        with pytest.raises(QueryGuardError):
            store.read_only_query(write)
    assert store.query("MATCH (n:Scratch) RETURN count(n) AS n")["n"].iloc[0] == 0
    # a read-only store: refused in Python first, and its READ session is refused by the server itself
    reader = Neo4jStore(neo4j_config, read_only=True)
    try:
        with pytest.raises(ReadOnlyError):
            reader.delete_article("pubmed:1")
        with pytest.raises(ReadOnlyError):
            reader.query("CREATE (:Scratch {id: 'y'})")
    finally:
        reader.close()
    assert store.query("MATCH (n:Scratch) RETURN count(n) AS n")["n"].iloc[0] == 0


def test_literature_rewrite_delete_and_reingest(migrated, sample_records):
    """Re-ingesting the same records changes nothing; delete removes an article and its orphans; re-ingesting it
    restores the same counts (the shared CypherStore write path, run on the server)."""
    store = migrated.store
    record = sample_records[7]
    before = store.counts()
    migrated.ingest([record])
    assert store.counts() == before
    articles = store.articles()
    article_id = articles.loc[articles["pmid"].astype(str) == str(record.pmid), "id"].iloc[0]
    removed = store.delete_article(article_id)
    after_delete = store.counts()
    assert removed >= 1 and after_delete["Article"] == before["Article"] - 1
    assert after_delete["Passage"] == before["Passage"] - removed
    assert store.article_passages(article_id).empty
    migrated.ingest([record])
    assert store.counts() == before


def test_weighted_seeds_match_the_csr_solver(migrated):
    """The first live run's failure: OpenGDS 2.13.9 refuses weighted ``sourceNodes``, so the engine makes one
    unweighted call per weight group and combines them by PPR's linearity (engram_kit.store.gds). Question
    seeds are weighted (specificity, phrase seeds), so this is the path ``ws.ask`` takes on Neo4j."""
    from engram_kit.retrieval.ppr import personalized_pagerank
    from engram_kit.retrieval.retriever import phrase_seeds

    index = migrated.graph_index()
    graph = index.graph
    entity = {graph.index["Disease::DOID:10652"]: 0.7, graph.index["Gene::351"]: 0.3}  # Alzheimer's disease, APP
    for seeds in (entity, phrase_seeds(index, entity, migrated.settings.phrase_seed_share)):
        assert len(set(seeds.values())) > 1  # really several weight groups
        local = personalized_pagerank(graph, seeds, damping=migrated.settings.damping, tol=1e-9).scores
        remote = migrated.store.ppr_engine().run(index, seeds, migrated.settings).scores
        assert np.abs(remote - local).sum() < 1e-3
        top_local = set(np.argsort(-local, kind="stable")[:100].tolist())
        assert len(top_local & set(np.argsort(-remote, kind="stable")[:100].tolist())) >= 99
