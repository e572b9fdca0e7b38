"""Which three of the top five passages the offline answer reads, learned (issue 21).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/reading_set.py --tag named40c \
        [--vectors /work/cache/reading_vectors.pkl] [--out bench/results/reading_set]

The offline answer reads the first three fused hits (`extractive.MAX_CHUNKS`). Over the
seventeen handbook trials of main at session 41, the passage holding a turn's `expect`
strings was the 4th or 5th hit in 114 of the 1138 answered ANSWERABLE held-out turns: cited,
never quoted. A hand rule (the densest passage read third, bench/results/densest_passage.md)
gained on the handbooks and lost on every MTRAG domain.

Here a conditional logit over per-passage features (`features` below) is fitted
on the trials' own turns (label: the passage holds every `expect` string, as the trial
judges), leave-one-corpus-out: each corpus is replayed with the model fitted on the others.
The answer then reads the three best-scored passages, in their fused order, and is judged
as `bench/trial_answers.py` judges it. Held-out corpora are reported as totals only.
With `--mtrag DATA --cache DIR` MTRAG's retrieved turns (human rewrite, top 5 of the cached
eval index, a gold passage positive) join the fit, and the answer F1 against MTRAG's and
MTRAG-UN's references is reported with the reading off and on (each MTRAG domain with the
model fitted without it). Measured, not shipped: bench/results/reading_set.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path[:0] = [os.getcwd(), str(Path(__file__).resolve().parent)]

from handbook_corpora import CORPORA  # noqa: E402
from sentence_screen import CachedEmbed  # noqa: E402
from trial_answers import answerable_rows, hits_of, holds  # noqa: E402

from tellmemore.answer import extractive, scoring  # noqa: E402
from tellmemore.answer.answer_types import asked_type  # noqa: E402
from tellmemore.answer.answer_types import holds as holds_kind  # noqa: E402
from tellmemore.answer.scoring import Embed, Scorer, content_stems  # noqa: E402
from tellmemore.answer.units import units  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.types import Hit  # noqa: E402

READ = 3
"""Passages the answer reads (`extractive.MAX_CHUNKS`)."""
POOL = 5
"""Hits the choice is made among."""

FEATURES = (
    "rank",
    "score_share",
    "dense_gap",
    "bm25_share",
    "unit_cosine_gap",
    "header_cosine",
    "stems",
    "header_stems",
    "same_doc",
    "asked_kind",
    "log_words",
)


def _header(hit: Hit) -> str:
    return hit.chunk.header or hit.chunk.title or ""


def _units(hit: Hit) -> list[str]:
    return [u.text for u in units(hit.chunk.text, hit.chunk.header)] or [hit.chunk.text]


def features(query: str, hits: Sequence[Hit], embed: Embed) -> np.ndarray:
    """One row of `FEATURES` per hit of `hits`, relative to the other hits where a raw value
    would mean different things on different corpora (scores, cosines)."""
    n = len(hits)
    q_stems = content_stems(query)
    kind = asked_type(query)
    scores = [h.score for h in hits]
    dense = [h.dense if h.dense is not None else -1.0 for h in hits]
    bm25 = [h.bm25 or 0.0 for h in hits]
    unit_lists = [_units(h) for h in hits]
    flat = [u for us in unit_lists for u in us]
    headers = [_header(h) for h in hits]
    vecs = embed([query, *flat, *headers])
    qv, unit_v, head_v = vecs[0], vecs[1 : 1 + len(flat)], vecs[1 + len(flat) :]
    unit_cos = unit_v @ qv
    best_unit, start = [], 0
    for us in unit_lists:
        best_unit.append(float(unit_cos[start : start + len(us)].max()))
        start += len(us)
    top_doc = hits[0].chunk.doc_id if hits else ""
    rows = []
    for i, h in enumerate(hits):
        stems = content_stems(h.chunk.text)
        head_stems = content_stems(headers[i])
        rows.append(
            [
                float(i),
                scores[i] / max(scores) if max(scores) > 0 else 0.0,
                dense[i] - max(dense),
                bm25[i] / max(bm25) if max(bm25) > 0 else 0.0,
                best_unit[i] - max(best_unit),
                float(head_v[i] @ qv),
                len(q_stems & stems) / len(q_stems) if q_stems else 0.0,
                len(q_stems & head_stems) / len(q_stems) if q_stems else 0.0,
                float(h.chunk.doc_id == top_doc),
                float(kind is not None and holds_kind(h.chunk.text, kind)),
                math.log1p(len(h.chunk.text.split())),
            ]
        )
    return np.asarray(rows, dtype=float).reshape(n, len(FEATURES))


def reading_order(query: str, hits: Sequence[Hit], embed: Embed, model: Scorer) -> list[int]:
    """Indices of `hits`: the `READ` best-scored of the first `POOL` (by `model`), in their
    fused order, then the rest in fused order."""
    n = len(hits)
    if min(n, POOL) <= READ:
        return list(range(n))
    p = model.probabilities(features(query, hits[:POOL], embed))
    chosen = sorted(np.argsort(-p, kind="stable")[:READ].tolist())
    return chosen + [i for i in range(n) if i not in chosen]


TRIALS = Path(os.environ.get("TRIALS_OUT", Path(__file__).resolve().parent / ".trials"))


def load(tag: str, corpora: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Each corpus's answerable rows with their rebuilt hits, from the trials of `tag`."""
    out: dict[str, list[dict[str, Any]]] = {}
    for name in corpora:
        path = TRIALS / f"trial_{tag}_{name}.json"
        if not path.exists():
            continue
        trial = json.loads(path.read_text(encoding="utf-8"))
        rows = []
        for row in answerable_rows(trial):
            hits = [  # the trial kept each hit's BM25 score; the product's hits carry it too
                replace(h, bm25=k.get("bm25"))
                for h, k in zip(hits_of(row, trial["passages"]), row["hits"], strict=True)
            ]
            labels = np.array([float(holds(h.chunk.text, row["expect"])) for h in hits])
            rows.append({**row, "_hits": hits, "_labels": labels})
        out[name] = rows
    return out


def fit(rows: Sequence[dict[str, Any]], embed: CachedEmbed, l2: float) -> scoring.Scorer:
    """The conditional logit over the turns whose top five hold an answering passage."""
    groups, gains = [], []
    for row in rows:
        if row["_labels"].any() and len(row["_hits"]) > 1:
            groups.append(features(row["standalone"], row["_hits"], embed))
            gains.append(row["_labels"])
    members = [g.astype(float) for g in gains]
    return scoring.fit_listwise(groups, gains, members, l2=l2)


def answer_holds(row: dict[str, Any], hits: list[Hit], embed: CachedEmbed) -> bool:
    """The shipped sentence choice over `hits` in the order given (no learned reading)."""
    selection = extractive.selection_of(Settings().retrieval)
    quoted = extractive.best_sentences(row["standalone"], hits, embed=embed, **selection)
    return holds(" ".join(e.sentence for e in quoted), row["expect"])


def replay(
    rows: Sequence[dict[str, Any]], embed: CachedEmbed, model: scoring.Scorer | None
) -> dict[str, int]:
    """Answers holding every `expect` string, the shipped reading and the learned one."""
    base = now = moved = 0
    for row in rows:
        hits = row["_hits"]
        before = answer_holds(row, hits, embed)
        if model is None:
            after = before
        else:
            order = reading_order(row["standalone"], hits, embed, model)
            changed = order[:READ] != list(range(min(READ, len(hits))))
            moved += changed
            after = answer_holds(row, [hits[i] for i in order], embed) if changed else before
        base += before
        now += after
    return {"turns": len(rows), "before": base, "after": now, "moved": moved}


def mtrag_rows(data: Path, cache: Path) -> dict[str, list[dict[str, Any]]]:
    """MTRAG's turns (the human rewrite, top 5 hits of the cached eval index; a passage is
    positive when it is gold) and MTRAG-UN's answerable ones, each with its reference."""
    from extractive_answers import DOMAINS, UN_DOMAINS, mtrag_cases, un_cases
    from extractive_retrieved import retrieve

    out: dict[str, list[dict[str, Any]]] = {}
    for d in DOMAINS:
        sets = {f"mtrag/{d}": list(mtrag_cases(data, d))}
        if d in UN_DOMAINS:
            sets[f"mtrag-un/{d}"] = list(un_cases(data, d))
        for name, cases in sets.items():
            gold = [{h.chunk.id.removeprefix("c-") for h in c.hits} for c in cases]
            rows = []
            for c, g in zip(retrieve(cases, d, data, cache, 1), gold, strict=True):
                labels = np.array([float(h.chunk.doc_id in g) for h in c.hits])
                rows.append(
                    {"standalone": c.query, "_hits": c.hits, "_labels": labels, "ref": c.reference}
                )
            out[name] = rows
            print(name, len(rows), "turns,", sum(r["_labels"].any() for r in rows), "with gold")
    return out


def answer_text(query: str, hits: Sequence[Hit], embed: CachedEmbed) -> str:
    selection = extractive.selection_of(Settings().retrieval)
    return " ".join(
        e.sentence for e in extractive.best_sentences(query, hits, embed=embed, **selection)
    )


def f1_change(
    rows: Sequence[dict[str, Any]], embed: CachedEmbed, model: scoring.Scorer
) -> dict[str, float]:
    """Mean answer F1 against the references, the shipped reading and the learned one."""
    from tellmemore.answer.overlap import score_text

    before, after = [], []
    for r in rows:
        hits, q = r["_hits"], r["standalone"]
        text = answer_text(q, hits, embed)
        order = reading_order(q, hits, embed, model)
        new = text if order[:3] == [0, 1, 2] else answer_text(q, [hits[i] for i in order], embed)
        before.append(score_text(text, r["ref"])[1])
        after.append(score_text(new, r["ref"])[1])
    n = max(1, len(rows))
    return {
        "turns": len(rows),
        "before": round(sum(before) / n, 4),
        "after": round(sum(after) / n, 4),
        "better": sum(b > a + 1e-9 for a, b in zip(before, after, strict=True)),
        "worse": sum(b < a - 1e-9 for a, b in zip(before, after, strict=True)),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tag", default="named40c")
    parser.add_argument("--fresh-tag", default="base41")
    parser.add_argument("--vectors", type=Path)
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--mtrag", type=Path, help="also fit on MTRAG's retrieved turns (the bench data folder)"
    )
    parser.add_argument("--cache", type=Path, help="the eval index cache (with --mtrag)")
    parser.add_argument(
        "--no-pool",
        action="store_true",
        help="with --mtrag: fit on the handbooks only, MTRAG answers judged, not fitted on",
    )
    args = parser.parse_args()
    fresh = [n for n in CORPORA if not (TRIALS / f"trial_{args.tag}_{n}.json").exists()]
    by = load(args.tag, [n for n in CORPORA if n not in fresh])
    vectors: dict[str, Any] = (
        pickle.loads(args.vectors.read_bytes()) if args.vectors and args.vectors.exists() else {}
    )
    embed = CachedEmbed(vectors)
    results: dict[str, Any] = {"loco": {}, "mtrag": {}}
    mtrag = mtrag_rows(args.mtrag, args.cache) if args.mtrag else {}
    pool = not args.no_pool
    pooled = [r for name, rs in mtrag.items() if pool and name.startswith("mtrag/") for r in rs]
    for name, rows in mtrag.items():
        fitted_on = [
            r
            for o, rs in mtrag.items()
            if pool and o.startswith("mtrag/") and o != name
            for r in rs
        ]
        model = fit([*fitted_on, *(r for rs in by.values() for r in rs)], embed, args.l2)
        results["mtrag"][name] = f1_change(rows, embed, model)
        print(name, json.dumps(results["mtrag"][name]), flush=True)
    for name in by:
        others = [r for o, rs in by.items() if o != name for r in rs] + pooled
        res = replay(by[name], embed, fit(others, embed, args.l2))
        results["loco"][name] = res
        held = CORPORA[name].held_out
        print(name, "(held out)" if held else "", json.dumps(res), flush=True)
    model = fit([r for rs in by.values() for r in rs] + pooled, embed, args.l2)
    results["weights"] = dict(zip(FEATURES, map(float, model.weights), strict=True))
    print("weights (all)", json.dumps(results["weights"]), flush=True)
    if args.vectors:
        args.vectors.write_bytes(pickle.dumps(vectors))
    if args.out:
        args.out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
