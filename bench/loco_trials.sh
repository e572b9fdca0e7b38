#!/usr/bin/env bash
# The default trials with a packaged weights file fitted without each corpus it runs on.
#   bench/loco_trials.sh WEIGHTS LOCO_DIR TAG CORPUS...
# For each CORPUS, LOCO_DIR/CORPUS.json (written by a bench's --loco-dir, e.g.
# bench/learned_gate.py) replaces WEIGHTS (a file under tellmemore/ that the product reads)
# while bench/default_trials.sh runs that corpus in this tree as tag TAG; WEIGHTS is put back
# afterwards, whatever happens. Settings pass through the environment
# (TELLMEMORE_RETRIEVAL__LEARNED_ASK=true ...). Compare with bench/trial_totals.py.
set -euo pipefail
WEIGHTS=$1; LOCO=$2; TAG=$3; shift 3
HERE=$(cd "$(dirname "$0")/.." && pwd)
KEPT=$(mktemp)
cp "$WEIGHTS" "$KEPT"
trap 'cp "$KEPT" "$WEIGHTS"; rm -f "$KEPT"' EXIT
for c in "$@"; do
  cp "$LOCO/$c.json" "$WEIGHTS"
  bash "$HERE/bench/default_trials.sh" "$HERE" "$TAG" "$c"
done
