"""Is the labelled antecedent among the candidates the passage fit chooses from?

    HF_HUB_OFFLINE=1 .venv/bin/python bench/binding_candidates.py TRIAL.json [...] [--show]

Replays each trial's conversations through the resolver (as bench/binding_replay.py does,
the trial's replies as the assistant turns) and records every call of
`passes.fit.by_passage_fit` on a turn with a labelled binding: the ranked candidates and the
one chosen. Counts the decisions whose choice holds the labelled antecedent, and those where
it was among the first four candidates (`FIT_CANDIDATES`, what the fit reads) or among any
candidate at all: the ceiling of any re-ranking of these candidates. A held-out corpus prints
its counts only; `--show` lists a dev corpus's wrong choices.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from binding_replay import resolved_turns  # noqa: E402
from handbook_corpora import held_out_trial  # noqa: E402
from handbook_trial import _tokens  # noqa: E402

import tellmemore.conversation.passes.bind as bind  # noqa: E402
from tellmemore.conversation import constants as C  # noqa: E402
from tellmemore.conversation.realize import replacement, splice  # noqa: E402

CALLS: list[tuple[list[str], str, dict[str, str]]] = []
_FIT = bind.by_passage_fit


def _recording(st, message, ref, ranked):  # type: ignore[no-untyped-def]
    """The fit's choice, and what two simpler rules would have chosen among the same first
    four candidates: the most salient one, and the best fitting one."""
    best = _FIT(st, message, ref, ranked)
    head = [(c, s) for c, s in ranked[: C.FIT_CANDIDATES] if s > 0]
    other = {"salience": ranked[0][0].phrase.text, "fit": ranked[0][0].phrase.text}
    if st.context.passage_fit is not None and len(head) >= 2:
        questions = [
            splice(message, [(ref, replacement(ref, c.phrase, st.surface(c.phrase), message))])
            for c, _ in head
        ]
        fits = st.context.passage_fit(questions)
        other["fit"] = head[max(range(len(head)), key=lambda i: fits[i])][0].phrase.text
    CALLS.append(([c.phrase.text for c, _ in ranked], best.phrase.text, other))
    return best


def _holds(text: str, want: set[str]) -> bool:
    """The candidate and the label name the same thing: one's words hold the other's."""
    got = _tokens(text)
    return bool(got & want) and (want <= got or got <= want)


def measure(path: Path, show: bool) -> Counter[str]:
    trial: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    quiet = held_out_trial(trial) or not show
    counts: Counter[str] = Counter()
    CALLS.clear()
    for cid, row, _ in resolved_turns(trial):
        if row["labelled_binding"] and CALLS:
            want = set().union(*(_tokens(v) for v in row["labelled_binding"].values()))
            ranked, best, other = CALLS[0]
            for rule, chosen in other.items():
                counts[f"{rule} alone right"] += _holds(chosen, want)
            places = [i for i, text in enumerate(ranked) if _holds(text, want)]
            counts["decisions"] += 1
            counts["chosen right"] += _holds(best, want)
            first = bool(places) and places[0] < C.FIT_CANDIDATES
            counts["label in the first four"] += first
            counts["label among the candidates"] += bool(places)
            if not quiet and not _holds(best, want):
                print(
                    f"  {cid}.{row['turn']} {row['message']!r}: chose {best!r}, "
                    f"label {row['labelled_binding']}, place {places[:1]}"
                )
        CALLS.clear()  # the next turn's resolution records afresh
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trials", type=Path, nargs="+")
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    bind.by_passage_fit = _recording
    for path in args.trials:
        print(path.name, dict(measure(path, args.show)), flush=True)


if __name__ == "__main__":
    main()
