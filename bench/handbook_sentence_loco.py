"""The sentence scorer fitted on the handbooks' `expect` strings, leave one corpus out over
every bundled corpus (issue 21; session 45's version of handbook_sentence_fit.py).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/handbook_sentence_loco.py \
        --cases bench/.cache/hb_sentence_cases.pkl [--extra] [--exclude ultralytics docker]

Session 36 fitted on four dev handbooks and judged four held-out ones: level with the shipped
scorer (fitted on MTRAG's references). Twenty-nine corpora exist now. Each ANSWERABLE turn
is asked as its labelled rewrite and its top 5 passages searched once
(`handbook_sentence_fit.collect`); each corpus is judged with a scorer fitted on every other
corpus (`--exclude` keeps corpora out of every fit and every total: the fresh ones). The
measure is handbook_sentence_fit's: among the turns whose first 3 passages hold every
`expect` string, the answers (`extractive.best_sentences`) that hold them all, and the
answers' mean length in words. Dev and held-out corpora are totalled apart; no turn is
printed.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import handbook_sentence_fit  # noqa: E402
from handbook_corpora import DEV_NAMES, HELD_OUT_NAMES  # noqa: E402
from handbook_sentence_fit import (  # noqa: E402
    CachedEmbed,
    add_value_features,
    collect,
    fit_on,
    judge,
    total,
)

from tellmemore.config import Settings  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, required=True, help="searched turns (pickle)")
    parser.add_argument("--l2", type=float, nargs="+", default=[1.0, 10.0])
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.1, 0.2, 0.3])
    parser.add_argument("--exclude", nargs="*", default=["ultralytics", "docker"])
    parser.add_argument("--extra", action="store_true", help="kind_held and digit features")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    names = [n for n in (*DEV_NAMES, *HELD_OUT_NAMES) if n not in args.exclude]
    if args.cases.exists():
        turns = pickle.loads(args.cases.read_bytes())
    else:
        turns = collect(names)
        args.cases.parent.mkdir(parents=True, exist_ok=True)
        args.cases.write_bytes(pickle.dumps(turns))
    if args.extra:
        add_value_features()
    handbook_sentence_fit.cache_rows()
    by = {c: [t for t in turns if t.corpus == c] for c in names}
    embed = CachedEmbed(load_embedder(Settings().embedder).embed_documents)
    groups = {"dev": [c for c in names if c in DEV_NAMES]}
    groups["held out"] = [c for c in names if c not in DEV_NAMES]
    results: dict[str, Any] = {}
    if not args.extra:
        shipped = {c: judge(by[c], embed, None) for c in names}
        results["shipped"] = {g: total([shipped[c] for c in cs]) for g, cs in groups.items()}
        results["shipped"]["per_corpus"] = {c: shipped[c]["answered"] for c in names}
        print("shipped", json.dumps(results["shipped"]), flush=True)
    for l2 in args.l2:
        for th in args.thresholds:
            per = {}
            for c in names:
                others = [t for o in names if o != c for t in by[o]]
                per[c] = judge(by[c], embed, fit_on(others, embed, l2, th))
            key = f"l2={l2} th={th}"
            results[key] = {g: total([per[c] for c in cs]) for g, cs in groups.items()}
            results[key]["per_corpus"] = {c: per[c]["answered"] for c in names}
            print(key, json.dumps(results[key]), flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
