"""Tunable numbers of the agents, with unit, range and the source of each default.

Kept beside the agents rather than in :class:`engram_kit.settings.Settings` because they are
per-investigation choices (a notebook changes them per question), not workspace facts stored in the
manifest. A run bundle records them next to the workspace settings.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from engram_kit.errors import DataError


@dataclass
class AgentOptions:
    """Parameters of routing, the graph agents and synthesis. Every field has a ``help`` text."""

    max_items: int = field(
        default=10, metadata={"help": "Rows shown per agent table (targets, members, candidates), >= 1."})
    max_path_hops: int = field(
        default=3,
        metadata={"help": "Longest shortest path searched between two entities, in edges, 1..4. Hetionet "
                          "has a diameter of ~4 through hub nodes; 3 keeps paths interpretable."})
    max_path_pairs: int = field(
        default=6, metadata={"help": "Entity pairs for which a shortest path is searched, >= 0."})
    disease_seed_share: float = field(
        default=0.5,
        metadata={"help": "Share of the repurposing PPR restart mass on the disease node itself, in (0, 1]; "
                          "the rest is split evenly over its associated genes (DaG edges). 0.5 gives the "
                          "disease and its gene module equal say."})
    repurposing_candidates: int = field(
        default=10, metadata={"help": "Repurposing candidates reported (PPR ranking and degree baseline), >= 1."})
    narrative_paths: int = field(
        default=5, metadata={"help": "Graph paths turned into mechanism-narrative sentences, >= 0."})
    synthesis_findings: int = field(
        default=12, metadata={"help": "Agent findings handed to synthesis (numbered F1..Fn), >= 1."})
    synthesis_max_tokens: int = field(
        default=600, metadata={"help": "Token budget of the LLM synthesis paragraph, >= 64."})
    include_negated: bool = field(
        default=False,
        metadata={"help": "List negated assertions (KGX negated = true) in the phenotype agent's tables and "
                          "findings, flagged and worded 'NOT: ...'. They are never traversed (paths) either way; "
                          "False (default) leaves them out, as PPR does."})

    def __post_init__(self) -> None:
        checks = [
            ("max_items", self.max_items >= 1, "an integer >= 1"),
            ("max_path_hops", 1 <= self.max_path_hops <= 4, "an integer in 1..4"),
            ("max_path_pairs", self.max_path_pairs >= 0, "an integer >= 0"),
            ("disease_seed_share", 0.0 < self.disease_seed_share <= 1.0, "a share in (0, 1]"),
            ("repurposing_candidates", self.repurposing_candidates >= 1, "an integer >= 1"),
            ("narrative_paths", self.narrative_paths >= 0, "an integer >= 0"),
            ("synthesis_findings", self.synthesis_findings >= 1, "an integer >= 1"),
            ("synthesis_max_tokens", self.synthesis_max_tokens >= 64, "an integer >= 64"),
            ("include_negated", isinstance(self.include_negated, bool), "True or False"),
        ]
        for name, ok, expected in checks:
            if not ok:
                raise DataError(f"AgentOptions.{name}={getattr(self, name)!r} is out of range: use {expected}.")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgentOptions:
        """Build from a dict, ignoring unknown keys (bundles written by other versions)."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def describe(cls) -> dict[str, str]:
        """Field name -> help text."""
        return {f.name: f.metadata.get("help", "") for f in fields(cls)}
