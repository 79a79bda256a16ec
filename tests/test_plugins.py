"""The one registry mechanism (:mod:`engram_kit.plugins`, issue 33): a toy entry per kind in one line each, shown by the
CLI; unknown and duplicate names; lazy entries; outside packages registering through entry points.

The entry-point tests build their distributions in ``tmp_path`` (a ``*.dist-info`` folder with ``entry_points.txt``,
and a tiny package installed by ``pip install --target``, offline) and put them on ``sys.path``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from engram_kit import plugins
from engram_kit.agents.builtin import LITERATURE
from engram_kit.cli import build_parser, main
from engram_kit.errors import EngramError
from engram_kit.extraction.ner import NerBackend, TermTagger, load_ner
from engram_kit.llm.factory import build_llm
from engram_kit.llm.offline import OfflineLLM
from engram_kit.plugins import PluginError
from engram_kit.store import vector_kinds
from engram_kit.store.registry import LADYBUG, StoreBackend
from engram_kit.store.vector_kinds import LOCAL, VectorKind

REPO = Path(__file__).resolve().parents[1]
#: Modules listing the plugins must not import (as tests/test_latency.py: spaCy, torch, sklearn, onnxruntime,
#: chromadb...), plus the plugin modules of the built-in entries.
HEAVY = ("spacy", "scispacy", "thinc", "torch", "sklearn", "onnxruntime", "chromadb", "sentence_transformers",
         "transformers", "anthropic", "numpy", "engram_kit.embeddings.minilm", "engram_kit.store.ladybug",
         "engram_kit.agents.builtin", "engram_kit.llm.anthropic_llm")


class _ToyLLM(OfflineLLM):
    """An LLM provider of the toy kind: the offline one under another class."""


@pytest.fixture
def toys() -> Iterator[dict[str, str]]:
    """One toy entry per kind, each registered in one line; removed afterwards."""
    names = {kind: f"toy-{kind}" for kind in plugins.REGISTRIES}
    names["agents"] = "toy_agent"  # agent names are identifiers
    plugins.formats.register_lazy(names["formats"], "toy_format_never_imported:FORMAT", description="toy format")
    plugins.backends.register(names["backends"], StoreBackend(names["backends"], LADYBUG.create, LADYBUG.reopen),
                              description="toy backend")
    plugins.embedders.register_lazy(names["embedders"], "toy_embedder:ToyHashEmbedder", description="toy embedder")
    plugins.agents.register(names["agents"], replace(LITERATURE, name=names["agents"]), description="toy agent")
    plugins.ner.register(names["ner"], NerBackend(lambda: TermTagger({"SHH": "Gene"})), description="toy tagger")
    plugins.llm.register(names["llm"], lambda *, model=None, cassette=None: _ToyLLM(), description="toy provider")
    plugins.vectors.register(names["vectors"], VectorKind(names["vectors"], LOCAL.new_entry, LOCAL.open),
                             description="toy vector store")
    yield names
    for kind, name in names.items():
        plugins.REGISTRIES[kind].unregister(name)


def _help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        main(argv)
    return capsys.readouterr().out


# --- one toy per kind, listed by the CLI ---------------------------------------------------------------------------
def test_a_toy_of_every_kind_is_listed_by_engram_plugins(toys: dict[str, str], capsys: pytest.CaptureFixture[str]):
    assert main(["plugins", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert set(table) == {"formats", "backends", "embedders", "agents", "ner", "llm", "vectors"}
    for kind, name in toys.items():
        assert name in table[kind], kind
        assert table[kind][name].startswith("toy "), kind
    assert table["backends"]["ladybug"] and list(table["llm"])[:2] == ["none", "offline"]
    assert main(["plugins", "agents"]) == 0
    out = capsys.readouterr().out
    assert "agents (entry-point group engram_kit.agents):" in out and "  toy_agent   toy agent\n" in out
    assert "llm (entry-point group" not in out  # only the kind asked for


def test_the_cli_choices_come_from_the_registries(toys: dict[str, str], capsys: pytest.CaptureFixture[str]):
    init_help = _help(["init", "--help"], capsys)
    assert "toy-backends" in init_help and "toy backend" in init_help  # --backend choices and help
    assert "toy-vectors" in init_help and "toy-embedders" in init_help
    assert "toy-llm" in _help(["desk", "--help"], capsys) and "toy-llm" in _help(["investigate", "--help"], capsys)
    args = build_parser().parse_args(["init", "--backend", toys["backends"], "--vectors", toys["vectors"]])
    assert (args.backend, args.vectors) == (toys["backends"], toys["vectors"])
    assert build_parser().parse_args(["desk", "q", "--llm", toys["llm"]]).llm == toys["llm"]
    with pytest.raises(SystemExit):
        build_parser().parse_args(["desk", "q", "--llm", "no-such-llm"])
    assert "invalid choice: 'no-such-llm'" in capsys.readouterr().err


def test_the_toys_are_what_their_consumers_build(toys: dict[str, str]):
    assert isinstance(build_llm(toys["llm"]), _ToyLLM)
    tagger = load_ner(toys["ner"])
    assert tagger is not None and tagger.spans("SHH binds PTCH1.") == [(0, 3, "Gene")]
    kind, options = vector_kinds.choose(toys["vectors"])
    assert kind.name == toys["vectors"] and options is None
    assert plugins.backends.get(toys["backends"]).create is LADYBUG.create
    from engram_kit.agents.registry import agent_names, agent_spec

    assert toys["agents"] in agent_names() and agent_spec(toys["agents"]).order == LITERATURE.order


# --- errors --------------------------------------------------------------------------------------------------------
def test_an_unknown_name_is_refused_naming_the_registered_ones():
    with pytest.raises(PluginError, match=r"Unknown store backend 'postgres'; use one of ladybug, neo4j") as caught:
        plugins.backends.get("postgres")
    assert isinstance(caught.value, EngramError) and isinstance(caught.value, LookupError)
    with pytest.raises(PluginError, match="Unknown LLM provider 'gpt'; use one of none, offline, anthropic"):
        build_llm("gpt")
    with pytest.raises(PluginError, match="Unknown vector store 'pinecone'"):
        plugins.vectors.get("pinecone")


def test_a_duplicate_name_is_refused_unless_replace(toys: dict[str, str]):
    first = plugins.llm.get(toys["llm"])
    with pytest.raises(PluginError, match=r"LLM provider named 'toy-llm' is already registered.*replace=True"):
        plugins.llm.register(toys["llm"], lambda **_: None)
    assert plugins.llm.get(toys["llm"]) is first
    second = plugins.llm.register(toys["llm"], lambda **_: None, description="replaced", replace=True)
    assert plugins.llm.get(toys["llm"]) is second and plugins.llm.describe(toys["llm"]) == "replaced"
    assert plugins.llm.names().count(toys["llm"]) == 1
    # NER used to overwrite silently
    with pytest.raises(PluginError, match="already registered"):
        plugins.ner.register("bc5cdr-terms", NerBackend(lambda: TermTagger({})))
    with pytest.raises(PluginError, match="already registered"):
        plugins.ner.register_lazy("bc5cdr-cnn", "x:y")


def test_reserved_names_bad_names_and_wrong_objects_are_refused():
    with pytest.raises(PluginError, match="'synthesis' is reserved"):
        plugins.agents.register("synthesis", LITERATURE)
    with pytest.raises(PluginError, match="no spaces"):
        plugins.llm.register("my llm", lambda **_: None)
    with pytest.raises(PluginError, match="must be a StoreBackend named 'other'"):
        plugins.backends.register("other", LADYBUG)  # the name recorded in manifests would differ
    with pytest.raises(PluginError, match="must be a NerBackend"):
        plugins.ner.register("bare-function", load_ner)
    assert "other" not in plugins.backends and "bare-function" not in plugins.ner
    with pytest.raises(PluginError, match='must be "module:attribute"'):
        plugins.llm.register_lazy("no-colon", "engram_kit.llm.factory")


def test_an_unknown_backend_is_refused_before_an_old_workspace_is_replaced(tmp_path: Path):
    from engram_kit.workspace import Workspace

    old = tmp_path / "old"
    old.mkdir()
    (old / "manifest.json").write_text('{"kept": true}')
    with pytest.raises(PluginError, match="Unknown store backend 'postgres'"):
        Workspace.create(old, graph="hetionet", backend="postgres", overwrite=True)
    assert (old / "manifest.json").read_text() == '{"kept": true}'


# --- lazy entries --------------------------------------------------------------------------------------------------
def test_a_lazy_entry_is_imported_on_first_get_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "lazy_toy_provider.py").write_text("LOADED = True\ndef make(*, model=None, cassette=None):\n"
                                                   "    return 'lazy toy'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.llm.register_lazy("lazy-toy", "lazy_toy_provider:make", description="imported on use")
    try:
        assert "lazy-toy" in plugins.llm.names() and plugins.llm.describe("lazy-toy") == "imported on use"
        assert "lazy_toy_provider" not in sys.modules
        assert build_llm("lazy-toy") == "lazy toy"  # type: ignore[comparison-overlap]
        assert "lazy_toy_provider" in sys.modules
        plugins.llm.register_lazy("lazy-broken", "lazy_toy_provider:missing")
        with pytest.raises(PluginError, match="Cannot load plugin 'lazy_toy_provider:missing'"):
            plugins.llm.get("lazy-broken")
    finally:
        plugins.llm.unregister("lazy-toy")
        plugins.llm.unregister("lazy-broken")
        sys.modules.pop("lazy_toy_provider", None)


def test_listing_the_plugins_imports_no_plugin_module():
    """`engram plugins` and `engram --help` in a fresh interpreter: the built-in entries are names and paths."""
    code = textwrap.dedent(f"""
        import contextlib, io, json, sys
        from engram_kit.cli import main
        with contextlib.redirect_stdout(io.StringIO()) as out:
            status = main(["plugins"])
            try:
                main(["init", "--help"])
            except SystemExit:
                pass
        print(json.dumps([status, "minilm-onnx-int8" in out.getvalue(),
                          sorted(m for m in {HEAVY!r} if m in sys.modules)]))
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH", "")]))}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [0, True, []]


# --- outside packages: entry points --------------------------------------------------------------------------------
def _distribution(root: Path, name: str, module: str, source: str, entry_points: str) -> None:
    """A distribution as an installer leaves it: the module and a ``<name>-0.1.dist-info`` beside it."""
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))


def test_an_outside_distribution_registers_through_entry_points(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]):
    _distribution(tmp_path, "engram_outside", "engram_outside", """
        from engram_kit.extraction.ner import NerBackend, TermTagger

        def make_llm(*, model=None, cassette=None):
            return "outside llm"

        TAGGER = NerBackend(lambda: TermTagger({"BACE1": "Gene"}))
        """, """
        [engram_kit.llm]
        outside-llm = engram_outside:make_llm

        [engram_kit.ner]
        outside-terms = engram_outside:TAGGER

        [engram_kit.embedders]
        outside-broken = engram_outside_missing:Embedder
        """)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert "outside-llm" in plugins.llm.names() and "outside-terms" in plugins.ner.names()
        assert "engram_outside" not in sys.modules  # listed from the metadata, not imported
        assert build_llm("outside-llm") == "outside llm"  # type: ignore[comparison-overlap]
        tagger = load_ner("outside-terms")
        assert tagger is not None and tagger.spans("BACE1 cleaves APP.") == [(0, 5, "Gene")]
        assert main(["plugins", "--json"]) == 0
        table = json.loads(capsys.readouterr().out)
        assert "outside-llm" in table["llm"] and "outside-broken" in table["embedders"]
        assert "outside-llm" in _help(["desk", "--help"], capsys)
        with pytest.raises(PluginError, match="'outside-broken' from entry point 'engram_outside_missing:Embedder' "
                                              "failed to load"):
            plugins.embedders.get("outside-broken")
    finally:
        plugins.llm.unregister("outside-llm")
        plugins.ner.unregister("outside-terms")
        sys.modules.pop("engram_outside", None)
    monkeypatch.undo()
    assert "outside-llm" not in plugins.llm.names()  # gone with its distribution


def test_a_pip_installed_package_registers_through_an_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A real install (``pip install --target``, no network, no build isolation) of a package whose pyproject.toml
    declares ``[project.entry-points."engram_kit.vectors"]``."""
    source = tmp_path / "src"
    (source / "src").mkdir(parents=True)
    (source / "pyproject.toml").write_text(textwrap.dedent("""
        [build-system]
        requires = ["setuptools"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "engram-toy-vectors"
        version = "0.1"

        [project.entry-points."engram_kit.vectors"]
        toy-installed = "engram_toy_vectors:KIND"

        [tool.setuptools]
        py-modules = ["engram_toy_vectors"]
        package-dir = {"" = "src"}
        """))
    (source / "src" / "engram_toy_vectors.py").write_text(textwrap.dedent("""
        from engram_kit.store.vector_kinds import LOCAL, VectorKind

        KIND = VectorKind("toy-installed", LOCAL.new_entry, LOCAL.open, in_folder=True)
        """))
    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                           "--no-build-isolation", "--target", str(target), str(source)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert (target / "engram_toy_vectors-0.1.dist-info" / "entry_points.txt").is_file()
    monkeypatch.syspath_prepend(str(target))
    try:
        assert "toy-installed" in plugins.vectors.names()
        kind, _ = vector_kinds.choose("toy-installed")
        assert kind.name == "toy-installed" and kind.in_folder
        entry, _ = kind.new_entry(tmp_path / "ws", None)
        assert entry == {"collection": "passages"}
    finally:
        plugins.vectors.unregister("toy-installed")
        sys.modules.pop("engram_toy_vectors", None)
