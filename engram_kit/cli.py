"""The ``engram`` command line: one table of subcommands (:data:`COMMANDS`), each a name, a help line, a
function declaring its arguments and a function running it.

Every command works on one workspace folder: ``--workspace/-w`` or ``$ENGRAM_WORKSPACE``, default
``./engram-workspace``. Errors of engram-kit print one line naming the problem and the fix and exit
with status 2; nothing is printed as a traceback unless ``--debug`` is given.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engram_kit import plugins
from engram_kit.version import __version__
from engram_kit.errors import DataError, EngramError, WorkspaceError
from engram_kit.records import STATUSES

if TYPE_CHECKING:
    from engram_kit.settings import Settings

DEMO_QUESTION = "What compounds might reduce neuroinflammation in Alzheimer's disease?"


def _workspace_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-w", "--workspace", type=Path, default=None,
                        help="workspace folder (default: $ENGRAM_WORKSPACE or ./engram-workspace)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, built from :data:`COMMANDS` (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(prog="engram", description="Biomedical GraphRAG workbench (engram-kit).")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and debug logging")
    parser.add_argument("--version", action="version", version=f"engram-kit {__version__}",
                        help="print the engram-kit version and exit")
    # -w is accepted before the subcommand too (`engram -w DIR ask ...`); the subcommand's -w wins.
    parser.add_argument("-w", "--workspace", dest="global_workspace", type=Path, default=None,
                        help="workspace folder (default: $ENGRAM_WORKSPACE or ./engram-workspace)")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        p = sub.add_parser(command.name, help=command.help, description=command.description or None)
        command.arguments(p)
        p.set_defaults(run=command.run)
    return parser


def _init_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram init``."""
    _workspace_arg(p)
    from engram_kit import plugins

    formats = plugins.formats.names()
    p.add_argument("--graph", choices=formats, default="hetionet", metavar="FORMAT",
                   help="knowledge-graph format (default hetionet, the bundled sample): "
                        + "; ".join(f"{n}: {plugins.formats.describe(n)}" for n in formats))
    p.add_argument("--data", type=Path, default=None,
                   help="the graph format's input file or folder; default the format's bundled sample, if it has "
                        "one (hetionet: a data folder in the bundled layout hetionet/, synonyms/, pubmed/, default the "
                        "bundled sample or $ENGRAM_DATA_DIR; kgx: the edges file)")
    p.add_argument("--option", action="append", default=None, metavar="NAME=VALUE",
                   help="an option of the format's loader, repeatable (kgx: nodes=FILE, stub_missing=true, "
                        "errors=raise; hetionet: errors=skip); an unknown name is refused with the format's list")
    p.add_argument("--graph-name", default="", help="name recorded for the graph (default the format's own, e.g. "
                   "'Hetionet'; 'Monarch KG')")
    p.add_argument("--graph-release", default="", help="release recorded for the graph (e.g. 2024-09-12)")
    p.add_argument("--download", type=Path, nargs="?", const=Path("hetionet-v1.0"), default=None, metavar="DIR",
                   help="download the full official Hetionet v1.0 (47,031 nodes, 2,250,197 edges; ~12 MB, SHA-256 "
                        "checked) into DIR (default ./hetionet-v1.0; a verified copy there is reused) and load it")
    p.add_argument("--hetionet-url", default=None, metavar="URL",
                   help="where --download fetches the release files from (default: the hetio/hetionet GitHub "
                        "release; a mirror must serve the same files, their checksums are verified)")
    p.add_argument("--force", action="store_true", help="replace an existing workspace")
    from engram_kit.settings import Settings

    p.add_argument("--embedder", default=None, metavar="NAME",
                   help="passage embedder, recorded in the workspace (engram plugins lists them): "
                        + plugins.embedders.help(default=Settings().embedding_model))
    # KGX flags of earlier releases: the same as --graph kgx --data EDGES --option nodes=NODES ...
    p.add_argument("--kgx-edges", type=Path, default=None, metavar="EDGES",
                   help="same as --graph kgx --data EDGES (a Biolink KGX edges file, .tsv/.jsonl, .gz ok)")
    p.add_argument("--kgx-nodes", type=Path, default=None, metavar="NODES", help="same as --option nodes=NODES")
    p.add_argument("--kgx-stub-missing", action="store_true", help="same as --option stub_missing=true")
    p.add_argument("--kgx-name", default="", help="same as --graph-name")
    p.add_argument("--kgx-release", default="", help="same as --graph-release")
    p.add_argument("--backend", choices=plugins.backends.names(), default="ladybug",
                   help="graph backend: " + plugins.backends.help(default="ladybug"))
    _neo4j_args(p)
    _vectors_kind_arg(p)
    _chroma_args(p, "vectors in the workspace folder")


def _ingest_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram ingest``."""
    _workspace_arg(p)
    # str, not Path: Path would turn "https://" into "https:/"
    p.add_argument("files", nargs="+", type=str, help="files, http(s) URLs or file:// URLs")
    p.add_argument("--skip-bad", action="store_true",
                   help="skip invalid JSON Lines records (listed) instead of refusing the whole file")
    p.add_argument("--as-new", action="store_true",
                   help="keep a re-ingested document as a new document instead of replacing the old version")
    p.add_argument("--workers", type=int, default=0, metavar="N",
                   help="processes extracting, linking and embedding while the main one writes; "
                        "0 (default): one per core, at most 4; 1: everything in one process")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="local (default): forked workers on this machine; ray: the map stage on Ray Data "
                        "(pip install 'engram-kit[scale]'; PubMed records only; docs/scaling-out.md)")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="with --engine ray: a running Ray cluster (auto, ray://head:10001); default: a local Ray "
                        "started for this run")


def _check_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram check``."""
    _workspace_arg(p)
    p.add_argument("--repair", action="store_true",
                   help="embed passages without vectors, delete vectors without passages, finish pending articles")


def _ask_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram ask``."""
    _workspace_arg(p)
    p.add_argument("question", help="the question in plain words, e.g. \"Which genes does BACE1 interact with?\"; "
                   "'-' reads questions from standard input, one per line, answered in one process with the "
                   "workspace opened once (--json: one JSON object per line)")
    p.add_argument("--source", choices=["all", "pubmed", "uploaded"], default="all",
                   help="passages searched: all (default), pubmed (ingested PubMed records) or uploaded "
                        "(documents: PDFs, web pages, text files)")
    p.add_argument("--top-k", type=int, default=None, help="passages to show (default from settings: 10)")
    p.add_argument("--graph-share", "--alpha", dest="graph_share", type=float, default=None,
                   help="graph (PPR) share of each passage's score, in [0, 1] (default Settings.graph_weight; 0 = "
                        "text only); --alpha is its deprecated name")
    p.add_argument("--json", action="store_true",
                   help="print the full result as JSON (passage scores under the printed names: score, text_score, "
                        "ppr_score, semantic_raw; README 'Command line')")
    p.add_argument("--within", nargs="+", default=None, metavar="ID",
                   help="answer from these papers only: PMIDs (123, PMID:123, pubmed:123) or document ids")


def _shell_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram shell``."""
    _workspace_arg(p)
    p.add_argument("--source", choices=["all", "pubmed", "uploaded"], default="all",
                   help="passages searched at the start (change it with :source)")
    p.add_argument("--top-k", type=int, default=None, help="passages to show (default from settings: 10)")
    p.add_argument("--alpha", type=float, default=None, help="graph (PPR) share of each passage's score, in [0, 1]")
    p.add_argument("--json", action="store_true", help="start with JSON output (one object per line; :json off)")
    p.add_argument("--within", nargs="+", default=None, metavar="ID",
                   help="start restricted to these papers (change it with :within)")


def _info_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram info``."""
    _workspace_arg(p)



def _demo_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram demo``."""
    _workspace_arg(p)
    p.add_argument("--question", default=DEMO_QUESTION, help=f"question asked after ingesting (default: {DEMO_QUESTION!r})")


def _open(args: argparse.Namespace, *, read_only: bool = False):
    from engram_kit.workspace import Workspace, default_workspace_path

    return Workspace.open(args.workspace or default_workspace_path(), read_only=read_only)


def _graph_request(args: argparse.Namespace) -> tuple[str, dict[str, str], str, str]:
    """``(format, options, name, release)`` from ``--graph``/``--option``/``--graph-name``/``--graph-release`` and
    the older ``--kgx-*`` flags, which say ``--graph kgx`` and its options.

    Raises
    ------
    DataError
        For a malformed ``--option``, ``--kgx-nodes`` without ``--kgx-edges``, or ``--kgx-edges`` with ``--data``
        or another ``--graph``.
    """
    from engram_kit.kg.formats import parse_options

    fmt = getattr(args, "graph", "hetionet")
    options = parse_options(getattr(args, "option", None))
    name, release = getattr(args, "graph_name", ""), getattr(args, "graph_release", "")
    edges, nodes = getattr(args, "kgx_edges", None), getattr(args, "kgx_nodes", None)
    if edges is None:
        if nodes is not None:
            raise DataError("--kgx-nodes needs --kgx-edges too (the edges file of the same KGX graph).")
        return fmt, options, name, release
    if getattr(args, "data", None) is not None:
        raise DataError("--data (the graph's input) and --kgx-edges (a KGX graph) exclude each other: a "
                        "workspace holds one knowledge graph. Drop one of them.")
    if fmt not in ("hetionet", "kgx"):  # hetionet: the default, not a choice
        raise DataError(f"--kgx-edges loads a KGX graph; it excludes --graph {fmt}.")
    args.data = edges
    if nodes is not None:
        options["nodes"] = str(nodes)
    if args.kgx_stub_missing:
        options["stub_missing"] = "true"
    return "kgx", options, name or args.kgx_name, release or args.kgx_release


def _load_graph(args: argparse.Namespace):  # -> KnowledgeGraph
    """The graph ``engram init`` asked for (``--download`` fetched first), read by its format's loader and
    reported (the format's report lines)."""
    from engram_kit.kg.formats import get_format

    name, options, graph_name, release = _graph_request(args)
    fmt = get_format(name)
    kg = fmt.load(_downloaded_data(args), name=graph_name, release=release, options=options, progress=True)
    for line in fmt.report_lines(kg) if fmt.report_lines else ():
        print(line)
    return kg


def _init_settings(args: argparse.Namespace, path: Path) -> Settings | None:
    """Checks of ``engram init`` made before anything is loaded or announced, and the settings it records.

    Raises
    ------
    WorkspaceError
        If ``path`` holds a workspace and ``--force`` is not given (`engram demo` leaves ./engram-workspace behind;
        a newcomer who then follows "Using it" learns that it can be used as it is).
    PluginError
        If ``--embedder`` names no registered embedder; the message lists the registered ones.
    """
    from engram_kit.embeddings.base import resolve_key
    from engram_kit.settings import Settings
    from engram_kit.workspace import holds_workspace

    if holds_workspace(path) and not args.force:
        raise WorkspaceError(f"{path} already holds a workspace (made by `engram demo` or an earlier `engram init`): "
                             "use it as it is (engram info, engram ingest, engram ask), pass --force to rebuild it "
                             "from scratch, or -w DIR to make another one.")
    if not args.embedder:
        return None
    key = resolve_key(args.embedder)
    if key not in plugins.embedders:
        raise plugins.PluginError(f"Unknown embedder {args.embedder!r} (--embedder); registered: "
                                  f"{', '.join(plugins.embedders.names())} (engram plugins describes them).")
    return Settings(embedding_model=key)


def _downloaded_data(args: argparse.Namespace):  # DataPaths | Path | None
    """``--data``, or for ``--download DIR`` the official release fetched into DIR (engram_kit.kg.download_hetionet)
    with the bundled synonym tables and abstracts."""
    if getattr(args, "download", None) is None:
        return args.data
    if args.data is not None or getattr(args, "kgx_edges", None) is not None or \
            getattr(args, "graph", "hetionet") != "hetionet":
        raise DataError("--download (the official Hetionet release) excludes --data, --kgx-edges and another --graph: "
                        "a workspace holds one knowledge graph. Drop one of them.")
    from engram_kit.datasets import downloaded_data_paths
    from engram_kit.kg import hetionet

    url = args.hetionet_url or hetionet.HETIONET_BASE_URL
    print(f"Downloading Hetionet v1.0 from {url} into {args.download} ...", flush=True)
    files = hetionet.download_hetionet(args.download, base_url=url, expected_sha256=hetionet.HETIONET_SHA256,
                                       progress=True)
    print(f"  {files.nodes} and {files.edges} (SHA-256 verified; recorded beside them)")
    return downloaded_data_paths(files.nodes, files.edges)


def cmd_init(args: argparse.Namespace) -> int:
    from engram_kit.workspace import Workspace, default_workspace_path

    path = args.workspace or default_workspace_path()
    settings = _init_settings(args, path)
    graph = _load_graph(args)
    print(f"Creating workspace {path} ...", flush=True)
    with Workspace.create(path, overwrite=args.force, vectors=_vectors_arg(args) or "local",
                          graph=graph, settings=settings, backend=getattr(args, "backend", "ladybug")) as ws:
        kg = ws.manifest["knowledge_graph"]
        print(f"Loaded {(kg['name'] + ' ' + kg['version']).strip()}: {kg['n_nodes']:,} nodes, {kg['n_edges']:,} edges "
              f"in {ws.manifest['build_seconds']} s.")
        vec = ws.manifest["vector_store"]
        if vec["kind"] == "chroma-server":
            print(f"Passage vectors: Chroma server {vec['url']}, collection {vec['collection']}.")
        elif vec["kind"] != "local":
            print(f"Passage vectors: {vec['kind']}.")
        print(f"Next: engram ingest <abstracts.jsonl> -w {path}")
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    from engram_kit.errors import DataError

    from engram_kit.errors import UnknownFileTypeError
    from engram_kit.ingestion.pubmed import read_pubmed

    folders = [str(f) for f in args.files if f.is_dir()]
    if folders:
        raise DataError(f"{', '.join(folders)} is a folder; give the file(s) inside it, e.g. {folders[0]}/*.jsonl.gz.")
    missing = [str(f) for f in args.files if not f.is_file()]
    if missing:
        raise DataError(f"No such file: {', '.join(missing)}; check the path(s).")
    for file in args.files:
        try:
            read_pubmed(file)  # fails fast on an unsupported type, before the workspace is locked
        except UnknownFileTypeError as exc:
            raise UnknownFileTypeError(f"{file.name}: cannot ingest this file type; engram ingest accepts "
                                       f"{accepted_formats()}.") from exc
    empty = 0
    with _open(args) as ws:
        if getattr(args, "engine", "local") == "ray":  # one Ray run over all the files (one map, one load)
            report = ws.ingest(list(args.files), skip_bad=getattr(args, "skip_bad", False),
                               workers=getattr(args, "workers", 0), engine="ray", address=args.address)
            print(f"{len(args.files)} file(s) on Ray: {report}")
            print("  " + ", ".join(f"{k} {v:.1f} s" for k, v in report.stage_seconds.items()))
            return 0
        for file in args.files:
            report = ws.ingest(file, skip_bad=getattr(args, "skip_bad", False), workers=getattr(args, "workers", 0))
            print(f"{file}: {report}")
            for pmid, numbers in list(report.duplicates.items())[:10]:
                print(f"  PMID {pmid} is listed {len(numbers)} times (records {', '.join(map(str, numbers))}); "
                      "ingested once")
            for problem in report.skipped[:10]:
                print(f"  skipped: {problem}")
            if report.read == 0:  # never a silent "nothing" with exit 0 (issue 31): a script must see it
                empty += 1
                print(f"error: {file} held no PubMed record with an abstract; nothing was ingested. Plain-text "
                      "notes are not PubMed records: save them as .md to ingest them as a document.", file=sys.stderr)
            for pmid, message in report.errors[:10]:
                print(f"  PMID {pmid}: {message}")
    return 2 if empty else 0


def _print_answer(answer, top_k: int | None = None) -> None:
    from engram_kit.answering.headline import summary_lines

    result = answer.retrieval
    print("\n".join(summary_lines(answer)))  # the answer first (issue 29), then the evidence behind it
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
    # The labels are the passages' `ask --json` keys (PassageHit fields), one vocabulary for both (issue 34.13).
    print(f"\nTop passages (score = {1 - result.graph_share:.2f} * text_score (BM25 + dense) + {result.graph_share:.2f} * ppr_score "
          "(graph), relative to the best candidate; semantic_raw: question-passage cosine):")
    for p in result.passages[:top_k] if top_k else result.passages:
        title = textwrap.shorten(p.title or p.text, 90)
        print(f"  {p.rank:2}. {p.citation:14} score={p.score:.3f} text_score={p.text_score:.3f} "
              f"ppr_score={p.ppr_score:.3f} semantic_raw={p.semantic_raw:.2f}  {title}")
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


def _empty_question_error() -> EngramError:
    from engram_kit.errors import QueryError

    return QueryError("The question is empty; ask something, e.g. engram ask \"What does metformin treat?\" "
                      "(or engram ask - to read questions from standard input).")


def cmd_ask(args: argparse.Namespace) -> int:
    """`engram ask QUESTION` prints one answer; `engram ask -` answers each line of standard input in turn."""
    if args.question == "-":
        return _ask_stream(args, sys.stdin)
    if not args.question.strip():  # refused before anything heavy is imported or opened
        raise _empty_question_error()
    # Asking only reads, so it opens read-only and works beside a notebook that holds the workspace.
    with _open(args, read_only=True) as ws:
        answer = ws.ask(args.question, source=args.source, top_k=args.top_k, graph_share=args.graph_share,
                        within=getattr(args, "within", None))
        if args.json:
            print(json.dumps(answer.to_dict(), indent=2, default=str))
        else:
            _print_answer(answer)
    return 0


def _ask_stream(args: argparse.Namespace, lines: Iterable[str]) -> int:
    """`engram ask -`: a resident session. The workspace is opened once and each non-blank line of ``lines`` is
    asked in turn (the lexicon, gazetteer, model and indexes load for the first question only), printed as
    `engram ask` prints one answer, after a ``Q: ...`` line (``--json``: one JSON object per line instead, with
    the question). A question that fails prints ``error: ...`` on standard error and the session goes on; the exit
    status is then 2."""
    failed = 0
    with _open(args, read_only=True) as ws:
        for line in lines:
            question = line.strip()
            if not question:
                continue
            try:
                answer = ws.ask(question, source=args.source, top_k=args.top_k, graph_share=args.graph_share)
            except EngramError as exc:
                failed += 1
                print(f"error: {question!r}: {exc}", file=sys.stderr, flush=True)
                continue
            if args.json:
                print(json.dumps({"question": question, **answer.to_dict()}, default=str), flush=True)
            else:
                print(f"Q: {question}")
                _print_answer(answer)
                print(flush=True)
    return 2 if failed else 0


def cmd_shell(args: argparse.Namespace) -> int:
    """`engram shell`: questions in a loop over one read-only open workspace (see :mod:`engram_kit.shell`)."""
    import threading

    from engram_kit.shell import ShellState, run_shell

    with _open(args, read_only=True) as ws:
        if sys.stdin.isatty():  # load the lexicon, gazetteer, vectors and indexes while the first question is typed
            threading.Thread(target=ws.retriever, name="engram-shell-warm", daemon=True).start()
        state = ShellState(within=args.within, json=args.json, source=args.source)
        return run_shell(ws, print_answer=_print_answer, state=state,
                         top_k=args.top_k, alpha=args.alpha)


#: What an ``engram info`` count means where the number alone misleads (a newcomer compared "mentions 4,655"
#: with the ingest report's "10,683 mention occurrences" and found no explanation).
INFO_NOTES = {"mentions": "MENTIONS edges, one per passage and phrase; an ingest report counts every occurrence",
              "maps_to": "MAPS_TO edges: phrase -> graph entity links"}


def cmd_info(args: argparse.Namespace) -> int:
    with _open(args, read_only=True) as ws:
        info = ws.info()
        counts = info.pop("counts")
        width = max(len(k) for k in info)
        for key, value in info.items():
            line = (f"{key:{width}}  {value:,}" if isinstance(value, int) and not isinstance(value, bool)
                    else f"{key:{width}}  {value}")
            print(f"{line}  ({INFO_NOTES[key]})" if key in INFO_NOTES else line)
        nonzero = {k: v for k, v in counts.items() if v}
        print("counts      " + ", ".join(f"{k}={v:,}" for k, v in sorted(nonzero.items())))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """`engram check [--repair]`: exit 0 when graph and vectors agree (after repair), 1 when drift remains."""
    with _open(args, read_only=not args.repair) as ws:
        report = ws.check(repair=args.repair)
        print(report)
        if args.repair and report.repaired:
            report = ws.check()
            print(f"after repair: {report}")
            # Repair re-embeds a document an ingest left "processing" but cannot finish it (its alias hubs and
            # record need the whole pipeline), so name the command that does.
            documents = [a for a in report.pending if a.startswith("doc:")]
            if documents:
                print(f"{len(documents)} document(s) left unfinished by an interrupted ingest: run `engram reprocess "
                      f"{documents[0]}` (or add the same file again) for each of {', '.join(documents[:5])}"
                      + (" ..." if len(documents) > 5 else ""), file=sys.stderr)
        elif not report.consistent:
            print("Run `engram check --repair` (or re-run the interrupted ingest) to fix it.", file=sys.stderr)
        drift = ws.vector_count_drift()  # after a repair the write-mode open has rewritten the record
        if drift:
            print(f"Inconsistent: {drift}", file=sys.stderr)
    return 0 if report.consistent and not drift else 1


def cmd_demo(args: argparse.Namespace) -> int:
    from engram_kit.datasets import resolve_data_paths
    from engram_kit.workspace import Workspace, default_workspace_path

    path = args.workspace or default_workspace_path()
    try:
        ws = Workspace.open(path)
        print(f"Using existing workspace {path}.")
    except WorkspaceError:
        print(f"Creating workspace {path} from the bundled Hetionet sample ...", flush=True)
        ws = Workspace.create(path, graph="hetionet")
    with ws:
        abstracts = resolve_data_paths().abstracts
        print(f"Ingesting {abstracts} ...", flush=True)
        print(ws.ingest(abstracts, workers=0))
        print(f"\nQ: {args.question}")
        _print_answer(ws.ask(args.question), top_k=5)
    return 0




# --- engram desk: the evidence desk (engram_kit.evidence) ---------------------------------------------
def _llm_arg(p: argparse.ArgumentParser) -> None:
    """``--llm``: the providers of :data:`engram_kit.plugins.llm` (a registered one appears here unedited)."""
    p.add_argument("--llm", choices=plugins.llm.names(), default="none",
                   help="LLM provider: " + plugins.llm.help(default="none"))


def _desk_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram desk``."""
    _workspace_arg(p)
    p.add_argument("question", help="the question, e.g. \"Which pathways does TP53 participate in?\"")
    _llm_arg(p)
    p.add_argument("--model", default=None, help="Claude model id (default: engram_kit.llm.DEFAULT_MODEL)")
    p.add_argument("--cassette", type=Path, default=None, help="LLM cassette file for --llm record/replay")
    p.add_argument("--rows", type=int, default=10, help="rows shown per artifact (default 10)")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")


def cmd_desk(args: argparse.Namespace) -> int:
    from engram_kit.evidence.guard import looks_like_cypher
    from engram_kit.llm.factory import build_llm

    if looks_like_cypher(args.question):  # a typed query is not a question ("BAR" resolved to three genes)
        print("note: this is a Cypher query, not a question; it runs as `engram cypher` does (guarded, read-only).",
              file=sys.stderr)
        args.params, args.csv = [], False
        return cmd_cypher(args)
    llm = build_llm(args.llm, model=args.model, cassette=args.cassette)
    with _open(args, read_only=True) as ws:
        result = ws.run_desk(args.question, llm=llm)
        if args.json:
            print(json.dumps(result.to_dict(), indent=2, default=str))
        else:
            print(result.to_markdown(max_rows=args.rows))
            print(f"\n[{len(result.artifacts)} queries, {result.seconds * 1000:.0f} ms; outcome {result.outcome}; "
                  f"{result.withheld_count} claim(s) withheld]")
    return 0




# --- engram cypher: one guarded read-only query (engram_kit.evidence) --------------------------------------
def _cypher_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram cypher``."""
    _workspace_arg(p)
    p.add_argument("question", metavar="QUERY", help="one read-only Cypher statement, e.g. \"MATCH (g:Gene {name: "
                                                     "'APP'})-[:INTERACTS_GiG]-(o) RETURN o.name\"")
    p.add_argument("--param", dest="params", action="append", default=[], metavar="NAME=VALUE",
                   help="a query parameter ($NAME); VALUE is read as JSON when it parses (42, \"x\", [1,2]), else as "
                        "text; repeatable")
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print the artifact (query, rows, cut, error) as JSON")
    form.add_argument("--csv", action="store_true", help="print the rows as CSV with a row-citation column")
    p.add_argument("--rows", type=int, default=None, help="rows shown in the table (default: all kept rows)")


def _query_parameters(pairs: list[str]) -> dict[str, object]:
    parameters: dict[str, object] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise DataError(f"--param {pair!r} is not NAME=VALUE; write e.g. --param name=APP.")
        try:
            parameters[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            parameters[name.strip()] = value
    return parameters


def cmd_cypher(args: argparse.Namespace) -> int:
    """Run one query through the evidence desk's guard and query process (budgets of the workspace's
    ``desk`` settings); rows are cited ``q1:r1``... Exit 0 with rows, 2 when refused or failed (the reason,
    the rule and how to fix the query on stderr)."""
    import csv

    with _open(args, read_only=True) as ws:
        artifact = ws.evidence_desk().query(args.question, _query_parameters(args.params))
    if args.json:
        print(json.dumps(artifact.to_dict(), indent=2, default=str, ensure_ascii=False))
    elif artifact.status == "ok" and args.csv:
        writer = csv.writer(sys.stdout)
        writer.writerow(["row", *artifact.columns])
        for row_id, row in zip(artifact.row_ids, artifact.rows):
            writer.writerow([f"{artifact.id}:{row_id}",
                             *(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in row)])
    elif artifact.status == "ok":
        print(artifact.render(max_rows=args.rows))
    if artifact.status != "ok":
        print(f"error: {artifact.error}", file=sys.stderr)
        return 2
    if artifact.truncated:
        print(f"note: rows cut at the {artifact.truncation} (desk settings); ask count(*) for totals.",
              file=sys.stderr)
    return 0


# --- scale-out: Neo4j backend, migration, neo4j-admin export (engram_kit.store.neo4j, .export) ---------
def _neo4j_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--uri", default=None, help="Neo4j URI, e.g. neo4j://localhost:7687 (+s for TLS; default $NEO4J_URI)")
    p.add_argument("--user", default=None, help="Neo4j user (default $NEO4J_USER or neo4j); the password is read "
                                                "from $NEO4J_PASSWORD only, never from the command line")
    p.add_argument("--database", default=None, help="Neo4j database (default $NEO4J_DATABASE or neo4j)")


def _chroma_args(p: argparse.ArgumentParser, default: str) -> None:
    p.add_argument("--chroma-url", default=None, metavar="URL",
                   help=f"keep the passage vectors on a Chroma server (`chroma run`), e.g. http://localhost:8000; "
                        f"the token is read from $CHROMA_TOKEN only (default: {default})")


def _migrate_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram migrate``."""
    _workspace_arg(p)
    p.add_argument("--to", type=Path, required=True, help="the new (Neo4j-backed) workspace folder")
    p.add_argument("--force", action="store_true", help="replace an existing workspace at --to")
    p.add_argument("--method", choices=("unwind", "load-csv"), default="unwind",
                   help="unwind: batched UNWIND over Bolt (any server; default); load-csv: CSV files written into "
                        "the server's import folder (--import-dir) and read by LOAD CSV, several times faster")
    p.add_argument("--import-dir", type=Path, default=None, metavar="DIR",
                   help="the Neo4j server's import folder (server.directories.import) for --method load-csv "
                        "(default $NEO4J_IMPORT_DIR)")
    _neo4j_args(p)
    _vectors_kind_arg(p)
    _chroma_args(p, "where the source workspace keeps them")


def _export_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram export``."""
    _workspace_arg(p)
    p.add_argument("--neo4j-admin-csv", type=Path, required=True, metavar="DIR",
                   help="folder for nodes_<Label>.csv, relationships_<TYPE>.csv and import.sh")
    p.add_argument("--database", default="neo4j", help="database name used in import.sh (default neo4j)")
    p.add_argument("--force", action="store_true", help="replace CSV files already in DIR")


def _vectors_kind_arg(p: argparse.ArgumentParser) -> None:
    """``--vectors``: the kinds of :data:`engram_kit.plugins.vectors` (a registered one appears here unedited)."""
    p.add_argument("--vectors", choices=plugins.vectors.names(), default=None, metavar="KIND",
                   help="where the passage vectors live: " + plugins.vectors.help(default="local")
                        + " (--chroma-url alone chooses chroma-server)")


def _vectors_arg(args: argparse.Namespace) -> str | None:
    """``--chroma-url`` (a server URL) or ``--vectors KIND``; None when neither is given (absent for `engram demo`):
    local, or for migrate the source's kind.

    Raises
    ------
    DataError
        If ``--chroma-url`` is given with a ``--vectors`` kind other than ``chroma-server``.
    """
    url, kind = getattr(args, "chroma_url", None), getattr(args, "vectors", None)
    if url is not None and kind not in (None, "chroma-server"):
        raise DataError(f"--chroma-url keeps the vectors on a Chroma server, --vectors {kind} elsewhere; drop one.")
    return url if url is not None else kind


def _neo4j_config(args: argparse.Namespace):  # Neo4jConfig
    from engram_kit.store.neo4j import Neo4jConfig

    return Neo4jConfig.from_env(uri=args.uri, user=args.user, database=args.database)


def cmd_init_with_backend(args: argparse.Namespace) -> int:
    if args.backend != "neo4j":  # any other registered backend takes no connection flags
        return cmd_init(args)
    from engram_kit.workspace import Workspace, default_workspace_path

    path = args.workspace or default_workspace_path()
    settings = _init_settings(args, path)
    config = _neo4j_config(args)
    graph = _load_graph(args)
    print(f"Creating workspace {path} on Neo4j {config.uri} (database {config.database}) ...", flush=True)
    with Workspace.create(path, overwrite=args.force, backend="neo4j", neo4j=config,
                          vectors=_vectors_arg(args) or "local", graph=graph, settings=settings) as ws:
        kg = ws.manifest["knowledge_graph"]
        print(f"Loaded {(kg['name'] + ' ' + kg['version']).strip()}: {kg['n_nodes']:,} nodes, {kg['n_edges']:,} edges "
              f"in {ws.manifest['build_seconds']} s.")
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    config = _neo4j_config(args)
    with _open(args, read_only=True) as ws:
        print(f"Migrating {ws.path} into Neo4j {config.uri} (database {config.database}) as {args.to} ...", flush=True)
        import_dir = args.import_dir or os.environ.get("NEO4J_IMPORT_DIR") or None
        with ws.migrate_to_neo4j(args.to, config, overwrite=args.force, vectors=_vectors_arg(args),
                                 method=args.method, import_dir=import_dir) as migrated:
            counts = migrated.store.counts()
            print(f"Done: {sum(counts.get(k, 0) for k in ('Gene', 'Compound', 'Disease'))} gene/compound/disease "
                  f"nodes, {counts.get('Article', 0)} articles, {counts.get('Passage', 0)} passages in Neo4j.")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from engram_kit.store.export import export_neo4j_admin_csv

    with _open(args, read_only=True) as ws:
        report = export_neo4j_admin_csv(ws.store, args.neo4j_admin_csv, database=args.database,
                                        overwrite=args.force, progress=ws.settings.progress)
    frame = report.to_frame()
    print(f"Wrote {len(frame)} files ({int(frame['rows'].sum()):,} rows) to {report.directory} in {report.seconds} s.")
    print(f"Import with the database stopped: bash {report.directory / 'import.sh'}")
    return 0




# --- document repository: PDFs, web pages, text files (engram_kit.ingestion.documents) -----------------
#: Extensions `engram ingest` hands to the document repository; a ``.txt``/``.text`` file goes there too unless it
#: holds a MEDLINE record (``PMID- ...``, :func:`engram_kit.ingestion.pubmed.holds_medline`): a plain note named
#: .txt was read as MEDLINE and ingested nothing, with exit 0 (issue 31).
DOCUMENT_EXTENSIONS: tuple[str, ...] = (".pdf", ".html", ".htm", ".xhtml", ".md", ".markdown")


def _docs_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram docs``."""
    _workspace_arg(p)
    p.add_argument("--search", default=None, help="text searched in titles and file names")
    p.add_argument("--status", choices=list(STATUSES), default=None, help="list only documents in this state")
    p.add_argument("--json", action="store_true", help="print the listing as JSON")


def _doc_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram doc``."""
    _workspace_arg(p)
    p.add_argument("id", help="document id (doc:...) or a unique prefix of its hex part")
    p.add_argument("--entities", type=int, default=15, help="entities to show (default 15)")
    p.add_argument("--json", action="store_true", help="print the detail as JSON")


def _rm_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram rm``."""
    _workspace_arg(p)
    p.add_argument("id", help="document id or unique prefix")
    p.add_argument("-y", "--yes", action="store_true",
                   help="delete without asking (needed when stdin is not a terminal: scripts, pipes, CI)")


def _reprocess_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram reprocess``."""
    _workspace_arg(p)
    p.add_argument("id", help="document id or unique prefix")


def accepted_formats() -> str:
    """Every input ``engram ingest`` takes, as one phrase for help and error messages: the PubMed record
    formats of :data:`engram_kit.ingestion.pubmed.READERS`, the :data:`DOCUMENT_EXTENSIONS` and URLs."""
    from engram_kit.ingestion.pubmed import READERS

    return (f"PubMed records ({', '.join(sorted(READERS))}, each optionally .gz; .txt is MEDLINE text), documents "
            f"({', '.join(DOCUMENT_EXTENSIONS)}) and web pages (http(s):// or file:// URLs)")


def _is_url(item: str) -> bool:
    return item.lower().startswith(("http://", "https://", "file://"))


def _is_document(item: str) -> bool:
    if _is_url(item) or Path(item).suffix.lower() in DOCUMENT_EXTENSIONS:
        return True
    from engram_kit.ingestion.pubmed import holds_medline

    return Path(item).suffix.lower() in (".txt", ".text") and Path(item).is_file() and not holds_medline(item)


def cmd_ingest_any(args: argparse.Namespace) -> int:
    """`engram ingest`: documents and URLs go to the document repository, the rest to PubMed ingestion."""
    from engram_kit.errors import IngestionError

    documents = [f for f in args.files if _is_document(f)]
    records = [Path(f) for f in args.files if not _is_document(f)]
    missing = [f for f in documents if not _is_url(f) and not Path(f).is_file()]
    if missing:
        from engram_kit.errors import DataError

        raise DataError(f"No such file: {', '.join(missing)}; check the path(s).")
    failed = 0
    if documents:
        with _open(args) as ws:
            ws.settings.progress = False
            for item in documents:
                try:
                    as_new = bool(getattr(args, "as_new", False))
                    report = (ws.ingest_url(item, as_new=as_new) if _is_url(item)
                              else ws.ingest_pdf(Path(item), as_new=as_new))
                    print(report)
                except IngestionError as exc:
                    failed += 1
                    print(f"error: {exc}", file=sys.stderr)
    if records and cmd_ingest(argparse.Namespace(**{**vars(args), "files": records})):
        failed += 1
    return 2 if failed else 0


def _abstracts_note(abstracts: int) -> str:
    """`` (the N PubMed abstracts ... are not listed here ...)`` for ``abstracts`` > 0, else ``""``: `engram docs`
    lists documents only, and an empty list beside 430 ingested abstracts confused a newcomer."""
    if not abstracts:
        return ""
    return (f" (the {abstracts:,} PubMed abstract{'s' if abstracts != 1 else ''} in the workspace are not documents and "
            "are not listed here: engram info counts them)")


def cmd_docs(args: argparse.Namespace) -> int:
    with _open(args, read_only=True) as ws:
        frame = ws.documents.list(search=args.search, status=args.status)
        filtered = bool(args.search or args.status)
        abstracts = len(ws.store.articles(source="pubmed")) if frame.empty and not filtered else 0
    if args.json:
        print(frame.to_json(orient="records", indent=2))
    elif frame.empty and filtered:
        print("No documents match.")
    elif frame.empty:
        print("No documents (PDFs, web pages, text files) yet: engram ingest paper.pdf" + _abstracts_note(abstracts))
    else:
        from engram_kit.ingestion.documents import ENTITIES_DEFINITION

        shown = frame.assign(title=frame["title"].map(lambda t: textwrap.shorten(str(t), 60)))
        print(shown[["id", "status", "year", "passages", "entities", "seconds", "title"]].to_string(index=False))
        print(f"entities: {ENTITIES_DEFINITION}, as in the ingest report")
    return 0


def cmd_doc(args: argparse.Namespace) -> int:
    with _open(args, read_only=True) as ws:
        detail = ws.documents.detail(ws.documents.resolve_id(args.id))
    if args.json:
        print(json.dumps(detail.to_dict(), indent=2, default=str))
        return 0
    print(detail)
    if not detail.entities.empty:
        print("\nentities (levels: where found; confidence: resolver; aggregated: across documents):")
        top = detail.entities.head(args.entities)
        print(top[["name", "levels", "count", "entity_name", "confidence", "documents", "aggregated"]].to_string(index=False))
    return 0


def _confirm_rm(doc_id: str, title: str, passages: int, yes: bool) -> bool:
    """Whether `engram rm` may delete: ``--yes``, else a ``y``/``yes`` typed at the terminal's prompt.

    Raises
    ------
    QueryError
        If stdin is not a terminal and ``--yes`` was not given: a script must say so explicitly, since a
        deletion cannot be undone (and a prompt nobody sees would hang or read the next line of a pipe).
    """
    from engram_kit.errors import QueryError

    if yes:
        return True
    if not sys.stdin.isatty():
        raise QueryError(f"engram rm {doc_id}: not asking for confirmation because stdin is not a terminal; "
                         "pass --yes to delete from a script.")
    shown = textwrap.shorten(title, 70) if title else "(untitled)"
    reply = input(f"Delete {doc_id} {shown!r} ({passages} passages; original, graph nodes and vectors)? [y/N] ")
    return reply.strip().lower() in ("y", "yes")


def cmd_rm(args: argparse.Namespace) -> int:
    with _open(args, read_only=True) as ws:  # resolve and ask without holding the write lock
        doc_id = ws.documents.resolve_id(args.id)
        listing = ws.documents.list()
        row = listing[listing["id"] == doc_id]
        title = str(row["title"].iloc[0]) if not row.empty else ""
        passages = int(row["passages"].iloc[0]) if not row.empty else 0
    if not _confirm_rm(doc_id, title, passages, args.yes):
        print(f"Not deleted: {doc_id}.")
        return 1
    with _open(args) as ws:
        removed = ws.documents.delete(doc_id)
    print(f"Deleted {doc_id} ({removed} passages).")
    return 0


def cmd_reprocess(args: argparse.Namespace) -> int:
    with _open(args) as ws:
        ws.settings.progress = False
        print(ws.documents.reprocess(ws.documents.resolve_id(args.id)))
    return 0


def _purge_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram purge``."""
    _workspace_arg(p)
    p.add_argument("--history", action="store_true", help="also delete superseded document versions for good")


def cmd_purge(args: argparse.Namespace) -> int:
    with _open(args) as ws:
        print(ws.compact(drop_history=args.history))
    return 0


# --- engram dashboard: the Voila workbench (engram_widgets.dashboard) ----------------------------------
def _dashboard_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram dashboard``."""
    _workspace_arg(p)
    p.add_argument("--host", default="127.0.0.1",
                   help="interface to bind (default 127.0.0.1, this machine only; 0.0.0.0 exposes it to the network)")
    p.add_argument("--port", type=int, default=8866, help="port (default 8866)")
    p.add_argument("--max-upload-mb", type=int, default=None,
                   help="largest websocket message in MB (uploads travel in one message; default 100)")
    p.add_argument("--open", action="store_true", help="open a browser tab")
    p.add_argument("--pool", type=int, default=None, metavar="N",
                   help="kernels kept pre-started with the workspace open and the model warm, so a new page is "
                        "usable at once (default 1; 0: start a kernel when a page opens)")
    p.add_argument("--max-sessions", type=int, default=None, metavar="N",
                   help="pages served at once (default 4, each kernel ~2.3 GB on the sample); a page over the limit "
                        "says so and opens when another tab closes")
    p.add_argument("--print-command", action="store_true", help="print the voila command line and exit")
    p.add_argument("--token", default=None,
                   help="access token (default: a fresh random one, printed with the address, as Jupyter does)")
    p.add_argument("--no-token", action="store_true",
                   help="serve without a token (anyone who can reach the port can use the workspace)")


def cmd_dashboard(args: argparse.Namespace) -> int:
    import shlex

    from engram_kit.workspace import default_workspace_path
    from engram_widgets.dashboard import (DEFAULT_MAX_MESSAGE_MB, DEFAULT_MAX_SESSIONS, DEFAULT_POOL_SIZE,
                                          dashboard_notebook, new_token, serve, trust_notebook, voila_command,
                                          voila_environment)

    path = args.workspace or default_workspace_path()
    if not (Path(path) / "manifest.json").is_file():
        raise WorkspaceError(f"No workspace at {path}: run `engram init -w {path}` first (or pass -w).")
    token = "" if args.no_token else (args.token or new_token())
    trust_notebook(dashboard_notebook())  # Voila warned "Notebook dashboard.ipynb is not trusted" (issue 34.15)
    command = voila_command(dashboard_notebook(), host=args.host, port=args.port, open_browser=args.open,
                            max_message_mb=args.max_upload_mb or DEFAULT_MAX_MESSAGE_MB, token=token,
                            pool_size=(pool := DEFAULT_POOL_SIZE if args.pool is None else max(0, args.pool)))
    sessions = DEFAULT_MAX_SESSIONS if args.max_sessions is None else args.max_sessions
    if sessions < 1:
        raise DataError(f"--max-sessions {sessions}: give at least 1 (the pages served at once).")
    if args.print_command:
        print(shlex.join(command))
        return 0
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: serving on {args.host}: anyone who can reach this machine and "
              f"{'knows the token' if token else 'the port'} can use the workspace.", file=sys.stderr)
    if not token:
        print("warning: --no-token: any local user can open the dashboard.", file=sys.stderr)
    query = f"?token={token}" if token else ""
    print(f"Serving {path} at http://{args.host}:{args.port}/{query} (Ctrl-C to stop)", flush=True)
    env = voila_environment(path, max_kernels=sessions + pool, max_message_mb=args.max_upload_mb or DEFAULT_MAX_MESSAGE_MB)
    return serve(command, env)  # ends the whole tree (server and kernels) on a stop signal




# --- engram investigate: routed agents, synthesis, run bundles (engram_kit.agents, engram_kit.runs) -----
def _investigate_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram investigate``."""
    _workspace_arg(p)
    p.add_argument("question", nargs="?", default=None, help="the question (omit with --replay)")
    _llm_arg(p)
    p.add_argument("--model", default=None, help="Claude model id (default: engram_kit.llm.DEFAULT_MODEL)")
    p.add_argument("--cassette", type=Path, default=None, help="LLM cassette file for --llm record/replay")
    p.add_argument("--bundle", type=Path, default=None, help="save the run bundle (JSON) to this file")
    p.add_argument("--replay", type=Path, default=None, help="replay a saved run bundle offline and compare")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")


def cmd_investigate(args: argparse.Namespace) -> int:
    from engram_kit.errors import QueryError
    from engram_kit.llm.factory import build_llm

    with _open(args, read_only=True) as ws:
        if args.replay is not None:
            from engram_kit.runs import replay

            outcome = replay(args.replay, ws)
            print(outcome.replayed.to_markdown())
            print(f"\nreplay {'matches' if outcome.matches else 'DIFFERS'}: "
                  f"{len(outcome.claim_differences)} claim difference(s)")
            for line in outcome.version_differences + outcome.claim_differences[:10]:
                print(f"  {line}")
            return 0 if outcome.matches else 1
        if not args.question:
            raise QueryError("Give a question, e.g. engram investigate \"Which compounds target BACE1?\", or --replay FILE.")
        llm = build_llm(args.llm, model=args.model, cassette=args.cassette)
        result = ws.run_agents(args.question, llm=llm)
        if args.json:
            print(json.dumps(result.to_dict(), indent=2, default=str))
        else:
            print(result.to_markdown())
            timings = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in result.timings.items())
            print(f"\n[{len(result.queries)} graph queries; {timings}]")
        if args.bundle is not None:
            from engram_kit.runs import RunBundle

            RunBundle.from_result(result, ws, llm=llm).save(args.bundle)
            print(f"run bundle saved to {args.bundle} (replay: engram investigate --replay {args.bundle})")
    return 0



# --- literature maps (issue 4) ---------------------------------------------------------------------
def _map_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram map``."""
    _workspace_arg(p)
    p.add_argument("--docs", nargs="*", default=None, metavar="ID",
                   help="article ids, e.g. pubmed:12345 or doc:3f2a... (default: all complete articles)")
    p.add_argument("--min-occurrence", type=int, default=4, help="minimum sentences per entity and edge (Empirica: 4)")
    p.add_argument("--resolution", type=float, default=1.0, help="Louvain resolution (> 1: more, smaller communities)")
    p.add_argument("--pmi", action="store_true", help="PMI-normalised edge weights")
    p.add_argument("--out", type=Path, default=None, help="folder for nodes/edges/communities/bridges CSVs")


def _discover_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram discover``."""
    _workspace_arg(p)
    p.add_argument("entity", help="entity name or id, e.g. 'Alzheimer's disease' or Disease::DOID:10652")
    p.add_argument("--kinds", nargs="*", default=None, metavar="KIND",
                   help="keep only candidates (the C terms of A-B-C) of these node kinds, e.g. Compound Disease "
                        "(default: every kind)")
    p.add_argument("--top", type=int, default=10, metavar="N", help="candidates to show (default 10)")


def _map_graph(ws, args: argparse.Namespace, min_occurrence: int):
    from engram_kit.analysis import MapConfig

    lit = ws.literature_map(args.docs if getattr(args, "docs", None) else None)
    config = MapConfig(min_occurrence=min_occurrence, weighting="pmi" if getattr(args, "pmi", False) else "count")
    return lit, lit.graph(config)


def _names_first(frame, names: dict[str, str], width: int = 40):  # DataFrame in and out
    """``frame`` for printing: each name column (key of ``names``) shortened to ``width`` characters and moved to
    the front, its id column (the value) moved to the end, so a reader sees names and can still copy ids
    (`engram map` printed raw ids such as ``np:Unlinked:amp activated protein kinase`` first)."""
    ids = [c for c in names.values() if c in frame.columns]
    front = [c for c in names if c in frame.columns]
    shown = frame.assign(**{c: frame[c].map(lambda v: textwrap.shorten(str(v), width, placeholder="...")) for c in front})
    return shown[front + [c for c in frame.columns if c not in front and c not in ids] + ids]


def cmd_map(args: argparse.Namespace) -> int:
    from engram_kit.analysis import analyze_structure, link_to_knowledge_graph

    with _open(args, read_only=True) as ws:
        _, graph = _map_graph(ws, args, args.min_occurrence)
        if graph.number_of_nodes() == 0:
            print(f"The map is empty at --min-occurrence {args.min_occurrence}; try a lower value.")
            return 0
        structure = analyze_structure(graph, resolution=args.resolution)
        links = link_to_knowledge_graph(graph, ws.curated_edges(list(graph.nodes)))
        print(", ".join(f"{k}={v}" for k, v in structure.summary().items()))
        print("\nTop betweenness (bridging entities):")
        print(_names_first(structure.nodes.head(10), {"name": "id"}).to_string(index=False))
        print("\nCommunities:")
        print(structure.communities.head(10).to_string(index=False))
        new = links[links["kg_status"] == "new in literature"]
        if not new.empty:
            print("\nNew in the literature (co-occurring entities without a curated edge; top 10 by weight):")
            shown = new.head(10)[["source_name", "target_name", "sentences", "weight", "source", "target"]]
            print(_names_first(shown, {"source_name": "source", "target_name": "target"}).to_string(index=False))
        status = links["kg_status"].value_counts()
        graph_name = ws.manifest["knowledge_graph"].get("name", "the knowledge graph")
        others = ", ".join(f"{n} {s}" for s, n in status.items() if s not in ("curated", "new in literature"))
        print(f"\n{len(links)} edges: {int(status.get('curated', 0))} curated in {graph_name}, "
              f"{len(new)} new in the literature" + (f", {others}" if others else ""))
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            structure.nodes.to_csv(args.out / "nodes.csv", index=False)
            structure.communities.to_csv(args.out / "communities.csv", index=False)
            structure.bridges.to_csv(args.out / "bridges.csv", index=False)
            links.drop(columns=["evidence"], errors="ignore").to_csv(args.out / "edges.csv", index=False)
            print(f"CSVs written to {args.out}")
    return 0


def cmd_discover(args: argparse.Namespace) -> int:
    from engram_kit.analysis import open_discovery
    from engram_kit.errors import QueryError

    with _open(args, read_only=True) as ws:
        candidates = ws.resolver.resolve(args.entity)
        if "::" in args.entity:
            start = args.entity
        elif candidates:
            start = candidates[0].node_id
        else:
            raise QueryError(f"{args.entity!r} does not resolve to a graph entity; try its exact name or id.")
        lit, graph = _map_graph(ws, args, 1)
        if start not in graph:
            raise QueryError(f"{start} is not mentioned in the workspace's documents; ingest literature about it.")
        result = open_discovery(graph, start, cooccurring=lit.cooccurring(start), c_kinds=args.kinds, top=args.top)
        print(f"A = {start}")
        print(result.candidates.to_string(index=False) if not result.candidates.empty else "(no candidates)")
    return 0




# --- the command table -------------------------------------------------------------------------------------
# --- engram plugins: what each registry holds (engram_kit.plugins) ------------------------------------------
def _plugins_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``engram plugins``."""
    p.add_argument("kind", nargs="?", choices=tuple(plugins.REGISTRIES), default=None,
                   help="only this kind (default: all)")
    p.add_argument("--json", action="store_true", help="print {kind: {name: description}} as JSON")


def cmd_plugins(args: argparse.Namespace) -> int:
    """List every registry's names and descriptions; imports no plugin module (the names are the lazy
    registrations and the installed distributions' entry points)."""
    kinds = [args.kind] if args.kind else list(plugins.REGISTRIES)
    table = {kind: {name: plugins.REGISTRIES[kind].describe(name) for name in plugins.REGISTRIES[kind].names()}
             for kind in kinds}
    if args.json:
        print(json.dumps(table, indent=2))
        return 0
    for kind, entries in table.items():
        print(f"{kind} (entry-point group {plugins.NAMESPACE}.{kind}):")
        width = max((len(n) for n in entries), default=0)
        for name, description in entries.items():
            print(f"  {name:<{width}}  {description}".rstrip())
        if not entries:
            print("  (none)")
    return 0


@dataclass(frozen=True)
class Command:
    """One ``engram`` subcommand: its name, help line, argument declarations and the function that runs it
    (returns the exit status). A new subcommand is one function pair and one row of :data:`COMMANDS`."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: str = ""


#: Every subcommand, in ``engram --help`` order.
COMMANDS: tuple[Command, ...] = (
    Command("init", "create a workspace and load a knowledge graph (bundled sample by default)",
            _init_args, cmd_init_with_backend),
    Command("ingest", "ingest PubMed records (.jsonl, PubMed .xml, MEDLINE .nbib/.txt; .gz ok), documents "
                      "(.pdf, .html, .md) and URLs",
            _ingest_args, cmd_ingest_any,
            description="Ingest PubMed records (.jsonl/.ndjson, PubMed .xml, MEDLINE .nbib/.medline/.txt; each "
                        ".gz ok), documents (.pdf, .html/.htm/.xhtml, .md/.markdown) and web pages (http(s):// or "
                        "file:// URLs)."),
    Command("ask", "ask a question; prints entities, ranked passages and a cited answer",
            _ask_args, cmd_ask),
    Command("shell", "ask questions in a loop over one open workspace (:help, :within, :json, :quit; history)",
            _shell_args, cmd_shell),
    Command("info", "what the workspace holds",
            _info_args, cmd_info),
    Command("demo", "init on the bundled sample (if needed), ingest its abstracts, ask a question",
            _demo_args, cmd_demo),
    Command("check", "compare graph passages with stored vectors; --repair makes them agree",
            _check_args, cmd_check),
    Command("desk", "investigate a question with bounded read-only Cypher; prints artifacts, row-cited claims, "
                    "outcome and withheld count",
            _desk_args, cmd_desk),
    Command("cypher", "run one read-only Cypher query with the desk's guard and budgets; rows cited q1:r1 "
                      "(table, --json, --csv)",
            _cypher_args, cmd_cypher),
    Command("docs", "list uploaded documents (title, status, passages, entities, seconds)",
            _docs_args, cmd_docs),
    Command("doc", "show one document: metadata, sections with summaries, entities, statistics",
            _doc_args, cmd_doc),
    Command("rm", "delete a document: original, graph nodes and edges, vectors",
            _rm_args, cmd_rm),
    Command("reprocess", "run the document pipeline again on a stored original",
            _reprocess_args, cmd_reprocess),
    Command("purge", "rewrite the graph and vector stores so deleted text is gone from disk",
            _purge_args, cmd_purge),
    Command("migrate", "copy an embedded workspace into Neo4j, as a new workspace folder",
            _migrate_args, cmd_migrate),
    Command("export", "export the workspace graph (neo4j-admin import CSVs)",
            _export_args, cmd_export),
    Command("dashboard", "serve the workbench (assistant, explorer, documents) with Voila on 127.0.0.1",
            _dashboard_args, cmd_dashboard),
    Command("investigate", f"run the routed agents ({', '.join(plugins.agents.names())}) and synthesis; prints "
                           "routing, each agent's cited findings and the synthesis",
            _investigate_args, cmd_investigate),
    Command("map", "co-occurrence map of the workspace's documents: communities, bridges, CSVs",
            _map_args, cmd_map),
    Command("discover", "open discovery (Swanson ABC): entities linked to A only through B",
            _discover_args, cmd_discover),
    Command("plugins", "list the registered graph formats, backends, embedders, agents, NER taggers, LLM providers "
                       "and vector stores (engram_kit.plugins; entry-point groups engram_kit.<kind>)",
            _plugins_args, cmd_plugins),
)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``engram`` command. Returns the process exit status."""
    args = build_parser().parse_args(argv)
    if getattr(args, "workspace", None) is None and args.global_workspace is not None:
        args.workspace = args.global_workspace
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.run(args))
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
