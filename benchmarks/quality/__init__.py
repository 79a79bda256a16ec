"""Quality harness of issue 7: measured entity recognition, linking, retrieval and repurposing.

Run ``python -m benchmarks.quality --study ner|retrieval|ppr|repurposing|all [--quick]``. Each study is
a function ``run(options: StudyOptions) -> StudyResult`` in a module of this package that writes a
Markdown report (and PNG plots) into ``benchmarks/results/``.

Adding a study is one registration: write ``run`` in ``benchmarks/quality/<name>.py`` and set its
``target`` in :data:`STUDIES` to ``"benchmarks.quality.<name>:run"``. Studies are imported only when run,
so a heavy study's dependencies never slow another one down.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.quality.common import StudyOptions, StudyResult


@dataclass(frozen=True)
class Study:
    """A registered study.

    Attributes
    ----------
    name : str
        Name on the command line.
    description : str
        One line for ``--help``.
    target : str or None
        ``"module:function"`` of the study's ``run(options) -> StudyResult``; None while not implemented.
    """

    name: str
    description: str
    target: str | None = None

    @property
    def implemented(self) -> bool:
        return self.target is not None

    def load(self) -> Callable[[StudyOptions], StudyResult]:
        """Import and return the study's ``run`` function (raises NotImplementedError when not implemented)."""
        if self.target is None:
            raise NotImplementedError(f"study {self.name!r} is not yet implemented in this harness version")
        module, _, function = self.target.partition(":")
        return getattr(importlib.import_module(module), function)


#: All studies, in the order ``--study all`` runs them.
STUDIES: dict[str, Study] = {
    s.name: s
    for s in (
        Study("ner", "entity recognition and linking on BC5CDR and NCBI-disease (issue 7, item 1)",
              "benchmarks.quality.ner:run"),
        Study("retrieval", "retrieval on PubMedQA: BM25, dense, PPR, blend and ablations (issue 7, item 2)",
              "benchmarks.quality.retrieval:run"),
        Study("bioasq", "retrieval on BioASQ 12b dev: default vs dense, BM25, fusion, ablations (issue 13)",
              "benchmarks.quality.bioasq:run"),
        Study("ppr", "hub drift and PPR diagnostics (issue 7, item 3)", "benchmarks.quality.ppr_diagnostics:run"),
        Study("repurposing", "Hetionet Compound-treats-Disease hold-out ranking vs degree prior (issue 7, item 4)",
              "benchmarks.quality.repurposing:run"),
    )
}

__all__ = ["STUDIES", "Study", "StudyOptions", "StudyResult"]
