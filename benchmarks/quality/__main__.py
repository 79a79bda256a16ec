"""Command line of the quality harness: ``python -m benchmarks.quality --study NAME [--quick]``.

Exit status: 0 when every requested, implemented study ran; 1 when a study failed; 2 when a study that
is not implemented yet was requested on its own (``--study all`` only lists such studies as skipped).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
import traceback
from pathlib import Path

from benchmarks.quality import STUDIES
from benchmarks.quality.common import RESULTS_DIR, StudyOptions, default_shared_data

NOT_IMPLEMENTED = "not yet implemented in this harness version"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.quality",
        description="engram-kit quality studies (issue 7). Writes Markdown + PNG into benchmarks/results/.",
        epilog="Studies: " + "; ".join(f"{s.name}: {s.description}" + ("" if s.implemented else f" [{NOT_IMPLEMENTED}]")
                                     for s in STUDIES.values()),
    )
    parser.add_argument("--study", required=True, choices=[*STUDIES, "all"], help="which study to run")
    parser.add_argument("--quick", action="store_true", help="small CI smoke run (< 60 s per study)")
    parser.add_argument("--shared-data", type=Path, default=None,
                        help="folder with corpora/, synonyms/, hetionet/ (default: $ENGRAM_SHARED_DATA or ../shared/data)")
    parser.add_argument("--results-dir", type=Path, default=RESULTS_DIR, help=f"output folder (default {RESULTS_DIR})")
    parser.add_argument("--progress", action="store_true", help="show progress bars")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    options = StudyOptions(quick=args.quick, shared_data=args.shared_data or default_shared_data(),
                           results_dir=args.results_dir, progress=args.progress)
    names = list(STUDIES) if args.study == "all" else [args.study]
    status = 0
    for name in names:
        study = STUDIES[name]
        if not study.implemented:
            print(f"[{name}] {NOT_IMPLEMENTED}")
            if args.study != "all" and status == 0:
                status = 2
            continue
        started = time.perf_counter()
        try:
            result = study.load()(options)
        except Exception:  # report and go on with the other studies; the exit status says it failed
            traceback.print_exc()
            print(f"[{name}] FAILED after {time.perf_counter() - started:.1f} s")
            status = 1
            continue
        print(f"[{name}] done in {result.seconds:.1f} s -> {result.report}")
        for figure in result.figures:
            print(f"[{name}] figure {figure}")
        for key, value in result.summary.items():
            print(f"[{name}] {key} = {value:.4f}" if isinstance(value, float) else f"[{name}] {key} = {value}")
    return status


if __name__ == "__main__":
    sys.exit(main())
