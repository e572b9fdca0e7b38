"""Which passages the offline answer reads, learned: the scorer of `answer.reading` (issue 21).

    TRIALS_OUT=bench/.trials HF_HUB_OFFLINE=1 .venv/bin/python bench/reading_set.py \
        --mtrag ../shared/bench --cache /work/cache/bench_md --no-pool \
        [--any] [--write] [--vectors FILE] --out bench/results/reading_set_siblings

The offline answer reads the first three fused hits (`extractive.MAX_CHUNKS`). Over the
seventeen handbook trials of main at session 41, the passage holding a turn's `expect`
strings was the 4th or 5th hit in 114 of the 1138 answered ANSWERABLE held-out turns: cited,
never quoted. A hand rule (the densest passage read third, bench/results/densest_passage.md)
gained on the handbooks and lost on every MTRAG domain.

Here `answer.reading`'s conditional logit over per-passage features is fitted on the trials'
own turns (label: the passage holds every `expect` string, as the trial judges),
leave-one-corpus-out: each corpus is replayed with the model fitted on the others, its
answers judged as `bench/trial_answers.py` judges a trial's. By default a 4th or 5th hit
sharing a document with one of the first three may take the weakest one's place
(`reading.order`, opt-in `retrieval.read_siblings`); `--any` reads the three best-scored of
the five, whatever their document. Held-out corpora are reported as totals only. With
`--mtrag DATA --cache DIR` the answer F1 against MTRAG's and MTRAG-UN's references (top 5 of
the cached eval index) is reported with the reading off and on; without `--no-pool` MTRAG's
turns join the fit (a gold passage positive; each MTRAG domain scored by a model fitted
without it). `--write` writes the all-handbook fit as `reading_weights.json`.
bench/results/reading_set.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path[:0] = [os.getcwd(), str(Path(__file__).resolve().parent)]

from handbook_corpora import CORPORA, DEV_NAMES  # noqa: E402
from sentence_screen import CachedEmbed  # noqa: E402
from trial_answers import answerable_rows, hits_of, holds  # noqa: E402

from tellmemore.answer import extractive, reading, scoring  # noqa: E402
from tellmemore.answer.reading import FEATURES, POOL, READ, features  # noqa: E402
from tellmemore.answer.scoring import Embed, Scorer  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.types import Hit  # noqa: E402


def reading_order(row: dict[str, Any], embed: Embed, model: Scorer) -> list[int]:
    """The product's order for `row`'s query and hits (`reading.order`: a sibling of a passage
    read may take the weakest one's place), or with `--any` the three best-scored of the first
    five, whatever their document (the variant that lost on MTRAG)."""
    query, hits = row["standalone"], row["_hits"]
    if not ANY_PASSAGE:
        return reading.order(query, hits, embed, model)
    n = len(hits)
    if min(n, POOL) <= READ:
        return list(range(n))
    p = model.probabilities(row_features({**row, "_hits": hits[:POOL]}, embed))
    chosen = sorted(np.argsort(-p, kind="stable")[:READ].tolist())
    return chosen + [i for i in range(n) if i not in chosen]


def row_features(row: dict[str, Any], embed: Embed) -> np.ndarray:
    """`reading.features` of the row's hits; with `--regime` each also times the index's size
    (log10 of its chunks, less 2.5), so one fit may weigh a feature differently on a
    few-hundred-chunk handbook and on a pooled corpus of tens of thousands."""
    x = features(row["standalone"], row["_hits"], embed)
    if not REGIME:
        return x
    return np.hstack([x, x * (math.log10(row["_n"]) - 2.5)])


REGIME = False
"""`--regime` (with `--any`): the features and their products with the index's size."""
ANY_PASSAGE = False
"""`--any`: any 4th or 5th hit may be read, not only a sibling of a passage read."""
WEIGHTS = Path(reading.__file__).with_name("reading_weights.json")
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
            rows.append({**row, "_hits": hits, "_labels": labels, "_n": trial["chunks"]})
        out[name] = rows
    return out


def fit(rows: Sequence[dict[str, Any]], embed: CachedEmbed, l2: float) -> scoring.Scorer:
    """The conditional logit over the turns whose top five hold an answering passage."""
    groups, gains = [], []
    for row in rows:
        if row["_labels"].any() and len(row["_hits"]) > 1:
            groups.append(row_features(row, embed))
            gains.append(row["_labels"])
    members = [g.astype(float) for g in gains]
    return scoring.fit_listwise(groups, gains, members, l2=l2)


def answer_holds(row: dict[str, Any], hits: list[Hit], embed: CachedEmbed) -> bool:
    """The shipped sentence choice over `hits` in the order given (no learned reading)."""
    selection = {**extractive.selection_of(Settings().retrieval), "reading": False}
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
            order = reading_order(row, embed, model)
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
        meta = next((cache / "index").glob(f"{d}-*/meta.json"))
        chunks = json.loads(meta.read_text())["chunks"]
        for name, cases in sets.items():
            gold = [{h.chunk.id.removeprefix("c-") for h in c.hits} for c in cases]
            rows = []
            for c, g in zip(retrieve(cases, d, data, cache, 1), gold, strict=True):
                labels = np.array([float(h.chunk.doc_id in g) for h in c.hits])
                rows.append(
                    {
                        "standalone": c.query,
                        "_hits": c.hits,
                        "_labels": labels,
                        "ref": c.reference,
                        "_n": chunks,
                    }
                )
            out[name] = rows
            print(name, len(rows), "turns,", sum(r["_labels"].any() for r in rows), "with gold")
    return out


def answer_text(query: str, hits: Sequence[Hit], embed: CachedEmbed) -> str:
    selection = {**extractive.selection_of(Settings().retrieval), "reading": False}
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
        order = reading_order(r, embed, model)
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


def latency(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """CPU ms per turn of `best_sentences` over each row's five hits, the learned reading off
    and on, embedding as a turn does (the query runtime behind a vector cache, a new
    one each pass so nothing is cached from the pass before), the best of two
    passes (`time.process_time`: the machine is shared)."""
    from tellmemore.index.embedders import SentenceTransformerEmbedder
    from tellmemore.index.vector_cache import CachedEncode, VectorCache

    base = extractive.selection_of(Settings().retrieval)
    out: dict[str, float] = {"turns": len(rows)}
    for name, on in (("off", False), ("on", True)):
        passes = []
        for _ in range(2):
            embedder = SentenceTransformerEmbedder()
            embedder.embed_queries(["warm up"])
            embed = CachedEncode(embedder.embed_queries, VectorCache())
            start = time.process_time()
            for r in rows:
                selection = {**base, "reading": on}
                extractive.best_sentences(r["standalone"], r["_hits"], embed=embed, **selection)
            passes.append((time.process_time() - start) / max(1, len(rows)) * 1000)
        out[name] = round(min(passes), 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tag", default="named40c")
    parser.add_argument("--vectors", type=Path)
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--mtrag", type=Path, help="also fit on MTRAG's retrieved turns (the bench data folder)"
    )
    parser.add_argument("--cache", type=Path, help="the eval index cache (with --mtrag)")
    parser.add_argument("--any", action="store_true", help="see ANY_PASSAGE")
    parser.add_argument("--regime", action="store_true", help="see REGIME (needs --any)")
    parser.add_argument("--write", action="store_true", help="write the all-handbook fit")
    parser.add_argument(
        "--latency",
        type=int,
        metavar="N",
        help="only time the answer on N dev turns, reading off and on (CPU ms per turn)",
    )
    parser.add_argument(
        "--no-pool",
        action="store_true",
        help="with --mtrag: fit on the handbooks only, MTRAG answers judged, not fitted on",
    )
    args = parser.parse_args()
    global ANY_PASSAGE, REGIME
    ANY_PASSAGE = args.any
    REGIME = args.regime
    if REGIME and not ANY_PASSAGE:
        parser.error("--regime scores with its own features: use it with --any")
    if args.write and REGIME:
        parser.error("--write writes the product's weights, which have no size terms")
    if args.latency:
        rows = [r for rs in load(args.tag, DEV_NAMES).values() for r in rs][: args.latency]
        print(json.dumps(latency(rows)))
        return
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
    names = (*FEATURES, *(f"{f} x size" for f in FEATURES)) if REGIME else FEATURES
    results["weights"] = dict(zip(names, map(float, model.weights), strict=True))
    print("weights (all)", json.dumps(results["weights"]), flush=True)
    if args.write:
        about = (
            f"the {len(by)} bundled handbook trials of tag {args.tag}: each answered ANSWERABLE "
            "turn's top 5 hits, a passage positive when it holds every expect string"
            + ("; with MTRAG's retrieved turns, a gold passage positive" if pooled else "")
            + f"; conditional logit, L2 {args.l2} (bench/reading_set.py --write)"
        )
        WEIGHTS.write_text(reading.to_json(model, fitted_on=about), encoding="utf-8")
    if args.vectors:
        args.vectors.write_bytes(pickle.dumps(vectors))
    if args.out:
        args.out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
