"""Why a fusion change that helps retrieval moves the offline answer: the changed turns of
two `bench/turn_answers.py` runs replayed under both settings, what the answer read.

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/rank_diagnosis.py \
        bench/results/turn_answers_runs/base.json bench/results/turn_answers_runs/qpp2.json \
        --cache /work/cache/bench_md --b retrieval.MULTI_QUERY_QPP=2 --out /tmp/rank_diag.json

For every turn whose F1 differs between the runs A and B, the turn is run through
`TurnRunner.run` with A's and with B's module constants (`--a`, `--b`: `module.NAME=VALUE`
under `tellmemore.`), recording the hits the extractive answer was handed (chunk id, fused
score, dense cosine, BM25) and the sentences it quoted (their chunk's rank). Each changed
turn is then put in one class:

- `set`: the top MAX_CHUNKS chunks are not the same set;
- `order`: the same set in another order;
- `same`: the same chunks in the same order (another cause: the query, the gate).

and for each, whether the first quoted sentence is the same. Read-only on MTRAG (the
MTRAG-UN turns are listed with the rest, as test data: nothing here is fitted).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from behaviour_features import corpus_dir, product_runner  # noqa: E402
from turn_answers import (  # noqa: E402
    DATA,
    DOMAINS,
    UN_DOMAINS,
    _pair,
    answer_text,
    mtrag_cases,
    run_turn,
    un_cases,
)

from tellmemore.answer import extractive  # noqa: E402
from tellmemore.answer.overlap import score_text  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.eval.corpus import ensure_index  # noqa: E402
from tellmemore.eval.datasets import load_dataset  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402


def set_constants(items: list[str]) -> dict[str, object]:
    """Set each `module.NAME=VALUE` (module under `tellmemore.`); returns the old values."""
    old: dict[str, object] = {}
    for item in items:
        key, value = _pair(item)
        module, _, name = key.rpartition(".")
        mod = importlib.import_module(f"tellmemore.{module}")
        if not hasattr(mod, name):
            raise ValueError(f"unknown constant {key!r}")
        old[key] = getattr(mod, name)
        setattr(mod, name, value)
    return old


def changed(a: dict, b: dict) -> dict[str, tuple[float, float]]:
    out: dict[str, tuple[float, float]] = {}
    for name, g in a["groups"].items():
        x, y = g["answer"], b["groups"][name]["answer"]
        for t, fa, fb in zip(x["task_ids"], x["per_turn_f1"], y["per_turn_f1"], strict=True):
            if abs(fa - fb) > 1e-9:
                out[t] = (fa, fb)
    return out


def record(runner, case) -> dict:  # type: ignore[no-untyped-def]
    seen: list[dict] = []
    real = extractive.best_sentences

    def spy(query, hits, **kw):  # type: ignore[no-untyped-def]
        got = real(query, hits, **kw)
        if not kw.get("exclude"):
            seen.append(
                {
                    "query": query,
                    "hits": [
                        {"id": h.chunk.id, "score": h.score, "dense": h.dense, "bm25": h.bm25}
                        for h in hits[:5]
                    ],
                    "quoted": [[e.hit_index, e.sentence] for e in got],
                }
            )
        return got

    extractive.best_sentences = spy  # type: ignore[assignment]
    try:
        a = run_turn(runner, case)
    finally:
        extractive.best_sentences = real  # type: ignore[assignment]
    text = "" if a.abstained or a.clarification is not None else answer_text(a)
    f1 = score_text(text, case.reference)[1] if text else 0.0
    return {"f1": round(f1, 4), "answer": text, "read": seen[-1] if seen else None}


def classify(ra: dict, rb: dict) -> tuple[str, bool]:
    if ra["read"] is None or rb["read"] is None:
        return "no answer", False
    k = extractive.MAX_CHUNKS
    ia = [h["id"] for h in ra["read"]["hits"][:k]]
    ib = [h["id"] for h in rb["read"]["hits"][:k]]
    kind = "same" if ia == ib else "order" if set(ia) == set(ib) else "set"
    qa, qb = ra["read"]["quoted"], rb["read"]["quoted"]
    first = bool(qa and qb) and _first(qa, ia) == _first(qb, ib)
    return kind, first


def _first(quoted: list, ids: list[str]) -> tuple[str, str]:
    """The best-ranked quoted sentence's (chunk id, text): quoted is in reading order."""
    hi, sentence = quoted[0]
    return (ids[hi] if hi < len(ids) else "?", sentence)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--a-const", dest="a_const", action="append", default=[])
    parser.add_argument("--b", dest="b_const", action="append", default=[])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    diff = changed(json.loads(args.a.read_text()), json.loads(args.b.read_text()))
    settings = Settings()
    embedder = load_embedder(settings.embedder)
    rows: list[dict] = []
    for domain in DOMAINS:
        dataset = load_dataset(corpus_dir(args.data / "mtrag" / domain), skip_invalid=True)
        cases = list(mtrag_cases(dataset, domain))
        if domain in UN_DOMAINS:
            cases += list(un_cases(args.data, domain))
        todo = [c for c in cases if c.task_id in diff]
        index, _ = ensure_index(dataset, embedder=embedder, settings=settings, cache_dir=args.cache)
        with product_runner(index, embedder, settings) as (_, runner):
            for case in todo:
                old = set_constants(args.a_const)
                ra = record(runner, case)
                set_constants([f"{k}={json.dumps(v)}" for k, v in old.items()])
                old = set_constants(args.b_const)
                rb = record(runner, case)
                set_constants([f"{k}={json.dumps(v)}" for k, v in old.items()])
                kind, first = classify(ra, rb)
                rows.append(
                    {
                        "group": case.group,
                        "task_id": case.task_id,
                        "stored": diff[case.task_id],
                        "kind": kind,
                        "first_same": first,
                        "a": ra,
                        "b": rb,
                    }
                )
                print(case.group, case.task_id, kind, first, ra["f1"], rb["f1"], flush=True)
    tally = Counter((r["kind"], r["first_same"], _sign(r)) for r in rows)
    print(json.dumps({" ".join(map(str, k)): v for k, v in sorted(tally.items())}, indent=1))
    args.out.write_text(json.dumps({"rows": rows}, indent=1))


def _sign(r: dict) -> str:
    d = r["b"]["f1"] - r["a"]["f1"]
    return "better" if d > 1e-9 else "worse" if d < -1e-9 else "tie"


if __name__ == "__main__":
    main()
