"""What the sentence scorer is fitted to: labels compared leave-one-domain-out.

    .venv/bin/python bench/extractive_labels.py [--data ../shared/bench] [--schemes a,b --merge]

The shipped scorer (`answer.scoring`) is a logistic model of "the extractive oracle quotes
this sentence", the oracle choosing by plain content-word F1 against the MTRAG reference.
MTRAG's references are long and retell a stretch of a passage, so that label rewards
long, early sentences of the top passage (the fitted weights' largest are position and
length) more than the sentence that states the asked fact. This bench fits the same
features to other labels and scores every fit held out (the same answer path as the
shipped scorer: `extractive.best_sentences` with the fitted weights):

- `f1`: today's label (the oracle on content-word F1);
- `idf`: the oracle on IDF-weighted F1 (a shared rare word counts more than a shared
  common one; IDF over every gold passage of the four sets);
- `facts`: the oracle on the reference's key facts (`overlap.key_facts`: its numbers,
  names and rare words that the question does not already say), ties broken by F1;
- `lead`: the oracle on IDF-weighted F1 against the reference's opening sentence less the
  question's words (where a reference states its answer), ties broken by F1;
- `*-list`: the same gains fitted turn by turn (`scoring.fit_listwise`), so what is
  constant within a turn (how long its reference is) does not count; `*-list-noplace`:
  with the sentence's place (first, position, passage rank) held at 0.

Reported per held-out domain: content-word recall and F1 (the committed metric) and
key-fact recall (the share of the reference's key facts the answer holds). Needs the
bundled MiniLM; vectors cached as by bench/extractive_answers.py.
Results: bench/results/extractive_labels.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from extractive_answers import (  # noqa: E402
    DATA,
    DOMAINS,
    THRESHOLDS,
    UN_DOMAINS,
    CachedEmbed,
    Case,
    load_cases,
)
from sentence_labels import Idf, labels, rarity  # noqa: E402

from tellmemore.answer import extractive, scoring  # noqa: E402
from tellmemore.answer.answer_types import asked_type  # noqa: E402
from tellmemore.answer.overlap import key_facts, recall_f1  # noqa: E402
from tellmemore.answer.words import terms  # noqa: E402
from tellmemore.injection import quotable  # noqa: E402

OUT = ROOT / "bench" / "results" / "extractive_labels"


@dataclass
class Prepared:
    """One case with its candidates' texts, feature rows and term sets."""

    case: Case
    texts: list[str]
    x: np.ndarray
    bags: list[set[str]]
    ref: set[str]
    facts: set[str]


def prepare(case: Case, embed: CachedEmbed, idf: Idf) -> Prepared | None:
    """A case's quotable candidates (as `best_sentences` reads them) and their features."""
    chunk_units = [quotable(extractive.units(h.chunk.text, h.chunk.header)) for h in case.hits]
    candidates = extractive.candidates_of(chunk_units)
    if not candidates:
        return None
    headers = [h.chunk.header or h.chunk.title or "" for h in case.hits]
    x = scoring.features(case.query, candidates, headers, asked_type(case.query), embed)
    texts = [c.text for c in candidates]
    facts = key_facts(case.reference, case.query, " ".join(texts), idf)
    bags = [set(terms(t)) for t in texts]
    return Prepared(case, texts, x, bags, set(terms(case.reference)), facts)


def fit(train: Sequence[Prepared], scheme: str, idf: Idf, embed: CachedEmbed) -> scoring.Scorer:
    base, *mods = scheme.split("-")
    got = [labels(p.texts, p.case.reference, p.case.query, base, idf) for p in train]
    if "list" in mods:
        # "-noplace": the sentence's place (first, position, passage rank) held at 0
        l2 = [1e6 if "noplace" in mods and f in PLACE else 0.3 for f in scoring.FEATURES]
        scorer = scoring.fit_listwise(
            [p.x for p in train], [g for g, _ in got], [m for _, m in got], l2=np.array(l2)
        )
    else:
        scorer = scoring.fit(np.vstack([p.x for p in train]), np.concatenate([m for _, m in got]))
    best = max(
        THRESHOLDS,
        key=lambda th: (
            measure([answer(p, scorer, th, embed) for p in train], train)["f1"],
            -abs(th - 0.5),
        ),
    )
    return replace(scorer, threshold=best)


def answer(p: Prepared, scorer: scoring.Scorer, threshold: float, embed: CachedEmbed) -> str:
    """The answer `extractive.best_sentences` gives with these weights and threshold."""
    s = replace(scorer, threshold=threshold)
    extracts = extractive.best_sentences(p.case.query, p.case.hits, embed=embed, scorer=s)
    return " ".join(e.sentence for e in extracts)


def measure(answers: Sequence[str], prepared: Sequence[Prepared]) -> dict[str, float]:
    """Mean content-word recall and F1, key-fact recall (over cases with a key fact) and
    words of `answers`."""
    n = len(answers)
    rf = [recall_f1(set(terms(a)), p.ref) for a, p in zip(answers, prepared, strict=True)]
    with_facts = [(a, p) for a, p in zip(answers, prepared, strict=True) if p.facts]
    facts = [len(set(terms(a)) & p.facts) / len(p.facts) for a, p in with_facts]
    return {
        "n": n,
        "recall": round(sum(r for r, _ in rf) / n, 4),
        "f1": round(sum(f for _, f in rf) / n, 4),
        "facts": round(sum(facts) / len(facts), 4) if facts else 0.0,
        "facts_n": len(facts),
        "words": round(sum(len(a.split()) for a in answers) / n, 1),
    }


PLACE = ("first", "position", "rank")
"""The features of a sentence's place, which MTRAG's references (retelling the opening of
the top passage) reward and a handbook's answers do not follow."""
SCHEMES = ("f1", "idf", "facts", "lead", "f1-list", "idf-list", "facts-list", "lead-list")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--schemes", default=",".join(SCHEMES))
    parser.add_argument("--weights-dir", type=Path, help="write each scheme's full-fit weights")
    parser.add_argument("--merge", action="store_true", help="keep the other schemes of --out")
    parser.add_argument(
        "--embeddings", type=Path, default=ROOT / "bench" / ".cache" / "extractive_vectors.npz"
    )
    args = parser.parse_args()
    embed = CachedEmbed(args.embeddings)
    cases, un, every = load_cases(args.data, embed)
    idf = rarity(h.chunk.text for c in every for h in c.hits)
    prep = {d: [p for c in cs if (p := prepare(c, embed, idf))] for d, cs in cases.items()}
    prep_un = {d: [p for c in cs if (p := prepare(c, embed, idf))] for d, cs in un.items()}
    results: dict[str, dict] = {}
    if args.merge and args.out.with_suffix(".json").exists():
        results = json.loads(args.out.with_suffix(".json").read_text())
    for scheme in args.schemes.split(","):
        row: dict[str, dict] = {}
        for held in DOMAINS:
            train = [p for d in DOMAINS if d != held for p in prep[d]]
            scorer = fit(train, scheme, idf, embed)
            row[held] = {
                **measure(
                    [answer(p, scorer, scorer.threshold, embed) for p in prep[held]], prep[held]
                ),
                "threshold": scorer.threshold,
            }
        full = fit([p for d in DOMAINS for p in prep[d]], scheme, idf, embed)
        for d in UN_DOMAINS:
            said = [answer(p, full, full.threshold, embed) for p in prep_un[d]]
            row[f"un-{d}"] = {**measure(said, prep_un[d]), "threshold": full.threshold}
        if args.weights_dir is not None:
            args.weights_dir.mkdir(parents=True, exist_ok=True)
            (args.weights_dir / f"{scheme}.json").write_text(full.to_json(label=scheme))
        row["weights"] = dict(
            zip(scoring.FEATURES, (round(w, 3) for w in full.weights), strict=True)
        )
        results[scheme] = row
        print(scheme, json.dumps({k: v for k, v in row.items() if k != "weights"}), flush=True)
        args.out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(report(results))


def report(results: dict[str, dict]) -> str:
    """The results as a Markdown table, one row per scheme and held-out set."""
    sets = [*DOMAINS, *(f"un-{d}" for d in UN_DOMAINS)]
    lines = [
        "# What the sentence scorer is fitted to",
        "",
        (__doc__ or "").split("\n\n", 2)[2].split("\nReported")[0].strip(),
        "",
        NOTES,
        "",
        "Per set: content-word F1 / recall / key-fact recall / words of the answer "
        "(threshold fitted on the training domains). MTRAG: leave-one-domain-out; MTRAG-UN "
        "(`un-`): test only, fitted on all three MTRAG domains.",
        "",
        "| scheme | " + " | ".join(sets) + " |",
        "| --- | " + " | ".join("---" for _ in sets) + " |",
    ]
    for scheme, row in results.items():
        cells = [
            f"{row[k]['f1']:.3f} / {row[k]['recall']:.3f} / {row[k]['facts']:.3f} / "
            f"{row[k]['words']:.0f}"
            for k in sets
        ]
        lines.append(f"| {scheme} | " + " | ".join(cells) + " |")
    lines += ["", "Largest weights of each scheme's fit on all three MTRAG domains:", ""]
    for scheme, row in results.items():
        top = sorted(row["weights"].items(), key=lambda kv: -abs(kv[1]))[:6]
        lines.append(f"- {scheme}: " + ", ".join(f"{k} {v:+.2f}" for k, v in top))
    return "\n".join(lines) + "\n"


NOTES = (
    "Command: `HF_HUB_OFFLINE=1 .venv/bin/python bench/extractive_labels.py --data "
    "../shared/bench` (main af5fbf7 plus this bench; the `-noplace` row added with "
    "`--schemes f1-list-noplace --merge`). Nothing here is shipped: no fit beat the "
    "shipped scorer (`f1`, the logistic one) on the real handbook without losing MTRAG F1.\n\n"
    "What the scorer is fitted to matters less than how. Under every label the logistic "
    "fit over all sentences at once keeps length and position as its largest weights "
    "(MTRAG's references retell the opening of the top passage, whatever part of them the "
    "label stresses), and the two features of the question's focus tried (the sentence "
    "holds every stem of the query; it holds the query's rarest stem among the candidates) "
    "got weights of 0.00 and +0.09 there, -0.04 and +0.03 in the listwise fit: too small "
    "to move a ranking, so they were not run held out. The labels are within noise of each "
    "other held out (`idf-list` and `f1-list` differ by <= 0.005 F1 on every set). The "
    "listwise fits (a turn's sentences against each other) weigh the MiniLM similarity more "
    "and position less, gain up to 0.008 F1 and 0.02-0.03 key-fact recall on the three "
    "MTRAG domains, with ~10 more words per answer and a lower threshold, and lose 0.005 "
    "and 0.010 F1 on MTRAG-UN.\n\n"
    "On the real handbook (bench/handbook_trial.py, floor mode, never fitted on), the "
    "shipped scorer holds every `expect` in 62/95 answerable turns, 60/97 fully right, 20 "
    "'right passage, wrong sentences'. `f1-list` (shipped weights refitted, "
    "`bench/extractive_answers.py --fit --ranker listwise`): 61/95, 60/97, 20 (fixes the "
    "learning budget's \"$4,000\", the stock options' count and the parental-leave notice; "
    "loses the conference travel, the cliff and jury duty). `f1-list-noplace` (the same "
    "with the sentence's place, `first` / `position` / `rank`, held at 0): 62/95, 61/97, "
    '18 (fixes "how does sick leave accrue?"), but held out on MTRAG it loses 0.012 F1 '
    "on clapnq and 0.020 on cloud (gains 0.012 on govt) and 0.031 / 0.033 on MTRAG-UN. A "
    "quicker check of the other fits (the answer sentences for the trial's standalone "
    "queries, not the whole reply; 58/95 with the shipped weights): `facts-list` and "
    "`lead-list` 58, `facts` 52, `lead` 48, so they were not run in the trial; `lead` "
    "(the reference's opening sentence less the question's words) was not run held out on "
    "MTRAG.\n\n"
    "The `f1` row is the shipped scorer refitted here; its cloud F1 (0.426, threshold 0.1) "
    "differs from bench/results/extractive_answers.md (0.418, threshold 0.05): the two "
    "thresholds are near-tied on the training domains (this bench compares mean F1 rounded "
    "to 4 places, and that one ran on a later main), so compare the rows here with each "
    "other.\n\n"
    "Left: the handbook's answers are short facts in the middle of a passage; MTRAG's "
    "references reward the opposite. A label that tells them apart needs references that "
    "quote the fact asked (for example the handbook's own `expect` strings, which would "
    "then no longer be a held-out test)."
)


if __name__ == "__main__":
    main()
