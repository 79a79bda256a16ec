"""engram-kit: a notebook-first research workbench for biomedical GraphRAG.

Load a curated knowledge graph (Hetionet v1.0), add literature, ask questions: entities in the question
seed Personalized PageRank over graph + literature, passages are ranked by a blend of PPR and semantic
similarity, and the answer cites every claim. Start with :class:`engram_kit.Workspace`.
"""

from __future__ import annotations

from engram_kit.version import __version__

from engram_kit.errors import EngramError
from engram_kit.settings import Settings

__all__ = ["EngramError", "Settings", "Workspace", "__version__"]


def __getattr__(name: str):  # lazy import keeps `import engram_kit` light
    if name == "Workspace":
        from engram_kit.workspace import Workspace

        return Workspace
    raise AttributeError(name)
