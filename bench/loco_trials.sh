#!/usr/bin/env bash
# The default trials with packaged weights files fitted without each corpus they run on.
#   bench/loco_trials.sh WEIGHTS[:WEIGHTS...] LOCO_DIR[:LOCO_DIR...] TAG CORPUS...
# For each CORPUS, each LOCO_DIR/CORPUS.json (written by a bench's --loco-dir, e.g.
# bench/learned_gate.py) replaces the WEIGHTS file in the same place of its list (a file under
# tellmemore/ that the product reads) while bench/default_trials.sh runs that corpus in this
# tree as tag TAG; every WEIGHTS file is put back afterwards, whatever happens. Settings pass
# through the environment (TELLMEMORE_RETRIEVAL__LEARNED_ASK=true ...). Compare with
# bench/trial_totals.py.
set -euo pipefail
IFS=: read -r -a WEIGHTS <<< "$1"
IFS=: read -r -a LOCO <<< "$2"
TAG=$3; shift 3
if [ "${#WEIGHTS[@]}" -ne "${#LOCO[@]}" ]; then
  echo "loco_trials.sh: ${#WEIGHTS[@]} weights files but ${#LOCO[@]} LOCO dirs" >&2
  exit 2
fi
HERE=$(cd "$(dirname "$0")/.." && pwd)
KEPT=$(mktemp -d)
restore() {
  for i in "${!WEIGHTS[@]}"; do
    if [ -f "$KEPT/$i" ]; then cp "$KEPT/$i" "${WEIGHTS[$i]}"; fi
  done
  rm -rf "$KEPT"
}
trap restore EXIT
for i in "${!WEIGHTS[@]}"; do cp "${WEIGHTS[$i]}" "$KEPT/$i"; done
for c in "$@"; do
  for i in "${!WEIGHTS[@]}"; do cp "${LOCO[$i]}/$c.json" "${WEIGHTS[$i]}"; done
  bash "$HERE/bench/default_trials.sh" "$HERE" "$TAG" "$c"
done
