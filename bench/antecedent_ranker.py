"""A learned ranking of the passage fit's antecedent candidates, judged where it was not fitted.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/antecedent_ranker.py --cache /work/cache/bench_md

`passes.fit.by_passage_fit` chooses a pronoun's antecedent among the first four candidates by
salience + 2 x passage fit. bench/results/binding_candidates.md found it right on 28 of 62
held-out handbook decisions while the right one was among those four 48 times. Here every
such decision is recorded with one feature row per candidate (its salience relative to the
best, its fit relative to the best, its salience rank, who said it, how many turns back, its
length) and a label:
- MTRAG (clapnq, cloud, govt; the cached eval index): the candidate holds a word the human
  rewrite added to the message;
- the handbooks (the default trials' replies as the assistant's turns): the candidate holds
  the labelled antecedent.
A conditional logit (`answer.scoring.fit_listwise`: which candidate of this decision is the
right one) is fitted on MTRAG and the dev handbooks, and scored, as the share of decisions
whose best candidate is right, on each MTRAG domain left out of the fit and on the held-out
handbooks (totals only), against the default's choice.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from binding_replay import resolved_turns  # noqa: E402
from handbook_corpora import DEV_NAMES, HELD_OUT_NAMES  # noqa: E402
from handbook_trial import _tokens  # noqa: E402

import tellmemore.conversation.passes.bind as bind  # noqa: E402
from tellmemore import retrieval  # noqa: E402
from tellmemore.answer import scoring  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation import constants as C  # noqa: E402
from tellmemore.conversation.realize import replacement, splice  # noqa: E402
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext  # noqa: E402
from tellmemore.conversation.text import content_words, stem  # noqa: E402
from tellmemore.eval.corpus import ensure_index  # noqa: E402
from tellmemore.eval.datasets import load_dataset  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402

MTRAG = Path("/work/shared/bench/mtrag")
DOMAINS = ("clapnq", "cloud", "govt")
DEV, HELD_OUT = DEV_NAMES, HELD_OUT_NAMES
FEATURES = ("salience_gap", "fit_gap", "salience_rank", "user", "turns_back", "words")


@dataclass
class Decision:
    texts: list[str]
    x: np.ndarray
    default: int
    """The candidate the default chose (its index in `texts`), -1 when outside the four."""
    label: np.ndarray | None = None


RECORDED: list[Decision] = []
_FIT = bind.by_passage_fit


def _recording(st, message, ref, ranked):  # type: ignore[no-untyped-def]
    best = _FIT(st, message, ref, ranked)
    head = [(c, s) for c, s in ranked[: C.FIT_CANDIDATES] if c.score >= C.MIN_ANTECEDENT]
    if st.context.passage_fit is None or len(head) < 2:
        return best
    questions = [
        splice(message, [(ref, replacement(ref, c.phrase, st.surface(c.phrase), message))])
        for c, _ in head
    ]
    fits = np.array(st.context.passage_fit(questions), dtype=float)
    sal = np.array([s for _, s in head], dtype=float)
    n_turns = len(st.history)
    x = np.array(
        [
            [
                sal[i] - sal.max(),
                fits[i] - fits.max(),
                float(i),
                float(c.role == "user"),
                float(n_turns - c.turn),
                float(len(c.phrase.text.split())),
            ]
            for i, (c, _) in enumerate(head)
        ]
    )
    texts = [c.phrase.text for c, _ in head]
    default = next((i for i, (c, _) in enumerate(head) if c is best), -1)
    RECORDED.append(Decision(texts, x, default))
    return best


def mtrag_decisions(domain: str, cache: Path, settings: Settings, embedder) -> list[Decision]:  # type: ignore[no-untyped-def]
    """Each MTRAG follow-up's fit decision, labelled by the words the rewrite added."""
    ds = load_dataset(MTRAG / domain, skip_invalid=True)
    index, _ = ensure_index(ds, embedder=embedder, settings=settings, cache_dir=cache)
    out: list[Decision] = []
    try:
        ctx = ResolveContext.of(
            settings.conversation,
            term_stats=index.term_stats,
            headings=index.headings,
            passage_fit=retrieval.passage_fit_for(
                settings.conversation, index, embedder.embed_documents
            ),
        )
        resolver = EmbeddedResolver()
        for turn in ds.turns:
            if not turn.followup:
                continue
            RECORDED.clear()
            resolver.resolve(turn.message, list(turn.history), ctx)
            if not RECORDED:
                continue
            d = RECORDED[0]
            added = {stem(w) for w in content_words(turn.rewrite)} - {
                stem(w) for w in content_words(turn.message)
            }
            d.label = np.array(
                [float(bool({stem(w) for w in content_words(t)} & added)) for t in d.texts]
            )
            out.append(d)
    finally:
        index.close()
    return out


def handbook_decisions(corpus: str, trials: Path) -> list[Decision]:
    """Each labelled binding's fit decision in the corpus's default trial."""
    trial: dict[str, Any] = json.loads(
        (trials / f"trial_base_{corpus}.json").read_text(encoding="utf-8")
    )
    out: list[Decision] = []
    RECORDED.clear()
    for _, row, _ in resolved_turns(trial):
        if row["labelled_binding"] and RECORDED:
            want = set().union(*(_tokens(v) for v in row["labelled_binding"].values()))
            d = RECORDED[0]
            d.label = np.array([float(_names(t, want)) for t in d.texts])
            out.append(d)
        RECORDED.clear()  # the next turn's resolution records afresh
    return out


def _names(text: str, want: set[str]) -> bool:
    """The candidate and the labelled antecedent name the same thing."""
    got = _tokens(text)
    return bool(got & want) and (want <= got or got <= want)


def fit(decisions: list[Decision], l2: float) -> scoring.Scorer:
    usable = [d for d in decisions if d.label is not None and 0 < d.label.sum() < len(d.label)]
    return scoring.fit_listwise(
        [d.x for d in usable],
        [d.label for d in usable],  # type: ignore[misc]
        [d.label for d in usable],  # type: ignore[misc]
        l2=l2,
        tau=0.1,
    )


def right(decisions: list[Decision], model: scoring.Scorer | None) -> tuple[int, int, int]:
    """(the model's choice right, the default's choice right, decisions)."""
    ours = theirs = 0
    for d in decisions:
        assert d.label is not None
        if model is not None:
            z = (d.x - np.asarray(model.mean)) / np.asarray(model.scale)
            ours += int(d.label[int(np.argmax(z @ np.asarray(model.weights)))] > 0)
        theirs += int(d.default >= 0 and d.label[d.default] > 0)
    return ours, theirs, len(decisions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path("/work/cache/bench_md"))
    parser.add_argument("--trials", type=Path, default=ROOT / "bench" / ".trials")
    parser.add_argument("--l2", type=float, nargs="+", default=[0.3, 3.0])
    args = parser.parse_args()
    bind.by_passage_fit = _recording
    settings = Settings()
    embedder = load_embedder(settings.embedder)
    data = {d: mtrag_decisions(d, args.cache, settings, embedder) for d in DOMAINS}
    for c in DEV + HELD_OUT:
        data[c] = handbook_decisions(c, args.trials)
    for name, ds in data.items():
        print(name, "decisions", len(ds), flush=True)
    dev = [d for c in DEV for d in data[c]]
    held = [d for c in HELD_OUT for d in data[c]]
    for l2 in args.l2:
        print(f"L2 {l2}: model right / default right / decisions")
        for domain in DOMAINS:  # each MTRAG domain left out of the fit
            train = [d for o in DOMAINS if o != domain for d in data[o]] + dev
            print(f"  MTRAG {domain} (left out): {right(data[domain], fit(train, l2))}")
        model = fit([d for o in DOMAINS for d in data[o]] + dev, l2)
        print("  weights", dict(zip(FEATURES, np.round(model.weights, 3), strict=True)))
        print(f"  dev handbooks (in the fit): {right(dev, model)}")
        print(f"  held-out handbooks: {right(held, model)}")
        for c in HELD_OUT:
            print(f"    {c}: {right(data[c], model)}")


if __name__ == "__main__":
    main()
