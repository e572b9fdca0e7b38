"""Would the history-phrase selector decide better if it saw where a phrase takes the query?

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/selector_closeness.py \
        --cache /work/cache/bench_md

The selector (`conversation/selector.py`) reads where a phrase was said and how rare its
words are; it never reads the documents. Its held-out turn AUC (carry or not) is 0.61-0.67
(bench/results/selector_cross_domain.md). Here every follow-up's candidates are extracted as
`scripts/train_selector.py` extracts them, and three features read from the index are added:

- `closeness`: the message's best cosine over the domain's chunks (how well it lands alone);
- `best_gain`: the best cosine of "message + phrase" minus the message's;
- `top5_gain`: the same for the mean of the five best cosines.

Both models (the shipped features, and those plus the three) are fitted leave-one-domain-out
with `train_selector.fit` and thresholded on the fitting domains as it does (probe
over-binding <= 0.1), then measured on the held-out domain with `train_selector.measure` and
`frontier`. Cost at run time: one MiniLM batch of the message and its candidates (about ten
short texts) and a dense top-5 per text, which the resolver does not pay today. Results:
bench/results/selector_closeness.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import sqlite3
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

import train_selector as ts  # noqa: E402

from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation.selector import FEATURES, SelectorModel, candidates  # noqa: E402
from tellmemore.eval.datasets import load_dataset  # noqa: E402
from tellmemore.eval.terms import content_terms  # noqa: E402
from tellmemore.index.base import Embedder  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402

DOMAINS = ("clapnq", "cloud", "govt")
ADDED = ("closeness", "best_gain", "top5_gain")


def chunk_matrix(cache: Path, name: str) -> np.ndarray:
    """Every chunk vector of the domain's cached index, as stored."""
    db = sorted((cache / "index").glob(f"{name}-*/index.db"))[-1]
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT vector FROM chunks ORDER BY rid").fetchall()
    return np.stack([np.frombuffer(r[0], dtype=np.float32) for r in rows])


def extract(data: Path, cache: Path, name: str, embedder: Embedder) -> list[ts.TurnRows]:
    """`train_selector.extract`'s rows, each candidate's features followed by ADDED."""
    dataset = load_dataset(data / name, skip_invalid=True)
    index = ts._index_for(dataset.name, cache)
    matrix = chunk_matrix(cache, name)
    rows: list[ts.TurnRows] = []
    try:
        for f in ts.follow_ups(dataset, index):
            turn, msg, hist, rewrite, expected = f.turn, f.message, f.said, f.rewrite, f.expected
            found = candidates(turn.message, f.history, f.salience, f.verdict)
            kept = [(c, (set(content_terms(c.phrase.text)) & hist) - msg) for c in found]
            kept = [(c, new) for c, new in kept if new]
            texts = [turn.message] + [f"{turn.message} {c.phrase.text}" for c, _ in kept]
            scores = np.asarray(embedder.embed_documents(texts)) @ matrix.T
            best = scores.max(axis=1)
            top5 = np.sort(scores, axis=1)[:, -5:].mean(axis=1)
            xs, ys, news = [], [], []
            for j, (c, new) in enumerate(kept, start=1):
                hit = len(new & rewrite) / len(new)
                ys.append(1.0 if new & expected and hit >= 0.5 else 0.0)
                xs.append([*c.features, best[0], best[j] - best[0], top5[j] - top5[0]])
                news.append(new)
            width = len(FEATURES) + len(ADDED)
            x = np.array(xs, dtype=float).reshape(-1, width)
            rows.append(ts.TurnRows(name, turn.task_id, x, np.array(ys), news, expected, rewrite))
    finally:
        index.close()
    return rows


def held_out(by: dict[str, list[ts.TurnRows]], width: int) -> list[dict[str, float]]:
    """Per held-out domain, the selector fitted on the others with the first `width`
    features: its binding figures and frontier (train_selector's measures)."""
    out = []
    for held in by:
        cut = [dataclasses.replace(r, x=r.x[:, :width]) for d in by for r in by[d]]
        train = [r for r in cut if r.domain != held]
        test = [r for r in cut if r.domain == held]
        w, b, mean, scale = ts.fit(train, 1.0)
        names = tuple(f"f{i}" for i in range(width))
        model = SelectorModel(
            tuple(w.tolist()), b, tuple(mean.tolist()), tuple(scale.tolist()), 0.5, 2, names
        )
        model = dataclasses.replace(model, threshold=ts.choose_threshold(train, model, 0.10))
        row = {"threshold": model.threshold, **ts.measure(test, model), **ts.frontier(test, model)}
        out.append({"held": held, **row, "weights_added": list(w[len(FEATURES) :])})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    ap.add_argument("--data", type=Path, default=Path("/work/shared/bench/mtrag"))
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/selector_closeness.md")
    args = ap.parse_args()
    start = time.time()
    embedder = load_embedder(Settings().embedder)
    by = {d: extract(args.data, args.cache, d, embedder) for d in DOMAINS}
    lines = [
        "# The selector with closeness features from the index, held out",
        "",
        "`bench/selector_closeness.py --cache /work/cache/bench_md` "
        f"({time.time() - start:.0f} s). Fitted on two MTRAG domains, measured on the third "
        "(train_selector's binding measures: recall, over-binding and probe over-binding at "
        "the threshold chosen on the fitting domains; turn AUC: carry or not; recall within a "
        "probe budget of 0.05; the most recall any threshold reaches).",
        "",
        "| features | held out | threshold | recall | over-binding | probes | turn AUC "
        "| recall, probes <= 0.05 | most recall |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for label, width in (("shipped", len(FEATURES)), ("+ closeness", len(FEATURES) + 3)):
        for r in held_out(by, width):
            lines.append(
                f"| {label} | {r['held']} | {r['threshold']:.2f} | {r['recall']:.3f} "
                f"| {r['over_binding']:.3f} | {r['probe_over_binding']:.3f} "
                f"| {r['turn_auc']:.3f} | {r['recall_at_probe_05']:.3f} | {r['top_recall']:.3f} |"
            )
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
