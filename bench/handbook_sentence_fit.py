"""The sentence scorer fitted on handbook answers: labels from the dev handbooks' `expect`
strings, judged on the handbooks it was not fitted on (issue 21).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/handbook_sentence_fit.py \
        [--cases /tmp/hb_cases.pkl] [--out bench/results/handbook_sentence_fit]

The shipped sentence scorer (`answer.scoring`) is fitted on MTRAG's references, long
retellings of a passage's opening, so it pays long early sentences more than the one that
states the asked fact (bench/results/wrong_sentence_causes.md, cause A;
bench/results/extractive_labels.md: "a label that tells them apart needs references that
quote the fact asked"). A handbook turn's `expect` strings are such references: a unit of
the retrieved passages that holds one states (part of) the answer.

Here every ANSWERABLE turn with `expect` strings of every bundled handbook is asked as its
labelled rewrite (as bench/handbook_sentences.py asks it), its top 5 passages searched once,
and each quotable unit of the first 3 (`extractive.candidates_of`) gets the scorer's
features and the label "holds an `expect` string". Fits use only the DEV handbooks (Clef,
TTS, Sourcegraph, Meltano), each dev row itself reported fitted on the others; the held-out
handbooks (PostHog, GitLab, CivicActions, Fleet) are reported as totals only. The measure
is bench/handbook_sentences.py's: among the turns whose first 3 passages hold every
`expect` string, the share whose answer (`extractive.best_sentences`, shipped selection
settings) holds them all, and the answer's mean length in words
(bench/results/handbook_sentence_fit.md).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from handbook_corpora import DEV_NAMES, HELD_OUT_NAMES, corpus_for  # noqa: E402
from handbook_sentences import _holds, labelled_queries  # noqa: E402
from handbook_trial import copy_corpus  # noqa: E402

from tellmemore.answer import extractive, scoring  # noqa: E402
from tellmemore.answer.answer_types import asked_type, holds  # noqa: E402
from tellmemore.answer.units import units  # noqa: E402
from tellmemore.assistant import Assistant  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402
from tellmemore.injection import quotable  # noqa: E402
from tellmemore.types import Hit  # noqa: E402

DEV, HELD_OUT = DEV_NAMES, HELD_OUT_NAMES


@dataclass
class Turn:
    corpus: str
    turn: str
    query: str
    expect: list[Any]
    hits: list[Hit]


def _alternatives(expect: list[Any]) -> list[str]:
    out: list[str] = []
    for e in expect:
        out.extend([e] if isinstance(e, str) else e)
    return [a.lower() for a in out]


def collect(corpora: Sequence[str]) -> list[Turn]:
    """Every labelled turn of `corpora` with its top 5 hits (one ingest per corpus)."""
    turns: list[Turn] = []
    for name in corpora:
        source = corpus_for(name)
        with tempfile.TemporaryDirectory(prefix="tellmemore-hbfit-") as work:
            docs = copy_corpus(Path(work) / "docs", source.root)
            assistant = Assistant.open(Path(work) / "project", settings=Settings())
            assistant.ingest([docs])
            for turn_id, query, expect in labelled_queries(source.conversations):
                hits = list(assistant.search(query, k=5))
                turns.append(Turn(name, turn_id, query, expect, hits))
            assistant.close()
        print(f"{name}: {sum(t.corpus == name for t in turns)} turns", flush=True)
    return turns


class CachedEmbed:
    """The bundled MiniLM, each text embedded once."""

    def __init__(self, embed: Callable[[Sequence[str]], np.ndarray]) -> None:
        self.embed = embed
        self.cache: dict[str, np.ndarray] = {}

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if todo:
            for t, v in zip(todo, self.embed(todo), strict=True):
                self.cache[t] = v
        return np.vstack([self.cache[t] for t in texts])


def rows(turn: Turn, embed: CachedEmbed) -> tuple[np.ndarray, np.ndarray]:
    """The features and labels of a turn's candidate units (as `_fitted_scores` builds them)."""
    hits = turn.hits[: extractive.MAX_CHUNKS]
    chunk_units = [quotable(units(h.chunk.text, h.chunk.header)) for h in hits]
    cands = extractive.candidates_of(chunk_units)
    headers = [h.chunk.header or h.chunk.title or "" for h in hits]
    ranks = scoring.passage_ranks([h.dense for h in hits], "fused")
    x = scoring.features(turn.query, cands, headers, asked_type(turn.query), embed, ranks)
    alts = _alternatives(turn.expect)
    y = np.array([float(any(a in c.text.lower() for a in alts)) for c in cands])
    return x, y


def passages_hold(turn: Turn) -> bool:
    text = " ".join(h.chunk.text for h in turn.hits[: extractive.MAX_CHUNKS])
    return _holds(text, turn.expect)


def judge(
    turns: Sequence[Turn], embed: CachedEmbed, scorer: scoring.Scorer | None
) -> dict[str, float]:
    """Answers holding every `expect` string among the turns whose passages hold them, and
    the answers' mean length in words (shipped selection settings)."""
    r = Settings().retrieval
    held = [t for t in turns if passages_hold(t)]
    ok = 0
    words = 0
    for t in held:
        quoted = extractive.best_sentences(
            t.query,
            t.hits,
            embed=embed,
            scorer=scorer,
            spread_gap=r.spread_gap,
            single_gap=r.spread_gap_single,
            nearest=r.quote_nearest,
            continuation=r.quote_continuation,
            opening=r.quote_opening,
            headed=r.quote_headed,
        )
        answer = " ".join(e.sentence for e in quoted)
        ok += _holds(answer, t.expect)
        words += len(answer.split())
    return {"held": len(held), "answered": ok, "words": words / max(1, len(held))}


def total(parts: Sequence[dict[str, float]]) -> dict[str, float]:
    """Held-out corpora are reported as one total (their turns are never read)."""
    held = sum(p["held"] for p in parts)
    return {
        "held": held,
        "answered": sum(p["answered"] for p in parts),
        "words": sum(p["words"] * p["held"] for p in parts) / max(1, held),
    }


def fit_on(
    turns: Sequence[Turn], embed: CachedEmbed, l2: float, threshold: float
) -> scoring.Scorer:
    """A logistic fit on `turns`' units (a turn whose passages hold no `expect` string has
    no positive and is left out), quoting after the best unit from `threshold`."""
    xs, ys = [], []
    for t in turns:
        x, y = rows(t, embed)
        if y.any():
            xs.append(x)
            ys.append(y)
    fitted = scoring.fit(np.vstack(xs), np.concatenate(ys), l2=l2)
    return scoring.Scorer(
        weights=fitted.weights,
        bias=fitted.bias,
        threshold=threshold,
        mean=fitted.mean,
        scale=fitted.scale,
    )


Columns = Callable[[str, Sequence[scoring.Candidate], Any], np.ndarray]
"""(query, candidates, asked kind) -> one row of extra feature values per candidate."""


def append_features(names: Sequence[str], columns: Columns) -> Callable[[], None]:
    """Append `names` to the scorer's features, computed by `columns`, in this process only;
    returns what puts the shipped features back."""
    base, base_names = scoring.features_and_vectors, scoring.FEATURES

    def extended(
        query: str,
        candidates: Sequence[scoring.Candidate],
        headers: Sequence[str],
        kind: Any,
        embed: Any,
        passage_rank: Sequence[int] | None = None,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        x, vectors = base(query, candidates, headers, kind, embed, passage_rank)
        if candidates:  # FEATURES is read at call time: the base left these columns 0
            x[:, -len(names) :] = columns(query, candidates, kind)
        return x, vectors

    def restore() -> None:
        scoring.FEATURES, scoring.features_and_vectors = base_names, base

    scoring.FEATURES = (*base_names, *names)
    scoring.features_and_vectors = extended
    return restore


def add_value_features() -> None:
    """Append "kind_held" (the unit states a value of the asked kind, shared word or not)
    and "digit" to the scorer's features, in this process only."""

    def values(query: str, candidates: Sequence[scoring.Candidate], kind: Any) -> np.ndarray:
        return np.array(
            [
                [
                    float(kind is not None and holds(c.text, kind)),
                    float(any(ch.isdigit() for ch in c.text)),
                ]
                for c in candidates
            ]
        )

    append_features(("kind_held", "digit"), values)


def cache_rows() -> None:
    """A turn's unit features are the same in every fit: `rows` computes them once."""
    global rows
    unit_rows = rows
    kept: dict[int, Any] = {}

    def cached(turn: Turn, embed: CachedEmbed) -> tuple[np.ndarray, np.ndarray]:
        if id(turn) not in kept:
            kept[id(turn)] = unit_rows(turn, embed)
        return kept[id(turn)]  # type: ignore[no-any-return]

    rows = cached


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=Path, help="keep the searched turns here (pickle)")
    parser.add_argument("--l2", type=float, nargs="+", default=[1.0, 10.0, 100.0])
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.1, 0.2, 0.3, 0.4, 0.5])
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--extra",
        action="store_true",
        help="two more features: the unit states a value of the asked kind (whether or not "
        "it shares a word with the question), and it holds a digit",
    )
    args = parser.parse_args()
    if args.extra:
        add_value_features()
    if args.cases and args.cases.exists():
        turns = pickle.loads(args.cases.read_bytes())
    else:
        turns = collect(DEV + HELD_OUT)
        if args.cases:
            args.cases.write_bytes(pickle.dumps(turns))
    settings = Settings()
    embed = CachedEmbed(load_embedder(settings.embedder).embed_documents)
    by = {c: [t for t in turns if t.corpus == c] for c in DEV + HELD_OUT}
    results: dict[str, Any] = {"shipped": {}}
    if not args.extra:  # the shipped weights are for the shipped features
        for c in DEV:
            results["shipped"][c] = judge(by[c], embed, None)
        results["shipped"]["held_out_total"] = total([judge(by[c], embed, None) for c in HELD_OUT])
        print("shipped", json.dumps(results["shipped"]), flush=True)
    for l2 in args.l2:
        for th in args.thresholds:
            key = f"l2={l2} th={th}"
            res: dict[str, Any] = {}
            for c in DEV:  # each dev corpus fitted on the others
                others = [t for o in DEV if o != c for t in by[o]]
                res[c] = judge(by[c], embed, fit_on(others, embed, l2, th))
            allfit = fit_on([t for c in DEV for t in by[c]], embed, l2, th)
            res["held_out_total"] = total([judge(by[c], embed, allfit) for c in HELD_OUT])
            results[key] = res
            print(key, json.dumps(res), flush=True)
    if args.out:
        args.out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
