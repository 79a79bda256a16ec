"""Meaning travels with evidence (issue 9, item 3): predicate, direction, knowledge sources, publications,
qualifiers and negation of knowledge-graph edges reach retrieval subgraphs, evidence paths, answers (offline
and LLM) and the graph explorer; negated edges never carry PPR relevance and are never stated as fact.

Two graphs: the session ``kgx_workspace`` (the bundled Monarch KG sample as loaded) and a small workspace built
here from the same sample with two real edges edited: SHH (human) has_phenotype Tetralogy of Fallot marked
``negated`` (Tetralogy of Fallot has no other edge, so only that edge could reach it), and SHH (human)
has_phenotype Cleft palate given an HPO frequency qualifier. Their provenance values (infores id, PMID) are
test annotations, not claims about the literature.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence

import pandas as pd
import pytest

from engram_kit.answering import ExtractiveComposer
from engram_kit.answering.assertions import assertion_text, edge_label, states_negation
from engram_kit.answering.llm import SYSTEM_PROMPT, LLMComposer
from engram_kit.kg.schema import HETIONET_SCHEMA
from engram_kit.llm import LLMResponse, OfflineLLM
from engram_kit.retrieval.ppr import personalized_pagerank
from engram_kit.retrieval.results import EDGE_MEANING_COLUMNS, EdgeEvidence, RetrievalResult, with_edge_meaning

SHH = "Gene::HGNC:10848"                        # "SHH (human)"
TOF = "PhenotypicFeature::HP:0001636"           # Tetralogy of Fallot: only edge is SHH has_phenotype ToF
CLEFT = "PhenotypicFeature::HP:0000175"         # Cleft palate
POLYDACTYLY = "PhenotypicFeature::HP:0001829"   # Foot polydactyly: only edge is SHH has_phenotype it (asserted)
PAX6 = "Gene::HGNC:8620"
SOURCE = "infores:hpo-annotations"
OCCASIONAL = "HP:0040283"
GRAPH_NAME = "Monarch KG sample (edited)"


class Scripted:
    """A provider returning fixed text and recording the prompts it was given."""

    name = "scripted"

    def __init__(self, text: str) -> None:
        self.text, self.prompts, self.systems = text, [], []

    def complete(self, messages: Sequence[dict[str, str]], *, system: str = "", **_: object) -> LLMResponse:
        self.prompts.append(messages[-1]["content"])
        self.systems.append(system)
        return LLMResponse(self.text, self.name)

    def stream(self, messages: Sequence[dict[str, str]], **kw: object) -> Iterator[str]:
        yield self.complete(messages, **kw).text


# ------------------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def edited_kg():
    from engram_kit.kg.kgx import load_kgx
    from tests.conftest import REPO

    kgx = REPO / "data" / "kgx"
    kg = load_kgx(kgx / "graph_nodes.tsv", kgx / "graph_edges.tsv", name=GRAPH_NAME, progress=False)
    edges = kg.edges
    phenotype = (edges["source"] == SHH) & (edges["rel_type"] == "HAS_PHENOTYPE")
    negated = phenotype & (edges["target"] == TOF)
    qualified = phenotype & (edges["target"] == CLEFT)
    assert negated.sum() == 1 and qualified.sum() == 1
    # ToF is reachable through this edge only: negating it must cut it off from PPR entirely
    assert ((edges["source"] == TOF) | (edges["target"] == TOF)).sum() == 1
    edges.loc[negated, ["negated", "primary_knowledge_source"]] = [True, SOURCE]
    edges.loc[qualified, ["qualifiers", "primary_knowledge_source", "publications"]] = [
        json.dumps({"frequency_qualifier": OCCASIONAL}), SOURCE, "PMID:8896572"]
    return kg


@pytest.fixture(scope="module")
def edited_workspace(edited_kg, tmp_path_factory, kgx_workspace_path):
    """A workspace on the edited graph with the 35 bundled KGX abstracts (``kgx_workspace_path`` is requested
    so the session's KGX workspace is built first and the embedder is shared)."""
    from engram_kit.settings import Settings
    from engram_kit.workspace import Workspace
    from tests.conftest import REPO

    ws = Workspace.create(tmp_path_factory.mktemp("meaning") / "ws", graph=edited_kg, settings=Settings(progress=False))
    ws.ingest(REPO / "data" / "kgx" / "abstracts-kgx.jsonl.gz")
    yield ws
    ws.close()


def _retriever(ws):
    """The workspace's retriever, naming the graph as the manifest does."""
    retriever = ws.retriever()
    retriever.graph_name = ws.manifest["knowledge_graph"]["name"]
    return retriever


def _ask(ws, question: str, **kwargs):
    result = _retriever(ws).retrieve(question, **kwargs)
    return result, ExtractiveComposer(ws.embedder).compose(result)


# ------------------------------------------------------------------------------------- store, PPR
def test_edges_among_drops_negated_edges_unless_asked(edited_workspace):
    store = edited_workspace.store
    ids = [SHH, TOF, CLEFT, PAX6]
    asserted = store.edges_among(ids)
    assert list(asserted.columns[:3]) == ["source", "target", "rel_type"]
    assert set(store.schema.rel_properties) <= set(asserted.columns)
    assert TOF not in set(asserted["target"]) and not asserted["negated"].any()
    everything = store.edges_among(ids, include_negated=True)
    flagged = everything[everything["target"] == TOF]
    assert len(flagged) == 1 and bool(flagged["negated"].iloc[0])
    assert len(everything) == len(asserted) + 1
    cleft = asserted[asserted["target"] == CLEFT].iloc[0]
    assert json.loads(cleft["qualifiers"]) == {"frequency_qualifier": OCCASIONAL}
    assert cleft["primary_knowledge_source"] == SOURCE and cleft["predicate"] == "biolink:has_phenotype"


def test_ppr_never_reaches_through_a_negated_edge(edited_workspace):
    index = edited_workspace.graph_index()
    scores = personalized_pagerank(index.graph, {index.index_of(SHH): 1.0}).scores
    assert scores[index.index_of(TOF)] == 0.0            # its only edge is negated
    assert scores[index.index_of(POLYDACTYLY)] > 0.0     # the same shape, asserted: reached
    result = _retriever(edited_workspace).retrieve("Which phenotypes does SHH have?")
    assert SHH in set(result.subgraph_nodes["id"])
    assert TOF not in set(result.subgraph_nodes["id"])
    assert not result.subgraph_edges["negated"].any()
    with_negated = _retriever(edited_workspace).retrieve("Which phenotypes does SHH have?", include_negated=True)
    assert TOF not in set(with_negated.subgraph_nodes["id"])  # asking to see negations does not make them walkable


# ----------------------------------------------------------------------------------- answers
def test_negated_assertion_is_never_stated_as_fact(edited_workspace):
    question = "Does SHH cause tetralogy of Fallot?"
    result, answer = _ask(edited_workspace, question)
    assert TOF in set(result.subgraph_nodes["id"])  # a seed, but the negated edge is not in the subgraph
    assert "Tetralogy of Fallot" not in "\n".join(c.text for c in answer.claims if c.citations[0].kind == "edge")

    result, answer = _ask(edited_workspace, question, include_negated=True)
    edge = result.subgraph_edges[(result.subgraph_edges["source"] == SHH) & (result.subgraph_edges["target"] == TOF)]
    assert len(edge) == 1 and bool(edge["negated"].iloc[0])
    text = answer.to_markdown()
    assert "- NOT: SHH (human) has phenotype Tetralogy of Fallot (negated assertion, source infores:hpo-annotations, " \
           f"via orphanet, hpoa) [{GRAPH_NAME}: biolink:has_phenotype, source {SOURCE}, via orphanet, hpoa, negated]" in text
    for line in text.splitlines():  # the triple appears only in its negated wording
        if "has phenotype Tetralogy of Fallot" in line:
            assert line.startswith("- NOT: ")
    assert not re.search(r"(?<!NOT: )SHH \(human\) has phenotype Tetralogy of Fallot", text)


def test_qualified_assertion_carries_its_qualifier_and_provenance(edited_workspace):
    result, answer = _ask(edited_workspace, "Does SHH cause cleft palate?")
    claims = [c for c in answer.claims if c.citations[0].kind == "edge" and "Cleft palate" in c.text]
    assert [c.text for c in claims] == [
        f"SHH (human) has phenotype Cleft palate (qualifiers: frequency {OCCASIONAL} 'Occasional')"]
    label = claims[0].citations[0].label
    assert label == (f"{GRAPH_NAME}: biolink:has_phenotype, source {SOURCE}, via omim, orphanet, hpoa, "
                     "PMID:8896572")
    assert claims[0].citations[0].ref == f"{SHH} -[HAS_PHENOTYPE]-> {CLEFT}"
    assert "SHH (human) has phenotype Cleft palate [" not in answer.to_markdown()  # never the bare triple


def test_kgx_answer_names_the_graph_and_predicate_not_hetionet(kgx_workspace):
    question = "Which genes are linked to cleft palate and PAX6?"
    default = kgx_workspace.ask(question)  # whatever name the workspace wiring gives, never "Hetionet"
    graph = [c for c in default.claims if c.citations[0].kind == "edge"]
    assert graph and "Hetionet" not in default.to_markdown()
    assert all(": biolink:" in c.citations[0].label for c in graph)

    result, answer = _ask(kgx_workspace, question)
    labels = {c.text: c.citations[0].label for c in answer.claims if c.citations[0].kind == "edge"}
    # directed predicate: subject (the gene) first; the sample records aggregators only (no primary source)
    assert labels["SHH (human) has phenotype Cleft palate"] == \
        "Monarch KG sample: biolink:has_phenotype, via omim, orphanet, hpoa"
    assert labels["SHH (human) interacts with PAX6"] == "Monarch KG sample: biolink:interacts_with, via string"


def test_subgraph_edges_and_evidence_paths_carry_edge_meaning(kgx_workspace):
    result = _retriever(kgx_workspace).retrieve("Which genes interact with SHH?")
    edges = result.subgraph_edges
    assert list(edges.columns[:3 + len(EDGE_MEANING_COLUMNS)]) == ["source", "target", "rel_type",
                                                                     *EDGE_MEANING_COLUMNS]
    assert edges["predicate"].str.startswith("biolink:").all()
    directed = dict(zip(edges["predicate"], edges["directed"]))
    assert directed["biolink:has_phenotype"] and not directed["biolink:interacts_with"]
    assert (edges["aggregator_knowledge_source"] != "").all()
    cyto = result.to_cytoscape()["edges"]
    assert {e["data"]["label"] for e in cyto} <= set(edges["predicate"])
    assert all("negated" in e["data"] and "qualifiers" in e["data"] for e in cyto)

    hops = [(p, path) for p in result.passages for path in p.paths if len(path.nodes) > 1]
    assert hops, "no multi-hop evidence path"
    for _, path in hops:
        assert len(path.edges) == len(path.nodes) - 1
        for (a, b), edge, rel in zip(zip(path.nodes, path.nodes[1:]), path.edges, path.relations):
            assert {edge.source, edge.target} == {a, b} and edge.rel_type == rel
            assert edge.predicate.startswith("biolink:") and not edge.negated
            assert edge.aggregator_knowledge_source or edge.primary_knowledge_source
        assert path.edges[0].predicate in path.describe()
    # a stored result (saved conversation) comes back with the same meaning
    assert RetrievalResult.from_dict(json.loads(json.dumps(result.to_dict()))).to_dict() == result.to_dict()


# ------------------------------------------------------------------------------------------- LLM
def test_llm_prompt_shows_negation_and_qualifiers_and_the_check_enforces_them(edited_workspace):
    result = _retriever(edited_workspace).retrieve("Does SHH have tetralogy of Fallot or cleft palate?",
                                                   include_negated=True)
    composer = LLMComposer(Scripted(""), max_passages=2)
    evidence = composer.evidence(result)
    negated = next(k for k, (text, _) in evidence.items() if "Tetralogy of Fallot" in text)
    qualified = next(k for k, (text, _) in evidence.items() if "Cleft palate" in text)
    assert evidence[negated][0].startswith("NOT: SHH (human) has phenotype Tetralogy of Fallot (negated assertion")
    assert f"(qualifiers: frequency {OCCASIONAL} 'Occasional')" in evidence[qualified][0]

    scripted = Scripted(
        f"SHH (human) has phenotype Tetralogy of Fallot [{negated}]. "           # drops the NOT: withheld
        f"SHH is not known to cause tetralogy of Fallot [{negated}]. "           # kept
        f"SHH (human) has phenotype Cleft palate [{qualified}]. "                # bare triple: withheld
        f"Cleft palate is an occasional phenotype of SHH (human) [{qualified}].")  # names the qualifier: kept
    answer = LLMComposer(scripted, max_passages=2, structured=False).compose(result)
    prompt = scripted.prompts[0]
    assert f"[{negated}] NOT: SHH (human) has phenotype Tetralogy of Fallot" in prompt
    assert f"frequency {OCCASIONAL} 'Occasional'" in prompt and f"{GRAPH_NAME}: biolink:has_phenotype" in prompt
    assert "NOT: is a negated assertion" in scripted.systems[0] == SYSTEM_PROMPT
    assert [c.text for c in answer.claims] == ["SHH is not known to cause tetralogy of Fallot.",
                                               "Cleft palate is an occasional phenotype of SHH (human)."]
    assert any("2 claim(s) withheld" in n for n in answer.notes)
    assert any("without its negation or qualifiers" in n and negated in n and qualified in n for n in answer.notes)

    offline = LLMComposer(OfflineLLM(max_sentences=6), max_passages=2).compose(result)
    for claim in offline.claims:  # the offline model echoes evidence: a negated edge stays negated
        if any(c.ref.endswith(TOF) for c in claim.citations):
            assert claim.text.startswith("NOT: ")


# -------------------------------------------------------------------------------------- explorer
def test_neighbourhood_on_kgx_shows_meaning_and_flags_negated_edges(edited_workspace, kgx_workspace):
    hood = edited_workspace.neighbourhood(SHH, limit=1_000)  # SHH (human) has 496 edges; default reads 300 a way
    assert not hood.truncated
    edges = hood.edges.set_index("neighbour_id")
    assert {"predicate", "directed", "negated", "qualifiers", "publications", "primary_knowledge_source",
            "aggregator_knowledge_source", "sources", "pubmed_ids", "direction"} <= set(hood.edges.columns)
    assert hood.kind == "Gene" and hood.name == "SHH (human)"
    assert bool(edges.at[TOF, "negated"]) and not edges.drop(index=TOF)["negated"].any()  # shown, flagged
    assert json.loads(edges.at[CLEFT, "qualifiers"]) == {"frequency_qualifier": OCCASIONAL}
    assert edges.at[CLEFT, "pubmed_ids"] == "8896572" and edges.at[CLEFT, "sources"].startswith(SOURCE)
    assert edges.at[CLEFT, "direction"] == "out" and bool(edges.at[CLEFT, "directed"])
    rows = {r.neighbour_id: r for r in hood.edges.itertuples(index=False)}
    assert hood.describe_edge(rows[TOF]).startswith("NOT: SHH (human) has phenotype Tetralogy of Fallot")
    assert hood.describe_edge(rows[CLEFT]).endswith(f"(qualifiers: frequency {OCCASIONAL} 'Occasional')")
    cyto = {e["data"]["target"]: e for e in hood.to_cytoscape()["edges"]}
    assert cyto[TOF]["classes"] == "curated negated" and cyto[TOF]["data"]["label"] == "NOT biolink:has_phenotype"
    json.dumps(hood.to_cytoscape())  # serialisable (no numpy scalars)

    only = edited_workspace.neighbourhood(SHH, rel_types=["biolink:interacts_with"], limit=1_000)
    assert set(only.edges["rel_type"]) == {"INTERACTS_WITH"} and not only.edges["directed"].any()
    pax6 = kgx_workspace.neighbourhood(PAX6)
    assert list(pax6.edges["neighbour_id"]) == [SHH] and list(pax6.edges["direction"]) == ["in"]
    assert pax6.edges["sources"].iloc[0] == "string"


# --------------------------------------------------------------------------- wording, Hetionet
def test_hetionet_edges_keep_their_wording_and_gain_provenance_columns():
    frame = pd.DataFrame([{"source": "Compound::DB00843", "target": "Disease::DOID:10652", "rel_type": "TREATS_CtD",
                           "sources": "DrugCentral|ClinicalTrials", "license": "", "unbiased": "false",
                           "pubmed_ids": "123|456"}])
    edges = with_edge_meaning(frame, HETIONET_SCHEMA)
    row = edges.iloc[0]
    assert (row["predicate"], bool(row["directed"]), bool(row["negated"])) == ("CtD", False, False)
    assert row["publications"] == "PMID:123|PMID:456" and row["primary_knowledge_source"] == "DrugCentral|ClinicalTrials"
    edge = EdgeEvidence.from_row(row.to_dict())
    assert assertion_text(edge, "Donepezil", "Alzheimer's disease") == "Donepezil treats Alzheimer's disease"
    assert edge_label(edge, "Hetionet") == "Hetionet TREATS_CtD"


def test_assertion_wording_and_negation_cues():
    edge = EdgeEvidence("Gene::A", "PhenotypicFeature::HP:1", "HAS_PHENOTYPE", "biolink:has_phenotype",
                        qualifiers=json.dumps({"onset_qualifier": "HP:0003577", "sex_qualifier": "PATO:0000383"}),
                        publications="PMID:1|PMID:2|PMID:3|PMID:4")
    assert assertion_text(edge, "A", "B") == ("A has phenotype B (qualifiers: onset HP:0003577 'Congenital onset'; "
                                              "sex PATO:0000383 'female')")
    assert edge_label(edge, "G") == "G: biolink:has_phenotype, PMID:1, PMID:2, PMID:3 +1 more"
    assert edge.arrow("Gene::A") == "-[biolink:has_phenotype]->" and edge.arrow(edge.target).startswith("<-")
    assert all(states_negation(s) for s in ("A does not cause B.", "A doesn't cause B", "No link: NOT: A has B"))
    assert not states_negation("A notably causes B")


def test_neighbourhood_limit_counts_only_the_wanted_relationship_types(kgx_workspace):
    """Bug: the limit was applied before the rel_types filter, so SHH's 111 HAS_PHENOTYPE edges were cut off by
    its other edges and none came back (only truncated=True). The filter now runs inside the query."""
    hood = kgx_workspace.neighbourhood("Gene::HGNC:10848", rel_types=["HAS_PHENOTYPE"], limit=50)
    assert len(hood.edges) == 50 and set(hood.edges["rel_type"]) == {"HAS_PHENOTYPE"} and hood.truncated
    everything = kgx_workspace.neighbourhood("Gene::HGNC:10848", rel_types=["biolink:has_phenotype"], limit=1000)
    expected = kgx_workspace.store.query(
        "MATCH (a:Gene)-[r:HAS_PHENOTYPE]->(b) WHERE a.id = 'Gene::HGNC:10848' RETURN count(r) AS n")["n"].iloc[0]
    assert len(everything.edges) == expected > 50 and not everything.truncated


def test_a_curie_in_the_question_seeds_that_node(kgx_workspace):
    """Bug (newcomer test): `engram ask "What does HGNC:10848 interact with?"` resolved nothing."""
    result = kgx_workspace.retrieve("What does HGNC:10848 interact with?")
    seeds = [(e.node_id, e.method, e.confidence) for e in result.entities]
    assert ("Gene::HGNC:10848", "identifier", 1.0) in seeds
    lower = kgx_workspace.retrieve("Which phenotypes does mondo:0010011 have.")
    assert [e.node_id for e in lower.entities] == ["Disease::MONDO:0010011"]
