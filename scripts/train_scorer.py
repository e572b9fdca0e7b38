"""Train the candidate scorer (tellmemore/conversation/scorer.json), leave-one-domain-out.

Every candidate phrase of every follow-up turn gets the shared feature vector
(`scorer.features`) and two labels:
- rewrite: the human rewrite carries its new terms (as `scripts/train_selector.py` labels);
- gold (distant supervision): at least half of its new terms, one at least, are in the
  turn's gold passages; no rewrite is needed, only the passage the answer came from.

For each held-out domain D, with fit domains A and B, four training sets are compared on
D (phrase ROC AUC against D's rewrite labels; antecedent top-1 on D's referent turns, the
learned order against the hand-set salience order of `binding.collect_candidates`):
  R(A): rewrites of one domain only;  R(A)+G(B): the second domain has no rewrites, only
  gold passages;  R(A)+R(B): rewrites of both;  G(A)+G(B): no rewrites at all.
(Each fit domain takes the part of A in turn; the results are averaged. Domains without
a complete cached index are left out; the report names those used.) The shipped model is
fitted on all of them with the label set chosen by that comparison. Writes
bench/results/scorer_cross_domain.md.

Usage: .venv/bin/python scripts/train_scorer.py --cache /work/cache/bench
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

import train_selector as ts  # noqa: E402

from tellmemore.conversation.binding import collect_candidates  # noqa: E402
from tellmemore.conversation.referents import find_referents  # noqa: E402
from tellmemore.conversation.scorer import FEATURES, Scorer, features  # noqa: E402
from tellmemore.conversation.selector import SelectorModel  # noqa: E402
from tellmemore.conversation.text import content_words, stem  # noqa: E402
from tellmemore.eval.datasets import iter_corpus, load_dataset  # noqa: E402
from tellmemore.eval.terms import content_terms  # noqa: E402

DATA = Path(os.environ.get("TELLMEMORE_BENCH_DATA", "/work/shared/bench/mtrag"))
DOMAINS = ("clapnq", "cloud", "govt")


@dataclass
class Rows:
    """One follow-up turn's candidates: features, both labels, and the antecedent test."""

    x: np.ndarray
    rewrite: np.ndarray
    gold: np.ndarray
    stems: list[tuple[str, ...]]
    hit: np.ndarray
    """Per candidate: holds a term the human carried (the antecedent test's truth)."""
    hand: list[tuple[str, ...]]
    """Candidate stems in the hand-set salience order (binding.collect_candidates)."""
    referent: bool
    task_id: str = ""
    texts: tuple[str, ...] = ()
    """Per candidate: the phrase as written (what an expansion would search)."""


def extract(domain: str | Path, cache: Path) -> list[Rows]:
    ds = load_dataset(DATA / domain if isinstance(domain, str) else domain, skip_invalid=True)
    wanted = {g for t in ds.turns for g in t.gold}
    passages = {p.id: f"{p.title} {p.text}" for p in iter_corpus(ds.corpus_path) if p.id in wanted}
    index = ts._index_for(ds.name, cache)
    out: list[Rows] = []
    try:
        for f in ts.follow_ups(ds, index):
            turn, history, salience = f.turn, f.history, f.salience
            msg, hist, rew, expected = f.message, f.said, f.rewrite, f.expected
            scored = features(turn.message, history, salience, f.verdict)
            gold_terms: set[str] = set()
            for g in turn.gold:
                gold_terms |= set(content_terms(passages.get(g, "")))
            xs, yr, yg, st, hit, texts = [], [], [], [], [], []
            for c in scored:
                new = (set(content_terms(c.phrase.text)) & hist) - msg
                if not new:
                    continue
                xs.append(c.features)
                yr.append(float(bool(new & expected) and len(new & rew) / len(new) >= 0.5))
                yg.append(float(bool(new & gold_terms) and len(new & gold_terms) / len(new) >= 0.5))
                st.append(c.phrase.stems)
                texts.append(c.phrase.text)
                hit.append(float(bool(new & expected)))
            own = {stem(w) for w in content_words(turn.message)}
            hand = [
                c.stems
                for c in collect_candidates(history, salience, window=3)
                if not set(c.stems) <= own
            ]
            out.append(
                Rows(
                    np.array(xs, dtype=float).reshape(-1, len(FEATURES)),
                    np.array(yr),
                    np.array(yg),
                    st,
                    np.array(hit),
                    hand,
                    bool(find_referents(turn.message)) and bool(expected),
                    turn.task_id,
                    tuple(texts),
                )
            )
    finally:
        index.close()
    return out


def fit(parts: list[tuple[list[Rows], str]], l2: float = 1.0) -> SelectorModel:
    """A standardised L2 logistic regression on the rows of each part with its label."""
    rows = [
        ts.TurnRows("", "", r.x, r.rewrite if label == "rewrite" else r.gold, [], set(), set())
        for part, label in parts
        for r in part
    ]
    w, b, mean, scale = ts.fit(rows, l2)
    return SelectorModel(tuple(w.tolist()), b, tuple(mean.tolist()), tuple(scale.tolist()), 0.5)


def auc(rows: list[Rows], model: SelectorModel) -> float:
    p = np.concatenate([[model.probability(v) for v in r.x] for r in rows if len(r.x)])
    y = np.concatenate([r.rewrite for r in rows if len(r.x)])
    pos, neg = p[y > 0][:, None], p[y == 0][None, :]
    return float(((pos > neg).sum() + 0.5 * (pos == neg).sum()) / (pos.size * neg.size))


def antecedent_top1(rows: list[Rows], model: SelectorModel | None) -> tuple[float, int]:
    """On referent turns the human resolved: does the first candidate (learned order, or the
    hand-set order when `model` is None) hold a term the human carried?"""
    right = n = 0
    for r in rows:
        if not r.referent or not len(r.x):
            continue
        index = {s: i for i, s in enumerate(r.stems)}
        pool = [s for s in r.hand if s in index]  # the candidates both orders know
        if not pool:
            continue
        n += 1
        if model is None:
            best = pool[0]
        else:
            best = max(pool, key=lambda s: model.probability(r.x[index[s]]))
        right += int(r.hit[index[best]] > 0)
    return (right / n if n else 0.0), n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    ap.add_argument("--out", type=Path, default=ROOT / "tellmemore/conversation/scorer.json")
    ap.add_argument("--report", type=Path, default=ROOT / "bench/results/scorer_cross_domain.md")
    args = ap.parse_args()
    domains = [d for d in DOMAINS if any((args.cache / "index").glob(f"{d}-*/meta.json"))]
    data = {d: extract(d, args.cache) for d in domains}
    settings = {
        "R(A)": lambda a, b: [(data[a], "rewrite")],
        "R(A)+G(B)": lambda a, b: [(data[a], "rewrite"), *((data[x], "gold") for x in b)],
        "R(A)+R(B)": lambda a, b: [(data[x], "rewrite") for x in (a, *b)],
        "G(A)+G(B)": lambda a, b: [(data[x], "gold") for x in (a, *b)],
        "R+G(A,B)": lambda a, b: [(data[x], y) for x in (a, *b) for y in ("rewrite", "gold")],
    }
    table: dict[str, dict[str, tuple[float, float]]] = {}
    hand: dict[str, tuple[float, int]] = {}
    for held in domains:
        fit_on = [d for d in domains if d != held]
        hand[held] = antecedent_top1(data[held], None)
        for name, parts in settings.items():
            models = [fit(parts(a, [b for b in fit_on if b != a])) for a in fit_on]
            vals = [(auc(data[held], m), antecedent_top1(data[held], m)[0]) for m in models]
            table.setdefault(name, {})[held] = (
                float(np.mean([v[0] for v in vals])),
                float(np.mean([v[1] for v in vals])),
            )
            print(held, name, table[name][held], file=sys.stderr, flush=True)
    lines = [
        "# Candidate scorer: rewrites, distant labels from gold passages, held out",
        "",
        "`scripts/train_scorer.py`. Each row is fitted without the held-out domain "
        "(A and B are the other two, in both orders, averaged). Phrase AUC: ROC AUC of the "
        "model's probability against the held-out domain's rewrite labels (which phrases a "
        "person carried). Antecedent top-1: on the held-out referent turns the human "
        "resolved, the share whose best candidate holds a term the human carried; the "
        "hand-set row is `binding.collect_candidates`' salience order over the same "
        "candidates.",
        "",
        "| training data | " + " | ".join(f"{d} AUC | {d} top-1" for d in domains) + " |",
        "| --- |" + " --- | --- |" * len(domains),
        "| hand-set salience | "
        + " | ".join(f"– | {hand[d][0]:.3f} (n={hand[d][1]})" for d in domains)
        + " |",
    ]
    for name, per in table.items():
        cells = " | ".join(f"{per[d][0]:.3f} | {per[d][1]:.3f}" for d in domains)
        lines.append(f"| {name} | {cells} |")
    full = [(data[d], lab) for d in domains for lab in ("rewrite", "gold")]
    best = max(("R(A)+R(B)", "R+G(A,B)"), key=lambda n: sum(table[n][d][0] for d in domains))
    if best == "R(A)+R(B)":
        full = [(data[d], "rewrite") for d in domains]
    labels = "rewrite" if best == "R(A)+R(B)" else "rewrite+gold"
    scorer = Scorer(fit(full), labels)
    args.out.write_text(json.dumps(scorer.to_json(trained_on=domains), indent=1) + "\n")
    shown = args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out
    lines += [
        "",
        f"Model written to `{shown}`: "
        f"fitted on {', '.join(domains)} with {labels} labels (the held-out mean AUC of "
        "R(A)+R(B) against R+G(A,B) chose them). It ships (as conversation/scorer.json) only "
        "where binding by it beats the hand-set order on every held-out domain.",
    ]
    args.report.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
