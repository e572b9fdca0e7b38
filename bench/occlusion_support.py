"""Does each asked-about word of a question matter to its best evidence? (issue 22: measured)

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/occlusion_support.py \
        --cache /work/cache/bench_md [--top 3]

An unanswerable question often matches a passage on its topic and misses on one thing
("does unused vacation roll over?" over the vacation policy). Word coverage sees only exact
and near-spelt words; the dense vector sees meaning but not which part matched. Occlusion
reads the dense side word by word: for each focus word w (`answer.focus.candidates`) of
the standalone query q,

    support(w) = max_s cos(q, s) - max_s cos(q without w, s)

over the sentences s of the top passages (and over the passages themselves). A word the
evidence speaks of lowers the match when removed; a word it does not speak of leaves it
level or raises it. The turn's features are the smallest and the mean support.

Read on MTRAG-UN's labelled turns from the hits `bench/behaviour_features.py` kept
(bench/behaviour_replay.py rebuilds them): AUC of UNANSWERABLE against ANSWERABLE +
PARTIAL, then a logistic model over the features fitted on one domain and reported on the
other at a fitting false rate of 2%, as bench/results/behaviour.md reports the shipped
scorer. Results: bench/results/occlusion_support.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import behaviour_replay as R  # noqa: E402

from tellmemore.answer import focus  # noqa: E402
from tellmemore.ingest.sentences import split_sentences  # noqa: E402

NAMES = (
    "best sentence cos",
    "min support",
    "mean support",
    "min passage support",
    "mean passage support",
)
MAX_SENTENCES = 60


def without(query: str, word: str) -> str:
    return re.sub(r"\s+", " ", re.sub(rf"\b{re.escape(word)}\b", " ", query, flags=re.I)).strip()


def turn_features(query: str, texts: list[str], embed: Any) -> list[float] | None:
    """NAMES for one turn; None when the query has no focus word or the passages no sentence."""
    words = [w for w in focus.candidates(query) if re.search(rf"\b{re.escape(w)}\b", query, re.I)]
    sentences = [s for t in texts for s in split_sentences(t) if len(s.split()) >= 3]
    if not words or not sentences:
        return None
    queries = [query, *(without(query, w) for w in words)]
    v = embed([*queries, *sentences[:MAX_SENTENCES], *texts])
    q, s, p = v[: len(queries)], v[len(queries) : -len(texts)], v[-len(texts) :]
    best_s, best_p = (q @ s.T).max(axis=1), (q @ p.T).max(axis=1)
    support, passage = best_s[0] - best_s[1:], best_p[0] - best_p[1:]
    return [
        float(best_s[0]),
        float(support.min()),
        float(support.mean()),
        float(passage.min()),
        float(passage.mean()),
    ]


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    return float((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean())


def held_out(
    fit: tuple[np.ndarray, np.ndarray],
    test: tuple[np.ndarray, np.ndarray],
    cols: list[int],
    max_false: float,
) -> tuple[float, float]:
    """UNANSWERABLE and ANSWERABLE+PARTIAL abstention rates on `test` of a logistic model
    fitted on `fit`, thresholded to let at most `max_false` of the fit negatives through."""
    from sklearn.linear_model import LogisticRegression

    (xf, yf), (xt, yt) = fit, test
    mu, sd = xf[:, cols].mean(0), xf[:, cols].std(0) + 1e-9
    model = LogisticRegression(C=0.1).fit((xf[:, cols] - mu) / sd, yf)
    sf = model.decision_function((xf[:, cols] - mu) / sd)
    st = model.decision_function((xt[:, cols] - mu) / sd)
    neg = np.sort(sf[yf == 0])[::-1]
    cut = neg[int(max_false * len(neg))]
    return float((st[yt == 1] > cut).mean()), float((st[yt == 0] > cut).mean())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    ap.add_argument("--data", type=Path, default=R.DATA)
    ap.add_argument("--top", type=int, default=3, help="passages read per turn")
    args = ap.parse_args()
    payload = json.loads(R.FEATURES.read_text())

    def run(
        domain: str,
        rows: list[dict[str, Any]],
        data: Path,
        cache: Path,
        settings: Any,
        embedder: Any,
    ) -> list[dict[str, Any]]:
        index, _ = R.open_domain(domain, data, cache, settings, embedder)
        out = []
        try:
            for row in rows:
                if "retrieved" in row and row["label"] != "UNDERSPECIFIED":
                    hits, _ = R.kept_hits(row["retrieved"], index)
                    texts = [h.chunk.text for h in hits[: args.top]]
                    x = turn_features(row["query"], texts, embedder.embed_documents)
                    if x is not None:
                        out.append({"domain": domain, "label": row["label"], "x": x})
        finally:
            index.close()
        return out

    rows = R.each_domain(payload, run, args.data, args.cache)
    data = {}
    for domain in ("clapnq", "cloud"):
        mine = [r for r in rows if r["domain"] == domain]
        data[domain] = (
            np.array([r["x"] for r in mine]),
            np.array([r["label"] == "UNANSWERABLE" for r in mine], dtype=int),
        )
    print("| feature (lower: abstain) | clapnq AUC | cloud AUC |\n| --- | --- | --- |")
    for i, name in enumerate(NAMES):
        aucs = [auc(-x[y == 1, i], -x[y == 0, i]) for x, y in data.values()]
        print(f"| {name} | {aucs[0]:.3f} | {aucs[1]:.3f} |")
    print("\n| features | fitted on -> reported on | UNANSWERABLE | ANSWERABLE+PARTIAL |")
    print("| --- | --- | --- | --- |")
    for cols in ([0], [1], [2], [0, 1], [0, 2], [0, 3, 4], [0, 1, 2, 3, 4]):
        for fit, test in (("clapnq", "cloud"), ("cloud", "clapnq")):
            un, ans = held_out(data[fit], data[test], cols, 0.02)
            print(
                f"| {' + '.join(NAMES[c] for c in cols)} | {fit} -> {test} | {un:.0%} | {ans:.0%} |"
            )


if __name__ == "__main__":
    main()
