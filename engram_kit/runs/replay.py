"""Replay a run bundle: re-run the investigation with the recorded inputs, offline.

The replay uses the bundle's agent options and memory seeds, and, when the run used an LLM, a
:class:`~engram_kit.llm.ReplayLLM` over the bundle's cassette (no key, no network; an unrecorded
request fails loudly). The reproduced answer is compared with the recorded one, claim by claim.
Version differences between the bundle and the workspace (knowledge graph, embedding model,
literature) are reported, since they can legitimately change the answer.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engram_kit.errors import LLMError
from engram_kit.runs.bundle import RunBundle, workspace_versions

if TYPE_CHECKING:
    from engram_kit.agents.investigate import InvestigationResult
    from engram_kit.workspace import Workspace


@dataclass
class ReplayResult:
    """Outcome of :func:`replay`: the new bundle, whether the answer matches, and what differs."""

    original: RunBundle
    replayed: RunBundle
    result: InvestigationResult
    version_differences: list[str] = field(default_factory=list)
    claim_differences: list[str] = field(default_factory=list)

    @property
    def matches(self) -> bool:
        """True when the replayed claims (text and citations) equal the recorded ones."""
        return not self.claim_differences

    def to_dict(self) -> dict[str, object]:
        return {"matches": self.matches, "version_differences": self.version_differences,
                "claim_differences": self.claim_differences}


def _claim_keys(bundle: RunBundle) -> list[str]:
    return [f"{c['agent']}: {c['text']} <- " + "; ".join(x["ref"] for x in c["citations"]) for c in bundle.claims]


def replay(bundle: RunBundle | str | Path, workspace: Workspace) -> ReplayResult:
    """Re-run a bundle's question on ``workspace`` offline and compare the answer.

    Parameters
    ----------
    bundle : a :class:`RunBundle` or the path of a saved one.
    workspace : the workspace to replay on (normally the one that produced the bundle).

    Raises
    ------
    DataError
        If the bundle file cannot be read.
    LLMError
        If the run used an LLM and replay sends a request the cassette does not hold.
    """
    from engram_kit.agents.investigate import Investigator
    from engram_kit.agents.options import AgentOptions
    from engram_kit.retrieval.results import ResolvedEntity

    original = bundle if isinstance(bundle, RunBundle) else RunBundle.load(bundle)
    differences = []
    now = workspace_versions(workspace)
    for key in ("knowledge_graph", "embedding_model", "literature_version"):
        if original.versions.get(key) != now.get(key):
            differences.append(f"{key}: bundle {original.versions.get(key)!r}, workspace {now.get(key)!r}")
    llm = None
    with tempfile.TemporaryDirectory(prefix="engram-replay-") as tmp:
        if original.llm is not None:
            from engram_kit.llm import ReplayLLM

            cassette = Path(tmp) / "cassette.json"
            cassette.write_text(json.dumps(original.llm["cassette"]), encoding="utf-8")
            llm = ReplayLLM(cassette)
        memory_entities = [ResolvedEntity(**e) for e in original.memory_entities]
        investigator = Investigator(workspace, llm=llm, options=AgentOptions.from_dict(original.options))
        result = investigator.run(original.question, memory_seeds=original.memory_seeds,
                                  memory_entities=memory_entities)
        unrecorded = [e for e in result.errors if e.error_type == "LLMError"]
        if unrecorded:  # an agent asked the cassette something it never recorded: the run is not reproducible
            raise LLMError(f"Replay of {original.question!r} failed in the {unrecorded[0].agent} agent: "
                           f"{unrecorded[0].message}")
        replayed = RunBundle.from_result(result, workspace, llm=llm)
    before, after = _claim_keys(original), _claim_keys(replayed)
    claim_differences = [f"missing: {k}" for k in before if k not in after] + [f"new: {k}" for k in after if k not in before]
    return ReplayResult(original, replayed, result, differences, claim_differences)
