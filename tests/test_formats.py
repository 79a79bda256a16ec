"""Graph formats as plugins (issue 33): a format is a loader + a profile registered in ``plugins.formats``; no code
path picks a graph for the caller; the CLI's ``--graph`` choices and ``--option`` names come from the registry."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engram_kit import plugins
from engram_kit.cli import build_parser, main
from engram_kit.errors import DataError, WorkspaceError
from engram_kit.kg.formats import GraphFormat, fixed_schema, get_format, parse_options, register_format
from engram_kit.kg.profiles import GraphProfile, profile_for, register_profile
from engram_kit.kg.schema import HETIONET_SCHEMA
from engram_kit.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]


def test_builtin_formats_are_registered_lazily_with_profile_and_loader():
    assert plugins.formats.names()[:2] == ("hetionet", "kgx")
    hetionet = get_format("hetionet")
    assert isinstance(hetionet, GraphFormat) and hetionet.profile is HETIONET_SCHEMA.profile
    assert hetionet.schema is HETIONET_SCHEMA and fixed_schema("hetionet") is HETIONET_SCHEMA
    assert get_format("kgx").schema is None and fixed_schema("kgx") is None  # derived from the data
    assert "nodes" in get_format("kgx").options
    with pytest.raises(plugins.PluginError, match="hetionet, kgx"):
        get_format("no-such-format")


def test_listing_formats_imports_no_loader():
    code = ("import sys; from engram_kit import plugins; print(plugins.formats.names()); "
            "print(sorted(m for m in ('pandas', 'numpy', 'engram_kit.kg.hetionet', 'engram_kit.kg.kgx') "
            "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    names, imported = done.stdout.strip().splitlines()
    assert "'hetionet', 'kgx'" in names and imported == "[]"


def test_a_format_option_it_does_not_have_is_refused_with_its_list():
    with pytest.raises(DataError, match=r"no option\(s\) \['nodez'\]; its options: nodes"):
        get_format("kgx").load("edges.tsv", options={"nodez": "x"})
    with pytest.raises(DataError, match="needs its edges file"):
        get_format("kgx").load(None)
    assert parse_options(["nodes=a.tsv", "stub_missing=true"]) == {"nodes": "a.tsv", "stub_missing": "true"}
    with pytest.raises(DataError, match="NAME=VALUE"):
        parse_options(["nodes"])


def test_workspace_create_names_the_graph_or_refuses(tmp_path):
    with pytest.raises(WorkspaceError, match="Name the knowledge graph.*hetionet, kgx"):
        Workspace.create(tmp_path / "ws")
    with pytest.raises(plugins.PluginError, match="Unknown graph format 'hetionett'"):
        Workspace.create(tmp_path / "ws", graph="hetionett")
    assert not (tmp_path / "ws").exists()  # refused before anything was written


def test_cli_graph_choices_come_from_the_registry():
    entry = GraphFormat("toyfmt", GraphProfile(name="toyfmt"), description="a toy format for the CLI")
    register_format(entry)
    try:
        init = next(a for a in build_parser()._subparsers._group_actions[0].choices["init"]._actions
                    if a.dest == "graph")
        assert list(init.choices) == list(plugins.formats.names()) and "toyfmt" in init.choices
        assert init.default == "hetionet" and "toyfmt: a toy format for the CLI" in init.help
    finally:
        plugins.formats.unregister("toyfmt")


def test_cli_refuses_an_unknown_option_before_creating(tmp_path, capsys):
    status = main(["init", "-w", str(tmp_path / "ws"), "--graph", "hetionet", "--option", "colour=red"])
    assert status != 0 and "no option(s) ['colour']" in capsys.readouterr().err
    assert not (tmp_path / "ws").exists()


def test_register_profile_is_a_deprecated_alias_for_a_format_without_loader():
    with pytest.warns(DeprecationWarning, match="register a GraphFormat"):
        profile = register_profile(GraphProfile(name="oldstyle", display_name="Old style"))
    try:
        assert profile_for("oldstyle") is profile and "oldstyle" in plugins.formats.names()
        with pytest.raises(DataError, match="registered without a loader"):
            get_format("oldstyle").load(None)
    finally:
        plugins.formats.unregister("oldstyle")
