#!/usr/bin/env bash
# Sets up tellmemore in .venv/ and (unless --no-demo) runs the demo on the bundled sample docs.
# Needs only Python 3.11 and the package registries.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# torch first and pinned: 2.13.0 is the CPU build; an unpinned torch pulls a multi-GB CUDA build.
.venv/bin/python -m pip install --quiet "torch==2.13.0"
.venv/bin/python -m pip install --quiet -e ".[dev,milvus]"
export HF_HUB_OFFLINE=1
# Export the model to ONNX for the query path and measure bf16 vs fp32 on this CPU (once;
# kept in ~/.cache/tellmemore). Never fails the setup: without an export, queries use torch.
.venv/bin/python -m tellmemore.index.prepare || echo "tellmemore: encoder preparation failed; queries will be encoded with torch"
if [ "${1:-}" != "--no-demo" ]; then
  .venv/bin/tellmemore demo --project .tellmemore/demo
fi
