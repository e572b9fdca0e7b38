#!/usr/bin/env bash
# The leave-one-domain-out figures of issue 20, in one go (needs the eval indexes; never
# builds one: a domain without a complete cached index is left out and named):
#   bench/loo_eval.py       -> bench/results/loo_eval.{md,json}, bench/results/loo/*.json
#   scripts/train_scorer.py -> bench/results/scorer_cross_domain.md (and the scorer model)
#   bench/loo_expansion.py  -> bench/results/loo_expansion.{md,json}
# Usage: bench/run_loo.sh [CACHE_DIR]   (default bench/.cache)
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
CACHE="${1:-bench/.cache}"
PY="${PYTHON:-.venv/bin/python}"
start=$(date +%s)
"$PY" bench/loo_eval.py --cache "$CACHE"
"$PY" scripts/train_scorer.py --cache "$CACHE" --out bench/results/loo/scorer-all.json
"$PY" bench/loo_expansion.py --cache "$CACHE"
echo "bench/run_loo.sh $CACHE at commit $(git rev-parse --short HEAD), $(( $(date +%s) - start )) s, $(date -u +%Y-%m-%dT%H:%M:%SZ)" > bench/results/loo/COMMAND.txt
