#!/usr/bin/env bash
# Install everything and run the test suite plus the executable notebooks (the README's test command;
# .ci/run calls exactly this). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
# shellcheck disable=SC1091
. .venv/bin/activate
# Neo4j's own Cypher parser (npm @neo4j-cypher/language-support) lints every statement the Neo4j backend sends.
if command -v npm >/dev/null 2>&1; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
python -m pytest tests --nbmake notebooks/ -p no:cacheprovider "$@"
