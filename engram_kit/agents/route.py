"""One agent's routing decision, the type an agent spec's rule returns (:mod:`engram_kit.agents.registry`) and
the router collects (:mod:`engram_kit.agents.routing`); in a module of its own so neither of those two imports
the other for it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Route:
    """One agent's routing decision: whether it runs and the reasons (entity and rule)."""

    agent: str
    runs: bool
    reasons: tuple[str, ...]
