#!/usr/bin/env bash
# Static checks configured in pyproject.toml: `ruff check` (lint), `mypy` (types of engram_kit and
# engram_widgets) and `lint-imports` (the import layers and no import cycles, docs/architecture.md).
# scripts/test.sh runs this before the tests; run it alone before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
ruff check engram_kit widgets tests scripts benchmarks
mypy
# This tree's packages, not an installed copy, are the ones checked.
PYTHONPATH="$PWD:$PWD/widgets${PYTHONPATH:+:$PYTHONPATH}" lint-imports --no-cache
