"""Token alignment (MaxSim over MiniLM's contextual token vectors) as a sentence signal (issue 21).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/sentence_align.py \
        --cases bench/.cache/hb_sentence_cases.pkl   # handbook_sentence_loco.py's searched turns

The sentence scorer's similarity is one cosine between two pooled vectors. Here each unit
also gets `align`: for every token of the question (MiniLM's contextual token vectors, the
[CLS] and [SEP] tokens dropped) the best cosine to a token of the unit, averaged over the
question's tokens, as late-interaction retrievers score. Over the handbook turns whose first
3 passages hold every `expect` string (the labelled rewrite asked, top 5 searched once):
- screen A: how often the unit ranked first by one signal holds an `expect` string (cosine,
  stem overlap, align, the shipped scorer);
- screen B: a logistic fit on the handbooks' labels, leave one corpus out, with the shipped
  20 features and with `align` added.
Dev and held-out corpora are totalled apart; no turn is printed.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import handbook_sentence_fit as hsf  # noqa: E402
from handbook_corpora import DEV_NAMES  # noqa: E402

from tellmemore.answer import extractive, scoring  # noqa: E402
from tellmemore.answer.answer_types import asked_type  # noqa: E402
from tellmemore.answer.units import units  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402
from tellmemore.injection import quotable  # noqa: E402

Row = tuple[str, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""(corpus, the shipped features, labels, align, the shipped scorer's probability) per turn."""


class TokenVectors:
    """Each text's unit-length contextual token vectors, computed once."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.cache: dict[str, np.ndarray] = {}

    def __call__(self, texts: Sequence[str]) -> list[np.ndarray]:
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if todo:
            out = self.model.encode(
                todo, output_value="token_embeddings", batch_size=32, show_progress_bar=False
            )
            for text, v in zip(todo, out, strict=True):
                v = v.float().numpy()[1:-1]
                v = v if len(v) else np.zeros((1, v.shape[1]), dtype=np.float32)
                self.cache[text] = v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-9)
        return [self.cache[t] for t in texts]


def align(query: np.ndarray, unit: np.ndarray) -> float:
    """Mean over the question's tokens of the best cosine to one of the unit's tokens."""
    return float((query @ unit.T).max(axis=1).mean())


def collect(turns: Sequence[Any], tokens: TokenVectors, embed: Any) -> list[Row]:
    out: list[Row] = []
    shipped = scoring.shipped()
    for t in turns:
        if not hsf.passages_hold(t):
            continue
        hits = t.hits[: extractive.MAX_CHUNKS]
        cands = extractive.candidates_of(
            [quotable(units(h.chunk.text, h.chunk.header)) for h in hits]
        )
        if not cands:
            continue
        headers = [h.chunk.header or h.chunk.title or "" for h in hits]
        ranks = scoring.passage_ranks([h.dense for h in hits], "fused")
        x = scoring.features(t.query, cands, headers, asked_type(t.query), embed, ranks)
        alts = hsf._alternatives(t.expect)
        y = np.array([float(any(a in c.text.lower() for a in alts)) for c in cands])
        if not y.any():
            continue
        q, *unit_vectors = tokens([t.query, *(c.text for c in cands)])
        a = np.array([align(q, u) for u in unit_vectors])
        out.append((t.corpus, x, y, a, shipped.probabilities(x)))
    return out


def top1(rows: list[Row], score: Callable[[Row], np.ndarray]) -> dict[str, tuple[int, int]]:
    got = {"dev": [0, 0], "held out": [0, 0]}
    for r in rows:
        g = got["dev" if r[0] in DEV_NAMES else "held out"]
        g[0] += int(r[2][int(np.argmax(score(r)))] > 0)
        g[1] += 1
    return {k: (v[0], v[1]) for k, v in got.items()}


def loco(rows: list[Row], with_align: bool, l2: float) -> dict[str, tuple[int, int]]:
    """Screen B: each corpus's top-1 by a logistic fitted on the other corpora's units."""

    def design(r: Row) -> np.ndarray:
        return np.column_stack([r[1], r[3]]) if with_align else r[1]

    got = {"dev": [0, 0], "held out": [0, 0]}
    for name in sorted({r[0] for r in rows}):
        train = [r for r in rows if r[0] != name]
        model = scoring.fit(
            np.vstack([design(r) for r in train]), np.concatenate([r[2] for r in train]), l2=l2
        )
        w, mu, sd = (np.asarray(v) for v in (model.weights, model.mean, model.scale))
        for r in rows:
            if r[0] == name:
                g = got["dev" if name in DEV_NAMES else "held out"]
                g[0] += int(r[2][int(np.argmax(((design(r) - mu) / sd) @ w))] > 0)
                g[1] += 1
    return {k: (v[0], v[1]) for k, v in got.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, required=True)
    parser.add_argument("--l2", type=float, nargs="+", default=[1.0, 10.0])
    args = parser.parse_args()
    turns = pickle.loads(args.cases.read_bytes())
    embedder = load_embedder(Settings().embedder)
    tokens = TokenVectors(embedder._torch_encoder("fp32").model)  # type: ignore[attr-defined]
    rows = collect(turns, tokens, hsf.CachedEmbed(embedder.embed_documents))
    col = {f: i for i, f in enumerate(scoring.FEATURES)}
    print("screen A: the first unit holds an expect string (right, turns)")
    print(f"  cosine  {top1(rows, lambda r: r[1][:, col['cosine']])}")
    print(
        f"  stems   {top1(rows, lambda r: r[1][:, col['stems']] + 1e-3 * r[1][:, col['cosine']])}"
    )
    print(f"  align   {top1(rows, lambda r: r[3])}")
    print(f"  shipped {top1(rows, lambda r: r[4])}")
    print("screen B: leave one corpus out, logistic on the handbook labels")
    for l2 in args.l2:
        print(f"  L2 {l2}: 20 features {loco(rows, False, l2)}, + align {loco(rows, True, l2)}")


if __name__ == "__main__":
    main()
