"""Find engram-kit's data files: the bundled sample, or a folder the user points at.

Two layouts are recognised under a data root (a folder with ``hetionet/``, ``pubmed/`` and
``synonyms/`` subfolders):

* **bundled** -- the repository's ``data/`` folder (built by ``scripts/make_sample_data.py``): all Hetionet
  nodes, a ~118k-edge neighbourhood sample and ~430 PubMed abstracts. Used by default.
* **shared** -- a fuller development folder (engram-kit's ``shared/data``): the 1.36M-edge partial
  Hetionet and 6,107 abstracts. Only used when the user passes its path (or sets ``ENGRAM_DATA_DIR``);
  nothing in the package requires it.

A folder holding the official release (``download_hetionet``) is recognised too for its Hetionet files.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from engram_kit.errors import DataError

logger = logging.getLogger(__name__)

#: Environment variable that overrides the bundled data folder.
DATA_DIR_ENV = "ENGRAM_DATA_DIR"

#: Candidate paths per data file, relative to the data root, tried in order (bundled, shared, official).
CANDIDATES: dict[str, tuple[str, ...]] = {
    "nodes": (
        "hetionet/hetionet-v1.0-nodes.tsv.gz",
        "hetionet/hetionet-v1.0-nodes.tsv",
    ),
    "edges": (
        "hetionet/hetionet-v1.0-edges-sample.tsv.gz",
        "hetionet/hetionet-v1.0-edges-partial.tsv.gz",
        "hetionet/hetionet-v1.0-edges.sif.gz",
    ),
    "synonyms_dir": ("synonyms",),
    "abstracts": (
        "pubmed/abstracts-sample.jsonl.gz",
        "pubmed/pubmed_abstracts.jsonl.gz",
    ),
}
_LAYOUT_BY_EDGES = {
    "hetionet/hetionet-v1.0-edges-sample.tsv.gz": "bundled",
    "hetionet/hetionet-v1.0-edges-partial.tsv.gz": "shared",
    "hetionet/hetionet-v1.0-edges.sif.gz": "official",
}


def bundled_data_dir() -> Path:
    """The data folder used by default.

    Returns
    -------
    Path
        ``$ENGRAM_DATA_DIR`` when that environment variable is set and non-empty, else the repository's
        ``data/`` folder, found relative to this package (``<repo>/engram_kit/../data``). The folder is not
        checked for existence here; :func:`resolve_data_paths` does that.

    Notes
    -----
    ``data/`` sits beside the package in the source tree, so it is available in a clone or an editable
    install (``pip install -e .``); for any other install point ``ENGRAM_DATA_DIR`` at a copy of it.
    """
    override = os.environ.get(DATA_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    return Path(__file__).resolve().parent.parent / "data"


@dataclass(frozen=True)
class DataPaths:
    """Resolved data files under one data root.

    Attributes
    ----------
    root : Path
        The data root searched.
    layout : {"bundled", "shared", "official"}
        Which layout the edge file belongs to.
    nodes : Path
        Hetionet node TSV (``id, name, kind``), gzip or plain.
    edges : Path
        Hetionet edge table: 4-column TSV (bundled sample, shared partial) or official SIF.
    synonyms_dir : Path
        Folder of synonym tables used by entity resolution (see its README.md).
    abstracts : Path
        PubMed records, gzip JSON lines ``{pmid, title, abstract, sources, year?}``.
    graph_format : str
        The graph format these files are (``"hetionet"``: the folder layout is Hetionet's), what
        ``Workspace.create(path, data=paths)`` loads them as.
    """

    root: Path
    layout: str
    nodes: Path
    edges: Path
    synonyms_dir: Path
    abstracts: Path
    graph_format: str = "hetionet"


def downloaded_data_paths(nodes: str | os.PathLike[str], edges: str | os.PathLike[str]) -> DataPaths:
    """Data paths for a downloaded Hetionet release (``engram_kit.kg.download_hetionet()``): its node and edge
    files, with the synonym tables and sample abstracts of :func:`bundled_data_dir` (the release has none).

    Parameters
    ----------
    nodes, edges : paths
        The release's ``hetionet-v1.0-nodes.tsv`` and ``hetionet-v1.0-edges.sif.gz`` (``HetionetFiles.nodes``,
        ``HetionetFiles.edges``).

    Raises
    ------
    DataError
        If either file is missing, or the bundled folder lacks ``synonyms/`` or its abstracts.

    Examples
    --------
    >>> from engram_kit.kg import download_hetionet  # doctest: +SKIP
    >>> files = download_hetionet("hetionet")  # doctest: +SKIP
    >>> Workspace.create("full-ws", data=downloaded_data_paths(files.nodes, files.edges))  # doctest: +SKIP
    """
    nodes, edges = Path(nodes), Path(edges)
    for role, path in (("nodes", nodes), ("edges", edges)):
        if not path.is_file():
            raise DataError(f"Hetionet {role} file {path} does not exist. Fix: download it with "
                            "engram_kit.kg.download_hetionet(folder) (CLI: engram init --download folder).")
    bundled = resolve_data_paths()
    return DataPaths(root=edges.parent, layout="official", nodes=nodes, edges=edges,
                     synonyms_dir=bundled.synonyms_dir, abstracts=bundled.abstracts)


def _first_existing(root: Path, candidates: tuple[str, ...], want_dir: bool) -> Path | None:
    for relative in candidates:
        path = root / relative
        if (path.is_dir() if want_dir else path.is_file()):
            return path
    return None


def resolve_data_paths(root: str | os.PathLike[str] | None = None) -> DataPaths:
    """Locate the node, edge, synonym and abstract files under a data root.

    Parameters
    ----------
    root : path or None
        Data root to search. ``None``: :func:`bundled_data_dir` (``$ENGRAM_DATA_DIR`` or the repository's
        ``data/``). Pass e.g. ``"/work/shared/data"`` to use the fuller shared development data.

    Returns
    -------
    DataPaths
        Each file is the first existing candidate of :data:`CANDIDATES` (bundled names first, then shared,
        then the official release's names).

    Raises
    ------
    DataError
        If the root does not exist or any of the four is missing; the message lists every path looked for.

    Examples
    --------
    >>> paths = resolve_data_paths()  # doctest: +SKIP
    >>> paths.layout, paths.edges.name  # doctest: +SKIP
    ('bundled', 'hetionet-v1.0-edges-sample.tsv.gz')
    """
    base = Path(root).expanduser() if root is not None else bundled_data_dir()
    if not base.is_dir():
        hint = f" (from ${DATA_DIR_ENV})" if root is None and os.environ.get(DATA_DIR_ENV, "").strip() else ""
        raise DataError(f"Data folder {base}{hint} does not exist. Fix: give a folder holding hetionet/, "
                        f"pubmed/ and synonyms/ (CLI: --data DIR; Python: root=), or set {DATA_DIR_ENV}; the repository's data/ is the "
                        "bundled sample (rebuild it with scripts/make_sample_data.py).")
    found: dict[str, Path] = {}
    missing: list[str] = []
    for name, candidates in CANDIDATES.items():
        path = _first_existing(base, candidates, want_dir=name.endswith("_dir"))
        if path is None:
            looked = ", ".join(str(base / c) for c in candidates)
            missing.append(f"{name} (looked for: {looked})")
        else:
            found[name] = path
    if missing:
        raise DataError(f"Data folder {base} is incomplete: missing {'; '.join(missing)}. Fix: point --data / root= (or "
                        f"{DATA_DIR_ENV}) at a complete data folder, restore the bundled data/ "
                        "(see data/README.md: scripts/make_sample_data.py rebuilds hetionet/ and pubmed/), or get "
                        "Hetionet with engram_kit.kg.download_hetionet().")
    layout = _LAYOUT_BY_EDGES[str(found["edges"].relative_to(base).as_posix())]
    paths = DataPaths(root=base, layout=layout, nodes=found["nodes"], edges=found["edges"],
                      synonyms_dir=found["synonyms_dir"], abstracts=found["abstracts"])
    logger.debug("Resolved %s data under %s: %s", layout, base, paths)
    return paths
