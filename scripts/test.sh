#!/usr/bin/env bash
# Install everything and run the test suite plus the executable notebooks (the README's test command;
# .ci/run calls exactly this). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
# shellcheck disable=SC1091
. .venv/bin/activate
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
python -m pytest tests --nbmake notebooks/ -p no:cacheprovider "$@"
