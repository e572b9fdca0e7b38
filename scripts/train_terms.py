"""Train the history-term model (tellmemore/conversation/terms.py), leave-one-domain-out.

For every follow-up turn of the MTRAG domains, each candidate word of the history
(`terms.term_candidates`, given the embedded resolver's query for the turn) is labelled
by the human rewrite: positive when the rewrite has it (Porter stems, as `tellmemore
eval` measures binding). With --distant, a word is positive also when the turn's gold
passages hold it and the message does not (labels beyond the human rewrite).
A standardised L2 logistic regression is fitted (scripts/train_selector.py's `fit`).

The threshold is the lowest whose picked words, on the fit domains, are at least
--precision in the rewrite: carrying them cannot raise the pooled over-binding above
1 - precision. Held-out figures: binding recall and over-binding of the embedded query
with the picked words appended, on the gated turns (what the resolver sees) and on all.

Usage: .venv/bin/python scripts/train_terms.py --cache /work/cache/bench_md [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts"), str(ROOT / "bench")]

import train_selector as ts  # noqa: E402

from tellmemore.conversation import selector as sel  # noqa: E402
from tellmemore.conversation.binding import Salience  # noqa: E402
from tellmemore.conversation.gate import gate  # noqa: E402
from tellmemore.conversation.preamble import without_preamble  # noqa: E402
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext  # noqa: E402
from tellmemore.conversation.selector import SelectorModel  # noqa: E402
from tellmemore.conversation.spelling import correct_spelling  # noqa: E402
from tellmemore.conversation.terms import TERM_FEATURES, Term, candidates_for, pick  # noqa: E402
from tellmemore.conversation.text import strip_citations  # noqa: E402
from tellmemore.eval.measures import Binding, binding, pooled_binding  # noqa: E402
from tellmemore.eval.terms import content_terms  # noqa: E402
from tellmemore.types import Resolution, Turn  # noqa: E402

MTRAG = Path("/work/shared/bench/mtrag")
DOMAINS = ("clapnq", "cloud", "govt")


@dataclass
class TermTurn:
    domain: str
    task_id: str
    gated: bool
    message: str
    query: str
    history: list[str]
    rewrite: str
    terms: list[Term]
    y: np.ndarray
    x: np.ndarray
    y_distant: np.ndarray | None = None
    """Rewrite labels, or a word of the gold passages the message lacks (--distant)."""


def corpus_texts(path: Path) -> dict[str, str]:
    out = {}
    with path.open() as f:
        for line in f:
            rec = json.loads(line)
            out[str(rec.get("_id") or rec.get("id") or rec.get("doc_id"))] = (
                f"{rec.get('title', '')} {rec.get('text', '')}"
            )
    return out


def extract(
    domain: str, stats: Callable[[Iterable[str]], Any], *, distant: bool = False
) -> list[TermTurn]:
    """Every follow-up of `domain` with its candidate words, labels and features; the
    selector is whatever `selector.default_model()` gives (set it per split)."""
    resolver = EmbeddedResolver()
    docs = corpus_texts(MTRAG / domain / "corpus.jsonl") if distant else {}
    rows: list[TermTurn] = []
    for line in (MTRAG / domain / "conversations.jsonl").open():
        row = json.loads(line)
        if row["turn"] == 1:
            continue
        history = [Turn(t["role"], strip_citations(t["content"])) for t in row["history"]]
        msg = row["message"]
        fixed, _ = correct_spelling(msg, stats)
        asked = without_preamble(fixed)
        salience = Salience(stats)
        verdict = gate(asked, history, salience=salience)
        ctx = ResolveContext(term_stats=stats)
        res = resolver.resolve(fixed, history, ctx) if verdict.needs_resolution else None
        query = res.query if res is not None else asked
        if res is not None and res.ambiguous:
            continue
        terms = turn_terms(asked, query, history, salience, verdict, res)
        rew = set(content_terms(row["rewrite"]))
        y = np.array([1.0 if t.stem in rew else 0.0 for t in terms])
        y_distant = None
        if distant:
            gold = set(rew)
            msg_terms = set(content_terms(msg))
            for g in row.get("gold", []):
                gold |= set(content_terms(docs.get(g, ""))) - msg_terms
            y_distant = np.array([1.0 if t.stem in gold else 0.0 for t in terms])
        x = np.array([t.features for t in terms], dtype=float).reshape(-1, len(TERM_FEATURES))
        rows.append(
            TermTurn(domain, row["task_id"], verdict.needs_resolution, msg, query,
                     [t["content"] for t in row["history"]], row["rewrite"], terms, y, x,
                     y_distant)
        )  # fmt: skip
    return rows


def turn_terms(
    asked: str,
    query: str,
    history: list[Turn],
    salience: Salience,
    verdict: Any,
    res: Resolution | None,
) -> list[Term]:
    """The candidate words of one turn, as the resolver would read them (the selector's
    phrase probabilities from `selector.default_model()`)."""
    return candidates_for(
        asked, query, history, salience, verdict, resolved=bool(res is not None and res.passes)
    )


def fit(rows: list[TermTurn], l2: float, *, distant: bool = False) -> SelectorModel:
    """The term model on `rows`' rewrite labels (or their distant ones)."""
    w, b, mean, scale = ts.fit(
        [
            ts.TurnRows(r.domain, r.task_id, r.x,
                        r.y_distant if distant and r.y_distant is not None else r.y,
                        [], set(), set())
            for r in rows
            if len(r.x)
        ],
        l2,
    )  # fmt: skip
    return SelectorModel(
        tuple(w.tolist()), b, tuple(mean.tolist()), tuple(scale.tolist()), 0.5, 3, TERM_FEATURES
    )


def carried_query(r: TermTurn, model: SelectorModel) -> str:
    picked = pick(r.terms, model)
    if not picked:
        return r.query
    return f"{r.query} ({' '.join(t.text for t in picked)})"


def bindings(rows: list[TermTurn], model: SelectorModel | None, gated_only: bool) -> list[Binding]:
    out = []
    for r in rows:
        use = model is not None and (r.gated or not gated_only)
        q = carried_query(r, model) if use and model is not None else r.query
        out.append(binding(r.message, r.history, r.rewrite, q))
    return out


def precision(rows: list[TermTurn], model: SelectorModel, gated_only: bool) -> tuple[float, int]:
    hit = n = 0
    for r in rows:
        if gated_only and not r.gated:
            continue
        for t in pick(r.terms, model):
            n += 1
            hit += int(r.y[r.terms.index(t)] > 0)
    return (hit / n if n else 1.0), n


def choose_threshold(
    rows: list[TermTurn], model: SelectorModel, target: float, gated_only: bool
) -> float:
    best = 0.99
    for t in np.arange(0.99, 0.04, -0.01):
        p, n = precision(rows, replace(model, threshold=float(t)), gated_only)
        if n and p >= target:
            best = float(t)
    return round(best, 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--selectors", type=Path, help="selector-without-D.json per split")
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--precision", type=float, default=0.6)
    ap.add_argument("--max-terms", type=int, default=3)
    ap.add_argument("--distant", action="store_true")
    ap.add_argument("--all-turns", action="store_true", help="carry on gate-skipped turns too")
    ap.add_argument("--corpus-stats", action="store_true", help="IDF from corpus.jsonl, no index")
    ap.add_argument("--out", type=Path, help="write term-without-D.json models here")
    args = ap.parse_args()
    gated_only = not args.all_turns
    if args.corpus_stats:  # development without an index: df over the pooled corpus
        import resolver_latency as RL

        class _Stats:
            def __init__(self, d: str) -> None:
                self.term_stats = RL.corpus_stats(MTRAG / d / "corpus.jsonl")

            def close(self) -> None:
                pass

        stats: dict[str, Any] = {d: _Stats(d) for d in DOMAINS}
    else:
        stats = {d: ts._index_for(d, args.cache) for d in DOMAINS}
    for held in (*DOMAINS, "none"):
        if args.selectors:
            sel_path = args.selectors / f"selector-without-{held}.json"
            import os

            os.environ["TELLMEMORE_SELECTOR_WEIGHTS"] = str(sel_path)
            sel.default_model.cache_clear()
        rows = {d: extract(d, stats[d].term_stats, distant=args.distant) for d in DOMAINS}
        fit_on = [d for d in DOMAINS if d != held]
        train = [r for d in fit_on for r in rows[d]]
        if gated_only:
            train = [r for r in train if r.gated]
        model = replace(fit(train, args.l2, distant=args.distant), max_phrases=args.max_terms)
        model = replace(model, threshold=choose_threshold(train, model, args.precision, gated_only))
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / f"terms-without-{held}.json").write_text(
                json.dumps(model.to_json(trained_on=fit_on, l2=args.l2), indent=1) + "\n"
            )
        if held == "none":
            print("all-domain model threshold", model.threshold)
            continue
        test = rows[held]
        before = pooled_binding(bindings(test, None, gated_only))
        after = pooled_binding(bindings(test, model, gated_only))
        p, n = precision(test, model, gated_only)
        print(
            f"{held}: thr {model.threshold:.2f} picked {n} prec {p:.3f} | recall "
            f"{before['recall']:.3f} -> {after['recall']:.3f}, over-binding "
            f"{before['over_binding']:.3f} -> {after['over_binding']:.3f}",
            flush=True,
        )
    for s in stats.values():
        s.close()


if __name__ == "__main__":
    main()
