"""Dump, per judged MTRAG-UN turn, the raw material of sentence-level evidence features.

    .venv/bin/python bench/sentence_dump.py --data ../shared/bench/mtrag-un \
        --cache /work/cache/bench --out /tmp/sentence_dump.json

From the hits `bench/behaviour_features.py` kept (as `behaviour_replay.py`), for each
judged turn: the question (its first own phrasing), its focus words with their IDF, and
every sentence of the top passages of its own phrasings with the stems it holds, its
cosine to the question, and each focus word's nearest word in it (MiniLM, word against
word). `bench/sentence_evidence.py` reads features from it without an index or a model.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from behaviour_features import DATA  # noqa: E402
from behaviour_replay import FEATURES, each_domain, kept_hits, open_domain  # noqa: E402

from tellmemore.answer import focus, stated  # noqa: E402
from tellmemore.answer.abstain import evidence_hits  # noqa: E402
from tellmemore.answer.units import sentences  # noqa: E402
from tellmemore.conversation.text import content_words, stem  # noqa: E402
from tellmemore.index.vector_cache import VectorCache  # noqa: E402

TOP = 5


def dump_domain(
    domain: str, rows: list[dict[str, Any]], data: Path, cache: Path, settings, embedder
):  # type: ignore[no-untyped-def]
    index, turns = open_domain(domain, data, cache, settings, embedder)
    seen: dict[str, int] = defaultdict(int)
    vectors = VectorCache()
    out = []
    try:
        for row in rows:
            k = seen[row["task_id"]]
            seen[row["task_id"]] += 1
            if row["path"] != "judged":
                continue
            turn = turns[row["task_id"]][k]
            got = row["retrieved"]
            hits, per_query = kept_hits(got, index)
            own = evidence_hits(hits, per_query, got["asked"])
            question = next((q for q in got["asked"] if q.strip()), "")
            words = list(dict.fromkeys(content_words(question)))
            cands = focus.candidates(question)
            stems = sorted({stem(w) for w in words})
            stats = index.term_stats(list(dict.fromkeys([*words, *cands])))
            words = list(dict.fromkeys([*words, *cands]))
            t0 = time.process_time()
            share = stated.value_share(question, own, index.term_stats).share
            cpu_ms = (time.process_time() - t0) * 1000
            n = max(stats.n_chunks, 1)
            sents = []
            for rank, h in enumerate(own[:TOP]):
                for i, s in enumerate(sentences(h.chunk.text, h.chunk.header)):
                    if content_words(s):
                        sents.append({"hit": rank, "i": i, "text": s})
            header = [
                sorted(
                    {
                        stem(w)
                        for w in content_words(
                            f"{h.chunk.title} {' '.join(h.chunk.section)} {h.chunk.header}"
                        )
                    }
                )
                for h in own[:TOP]
            ]
            for s in sents:
                s["words"] = list(dict.fromkeys(w for w in content_words(s["text"]) if len(w) >= 2))
                s["stems"] = sorted({stem(w) for w in s["words"]})
            if sents:
                vec = np.asarray(
                    embedder.embed_documents([question, *[s["text"] for s in sents]]),
                    dtype=np.float32,
                )
                cos = vec[1:] @ vec[0]
                for s, c in zip(sents, cos, strict=True):
                    s["cos"] = float(c)
            vocab = list(dict.fromkeys(w for s in sents for w in s["words"]))[:2000]
            if cands and vocab:
                wv = vectors.get(embedder.embed_documents, [*cands, *vocab])
                sims = wv[len(cands) :] @ wv[: len(cands)].T  # vocab x cands
                pos = {w: i for i, w in enumerate(vocab)}
                for s in sents:
                    idx = [pos[w] for w in s["words"] if w in pos]
                    s["near"] = {
                        c: round(float(sims[idx, j].max()), 4) if idx else 0.0
                        for j, c in enumerate(cands)
                    }
            for s in sents:
                s.pop("words", None)
            out.append(
                {
                    "domain": domain,
                    "task_id": row["task_id"],
                    "label": row["label"],
                    "message": turn.message,
                    "history_words": sorted(
                        {stem(w) for t in turn.history for w in content_words(t.content)}
                    ),
                    "question": question,
                    "words": words,
                    "candidates": cands,
                    "idf": {w: stats.idf(w) for w in words},
                    "share": {w: stats.df.get(w, 0) / n for w in words},
                    "stems": {w: stem(w) for w in words},
                    "n_stems": len(stems),
                    "dense": [h.dense for h in own[:TOP]],
                    "bm25": [h.bm25 for h in own[:TOP]],
                    "header": header,
                    "sentences": sents,
                    "features": row["features"],
                    "value_share": share,
                    "value_share_cpu_ms": cpu_ms,
                }
            )
    finally:
        index.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    parser.add_argument("--retrieved", type=Path, default=FEATURES)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    payload = json.loads(args.retrieved.read_text())
    rows = each_domain(payload, dump_domain, args.data, args.cache)
    args.out.write_text(json.dumps({"rows": rows}))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
