"""The learned antecedent chooser (`conversation.chooser`), judged leave one corpus out.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/antecedent_chooser.py --tag base45 \
        --exclude ultralytics docker [--mtrag CACHE] [--write L2] [--loco-weights DIR]

Each conversation of a default trial (`bench/default_trials.sh ... TAG`) is asked again of
the resolver alone (`binding_replay.replayed`), and each decision the passage fit makes among
a pronoun's likeliest antecedents (`passes.fit.choose`, the product's own code) is recorded:
the chooser's feature rows, the hand-set rule's choice (salience + 2 x fit) and a label per
candidate (it names the turn's labelled antecedent). A conditional logit is fitted on every
other corpus's decisions and scored on the one left out, as the share of decisions whose
pick is right, against the hand-set rule; dev and held-out corpora are totalled apart (no
turn is printed). `--mtrag CACHE` also scores the chooser fitted on every corpus on MTRAG's
follow-ups (a candidate is right when it holds a word the human rewrite added), never fitted
there. `--write` fits on every corpus and writes tellmemore/conversation/antecedent_weights.json;
`--loco-weights DIR` writes each corpus's weights fitted without it. The recorded decisions
are kept in bench/.cache (per tag, with the feature names they were recorded with).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from binding_replay import replayed  # noqa: E402
from handbook_corpora import DEV_NAMES, tag_trials  # noqa: E402
from handbook_trial import _tokens  # noqa: E402

import tellmemore.conversation.passes.fit as fit_pass  # noqa: E402
from tellmemore import retrieval  # noqa: E402
from tellmemore.answer import scoring  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation import chooser  # noqa: E402
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext  # noqa: E402
from tellmemore.conversation.text import content_words, stem  # noqa: E402
from tellmemore.eval.corpus import ensure_index  # noqa: E402
from tellmemore.eval.datasets import load_dataset  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402

MTRAG = Path("/work/shared/bench/mtrag")
DOMAINS = ("clapnq", "cloud", "govt")
WEIGHTS = ROOT / "tellmemore" / "conversation" / "antecedent_weights.json"


@dataclass
class Decision:
    texts: list[str]
    x: np.ndarray
    default: int
    """The hand-set rule's pick (salience + FIT_WEIGHT x fit)."""
    depth: int
    label: np.ndarray | None = None


RECORDED: list[Decision] = []
_CHOOSE = fit_pass.choose


def _recording(st, head, fits):  # type: ignore[no-untyped-def]
    x = chooser.features(head, fits, len(st.history))
    default = fit_pass.hand_set(head, fits)
    RECORDED.append(Decision([c.phrase.text for c, _ in head], x, default, st.depth))
    return _CHOOSE(st, head, fits)


def _first(recorded: list[Decision]) -> Decision | None:
    """The turn's own decision: the first made on the message itself (depth 0)."""
    return next((d for d in recorded if d.depth == 0), None)


def _names(text: str, want: set[str]) -> bool:
    """The candidate and the labelled antecedent name the same thing."""
    got = _tokens(text)
    return bool(got & want) and (want <= got or got <= want)


def handbook_decisions(trial: dict[str, Any]) -> list[Decision]:
    """Each labelled binding's decision in a replayed default trial."""
    out: list[Decision] = []
    RECORDED.clear()
    for *_, row, _, _ in replayed(trial, Settings()):
        d = _first(RECORDED)
        if row["labelled_binding"] and d is not None:
            want = set().union(*(_tokens(v) for v in row["labelled_binding"].values()))
            d.label = np.array([float(_names(t, want)) for t in d.texts])
            out.append(d)
        RECORDED.clear()
    return out


def mtrag_decisions(domain: str, cache: Path, settings: Settings, embedder: Any) -> list[Decision]:
    """Each MTRAG follow-up's decision, labelled by the words its human rewrite added."""
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
            d = _first(RECORDED)
            if d is None:
                continue
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


def fit(decisions: list[Decision], l2: float) -> chooser.Chooser:
    usable = [d for d in decisions if d.label is not None and 0 < d.label.sum() < len(d.label)]
    labels = [d.label for d in usable if d.label is not None]
    model = scoring.fit_listwise([d.x for d in usable], labels, labels, l2=l2, tau=0.1)
    return chooser.Chooser(model.weights, model.mean, model.scale)


def right(decisions: list[Decision], model: chooser.Chooser) -> tuple[int, int, int, int]:
    """(the model's pick right, the hand-set pick right, decisions, label among them)."""
    ours = theirs = reachable = 0
    for d in decisions:
        assert d.label is not None
        ours += int(d.label[model.best(d.x)] > 0)
        theirs += int(d.label[d.default] > 0)
        reachable += int(d.label.sum() > 0)
    return ours, theirs, len(decisions), reachable


def write(model: chooser.Chooser, path: Path, about: dict[str, Any]) -> None:
    """The weights as `chooser.shipped` reads them."""
    payload = {"features": list(chooser.FEATURES), **model.__dict__, "about": about}
    path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tag", default="base45", help="default trials to replay")
    parser.add_argument("--l2", type=float, nargs="+", default=[0.3, 1.0, 3.0])
    parser.add_argument("--mtrag", type=Path, help="eval cache with MTRAG's indexes")
    parser.add_argument("--write", type=float, help="fit at this L2 on every corpus and write")
    parser.add_argument("--exclude", nargs="*", default=[], help="corpora kept out (fresh)")
    parser.add_argument(
        "--loco-weights",
        type=Path,
        help="also write, for each corpus, weights fitted without it (DIR/<corpus>.json, at the "
        "first --l2): an end-to-end leave-one-corpus-out run reads them",
    )
    args = parser.parse_args()
    fit_pass.choose = _recording
    cached = ROOT / "bench" / ".cache" / f"antecedent_chooser_{args.tag}.pkl"
    data: dict[str, list[Decision]] = {}
    if cached.exists():
        features, data = pickle.loads(cached.read_bytes())
        data = data if features == chooser.FEATURES else {}  # recorded with other features
    if not data:
        data = {n: handbook_decisions(t) for n, _, t in tag_trials(args.tag)}
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_bytes(pickle.dumps((chooser.FEATURES, data)))
    names = [n for n in data if n not in args.exclude]
    data = {n: data[n] for n in names}
    print(f"{len(names)} corpora, {sum(map(len, data.values()))} decisions")
    print("| L2 | group | chooser right | hand-set right | decisions | label among candidates |")
    print("| --- | --- | --- | --- | --- | --- |")
    for l2 in args.l2:
        totals = {"dev": np.zeros(4, int), "held out": np.zeros(4, int)}
        down = []
        for n in names:
            model = fit([d for m in names if m != n for d in data[m]], l2)
            got = np.array(right(data[n], model))
            totals["dev" if n in DEV_NAMES else "held out"] += got
            if got[0] - got[1] <= -2:
                down.append(n)
        for group, t in totals.items():
            print(f"| {l2} | {group} | {t[0]} | {t[1]} | {t[2]} | {t[3]} |")
        print(f"| {l2} | corpora down 2+ | {len(down)} | | | |")
    everything = [d for n in names for d in data[n]]
    if args.mtrag:
        settings = Settings()
        embedder = load_embedder(settings.embedder)
        mtrag = {d: mtrag_decisions(d, args.mtrag, settings, embedder) for d in DOMAINS}
        for l2 in args.l2:
            model = fit(everything, l2)
            for domain, decisions in mtrag.items():
                got = right(decisions, model)
                print(f"MTRAG {domain}, L2 {l2}: chooser / hand-set / decisions / reachable {got}")
    if args.loco_weights:
        args.loco_weights.mkdir(parents=True, exist_ok=True)
        for n in names:
            model = fit([d for m in names if m != n for d in data[m]], args.l2[0])
            write(model, args.loco_weights / f"{n}.json", {"left out": n})
    if args.write is not None:
        model = fit(everything, args.write)
        write(model, WEIGHTS, {"fitted on": names, "decisions": len(everything), "l2": args.write})
        print("weights", dict(zip(chooser.FEATURES, np.round(model.weights, 3), strict=True)))


if __name__ == "__main__":
    main()
