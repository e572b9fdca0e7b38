"""Synthetic unanswerable turns from MTRAG by gold removal: training data that is not the test.

    .venv/bin/python bench/gold_removal.py search --cache /work/cache/bench_md
    .venv/bin/python bench/gold_removal.py features --cache /work/cache/bench_md [--missed]

`search` runs every MTRAG turn (clapnq, cloud, govt) as a tellmemore turn runs it (retrieve
or not, typos fixed, gate + embedded resolver, the searched phrasings) and keeps each
phrasing's ranked hits, deeper than the product reads them (~30 min on two loaded cores).
`features` (a few minutes) rebuilds two examples per turn from the kept hits and reads the
abstain features (`answer.answerability.features`) of each:

- answerable: the hits as the product fuses them, kept only when a gold passage is in the
  top five;
- unanswerable: the same lists with every gold passage (and any passage of identical text)
  removed, fused again, so the top five are the rest: the subject is covered (the pool is
  dense with hard negatives from the same documents), the asked thing is not.

Unlabelled passages of the pool may still answer a question (MTRAG's gold is not
exhaustive): some "unanswerable" examples are answerable, which makes the fit cautious.
`bench/gold_removal_fit.py` fits the abstain scorer on these rows and reports it on
MTRAG-UN's real labels, fully held out (bench/results/gold_removal.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from behaviour_features import product_runner, run_to_search  # noqa: E402

from tellmemore.answer import answerability  # noqa: E402
from tellmemore.answer.abstain import evidence_hits  # noqa: E402
from tellmemore.answer.calibration import Calibrator  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.eval.corpus import ensure_index  # noqa: E402
from tellmemore.eval.datasets import iter_corpus, load_dataset  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402
from tellmemore.retrieval import fuse_lists  # noqa: E402
from tellmemore.types import Hit  # noqa: E402

DATA = ROOT.parent / "shared" / "bench" / "mtrag"
DOMAINS = ("clapnq", "cloud", "govt")
OUT = ROOT / "bench" / "results" / "gold_removal_features.json"
HITS = ROOT / "bench" / ".cache" / "gold_removal_hits.json"
"""Each turn's kept hits (7 MB, not committed; `search` rewrites them in about a minute)."""
DEEP_K = 20
"""The search's `k`: a single phrasing's list is this deep, several phrasings' lists
`max(4 k, candidates / 2)` = 80; the product reads 5 and 25 of them (`product_depth`),
so removing a turn's gold (at most 9 passages) still leaves them full."""
KEEP = 20
"""Hits kept per list beyond what the product reads."""


def product_depth(settings: Settings, n_queries: int) -> int:
    """How deep `Retriever.search` reads each phrasing's list at the product's `k`."""
    k = settings.retrieval.k
    return k if n_queries == 1 else max(k * 4, settings.retrieval.candidates // 2)


def unique_queries(
    queries: Sequence[str], weights: Sequence[float]
) -> tuple[list[str], list[float]]:
    """The phrasings `Retriever.search` searches (stripped, first of each kept) and their
    weights."""
    out: list[str] = []
    out_w: list[float] = []
    for i, q in enumerate(queries):
        q = q.strip()
        if q and q not in out:
            out.append(q)
            out_w.append(float(weights[i]) if weights else 1.0)
    return out, out_w


def fused(
    per_query: dict[str, list[Hit]], queries: list[str], weights: list[float], settings: Settings
) -> tuple[list[Hit], dict[str, list[Hit]]]:
    """The fused hits and each phrasing's list, cut as `Retriever.search` cuts them."""
    depth = product_depth(settings, len(queries))
    lists = {q: per_query[q][:depth] for q in queries}
    k = settings.retrieval.k
    if len(queries) == 1:
        return lists[queries[0]][:k], lists
    return fuse_lists([lists[q] for q in queries], weights, k=k), lists


def _scores(hits: list[Hit]) -> list[list[Any]]:
    return [[h.chunk.id, h.score, h.bm25, h.dense] for h in hits]


def search_domain(  # type: ignore[no-untyped-def]
    domain: str, data: Path, cache: Path, settings: Settings, embedder, limit: int | None = None
) -> list[dict[str, Any]]:
    """Every turn of the domain run as the product runs it; each phrasing's hits kept."""
    dataset = load_dataset(data / domain, skip_invalid=True)
    index, _ = ensure_index(dataset, embedder=embedder, settings=settings, cache_dir=cache)
    out: list[dict[str, Any]] = []
    with product_runner(index, embedder, settings) as (retriever, runner):
        for turn in dataset.turns[:limit]:
            history = list(turn.history)
            row: dict[str, Any] = {
                "domain": domain,
                "task_id": turn.task_id,
                "gold": list(turn.gold),
                "path": "searched",
            }
            stopped, ran = run_to_search(turn.message, history, runner, index, settings)
            if ran is None:
                out.append({**row, "path": stopped})
                continue
            ph = ran[2]
            queries, weights = unique_queries(ph.queries, ph.weights)
            result = retriever.search(queries, weights=weights, k=DEEP_K)
            depth = product_depth(settings, len(queries)) + KEEP
            out.append(
                {
                    **row,
                    "queries": queries,
                    "weights": weights,
                    "asked": list(ph.evidence()),
                    "per_query": {q: _scores(hs[:depth]) for q, hs in result.per_query.items()},
                }
            )
            if len(out) % 50 == 0:
                print(f"  {domain}: {len(out)} turns", flush=True)
    return out


def removed_ids(gold: Sequence[str], texts: dict[str, str]) -> set[str]:
    """The gold passages and every passage whose text is identical to one of them."""
    wanted = {" ".join(texts.get(g, "").split()) for g in gold} - {""}
    return set(gold) | {pid for pid, t in texts.items() if " ".join(t.split()) in wanted}


def _hits(rows: list[list[Any]], chunks: dict[str, Any], drop: set[str]) -> list[Hit]:
    kept = [r for r in rows if r[0] in chunks and chunks[r[0]].doc_id not in drop]
    return [Hit(chunks[c], s, i + 1, b, d) for i, (c, s, b, d) in enumerate(kept)]


def examples(  # type: ignore[no-untyped-def]
    row: dict[str, Any],
    turn,
    index,
    texts: dict[str, str],
    settings: Settings,
    calibration,
    embed,
    missed: bool = False,
) -> list[dict[str, Any]]:
    """The answerable example (gold in the top five) and the gold-removed one, with their
    abstain features; with `missed`, only the turn as retrieved when no gold passage is in
    its top five (answerable too: the product meets questions whose passage it misses)."""
    ids = {c[0] for hs in row["per_query"].values() for c in hs}
    chunks = {c.id: c for c in index.get(sorted(ids))}
    drop = removed_ids(row["gold"], texts)
    out = []
    for label, removed in (("ANSWERABLE", set()), ("UNANSWERABLE", drop)):
        per_query = {q: _hits(hs, chunks, removed) for q, hs in row["per_query"].items()}
        hits, lists = fused(per_query, row["queries"], row["weights"], settings)
        has_gold = any(h.chunk.doc_id in drop for h in hits)
        if (label == "ANSWERABLE" and has_gold == missed) or (missed and removed):
            continue
        own = evidence_hits(hits, lists, row["asked"])
        feats = answerability.features(
            row["asked"],
            own,
            lists,
            index.term_stats,
            calibration,
            turn.message,
            list(turn.history),
            embed,
        )
        out.append(
            {
                "domain": row["domain"],
                "task_id": row["task_id"],
                "label": label,
                "message": turn.message,
                "path": "judged",
                "gold_top5": has_gold if label == "ANSWERABLE" else False,
                "features": {f"abstain.{k}": v for k, v in feats.items()},
            }
        )
    return out


class CachedEmbed:
    """`embed_documents` remembering each text's vector: the two examples of a turn, and
    the turns of one conversation, share most of their passages' sentences."""

    def __init__(self, embed: Any) -> None:
        self.embed = embed
        self.seen: dict[str, Any] = {}

    def __call__(self, texts: list[str]) -> Any:
        new = [t for t in dict.fromkeys(texts) if t not in self.seen]
        if new:
            self.seen.update(zip(new, self.embed(new), strict=True))
        if len(self.seen) > 50_000:
            self.seen = {t: self.seen[t] for t in texts}
        return np.asarray([self.seen[t] for t in texts])


def features_domain(  # type: ignore[no-untyped-def]
    domain: str,
    rows: list[dict[str, Any]],
    data: Path,
    cache: Path,
    settings: Settings,
    embedder,
    missed: bool = False,
) -> list[dict[str, Any]]:
    dataset = load_dataset(data / domain, skip_invalid=True)
    index, _ = ensure_index(dataset, embedder=embedder, settings=settings, cache_dir=cache)
    texts = {p.id: p.text for p in iter_corpus(data / domain / "corpus.jsonl")}
    turns = {t.task_id: t for t in dataset.turns}
    calibration = Calibrator(index, embedder).get()
    embed = CachedEmbed(embedder.embed_documents)
    out: list[dict[str, Any]] = []
    try:
        for i, row in enumerate(rows, 1):
            if row["path"] == "searched":
                turn = turns[row["task_id"]]
                out += examples(row, turn, index, texts, settings, calibration, embed, missed)
            if i % 50 == 0:
                print(f"  {domain}: {i} turns", flush=True)
    finally:
        index.close()
    return out


def dump(payload: dict[str, Any]) -> str:
    """One row a line."""
    head = {k: v for k, v in payload.items() if k != "rows"}
    rows = ",\n".join(json.dumps(r, ensure_ascii=False) for r in payload["rows"])
    return json.dumps(head, ensure_ascii=False)[:-1] + ', "rows": [\n' + rows + "\n]}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("search", "features"))
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    parser.add_argument("--hits", type=Path, default=HITS, help="the kept hits (search writes)")
    parser.add_argument("--out", type=Path, default=OUT, help="the features (features writes)")
    parser.add_argument("--domains", default=",".join(DOMAINS))
    parser.add_argument("--limit", type=int, help="the first N turns of each domain (a check)")
    parser.add_argument(
        "--missed",
        action="store_true",
        help="features: only the answerable turns with no gold "
        "passage in the top five (`gold_top5` false; the fit may set its threshold on them)",
    )
    args = parser.parse_args()
    settings = Settings()
    embedder = load_embedder(settings.embedder)
    domains = [d.strip() for d in args.domains.split(",") if d.strip()]
    t0 = time.perf_counter()
    rows: list[dict[str, Any]] = []
    if args.step == "search":
        for d in domains:
            rows += search_domain(d, args.data, args.cache, settings, embedder, args.limit)
            print(f"{d}: {sum(r['domain'] == d for r in rows)} turns, "
                  f"{time.perf_counter() - t0:.0f} s", flush=True)  # fmt: skip
        target = args.hits
    else:
        kept = json.loads(args.hits.read_text())["rows"]
        for d in domains:
            mine = [r for r in kept if r["domain"] == d]
            rows += features_domain(d, mine, args.data, args.cache, settings, embedder, args.missed)
            print(f"{d}: {sum(r['domain'] == d for r in rows)} examples, "
                  f"{time.perf_counter() - t0:.0f} s", flush=True)  # fmt: skip
        target = args.out
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(dump({"seconds": round(time.perf_counter() - t0, 1), "rows": rows}))
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
