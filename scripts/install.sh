#!/usr/bin/env bash
# Create .venv (if needed) and install engram-kit with the notebook and test extras in ONE resolver call.
# torch goes first and pinned: on these machines `torch==2.13.0` is a local CPU wheel, while an unpinned
# torch would pull a multi-GB CUDA build. The package itself keeps an open torch range for users.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install --quiet --upgrade pip
if ! python -c "import torch" >/dev/null 2>&1; then
  python -m pip install --quiet "torch==2.13.0"
fi
python -m pip install --quiet -e ".[notebooks,dev,neo4j]"
python -c "import engram_kit, ladybug, scispacy, chromadb; print('engram-kit', engram_kit.__version__, 'installed in .venv')"
