"""A sentence-level "this sentence answers this question" detector, fitted on MTRAG by gold
removal, as an abstain feature; reported on MTRAG-UN held out.

    .venv/bin/python bench/gold_removal.py search --cache /work/cache/bench_md \
        --hits bench/.cache/gold_removal_hits.json                      # ~1 min
    .venv/bin/python bench/answer_detector.py collect --cache /work/cache/bench_md  # ~10 min
    .venv/bin/python bench/answer_detector.py fit [--write]

`collect` rebuilds, from the kept hits (`bench/gold_removal.py`), every MTRAG example the
session-23 scorer was fitted on (answerable as retrieved, gold in the top five or missed;
unanswerable with the gold passages removed) and every judged MTRAG-UN turn
(`behaviour_features.json`), keeps the sentences of their top five passages, and the
detector's training sentences:

- positives: the sentences of a turn's gold passages that carry its reference answer (the
  next assistant turn): the best by word F1, and any within 80% of it, at F1 >= `MIN_F1`;
- negatives: the sentences of the top five passages left after gold removal (about the
  subject, not answering), except those whose F1 with the reference reaches `MIN_F1` (MTRAG's
  gold is not exhaustive).

Every text is embedded once (MiniLM, as the product embeds sentences). `fit` fits the
detector (`answer.answer_detector`) leave-one-domain-out, gives every example its turn
feature (the best logit over its top five passages' sentences) from a detector that never
saw its domain, fits the abstain scorer with and without it, and reports MTRAG LOO and
MTRAG-UN (thresholds chosen on MTRAG only): bench/results/answer_detector_tables.md (the
reading is in answer_detector.md).
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
sys.path.insert(0, str(ROOT / "bench"))

from gold_removal import DATA, HITS, fused, removed_ids  # noqa: E402
from gold_removal import _hits as kept  # noqa: E402

from tellmemore.answer.abstain import evidence_hits  # noqa: E402
from tellmemore.answer.answer_detector import turn_sentences  # noqa: E402
from tellmemore.answer.overlap import score_text  # noqa: E402
from tellmemore.answer.units import sentences  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation.text import content_words  # noqa: E402
from tellmemore.eval.corpus import ensure_index  # noqa: E402
from tellmemore.eval.datasets import iter_corpus, load_dataset  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402

CACHE = ROOT / "bench" / ".cache"
COLLECTED = CACHE / "answer_detector_data.json"
VECTORS = CACHE / "answer_detector_vectors.npy"
UN_FEATURES = ROOT / "bench" / "results" / "behaviour_features.json"
MIN_F1 = 0.2
NEAR_BEST = 0.8
DOMAINS = ("clapnq", "cloud", "govt")


def references(domain_dir: Path) -> dict[str, str]:
    """task id -> the assistant's reply that followed the turn (the next turn's history)."""
    with (domain_dir / "conversations.jsonl").open(encoding="utf-8") as f:
        turns = [json.loads(line) for line in f]
    by = {(t["conversation_id"], t["turn"]): t for t in turns}
    out = {}
    for t in turns:
        nxt = by.get((t["conversation_id"], t["turn"] + 1))
        if nxt and nxt["history"] and nxt["history"][-1]["role"] == "assistant":
            out[t["task_id"]] = nxt["history"][-1]["content"]
    return out


def labelled(
    gold_texts: Sequence[str], negatives: Sequence[str], reference: str
) -> tuple[list[str], list[str]]:
    """(positive sentences of the gold passages, negative sentences kept)."""
    cands = [s for g in gold_texts for s in sentences(g) if content_words(s)]
    scored = [(score_text(s, reference)[1], s) for s in dict.fromkeys(cands)]
    best = max((f for f, _ in scored), default=0.0)
    if best < MIN_F1:
        return [], []
    pos = [s for f, s in scored if f >= max(MIN_F1, NEAR_BEST * best)]
    neg = [s for s in dict.fromkeys(negatives) if score_text(s, reference)[1] < MIN_F1]
    return pos, neg


def collect_mtrag(domain: str, rows: list[dict[str, Any]], cache: Path, settings, embedder):  # type: ignore[no-untyped-def]
    dataset = load_dataset(DATA / domain, skip_invalid=True)
    index, _ = ensure_index(dataset, embedder=embedder, settings=settings, cache_dir=cache)
    texts = {p.id: p.text for p in iter_corpus(DATA / domain / "corpus.jsonl")}
    refs = references(DATA / domain)
    examples, pairs = [], []
    try:
        for row in rows:
            if row["path"] != "searched":
                continue
            ids = {c[0] for hs in row["per_query"].values() for c in hs}
            chunks = {c.id: c for c in index.get(sorted(ids))}
            drop = removed_ids(row["gold"], texts)
            question = next((q for q in row["asked"] if q.strip()), "")
            removed_sents: list[str] = []
            for label, removed in (("ANSWERABLE", set()), ("UNANSWERABLE", drop)):
                per_query = {q: kept(hs, chunks, removed) for q, hs in row["per_query"].items()}
                hits, lists = fused(per_query, row["queries"], row["weights"], settings)
                has_gold = any(h.chunk.doc_id in drop for h in hits)
                own = evidence_hits(hits, lists, row["asked"])
                sents = turn_sentences(own)
                if removed:
                    removed_sents = sents
                examples.append({
                    "domain": domain, "task_id": row["task_id"], "label": label,
                    "gold_top5": has_gold if label == "ANSWERABLE" else False,
                    "question": question, "sentences": sents,
                })  # fmt: skip
            ref = refs.get(row["task_id"])
            gold = [texts[g] for g in row["gold"] if g in texts]
            if ref and gold and question:
                pos, neg = labelled(gold, removed_sents, ref)
                if pos:
                    pairs.append({"domain": domain, "task_id": row["task_id"],
                                  "question": question, "pos": pos, "neg": neg})  # fmt: skip
    finally:
        index.close()
    return examples, pairs


def collect_un(cache: Path, settings, embedder) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    from behaviour_replay import kept_hits, open_domain

    payload = json.loads(UN_FEATURES.read_text())
    out = []
    for domain in dict.fromkeys(r["domain"] for r in payload["rows"]):
        index, _ = open_domain(domain, DATA.parent / "mtrag-un", cache, settings, embedder)
        try:
            for r in payload["rows"]:
                if r["domain"] != domain or "retrieved" not in r:
                    continue
                got = r["retrieved"]
                hits, per_query = kept_hits(got, index)
                own = evidence_hits(hits, per_query, got["asked"])
                question = next((q for q in got["asked"] if q.strip()), "")
                out.append({"domain": domain, "task_id": r["task_id"], "label": r["label"],
                            "message": r["message"], "question": question,
                            "sentences": turn_sentences(own)})  # fmt: skip
        finally:
            index.close()
    return out


def collect(args: argparse.Namespace) -> None:
    settings = Settings()
    embedder = load_embedder(settings.embedder)
    t0 = time.perf_counter()
    kept_rows = json.loads(args.hits.read_text())["rows"]
    examples: list[dict[str, Any]] = []
    pairs: list[dict[str, Any]] = []
    for d in DOMAINS:
        e, p = collect_mtrag(d, [r for r in kept_rows if r["domain"] == d], args.cache,
                             settings, embedder)  # fmt: skip
        examples += e
        pairs += p
        print(f"{d}: {len(e)} examples, {len(p)} turns with positives, "
              f"{time.perf_counter() - t0:.0f} s", flush=True)  # fmt: skip
    un = collect_un(args.cache, settings, embedder)
    print(f"mtrag-un: {len(un)} turns", flush=True)
    texts: list[str] = []
    for r in examples + un:
        texts += [r["question"], *r["sentences"]]
    for p in pairs:
        texts += [p["question"], *p["pos"], *p["neg"]]
    texts = list(dict.fromkeys(texts))
    print(f"embedding {len(texts)} texts", flush=True)
    vectors = np.asarray(embedder.embed_documents(texts), dtype=np.float32)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(VECTORS, vectors)
    COLLECTED.write_text(json.dumps({"texts": texts, "examples": examples, "pairs": pairs,
                                     "un": un}, ensure_ascii=False))  # fmt: skip
    print(f"wrote {COLLECTED} ({time.perf_counter() - t0:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("collect", "fit"))
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--hits", type=Path, default=HITS)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    if args.step == "collect":
        collect(args)
    else:
        from answer_detector_fit import run

        run(args)


if __name__ == "__main__":
    main()
