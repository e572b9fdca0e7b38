"""Antecedent ranking on the handbooks' labelled referents: the hand-set salience order
against learned orders, and against what the shipped binding did (issue 20, session 29).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/antecedent_rank.py --cache /work/cache/bench_md \
        [--trials bench/.trials --tag sg002] [--handbooks /work/cache/hb_]

For every turn of a default-mode handbook trial (`bench/default_trials.sh`) that has a
labelled binding and a referent, replayed with the trial's own replies as history: the
candidate phrases the resolver reads (`selector.candidates`, the features its learned
scorer shares), which of them hold every word of the labelled antecedent, and whether the
first candidate of each order is one. Orders compared on the candidates both know:

- `hand`: `binding.collect_candidates`' salience (recency, role, rarity);
- a logistic model (`train_scorer.fit`) fitted on MTRAG's human rewrites (the label
  `scripts/train_scorer.py` ships), on one handbook's labels, or on both;
- `trial`: whether the trial's own binding was right (`handbook_trial._binding`), next to
  whether the hand-set order's first candidate was.

PostHog is held out: only totals are printed for it, never a turn.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "scripts")]

import train_scorer  # noqa: E402
import train_selector  # noqa: E402
from handbook_corpora import CORPORA  # noqa: E402
from handbook_replay import project  # noqa: E402
from handbook_trial import _tokens, rejudge  # noqa: E402

from tellmemore.assistant import Assistant  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation.binding import Salience, collect_candidates  # noqa: E402
from tellmemore.conversation.gate import gate  # noqa: E402
from tellmemore.conversation.headings import headings_of  # noqa: E402
from tellmemore.conversation.preamble import without_preamble  # noqa: E402
from tellmemore.conversation.referents import find_referents  # noqa: E402
from tellmemore.conversation.scorer import features  # noqa: E402
from tellmemore.conversation.selector import SelectorModel  # noqa: E402
from tellmemore.conversation.text import content_words, stem  # noqa: E402
from tellmemore.turn import scoped_headings, scoped_term_stats  # noqa: E402
from tellmemore.types import Turn  # noqa: E402

HANDBOOKS = ("clef", "tts", "posthog")
Case = dict[str, Any]


def referent_cases(corpus: str, trial: dict[str, Any], cache: Path) -> list[Case]:
    """Per labelled referent turn: the candidates (features, stems, holds the antecedent)
    and the hand-set order's stems."""
    rows = [r for r in trial["rows"] if r["mode"] == "floor (default)"]
    assistant = Assistant.open(project(corpus, cache), settings=Settings())
    out: list[Case] = []
    try:
        index = assistant.retriever.index
        stats, heads = scoped_term_stats(index, ""), scoped_headings(index, "")
        histories: dict[str, list[Turn]] = {}
        for r in rows:
            history = histories.setdefault(r["conversation"], [])
            message = r["message"]
            labelled = r.get("labelled_binding") or {}
            if labelled and history and find_referents(message):
                verdict = gate(
                    without_preamble(message), history, stats, headings=headings_of(heads)
                )
                want = set().union(*(_tokens(v) for v in labelled.values()))
                own = {stem(w) for w in content_words(message)}
                cands = [
                    {
                        "x": s.features,
                        "stems": s.phrase.stems,
                        "y": float(bool(_tokens(s.phrase.text)) and want <= _tokens(s.phrase.text)),
                    }
                    for s in features(message, history, Salience(stats), verdict)
                ]
                hand = [
                    c.stems
                    for c in collect_candidates(history, Salience(stats), window=3)
                    if not set(c.stems) <= own
                ]
                out.append(
                    {"key": f"{r['conversation']}.{r['turn']}", "cands": cands, "hand": hand}
                )
            history += [Turn("user", message), Turn("assistant", r["reply"] or "")]
    finally:
        assistant.close()
    return out


def _pool(case: Case) -> list[dict[str, Any]]:
    """The candidates both orders know, in the hand-set order."""
    index = {tuple(c["stems"]): c for c in case["cands"]}
    return [index[tuple(s)] for s in case["hand"] if tuple(s) in index]


def top1(cases: Sequence[Case], prob: Callable[[Sequence[float]], float] | None) -> tuple[int, int]:
    """(first candidate holds the antecedent, turns where some candidate does); `prob` None:
    the hand-set order."""
    right = n = 0
    for case in cases:
        pool = _pool(case)
        if not pool or not any(c["y"] for c in case["cands"]):
            continue
        best = pool[0] if prob is None else max(pool, key=lambda c: prob(c["x"]))
        n += 1
        right += int(best["y"] > 0)
    return right, n


def _rows(cases: Sequence[Case]) -> list[train_selector.TurnRows]:
    return [
        train_selector.TurnRows(
            "", "", np.array([c["x"] for c in case["cands"]], float),
            np.array([c["y"] for c in case["cands"]], float), [], set(), set(),
        )
        for case in cases
        if case["cands"]
    ]  # fmt: skip


def _mtrag_rows(cache: Path) -> list[train_selector.TurnRows]:
    return [
        train_selector.TurnRows("", "", r.x, r.rewrite, [], set(), set())
        for d in train_scorer.DOMAINS
        for r in train_scorer.extract(d, cache)
        if len(r.x)
    ]


def _model(rows: list[train_selector.TurnRows], l2: float) -> SelectorModel:
    w, b, mean, scale = train_selector.fit(rows, l2)
    return SelectorModel(tuple(w.tolist()), b, tuple(mean.tolist()), tuple(scale.tolist()), 0.5)


def against_trial(corpus: str, cases: Sequence[Case], trial: dict[str, Any]) -> Counter[str]:
    """Hand-set first candidate right or wrong, against the trial's own binding."""
    judged = rejudge(trial["rows"], trial["passages"], CORPORA[corpus].conversations)
    by_key = {f"{r['conversation']}.{r['turn']}": r for r in judged}
    out: Counter[str] = Counter()
    for case in cases:
        pool = _pool(case)
        if not pool or not any(c["y"] for c in case["cands"]):
            hand = "not among the candidates"
        else:
            hand = "hand right" if pool[0]["y"] else "hand wrong"
        out[f"{hand}, trial {by_key[case['key']]['binding']}"] += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, required=True, help="the MTRAG eval index cache")
    ap.add_argument("--trials", type=Path, default=ROOT / "bench" / ".trials")
    ap.add_argument("--tag", default="sg002", help="trial_<tag>_<corpus>.json")
    ap.add_argument("--handbooks", default="/tmp/tellmemore-handbook-replay/")
    args = ap.parse_args()
    trials = {
        c: json.loads((args.trials / f"trial_{args.tag}_{c}.json").read_text()) for c in HANDBOOKS
    }
    cases = {c: referent_cases(c, trials[c], Path(args.handbooks + c)) for c in HANDBOOKS}
    mtrag = _mtrag_rows(args.cache)
    fits: dict[str, list[train_selector.TurnRows]] = {
        "MTRAG rewrites": mtrag,
        "Clef labels": _rows(cases["clef"]),
        "TTS labels": _rows(cases["tts"]),
        "Clef + TTS labels": _rows(cases["clef"]) + _rows(cases["tts"]),
        "MTRAG + Clef + TTS": mtrag + _rows(cases["clef"]) + _rows(cases["tts"]),
    }
    print("| order | " + " | ".join(HANDBOOKS) + " |")
    print("| --- |" + " --- |" * len(HANDBOOKS))
    orders: dict[str, Callable[[Sequence[float]], float] | None] = {"hand-set salience": None}
    for name, rows in fits.items():
        for l2 in (1.0, 10.0):
            orders[f"{name}, L2 {l2:g}"] = _model(rows, l2).probability
    for name, prob in orders.items():
        cells = [top1(cases[c], prob) for c in HANDBOOKS]
        print(f"| {name} | " + " | ".join(f"{a}/{n}" for a, n in cells) + " |")
    print()
    for c in HANDBOOKS:
        counts = against_trial(c, cases[c], trials[c])
        print(f"{c}: " + "; ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
