"""A toy graph format: a two-column "gene<TAB>disease" association list becomes a knowledge graph.

Everything engram-kit needs beyond the schema comes from the profile, registered with the loader as a graph format
on the last line.
"""

from __future__ import annotations

import pandas as pd

from engram_kit.kg.formats import GraphFormat, register_format
from engram_kit.kg.graph import KnowledgeGraph
from engram_kit.kg.loading import LoadReport
from engram_kit.kg.profiles import GraphProfile
from engram_kit.kg.schema import GraphSchema, RelSpec

TOY_SCHEMA = GraphSchema(
    name="toy",
    kinds={"Gene": "Gene", "Disease": "Disease"},
    rel_specs=(RelSpec("ASSOCIATES_WITH", (("Gene", "Disease"),), "toy:associates_with", True),),
    node_properties={"id": "STRING", "name": "STRING", "identifier": "STRING"},
    rel_properties={"primary_knowledge_source": "STRING"},
)


def load_toy(pairs: list[tuple[str, str]], *, name: str = "Toy associations") -> KnowledgeGraph:
    """``[(gene symbol, disease name), ...]`` -> a :class:`KnowledgeGraph` of schema ``"toy"``."""
    genes = sorted({g for g, _ in pairs})
    diseases = sorted({d for _, d in pairs})
    nodes = pd.DataFrame(
        [{"id": f"Gene::{g}", "kind": "Gene", "identifier": g, "name": g} for g in genes]
        + [{"id": f"Disease::{d.replace(' ', '_')}", "kind": "Disease", "identifier": d.replace(" ", "_"), "name": d}
           for d in diseases])
    edges = pd.DataFrame([{"source": f"Gene::{g}", "rel_type": "ASSOCIATES_WITH",
                           "target": f"Disease::{d.replace(' ', '_')}", "primary_knowledge_source": "toy:curation"}
                          for g, d in pairs])
    report = LoadReport(nodes_path=None, edges_path=None, edge_format="toy")  # type: ignore[arg-type]
    return KnowledgeGraph(nodes=nodes, edges=edges, report=report, name=name, version="0", schema=TOY_SCHEMA)


def _load(data, *, name="", release="", options=None, progress=True):
    return load_toy(data, name=name or "Toy associations")


TOY_PROFILE = GraphProfile(
    name="toy", short_name="Toy", display_name="Toy graph", description="a toy association list",
    unlisted_agents=("phenotype",), kind_priors={"Disease": 1.0, "Gene": 0.5})
register_format(GraphFormat("toy", TOY_PROFILE, _load, "a toy association list"), replace=True)
