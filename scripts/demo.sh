#!/usr/bin/env bash
# The main job on the bundled sample: install, build a workspace (embedded store, no server, no API key),
# ingest the bundled PubMed abstracts and ask the demo question. Extra arguments go to `engram demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
# shellcheck disable=SC1091
. .venv/bin/activate
engram demo --workspace "${ENGRAM_WORKSPACE:-engram-workspace}" "$@"
