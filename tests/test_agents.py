"""Agents, routing, concurrent events and synthesis on the bundled sample workspace (real Hetionet edges)."""

from __future__ import annotations

from engram_kit.kg.schema import HETIONET_SCHEMA

import asyncio
import gzip
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engram_kit.agents import (
    EVENT_TYPES,
    AgentOptions,
    Investigator,
    ResolvedEvent,
    auroc,
    jaccard,
    route,
    validate_paragraph,
)
from engram_kit.agents.synthesis import AgentFinding
from engram_kit.answering import Citation, Claim
from engram_kit.errors import DataError, QueryError
from engram_kit.retrieval.results import ResolvedEntity

REPO = Path(__file__).resolve().parents[1]
BACE1, TREM2, APP = "Gene::23621", "Gene::54209", "Gene::351"
ALZHEIMERS = "Disease::DOID:10652"
DONEPEZIL, GALANTAMINE, RIVASTIGMINE, MEMANTINE = ("Compound::DB00843", "Compound::DB00674", "Compound::DB00989",
                                                   "Compound::DB01043")
AD_QUESTION = "Which compounds could be repurposed for Alzheimer's disease, given what BACE1 does?"


def _entity(node_id: str, name: str, kind: str) -> ResolvedEntity:
    return ResolvedEntity(name, 0, len(name), node_id, name, kind, 1.0, "exact", 1.0)


@pytest.fixture(scope="module")
def sample_edges() -> pd.DataFrame:
    with gzip.open(REPO / "data" / "hetionet" / "hetionet-v1.0-edges-sample.tsv.gz", "rt") as fh:
        frame = pd.read_csv(fh, sep="\t", usecols=[0, 1, 2])
    frame.columns = ["source", "metaedge", "target"]
    return frame


@pytest.fixture(scope="module")
def ad_run(workspace):
    """One BACE1 / Alzheimer's investigation, with its event stream (shared by several tests)."""
    sink: dict = {}
    events = list(Investigator(workspace).iter_events(AD_QUESTION, sink=sink))
    return events, sink["result"]


# --- routing -----------------------------------------------------------------------------------------
def test_routing_rules_and_reasons():
    bace1, ad = _entity(BACE1, "BACE1", "Gene"), _entity(ALZHEIMERS, "Alzheimer's disease", "Disease")
    decision = route("What does BACE1 do in Alzheimer's disease?", [bace1, ad], binder_counts={BACE1: 0}, schema=HETIONET_SCHEMA)
    assert decision.agents == ["literature", "pathway", "synthesis"]
    assert "0 known binders" in " ".join(decision.route("drug").reasons)
    decision = route("Which drugs could be repurposed for Alzheimer's disease?", [ad], schema=HETIONET_SCHEMA)
    assert "drug" in decision.agents and "repurposing" in decision.route("drug").reasons[0]
    decision = route("What does it bind?", [], [_entity(DONEPEZIL, "Donepezil", "Compound")], schema=HETIONET_SCHEMA)
    assert "drug" in decision.agents and "from memory" in decision.route("drug").reasons[0]
    assert "pathway" not in decision.agents
    decision = route("Tell me about BACE1", [bace1], binder_counts={BACE1: 3}, schema=HETIONET_SCHEMA)
    assert "drug" in decision.agents and set(decision.to_frame()["agent"]) == {"literature", "pathway", "drug",
                                                                                 "synthesis"}


# --- the BACE1 / Alzheimer's investigation -------------------------------------------------------------
def test_event_stream_order_and_types(ad_run):
    events, result = ad_run
    types = [e.type for e in events]
    assert set(types) <= set(EVENT_TYPES)
    assert types[0] == "status" and types[1] == "resolved" and types[-1] == "agents_done"
    assert types.index("passages") < types.index("done")
    assert {"pathway", "drug", "synthesis", "answer_chunk"} <= set(types)
    assert types.index("synthesis") > max(types.index("done"), types.index("pathway"), types.index("drug"))
    json.dumps([e.to_dict() for e in events], default=str)  # every event is JSON-ready
    resolved = next(e for e in events if isinstance(e, ResolvedEvent))
    assert {e.node_id for e in resolved.entities} >= {BACE1, ALZHEIMERS}
    assert events[-1].failed == () and set(events[-1].succeeded) == {"literature", "pathway", "drug", "synthesis"}


def test_repurposing_excludes_treatments_and_reports_degree_baseline(ad_run, sample_edges):
    _, result = ad_run
    rep = result.drug.repurposing[0]
    treats = set(sample_edges.loc[(sample_edges.metaedge == "CtD") & (sample_edges.target == ALZHEIMERS), "source"])
    assert set(rep.known_treatments["compound_id"]) == treats == {DONEPEZIL, GALANTAMINE, RIVASTIGMINE, MEMANTINE}
    assert not set(rep.candidates["compound_id"]) & treats
    assert not set(rep.baseline["compound_id"]) & treats
    palliates = set(sample_edges.loc[(sample_edges.metaedge == "CpD") & (sample_edges.target == ALZHEIMERS), "source"])
    assert len(palliates) == 5 and set(rep.palliatives) == palliates
    assert not set(rep.candidates["compound_id"]) & palliates and not set(rep.baseline["compound_id"]) & palliates
    # ranked by the disease-specific excess over the average disease (score = ppr - background)
    assert rep.candidates["score"].is_monotonic_decreasing and rep.baseline["degree"].is_monotonic_decreasing
    assert np.allclose(rep.candidates["score"], rep.candidates["ppr"] - rep.candidates["background"])
    assert (rep.candidates["score"] > 0).all()
    associated = sample_edges[(sample_edges.metaedge == "DaG") & (sample_edges.source == ALZHEIMERS)]
    assert rep.n_seed_genes == len(associated)
    # Known treatments sit next to the disease and its genes: PPR recovers them far better than chance.
    assert rep.auroc_ppr is not None and rep.auroc_ppr > 0.9
    assert rep.auroc_degree is not None and 0.0 <= rep.auroc_degree <= 1.0


def test_repurposing_is_disease_specific(ad_run, workspace):
    """Alzheimer's and Parkinson's candidates are not the same hub compounds (issue 16)."""
    _, ad_result = ad_run
    pd_result = Investigator(workspace, options=AgentOptions(narrative_paths=0)).run(
        "Which compounds could be repurposed for Parkinson's disease?")
    ad_top = list(ad_result.drug.repurposing[0].candidates["compound_id"].head(10))
    pd_rep = pd_result.drug.repurposing[0]
    pd_top = list(pd_rep.candidates["compound_id"].head(10))
    assert pd_rep.disease_id == "Disease::DOID:14330" and len(ad_top) == len(pd_top) == 10
    assert len(set(ad_top) & set(pd_top)) <= 3
    markdown = pd_result.drug.to_markdown()
    assert "Repurposing candidates for Parkinson's disease" in markdown
    assert re.search(r"\|\s*rank\s*\|", markdown)  # tabulate pads the numeric column's header
    assert pd_result._repr_markdown_() == pd_result.to_markdown()
    assert re.search(r"\|\s*rank\s*\|", pd_result.to_markdown())


def test_graph_path_sentences_keep_edge_direction():
    from engram_kit.agents.drug import _path_sentence
    from engram_kit.agents.graph import GraphPath

    path = GraphPath(("Compound::DB01204", "Gene::1045", ALZHEIMERS), ("Mitoxantrone", "CLGN", "Alzheimer's disease"),
                     ("UPREGULATES_CuG", "DOWNREGULATES_DdG"),
                     (("Compound::DB01204", "UPREGULATES_CuG", "Gene::1045"),
                      (ALZHEIMERS, "DOWNREGULATES_DdG", "Gene::1045")))
    assert _path_sentence(path) == ("Graph path: Mitoxantrone upregulates CLGN; Alzheimer's disease downregulates CLGN")


def test_pathway_agent_ranks_bace1_pathways(ad_run, sample_edges):
    _, result = ad_run
    ranked = result.pathway.ranked
    bace1_pathways = set(sample_edges.loc[(sample_edges.metaedge == "GpPW") & (sample_edges.source == BACE1), "target"])
    assert set(ranked["pathway_id"]) == bace1_pathways and len(bace1_pathways) == 2
    top = ranked.iloc[0]
    members = set(sample_edges.loc[(sample_edges.metaedge == "GpPW") & (sample_edges.target == top.pathway_id), "source"])
    assert top["size"] == len(members)
    ad_genes = set(sample_edges.loc[(sample_edges.metaedge == "DaG") & (sample_edges.source == ALZHEIMERS), "target"])
    assert top["n_disease_genes"] == len(members & ad_genes)
    assert any(p.nodes[0] in (BACE1, ALZHEIMERS) and p.nodes[-1] in (BACE1, ALZHEIMERS) and p.hops == 1
               for p in result.pathway.paths)


def test_every_claim_cites_an_existing_edge_or_passage(ad_run, workspace):
    _, result = ad_run
    claims = result.agent_claims()
    assert claims and all(c.citations for _, c in claims)
    edges = {x.ref for _, c in claims for x in c.citations if x.kind == "edge"}
    ids = sorted({part for ref in edges for part in (ref.split(" -[")[0], ref.split("]-> ")[1])})
    stored = workspace.store.edges_among(ids)
    stored_refs = {f"{s} -[{r}]-> {t}" for s, t, r in zip(stored.source, stored.target, stored.rel_type)}
    assert edges <= stored_refs
    passages = {x.ref for _, c in claims for x in c.citations if x.kind == "passage"}
    assert passages <= {p.passage_id for p in result.literature.retrieval.passages}
    assert "**Routing**" in result.to_markdown() and not result.claims_frame().empty


def test_two_compounds_shared_targets_match_the_edge_table(workspace, sample_edges):
    result = Investigator(workspace, options=AgentOptions(narrative_paths=0)).run(
        "Do galantamine and rivastigmine share targets with each other?")
    assert result.routing.agents[:1] == ["literature"] and "drug" in result.routing.agents
    comparison = result.drug.comparisons[0]
    binds = sample_edges[sample_edges.metaedge == "CbG"]
    expected = set(binds.loc[binds.source == GALANTAMINE, "target"]) & set(binds.loc[binds.source == RIVASTIGMINE, "target"])
    names = workspace.nodes.set_index("id")["name"]
    assert set(comparison.shared_targets) == {names[g] for g in expected} == {"ACHE", "BCHE", "CYP2D6", "CYP3A4"}
    assert result.queries and all(q.statement.startswith("agent_") for q in result.queries)


# --- concurrency and failure --------------------------------------------------------------------------
class _BrokenAgent:
    name = "pathway"

    def run(self, context, emit):
        raise RuntimeError("pathway backend exploded")


def test_failing_agent_yields_error_and_others_finish(workspace):
    investigator = Investigator(workspace, agents={"pathway": _BrokenAgent()})
    sink: dict = {}
    events = list(investigator.iter_events("What pathways involve TREM2 and APP?", sink=sink))
    errors = [e for e in events if e.type == "error"]
    assert len(errors) == 1 and errors[0].agent == "pathway" and "exploded" in errors[0].message
    result = sink["result"]
    assert result.pathway is None and result.literature is not None and result.synthesis is not None
    assert events[-1].type == "agents_done" and events[-1].failed == ("pathway",)
    assert "pathway agent failed" in result.to_markdown()


def test_sync_iterator_works_inside_a_running_event_loop(workspace):
    async def notebook_cell() -> list[str]:  # Jupyter runs cells inside an event loop
        return [e.type for e in workspace.agent_events("Which genes does TREM2 interact with?")]

    types = asyncio.run(notebook_cell())
    assert types[0] == "status" and types[-1] == "agents_done"


def test_empty_question_raises(workspace):
    with pytest.raises(QueryError, match="empty"):
        Investigator(workspace).run("   ")


# --- graph helpers and synthesis ----------------------------------------------------------------------
def test_shortest_path_is_shortest_and_typed(workspace, sample_edges):
    from engram_kit.agents import GraphQueries

    graph = GraphQueries(workspace.store, workspace.csr_graph())
    path = graph.shortest_path(TREM2, APP, max_hops=3)
    direct = sample_edges[((sample_edges.source == TREM2) & (sample_edges.target == APP))
                          | ((sample_edges.source == APP) & (sample_edges.target == TREM2))]
    assert direct.empty and path is not None and path.hops == 2
    for (a, b), rel in zip(zip(path.nodes, path.nodes[1:]), path.relations):
        pair = sample_edges[((sample_edges.source == a) & (sample_edges.target == b))
                            | ((sample_edges.source == b) & (sample_edges.target == a))]
        assert not pair.empty and rel != "RELATED"
    assert graph.shortest_path(TREM2, "Gene::does-not-exist") is None


def test_jaccard_and_auroc():
    assert jaccard({"a", "b", "c"}, {"b", "c", "d"}) == pytest.approx(0.5)
    assert jaccard(set(), set()) == 0.0
    import numpy as np

    scores = np.array([0.9, 0.8, 0.3, 0.1, 0.5])
    positives = np.array([True, False, True, False, False])
    assert auroc(scores, positives) == pytest.approx(4 / 6)  # 4 of 6 (pos, neg) pairs ordered correctly
    assert auroc(scores, np.zeros(5, dtype=bool)) is None


def test_validator_withholds_uncited_and_unknown_markers():
    findings = [AgentFinding("F1", "drug", Claim("Donepezil binds ACHE", (Citation("edge", "x", "Hetionet BINDS_CbG"),))),
                AgentFinding("F2", "pathway", Claim("BACE1 is in a pathway", (Citation("edge", "y", "Hetionet P"),)))]
    text = ("Donepezil binds ACHE [F1]. BACE1 sits in an amyloid pathway [F2][F1]. It cures everything. "
            "A made-up trial showed benefit [F7].")
    claims, withheld = validate_paragraph(text, findings)
    assert [c.text for c in claims] == ["Donepezil binds ACHE.", "BACE1 sits in an amyloid pathway."]
    assert withheld == 2 and {x.ref for x in claims[1].citations} == {"x", "y"}


def test_agent_options_validate():
    with pytest.raises(DataError, match="max_path_hops"):
        AgentOptions(max_path_hops=9)
    assert AgentOptions.from_dict({"max_items": 3, "unknown": 1}).max_items == 3
