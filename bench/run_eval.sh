#!/usr/bin/env bash
# Regenerate bench/results/eval/: `tellmemore eval` over the three shared MTRAG domains with the
# current default configuration (tellmemore.toml / TELLMEMORE_* unset).
#
# The first run builds one index per domain (about 46k chunks of <= 192 MiniLM tokens; 20-40
# minutes on 2 shared cores); indexes, query vectors and rankings are cached in bench/.cache
# (gitignored), keyed by corpus hash, embedder and chunk size, so later runs take minutes.
# Usage: bench/run_eval.sh [extra tellmemore eval options]
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
DATA="${TELLMEMORE_BENCH_DATA:-../shared/bench/mtrag}"
OUT=bench/results/eval
args=("$DATA/clapnq" "$DATA/cloud" "$DATA/govt" --cache bench/.cache --out "$OUT" "$@")
mkdir -p "$OUT"
start=$(date +%s)
nice -n 10 .venv/bin/python -m tellmemore eval "${args[@]}"
{
  echo "# produced by bench/run_eval.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ) at commit $(git rev-parse --short HEAD) in $(( $(date +%s) - start )) s"
  printf 'tellmemore eval'
  printf ' %q' "${args[@]}"
  echo
} > "$OUT/COMMAND.txt"
