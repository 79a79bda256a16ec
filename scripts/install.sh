#!/usr/bin/env bash
# Create .venv (if needed) and install engram-kit with the notebook and test extras in ONE resolver call.
# torch goes first and pinned. Where the package index holds a local CPU wheel of `torch==2.13.0` that is what
# comes; elsewhere (PyPI, Linux) it is the larger CUDA-enabled build. TORCH_INDEX_URL (e.g.
# https://download.pytorch.org/whl/cpu) installs torch alone from that index: the CPU-only build. The package
# itself keeps an open torch range; a torch already importable in .venv is kept. ENGRAM_EXTRAS adds extras to the
# same resolver call (scripts/test.sh passes `scale`, Ray for the scale-out tests; the demo's install has no Ray).
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
  python -m pip install --quiet "torch==2.13.0" ${TORCH_INDEX_URL:+--index-url "$TORCH_INDEX_URL"}
fi
# The editable build's setuptools (editable_wheel._TopLevelFinder, chosen because engram_kit sits at the root and
# engram_widgets under widgets/) emits an informational "Editable installation. Please be careful with folders in
# your working directory ..." warning that pip prints as a 10-line BuildBackendWarning block. It is information,
# not a problem (the finder maps exactly the two packages); the filter silences that one message in the backend.
PYTHONWARNINGS="ignore:Editable installation${PYTHONWARNINGS:+,$PYTHONWARNINGS}" \
  python -m pip install --quiet -e ".[notebooks,dev,neo4j${ENGRAM_EXTRAS:+,$ENGRAM_EXTRAS}]"
# Byte-compile the project's own modules once: an editable install leaves them as sources, and where
# PYTHONDONTWRITEBYTECODE is set (it is on this project's CI machines) every `engram` command recompiled ~70
# modules (0.6 s of each cold start). Imports still read .pyc files with that variable set.
python -m compileall -q -j 0 engram_kit widgets/engram_widgets >/dev/null
python -c "import engram_kit, ladybug, scispacy, chromadb; print('engram-kit', engram_kit.__version__, 'installed in .venv')"
