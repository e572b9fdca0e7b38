#!/usr/bin/env bash
# Hybrid fusion with and without the calibrated dense floor (issue 22), on the shared MTRAG
# domains: `tellmemore eval` twice per domain (retrieval.calibrated_fusion false / true),
# hybrid retriever, the raw and embedded strategies; bench/fusion_floor.py writes the table.
# Usage: bench/fusion_floor.sh CACHE_DIR DOMAIN...
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
cache=$1; shift
DATA="${TELLMEMORE_BENCH_DATA:-../shared/bench/mtrag}"
OUT=bench/results/fusion_floor
mkdir -p "$OUT"
for d in "$@"; do
  for floor in false true; do
    TELLMEMORE_RETRIEVAL__CALIBRATED_FUSION=$floor .venv/bin/python -m tellmemore eval "$DATA/$d" \
      --strategies raw,embedded --retrievers hybrid --cache "$cache" --out "$OUT/$d-$floor" --json > /dev/null
  done
done
.venv/bin/python bench/fusion_floor.py "$OUT" "$@"
