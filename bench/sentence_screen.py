"""Screen a change of sentence choice on a handbook in seconds: the top-5 hits of every
labelled turn are retrieved once and cached, then `extractive.best_sentences` of the checkout
it runs from is judged on them as `bench/handbook_sentences.py` judges it.

    .venv/bin/python bench/sentence_screen.py --corpus clef --hits /tmp/clef_hits.pkl \
        [--out FILE] [--show]

The first run (no cache file) ingests the corpus and retrieves; later runs only embed the
candidates (the embedder's vectors are cached in the pickle too). Run with the shipped
defaults (`retrieval.spread_gap`, `retrieval.quote_nearest`), so the figures are those of
handbook_sentences.py (the shipped settings) on the same hits. `--show` prints
each failing turn's answer (never use it on PostHog, held out).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path[:0] = [os.getcwd(), str(Path(__file__).resolve().parent)]

from handbook_corpora import corpus_for  # noqa: E402
from handbook_sentences import _holds, labelled_queries  # noqa: E402
from handbook_trial import copy_corpus  # noqa: E402

from tellmemore.answer import extractive  # noqa: E402
from tellmemore.assistant import Assistant  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.types import Hit  # noqa: E402


def retrieve(corpus: str) -> list[dict[str, Any]]:
    """Every labelled ANSWERABLE turn with its rewrite, expect strings and top-5 hits."""
    source = corpus_for(corpus)
    out = []
    with tempfile.TemporaryDirectory(prefix="tellmemore-screen-") as work:
        docs = copy_corpus(Path(work) / "docs", source.root)
        assistant = Assistant.open(Path(work) / "project", settings=Settings())
        assistant.ingest([docs])
        for turn_id, query, expect in labelled_queries(source.conversations):
            hits = assistant.search(query, k=5)
            out.append({"turn": turn_id, "query": query, "expect": expect, "hits": hits})
        assistant.close()
    return out


class CachedEmbed:
    """The embedder's `embed_documents`, remembered text by text."""

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors
        self._model: Any = None

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            if self._model is None:
                from tellmemore.index.embedders import load_embedder

                self._model = load_embedder(Settings().embedder)
            for t, v in zip(missing, self._model.embed_documents(missing), strict=True):
                self.vectors[t] = np.asarray(v)
        return np.vstack([self.vectors[t] for t in texts])


def shipped_sentences(query: str, hits: Sequence[Hit], embed: Any, scorer: Any = None) -> list[str]:
    """The offline answer's sentences for `query` over `hits`, chosen with the shipped
    selection settings (`retrieval.spread_gap`, `quote_nearest`, ...) and `scorer` (None:
    the shipped weights)."""
    quoted = extractive.best_sentences(
        query, hits, embed=embed, scorer=scorer, **extractive.selection_of(Settings().retrieval)
    )
    return [e.sentence for e in quoted]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default="clef")
    parser.add_argument("--hits", type=Path, required=True)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    if args.hits.exists():
        cache = pickle.loads(args.hits.read_bytes())
    else:
        cache = {"turns": retrieve(args.corpus), "vectors": {}}
    embed = CachedEmbed(cache["vectors"])
    rows = []
    for t in cache["turns"]:
        hits = t["hits"]
        passages = " ".join(h.chunk.text for h in hits[: extractive.MAX_CHUNKS])
        sentences = shipped_sentences(t["query"], hits, embed)
        answer = " ".join(sentences)
        row = {
            "turn": t["turn"],
            "query": t["query"],
            "in_passages": _holds(passages, t["expect"]),
            "answered": _holds(answer, t["expect"]),
            "answer": sentences,
        }
        rows.append(row)
        if args.show and row["in_passages"] and not row["answered"]:
            print(f"\n## {row['turn']}  {row['query']}\n   expect {t['expect']}")
            for s in row["answer"]:
                print(f"   > {s[:200]}")
    args.hits.write_bytes(pickle.dumps(cache))
    held = [r for r in rows if r["in_passages"]]
    ok = sum(r["answered"] for r in held)
    if args.out:
        args.out.write_text(json.dumps({"corpus": args.corpus, "rows": rows}, indent=1) + "\n")
    print(f"{args.corpus}: {ok}/{len(held)} answers hold every expect string")


if __name__ == "__main__":
    main()
