#!/usr/bin/env bash
# The default-mode handbook trials of one source tree, for before/after comparisons.
#   bench/default_trials.sh TREE TAG [clef tts posthog gitlab sourcegraph civicactions fleet zulip rtd
#   meltano k8s hypha supabase tuist nextcloud flowfuse github publiccode dvelp
#   deeson cryptpad loomio tor p2pu pypi leaf letsencrypt turing cloudflare ultralytics docker
#   catalyst grist expo variant ten7 appwrite cuesoft sentry freelaw azure
#   smartpath openproject carpentries metabase pennlinc joplin pantheon openjs truss strapi jupyter simplelogin homebrew travis opengov ably datum temporal shorebird codemagic outreachy ivpn]
# Runs TREE's bench/handbook_trial.py (TREE's code: a detached worktree of the commit to
# measure) on each corpus in the default mode only, writing OUT/trial_TAG_<corpus>.json
# (OUT: $TRIALS_OUT, default bench/.trials). Compare two runs with bench/trial_diff.py
# (--quiet for PostHog, GitLab, CivicActions, Fleet, Zulip and Read the Docs, which are held
# out: read their totals only). A corpus the tree does not have (a tree from before it was
# added) is skipped and said so.
set -euo pipefail
TREE=$(cd "$1" && pwd); TAG=$2; shift 2
CORPORA=${*:-clef tts posthog gitlab sourcegraph civicactions fleet zulip rtd meltano k8s hypha supabase tuist nextcloud flowfuse github publiccode dvelp deeson cryptpad loomio tor p2pu pypi leaf letsencrypt turing cloudflare ultralytics docker catalyst grist expo variant ten7 appwrite cuesoft sentry freelaw azure smartpath openproject carpentries metabase pennlinc joplin pantheon openjs truss strapi jupyter simplelogin homebrew travis opengov ably datum temporal shorebird codemagic outreachy ivpn}
HERE=$(cd "$(dirname "$0")/.." && pwd)
OUT=${TRIALS_OUT:-$HERE/bench/.trials}
PY=${PYTHON:-$HERE/.venv/bin/python}
mkdir -p "$OUT"
cd "$TREE"
for c in $CORPORA; do
  if ! (cd "$TREE/bench" && "$PY" -c "from handbook_corpora import corpus_for; corpus_for('$c')") \
    >/dev/null 2>&1; then
    echo "$c: skipped (this tree's bench/handbook_corpora.py does not know it)"
    continue  # a tree from before that corpus was added
  fi
  HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false "$PY" bench/handbook_trial.py --corpus "$c" \
    --modes "floor (default)" --out "$OUT/trial_${TAG}_$c" > "$OUT/trial_${TAG}_$c.log" 2>&1
  echo "$c: $OUT/trial_${TAG}_$c.json"
done
