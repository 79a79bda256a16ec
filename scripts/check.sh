#!/usr/bin/env bash
# Static checks configured in pyproject.toml: `ruff check` (lint) and `mypy` (types of engram_kit and
# engram_widgets). scripts/test.sh runs this before the tests; run it alone before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
ruff check engram_kit widgets tests scripts benchmarks
mypy
