"""End-to-end retrieval on the bundled sample: seeds, PPR properties, blend weights, source filter."""

from __future__ import annotations

import numpy as np
import pytest

from engram_kit.errors import QueryError
from engram_kit.retrieval.ppr import personalized_pagerank

DEMO = "What compounds might reduce neuroinflammation in Alzheimer's disease?"


@pytest.fixture(scope="module")
def demo(workspace):
    return workspace.retrieve(DEMO)


def test_demo_question_resolves_alzheimers_and_ranks_relevant_passages(demo):
    seeds = {e.node_id for e in demo.entities}
    assert "Disease::DOID:10652" in seeds
    assert len(demo.passages) == 10
    # Relevant means the passage text itself talks about Alzheimer's disease or neuroinflammation.
    relevant = [p for p in demo.passages[:5] if "alzheimer" in p.text.lower() or "neuroinflamm" in p.text.lower()]
    assert len(relevant) >= 4
    assert all(p.pmid for p in demo.passages)
    assert [p.rank for p in demo.passages] == list(range(1, 11))
    scores = [p.score for p in demo.passages]
    assert scores == sorted(scores, reverse=True)


def test_subgraph_has_seed_and_typed_edges(demo):
    nodes = demo.subgraph_nodes
    assert nodes["is_seed"].any()
    assert set(nodes.loc[nodes["is_seed"], "id"]) == {e.node_id for e in demo.entities} & set(nodes["id"])
    assert not demo.subgraph_edges.empty
    assert set(demo.subgraph_edges["source"]) | set(demo.subgraph_edges["target"]) <= set(nodes["id"])
    assert demo.subgraph_edges["rel_type"].str.match(r"^[A-Z]+_[A-Za-z]+$").all()
    assert 0.0 < demo.hub_mass <= 1.0


def test_evidence_paths_start_at_a_seed_and_end_at_a_mentioned_entity(demo, workspace):
    seeds = {e.node_id for e in demo.entities}
    paths = [(p, path) for p in demo.passages for path in p.paths]
    assert paths, "no passage carried an evidence path"
    for passage, path in paths:
        assert path.nodes[0] in seeds
        assert len(path.relations) == len(path.nodes) - 1
        mentioned = workspace.store.passage_mentions([passage.passage_id])
        assert path.nodes[-1] in set(mentioned["entity_id"])


def test_ppr_scores_sum_to_one_and_seed_ranks_high(workspace):
    index = workspace.graph_index()
    seed = index.index_of("Compound::DB00331")  # metformin
    result = personalized_pagerank(index.graph, {seed: 1.0}, damping=workspace.settings.damping)
    assert result.converged
    assert abs(float(result.scores.sum()) - 1.0) < 1e-4
    assert int(np.argmax(result.scores)) == seed
    # A 2-hop neighbour (via a metformin neighbour) outranks a node with no path from metformin.
    neighbours = set(index.neighbours(seed).tolist())
    two_hop = next(j for n in sorted(neighbours) for j in index.neighbours(n).tolist()
                   if j != seed and j not in neighbours and j < index.n_kg)
    unreachable = np.flatnonzero(result.scores[: index.n_kg] == 0)
    assert unreachable.size > 0
    assert result.scores[two_hop] > result.scores[unreachable[0]]


def test_scores_are_relative_and_alpha_moves_the_restart_mass(workspace):
    q = "Does metformin affect tumour growth through TP53?"
    entity_only = workspace.retrieve(q, graph_share=1.0, top_k=8)
    passage_only = workspace.retrieve(q, graph_share=0.0, top_k=8)
    assert entity_only.graph_share == 1.0 and passage_only.graph_share == 0.0
    for result in (entity_only, passage_only):
        scores = [p.score for p in result.passages]
        assert scores == sorted(scores, reverse=True)
        assert scores[0] == pytest.approx(1.0) and all(0.0 <= s <= 1.0 for s in scores)
    # entity seeds only: the ranking is the walk from metformin/TP53, so the top hits mention a seed's
    # neighbourhood rather than copying the text ranking of passage seeds
    assert [p.passage_id for p in entity_only.passages] != [p.passage_id for p in passage_only.passages]


def test_alpha_is_a_deprecated_name_of_graph_share(workspace):
    """``alpha`` (the damping in PPR papers) still works where users passed it, with a DeprecationWarning, and
    gives the same ranking as ``graph_share``; the two names must not disagree."""
    q = "Does metformin affect tumour growth through TP53?"
    new = workspace.retrieve(q, graph_share=1.0, top_k=5)
    with pytest.warns(DeprecationWarning, match="graph_share"):
        old = workspace.retrieve(q, alpha=1.0, top_k=5)
    assert [p.passage_id for p in old.passages] == [p.passage_id for p in new.passages]
    with pytest.warns(DeprecationWarning, match="graph_share"):
        assert old.alpha == old.graph_share == 1.0
    with pytest.warns(DeprecationWarning), pytest.raises(QueryError, match="disagree"):
        workspace.retrieve(q, graph_share=0.5, alpha=1.0)
    with pytest.raises(QueryError, match="graph_share=1.5 is outside"):
        workspace.retrieve(q, graph_share=1.5)
    data = new.to_dict()
    assert data["graph_share"] == 1.0 and "alpha" not in data
    data["alpha"] = data.pop("graph_share")  # a run bundle written before the rename
    assert type(new).from_dict(data).graph_share == 1.0
    with pytest.warns(DeprecationWarning, match="csr_graph"):
        assert workspace.knowledge_graph() is workspace.csr_graph()


def test_source_filter(workspace):
    pubmed = workspace.retrieve(DEMO, source="pubmed", top_k=5)
    assert pubmed.passages and all(p.source == "pubmed" for p in pubmed.passages)
    uploaded = workspace.retrieve(DEMO, source="uploaded", top_k=5)
    assert uploaded.passages == []  # the sample workspace holds no uploaded documents
    with pytest.raises(QueryError, match="Unknown source filter"):
        workspace.retrieve(DEMO, source="arxiv")


def test_question_without_entities_falls_back_to_semantic(workspace):
    result = workspace.retrieve("How were the patients followed up over time?")
    assert result.entities == []
    assert "without knowledge-graph seeds" in result.fallback
    assert result.passages and result.graph_share == 0.0
    assert result.on_topic and result.relevance > workspace.settings.min_relevance


@pytest.mark.parametrize("question", ["", "   ", "x" * 2001])
def test_bad_questions(workspace, question):
    with pytest.raises(QueryError):
        workspace.retrieve(question)


def test_memory_seeds_shift_ranking(workspace):
    q = "Which genes are involved?"
    base = workspace.retrieve(q, top_k=5)
    # BACE1: a gene the corpus mentions (TREM2, used before, is mentioned by no passage once links need 0.7
    # confidence, so its mass can only reach passages through the graph and barely moves the ranking)
    biased = workspace.retrieve(q, top_k=5, extra_seeds={"Gene::23621": 1.0})
    assert biased.subgraph_nodes.loc[biased.subgraph_nodes["id"] == "Gene::23621", "is_seed"].all()
    assert [p.passage_id for p in biased.passages] != [p.passage_id for p in base.passages]


def test_generic_word_does_not_seed_a_fuzzy_match(workspace):
    # "cancer" has no exact node; its best fuzzy match ("bone cancer", TF-IDF) must not steer PPR.
    result = workspace.retrieve("What is the role of TP53 in cancer?", top_k=3)
    seeds = {e.node_id for e in result.entities}
    assert seeds == {"Gene::7157"}
    assert "cancer" in result.unresolved
