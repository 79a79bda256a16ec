"""`engram map` prints names first and keeps ids in a column (issue 34.11: rows began with raw ids such as
``np:Unlinked:amp activated protein kinase``)."""

from __future__ import annotations

import textwrap

import pandas as pd

from engram_kit.cli import main


def _table(out: str, heading: str) -> list[str]:
    lines = out.split(heading, 1)[1].splitlines()[1:]
    return lines[:lines.index("")] if "" in lines else lines


def test_map_tables_lead_with_names_and_end_with_ids(workspace_path, workspace, tmp_path, capsys) -> None:
    assert main(["map", "-w", str(workspace_path), "--min-occurrence", "2", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    nodes = pd.read_csv(tmp_path / "nodes.csv").head(10)
    table = _table(out, "Top betweenness (bridging entities):")
    assert table[0].split()[0] == "name" and table[0].split()[-1] == "id"
    assert len(table) == 1 + len(nodes)
    for line, row in zip(table[1:], nodes.itertuples(index=False)):
        assert line.strip().startswith(textwrap.shorten(row.name, 40, placeholder="...")), line
        assert line.endswith(row.id), line
        assert not line.strip().startswith(("np:", row.id))
    edges = pd.read_csv(tmp_path / "edges.csv")
    new = edges[edges["kg_status"] == "new in literature"].head(10)
    assert len(new) > 0  # the sample's abstracts co-mention entities Hetionet does not connect
    table = _table(out, "New in the literature")
    assert table[0].split() == ["source_name", "target_name", "sentences", "weight", "source", "target"]
    for line, row in zip(table[1:], new.itertuples(index=False)):
        assert line.strip().startswith(textwrap.shorten(row.source_name, 40, placeholder="...")), line
        assert line.endswith(row.target) and f" {row.source} " in line, line
