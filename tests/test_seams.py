"""The extension seams: a toy graph format, a toy embedder and a toy agent, each added by new files plus one
registration line (tests/toys/), and the settings sections recorded in and read back from the manifest."""

from __future__ import annotations

import json

import pytest

from engram_kit.agents import AgentSpec, Investigator, register_agent, route, unregister_agent
from engram_kit.errors import DataError, EngramError
from engram_kit.ingestion.chunking import DocumentMetadata
from engram_kit.ingestion.pubmed import PubMedRecord
from engram_kit.kg.profiles import HETIONET_PROFILE, KGX_PROFILE, profile_for
from engram_kit.kg.schema import HETIONET_SCHEMA
from engram_kit.retrieval.results import ResolvedEntity
from engram_kit.settings import SECTIONS, Settings
from engram_kit.workspace import Workspace
from toys.toy_agent import GeneDiseaseAgent, GeneDiseaseEvent, GeneDiseaseReport, gene_disease_route
from toys.toy_embedder import HashingEmbedder
from toys.toy_graph import TOY_PROFILE, load_toy

PAIRS = [("SHH", "holoprosencephaly"), ("PTCH1", "holoprosencephaly"), ("TP53", "breast cancer")]
RECORDS = [
    PubMedRecord("1001", "SHH mutations in holoprosencephaly", "Loss of SHH signalling causes holoprosencephaly."),
    PubMedRecord("1002", "PTCH1 and holoprosencephaly", "PTCH1 variants were found in holoprosencephaly cases."),
    PubMedRecord("1003", "TP53 in breast cancer", "TP53 is the most frequently mutated gene in breast cancer."),
]


@pytest.fixture(scope="module")
def toy_workspace(tmp_path_factory):
    """A workspace of the toy graph format, embedded with the toy embedder, holding three abstracts."""
    ws = Workspace.create(tmp_path_factory.mktemp("toy") / "ws", graph=load_toy(PAIRS), embedder=HashingEmbedder(),
                          settings=Settings(progress=False))
    ws.ingest(RECORDS)
    yield ws
    ws.close()


@pytest.fixture
def toy_agent():
    spec = register_agent(AgentSpec("gene_disease", GeneDiseaseAgent, GeneDiseaseReport, GeneDiseaseEvent,
                                    gene_disease_route, heading="From gene-disease associations"))
    yield spec
    unregister_agent(spec.name)


# --- graph profiles -----------------------------------------------------------------------------------------
def test_profiles_are_found_through_the_schema_name():
    assert HETIONET_SCHEMA.profile is HETIONET_PROFILE
    assert profile_for("kgx") is KGX_PROFILE and profile_for("toy") is TOY_PROFILE
    unknown = profile_for("never-registered")
    assert unknown.name == "never-registered" and unknown.display_name == "NEVER-REGISTERED graph"
    assert unknown.lists_agent("phenotype") and not HETIONET_PROFILE.lists_agent("phenotype")
    # kind priors for linking/retrieval: a disease reading beats a same-named side effect on Hetionet
    assert HETIONET_PROFILE.kind_prior("Disease") > HETIONET_PROFILE.kind_prior("Side Effect") > 0
    assert unknown.kind_prior("Disease") == 0.0
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        type(TOY_PROFILE)(name="bad", kind_priors={"Gene": 2.0})


def test_toy_graph_format_runs_end_to_end(toy_workspace):
    """A new graph format (tests/toys/toy_graph.py: loader + profile + one registration line) loads, retrieves and is
    named by its profile: nothing else in engram-kit was touched."""
    manifest = toy_workspace.manifest["knowledge_graph"]
    assert manifest["schema"] == "toy" and manifest["n_edges"] == 3
    assert toy_workspace.store.schema.profile is TOY_PROFILE
    result = toy_workspace.retrieve("What is known about SHH in holoprosencephaly?", top_k=2)
    assert [e.node_id for e in result.entities][:2] == ["Gene::SHH", "Disease::holoprosencephaly"]
    assert result.passages[0].citation in {"PMID:1001", "PMID:1002"}
    edges = result.edge_evidence()
    assert any(e.source == "Gene::SHH" and e.target == "Disease::holoprosencephaly" for e in edges)
    # edge label = predicate (profile.edge_label), provenance from the stored column
    shown = {e["data"]["label"] for e in result.to_cytoscape()["edges"]}
    assert "toy:associates_with" in shown
    assert {e.primary_knowledge_source for e in edges} == {"toy:curation"}


def test_routing_follows_the_profile_on_the_toy_graph(toy_workspace):
    schema = toy_workspace.store.schema
    shh = ResolvedEntity("SHH", 0, 3, "Gene::SHH", "SHH", "Gene", 1.0, "exact", 1.0)
    decision = route("Which drugs target SHH?", [shh], schema=schema, graph_name="Toy associations")
    listed = [r.agent for r in decision.routes]
    assert "phenotype" not in listed  # unlisted by the toy profile
    assert decision.route("drug").reasons[0].startswith("not applicable to a Toy associations graph (no Compound")
    assert decision.agents == ["literature", "synthesis"]


def test_toy_embedder_is_used_for_ingest_and_retrieval(toy_workspace):
    """A new embedder (tests/toys/toy_embedder.py) is passed to Workspace.create; passages are embedded with it."""
    assert toy_workspace.embedder.name == HashingEmbedder.name
    assert toy_workspace.vectors.dimension == HashingEmbedder.dimension
    hits = toy_workspace.retrieve("TP53 mutated in breast cancer", top_k=1).passages
    assert hits[0].citation == "PMID:1003"


# --- agent registry -----------------------------------------------------------------------------------------
def test_toy_agent_is_routed_run_collected_and_synthesised(toy_workspace, toy_agent):
    """A new agent (tests/toys/toy_agent.py + the one register_agent line of the fixture) is routed, run, kept in
    the result, cited in the claims frame and the run's Markdown, and merged by synthesis under its heading."""
    result = Investigator(toy_workspace).run("Which diseases is SHH associated with?")
    assert result.routing.route("gene_disease").runs
    report = result.report("gene_disease")
    assert isinstance(report, GeneDiseaseReport) and result.gene_disease is report
    assert [c.text for c in report.findings] == ["SHH is associated with holoprosencephaly"]
    assert report.findings[0].citations[0].ref == "Gene::SHH -[ASSOCIATES_WITH]-> Disease::holoprosencephaly"
    frame = result.claims_frame()
    assert (frame["agent"] == "gene_disease").sum() == 1
    assert "**Gene_disease agent**" in result.to_markdown()
    assert "From gene-disease associations" in result.synthesis.text
    assert json.loads(json.dumps(result.to_dict(), default=str))["reports"]["gene_disease"]["findings"]
    types = [e.type for e in Investigator(toy_workspace).iter_events("Which diseases is SHH associated with?")]
    assert "gene_disease" in types and types[-1] == "agents_done"


def test_agent_registry_rejects_reserved_and_duplicate_names(toy_agent):
    with pytest.raises(EngramError, match="reserved"):
        register_agent(AgentSpec("synthesis", GeneDiseaseAgent, GeneDiseaseReport, GeneDiseaseEvent,
                                 gene_disease_route))
    with pytest.raises(EngramError, match="already registered"):
        register_agent(toy_agent)


def test_injected_unregistered_agent_report_is_kept(toy_workspace):
    """Investigator(agents=...) with a name the registry does not know: its report is no longer dropped."""
    result = Investigator(toy_workspace, agents={"adhoc": GeneDiseaseAgent()}).run("SHH in holoprosencephaly?")
    assert result.report("adhoc").findings and ("adhoc", result.report("adhoc").findings[0]) in result.agent_claims()


# --- settings ----------------------------------------------------------------------------------------------
def test_settings_sections_round_trip_and_read_old_flat_manifests(toy_workspace):
    stored = toy_workspace.manifest["settings"]
    assert set(stored) <= set(SECTIONS) and stored["retrieval"]["damping"] == 0.5
    assert Settings.from_dict(stored) == toy_workspace.settings
    old = {"damping": 0.7, "top_k": 5, "batch_size": 8, "some_future_key": 1}  # manifest before sections
    settings = Settings.from_dict(old)
    assert (settings.damping, settings.retrieval.top_k, settings.ingestion.batch_size) == (0.7, 5, 8)
    settings.memory.memory_seed_weight = 0.25
    assert settings.memory_seed_weight == 0.25
    with pytest.raises(DataError, match=r"memory_half_life_turns=0 is out of range: use a value in > 0"):
        Settings(memory_half_life_turns=0)
    table = Settings.describe()
    assert {"section", "unit", "range", "source", "help"} <= set(table.columns)
    assert (table["help"] != "").all() and (table["source"] != "").all()


def test_session_takes_memory_settings_from_the_workspace(toy_workspace):
    toy_workspace.settings.memory_seed_weight = 0.2
    try:
        assert toy_workspace.session().memory_weight == 0.2
    finally:
        toy_workspace.settings.memory_seed_weight = 0.5


def test_document_metadata_has_defaults():
    """Bug: DocumentMetadata() raised TypeError (MetadataField has no default value)."""
    assert DocumentMetadata().title.value == ""


def test_one_sentence_splitter_with_offsets():
    """engram_kit.text is the one splitter: offsets index the input; abbreviations such as i.v. and b.i.d. do not end
    a sentence (spaCy's sentencizer, used before by extractive answers, split there); line_breaks picks whether a
    single newline ends a sentence (abstracts) or only a blank line (wrapped PDF text)."""
    from engram_kit.answering.extractive import answer_sentences
    from engram_kit.text import sentence_spans, split_sentences

    text = "Blood pressure effects of i.v. levodopa were examined.\nDiltiazem (60 mg b.i.d.) was added. Et al. agree."
    sentences = split_sentences(text)
    assert [s.text for s in sentences] == ["Blood pressure effects of i.v. levodopa were examined.",
                                           "Diltiazem (60 mg b.i.d.) was added.", "Et al. agree."]
    assert all(text[s.start:s.end] == s.text for s in sentences)
    assert answer_sentences(text)[0].startswith("Blood pressure effects of i.v. levodopa")
    wrapped = "A sentence that wraps\nacross two lines. Next one.\n\nNew paragraph"
    assert [wrapped[s:e] for s, e in sentence_spans(wrapped, line_breaks="blank")] == [
        "A sentence that wraps\nacross two lines.", "Next one.", "New paragraph"]
    assert len(sentence_spans(wrapped)) == 4  # a newline ends a sentence by default
    with pytest.raises(ValueError, match="line_breaks"):
        split_sentences(text, line_breaks="never")  # type: ignore[arg-type]
    # the token before a period is read back to the previous white space only (issue 18: the whole prefix was
    # rescanned for every period): an abbreviation or initial at the very start, after brackets, or after a line
    # break is still one
    assert split_sentences("e.g. this one. J. Smith wrote it.\n(Fig. 2) shows it. Done.")[0].text == "e.g. this one."
    assert [s.text for s in split_sentences("e.g. this one. J. Smith wrote it.\n(Fig. 2) shows it. Done.")] == [
        "e.g. this one.", "J. Smith wrote it.", "(Fig. 2) shows it.", "Done."]
