"""Run bundles: one investigation as a self-contained JSON artifact, replayable offline.

A bundle holds the question; the workspace settings and agent options; data and model versions from the
workspace manifest (knowledge graph name, version and size, embedding model, literature version,
engram-kit version); the resolved entities and PPR seeds (question seeds and session-memory seeds);
every graph query the agents ran with its rows; the LLM cassette (when an LLM was used through
:class:`~engram_kit.llm.RecordingLLM` or :class:`~engram_kit.llm.ReplayLLM`); the answer as Markdown;
and every claim with its citations. :func:`engram_kit.runs.replay` re-runs it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from engram_kit.files import write_atomic
from engram_kit.version import __version__
from engram_kit.errors import DataError

if TYPE_CHECKING:
    from engram_kit.agents.investigate import InvestigationResult
    from engram_kit.workspace import Workspace

#: Bumped when the bundle layout changes incompatibly.
BUNDLE_FORMAT = "engram-run-bundle"
BUNDLE_VERSION = 1


def workspace_versions(workspace: Workspace) -> dict[str, Any]:
    """Data and model versions of a workspace, from its manifest (what a replay must match)."""
    manifest = workspace.manifest
    kg = manifest.get("knowledge_graph", {})
    return {
        "engram_kit": __version__, "workspace_engram_kit": manifest.get("engram_kit_version"),
        "knowledge_graph": {k: kg.get(k) for k in ("name", "version", "n_nodes", "n_edges")},
        "embedding_model": manifest.get("embedding_model", {}),
        "literature_version": manifest.get("literature_version", 0),
    }


def cassette_of(llm: Any) -> dict[str, Any] | None:
    """The cassette (JSON dict) of a recording or replaying LLM; None for any other provider."""
    cassette = getattr(llm, "cassette", None)
    return cassette.to_dict() if cassette is not None and hasattr(cassette, "to_dict") else None


@dataclass
class RunBundle:
    """One investigation as JSON (see the module docstring). Build with :meth:`from_result`."""

    question: str
    settings: dict[str, Any]
    options: dict[str, Any]
    versions: dict[str, Any]
    entities: list[dict[str, Any]]
    unresolved: list[str]
    routing: dict[str, Any]
    seeds: dict[str, float]
    memory_seeds: dict[str, float]
    memory_entities: list[dict[str, Any]]
    queries: list[dict[str, Any]]
    passages: list[dict[str, Any]]
    llm: dict[str, Any] | None
    answer: str
    claims: list[dict[str, Any]]
    synthesis: dict[str, Any] | None
    errors: list[dict[str, Any]]
    timings: dict[str, float]
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    format: str = BUNDLE_FORMAT
    version: int = BUNDLE_VERSION

    @classmethod
    def from_result(cls, result: InvestigationResult, workspace: Workspace, *, llm: Any = None) -> RunBundle:
        """Bundle an investigation. ``llm``: the provider used (its cassette is embedded when it has one).

        Raises
        ------
        DataError
            If an LLM was used but has no cassette (wrap it in ``RecordingLLM`` to make the run replayable).
        """
        llm_part = None
        if result.llm is not None:
            cassette = cassette_of(llm)
            if cassette is None:
                raise DataError(f"The run used the LLM {result.llm!r} without recording it, so it cannot be replayed; "
                                "pass llm=RecordingLLM(inner, 'run.cassette.json') to the investigation.")
            llm_part = {"name": result.llm, "cassette": cassette}
        passages = []
        literature = result.report("literature")
        if literature is not None:
            passages = [{"rank": p.rank, "passage_id": p.passage_id, "citation": p.citation, "score": round(p.score, 6)}
                        for p in literature.retrieval.passages]
        return cls(
            question=result.question, settings=workspace.settings.to_dict(), options=result.options.to_dict(),
            versions=workspace_versions(workspace), entities=[asdict(e) for e in result.entities],
            unresolved=list(result.unresolved), routing=result.routing.to_dict(),
            seeds={e.node_id: e.seed_weight for e in result.entities}, memory_seeds=dict(result.memory_seeds),
            memory_entities=[asdict(e) for e in result.memory_entities], queries=[q.to_dict() for q in result.queries],
            passages=passages, llm=llm_part, answer=result.to_markdown(),
            claims=[{"agent": a, "text": c.text, "citations": [asdict(x) for x in c.citations]}
                    for a, c in result.agent_claims()],
            synthesis=result.synthesis.to_dict() if result.synthesis else None,
            errors=[e.to_dict() for e in result.errors], timings=dict(result.timings))

    # --- export ------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, sort_keys=True, ensure_ascii=False, default=str)

    def to_markdown(self) -> str:
        """The answer as Markdown, with a provenance footer (versions, seeds, query count)."""
        kg = self.versions.get("knowledge_graph", {})
        footer = [
            "", "---",
            f"Run of {self.created} · {kg.get('name')} {kg.get('version')} ({kg.get('n_nodes')} nodes, "
            f"{kg.get('n_edges')} edges) · embeddings {self.versions.get('embedding_model', {}).get('name')} · "
            f"literature v{self.versions.get('literature_version')} · engram-kit {self.versions.get('engram_kit')}",
            f"PPR seeds: {', '.join(f'{k} ({v:.2f})' for k, v in self.seeds.items()) or 'none'}"
            + (f"; memory seeds: {', '.join(f'{k} ({v:.2f})' for k, v in self.memory_seeds.items())}"
               if self.memory_seeds else ""),
            f"{len(self.queries)} graph queries; LLM: {self.llm['name'] if self.llm else 'none (offline)'}",
        ]
        return self.answer + "\n" + "\n".join(footer)

    def claims_frame(self) -> pd.DataFrame:
        rows = [{"agent": c["agent"], "claim": c["text"], "kind": x["kind"], "label": x["label"], "ref": x["ref"]}
                for c in self.claims for x in c["citations"]]
        return pd.DataFrame(rows, columns=["agent", "claim", "kind", "label", "ref"])

    def queries_frame(self) -> pd.DataFrame:
        rows = [{k: q[k] for k in ("id", "agent", "statement", "n_rows", "truncated", "seconds")} for q in self.queries]
        return pd.DataFrame(rows, columns=["id", "agent", "statement", "n_rows", "truncated", "seconds"])

    def save(self, path: str | Path) -> Path:
        """Write the bundle as JSON (atomic rename); returns the path."""
        return write_atomic(path, self.to_json())

    @classmethod
    def load(cls, path: str | Path) -> RunBundle:
        """Read a bundle written by :meth:`save`.

        Raises
        ------
        DataError
            If the file is not JSON, not a run bundle, or of an unsupported version.
        """
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DataError(f"Cannot read the run bundle {path}: {exc}.") from exc
        if data.get("format") != BUNDLE_FORMAT or data.get("version") != BUNDLE_VERSION:
            raise DataError(f"{path} is not an engram-kit run bundle of version {BUNDLE_VERSION} "
                            f"(format={data.get('format')!r}, version={data.get('version')!r}); re-run and save it again.")
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})
