#!/usr/bin/env bash
# The learned selector's cross-domain check (issue 7): train it with each MTRAG domain held
# out, run `tellmemore eval` on the held-out domain with that model, and write
# bench/results/selector_cross_domain.md. Also writes the shipped model (fit on all three)
# to tellmemore/conversation/selector.json. Needs the eval index cache (bench/run_eval.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
DATA="${TELLMEMORE_BENCH_DATA:-../shared/bench/mtrag}"
WORK=bench/.cache/selector
mkdir -p "$WORK"
.venv/bin/python scripts/train_selector.py "$DATA"/{clapnq,cloud,govt} --split-models "$WORK" >/dev/null
for d in clapnq cloud govt; do
  TELLMEMORE_SELECTOR_WEIGHTS="$WORK/without-$d.json" nice -n 10 .venv/bin/python -m tellmemore eval \
    "$DATA/$d" --cache bench/.cache --out "$WORK/eval-$d" --strategies raw,embedded,oracle >/dev/null
done
.venv/bin/python bench/selector_summary.py "$WORK" >> bench/results/selector_cross_domain.md
