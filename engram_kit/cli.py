"""The ``engram`` command line: init, ingest, ask, info, demo.

Every command works on one workspace folder: ``--workspace/-w`` or ``$ENGRAM_WORKSPACE``, default
``./engram-workspace``. Errors of engram-kit print one line naming the problem and the fix and exit
with status 2; nothing is printed as a traceback unless ``--debug`` is given.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import textwrap
from pathlib import Path

from engram_kit.errors import EngramError, WorkspaceError

DEMO_QUESTION = "What compounds might reduce neuroinflammation in Alzheimer's disease?"


def _workspace_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-w", "--workspace", type=Path, default=None,
                        help="workspace folder (default: $ENGRAM_WORKSPACE or ./engram-workspace)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(prog="engram", description="Biomedical GraphRAG workbench (engram-kit).")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and debug logging")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("init", help="create a workspace and load a knowledge graph (bundled sample by default)")
    _workspace_arg(p)
    p.add_argument("--data", type=Path, default=None,
                   help="data folder in the bundled or shared layout, e.g. ../shared/data for full Hetionet "
                        "(default: the bundled sample, or $ENGRAM_DATA_DIR)")
    p.add_argument("--force", action="store_true", help="replace an existing workspace")

    p = sub.add_parser("ingest", help="ingest PubMed records (.jsonl, PubMed .xml, MEDLINE .nbib/.txt; .gz ok)")
    _workspace_arg(p)
    p.add_argument("files", nargs="+", type=Path)

    p = sub.add_parser("ask", help="ask a question; prints entities, ranked passages and a cited answer")
    _workspace_arg(p)
    p.add_argument("question")
    p.add_argument("--source", choices=["all", "pubmed", "uploaded"], default="all")
    p.add_argument("--top-k", type=int, default=None, help="passages to show (default from settings: 10)")
    p.add_argument("--alpha", type=float, default=None, help="PPR weight of the blended score, in [0, 1]")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")

    p = sub.add_parser("info", help="what the workspace holds")
    _workspace_arg(p)

    p = sub.add_parser("demo", help="init on the bundled sample (if needed), ingest its abstracts, ask a question")
    _workspace_arg(p)
    p.add_argument("--question", default=DEMO_QUESTION)
    return parser


def _open(args: argparse.Namespace, *, read_only: bool = False):  # noqa: ANN202
    from engram_kit.workspace import Workspace, default_workspace_path

    return Workspace.open(args.workspace or default_workspace_path(), read_only=read_only)


def cmd_init(args: argparse.Namespace) -> int:
    from engram_kit.workspace import Workspace, default_workspace_path

    path = args.workspace or default_workspace_path()
    print(f"Creating workspace {path} ...", flush=True)
    with Workspace.create(path, data=args.data, overwrite=args.force) as ws:
        kg = ws.manifest["knowledge_graph"]
        print(f"Loaded {kg['name']} {kg['version']}: {kg['n_nodes']:,} nodes, {kg['n_edges']:,} edges "
              f"in {ws.manifest['build_seconds']} s.")
        print(f"Next: engram ingest <abstracts.jsonl> -w {path}")
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    from engram_kit.errors import DataError

    from engram_kit.ingestion.pubmed import read_pubmed

    missing = [str(f) for f in args.files if not f.is_file()]
    if missing:
        raise DataError(f"No such file: {', '.join(missing)}; check the path(s).")
    for file in args.files:
        read_pubmed(file)  # fails fast on an unsupported type, before the workspace is locked
    with _open(args) as ws:
        for file in args.files:
            report = ws.ingest(file)
            print(f"{file}: {report}")
            for pmid, message in report.errors[:10]:
                print(f"  PMID {pmid}: {message}")
    return 0


def _print_answer(answer, top_k: int | None = None) -> None:  # noqa: ANN001
    result = answer.retrieval
    print("\nResolved entities (PPR seed nodes):")
    if result.entities:
        for e in result.entities:
            print(f"  {e.mention!r:32} -> {e.name} [{e.node_id}] conf={e.confidence:.2f} ({e.method}), "
                  f"seed weight {e.seed_weight:.2f}")
    else:
        print("  (none)")
    if result.unresolved:
        print(f"  unresolved mentions: {', '.join(result.unresolved)}")
    if result.fallback:
        print(f"\nNote: {result.fallback}")
    print(f"\nTop passages (score = {result.alpha:.2f} * PPR + {1 - result.alpha:.2f} * semantic):")
    for p in result.passages[:top_k] if top_k else result.passages:
        title = textwrap.shorten(p.title or p.text, 90)
        print(f"  {p.rank:2}. {p.citation:14} score={p.score:.3f} ppr={p.ppr_score:.3f} sem={p.semantic_score:.3f}  {title}")
        for path in p.paths[:1]:
            print(f"      via {path.describe()}")
    if not result.subgraph_nodes.empty:
        top = result.subgraph_nodes.head(8)
        print("\nPPR subgraph (top nodes): " + ", ".join(f"{n} ({k})" for n, k in zip(top["name"], top["kind"])))
        print(f"  {len(result.subgraph_nodes)} nodes, {len(result.subgraph_edges)} edges; "
              f"hub drift: {result.hub_mass:.1%} of PPR mass on the top 1% of nodes; {result.ppr_iterations} iterations")
    print("\nAnswer (" + answer.mode + "):\n")
    print(answer.to_markdown())
    timings = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in result.timings.items())
    print(f"\n[{timings}]")


def cmd_ask(args: argparse.Namespace) -> int:
    # Asking only reads, so it opens read-only and works beside a notebook that holds the workspace.
    with _open(args, read_only=True) as ws:
        answer = ws.ask(args.question, source=args.source, top_k=args.top_k, alpha=args.alpha)
        if args.json:
            print(json.dumps(answer.to_dict(), indent=2, default=str))
        else:
            _print_answer(answer)
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    with _open(args, read_only=True) as ws:
        info = ws.info()
        counts = info.pop("counts")
        width = max(len(k) for k in info)
        for key, value in info.items():
            print(f"{key:{width}}  {value:,}" if isinstance(value, int) and not isinstance(value, bool)
                  else f"{key:{width}}  {value}")
        nonzero = {k: v for k, v in counts.items() if v}
        print("counts      " + ", ".join(f"{k}={v:,}" for k, v in sorted(nonzero.items())))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from engram_kit.datasets import resolve_data_paths
    from engram_kit.workspace import Workspace, default_workspace_path

    path = args.workspace or default_workspace_path()
    try:
        ws = Workspace.open(path)
        print(f"Using existing workspace {path}.")
    except WorkspaceError:
        print(f"Creating workspace {path} from the bundled sample ...", flush=True)
        ws = Workspace.create(path)
    with ws:
        abstracts = resolve_data_paths().abstracts
        print(f"Ingesting {abstracts} ...", flush=True)
        print(ws.ingest(abstracts))
        print(f"\nQ: {args.question}")
        _print_answer(ws.ask(args.question), top_k=5)
    return 0


COMMANDS = {"init": cmd_init, "ingest": cmd_ingest, "ask": cmd_ask, "info": cmd_info, "demo": cmd_demo}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``engram`` command. Returns the process exit status."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return COMMANDS[args.command](args)
    except EngramError as exc:
        if args.debug:
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
