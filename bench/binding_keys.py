"""Are the bindings shown to the user clean? (issue 20, item 7)

    .venv/bin/python bench/resolution_dump.py /tmp/dump.jsonl --data ../shared/bench
    .venv/bin/python bench/binding_keys.py --dump /tmp/dump.jsonl \
        --trial clef=TRIAL_clef.json --trial tts=TRIAL_tts.json --trial posthog=TRIAL_ph.json \
        --quiet posthog

A binding `{key: value}` is shown as "Answering about: value" and returned as is. Its key
should be the cue as the user typed it (design.md: a referent span, else an ellipsis's
fragment, else the message itself when it typed no cue at all); its value a phrase of the
conversation. Counted, by the passes of the resolution (`Resolution.passes`; a handbook
trial's rows do not record them, so they count under "(trial)"):

- key *label*: not typed by the user ("scope", "topic"; a typo the speller fixed is typed);
- key *conjunction*: opens with "and", "but", "so", ...;
- key *whole message around a cue*: the whole message, though it holds a narrower cue
  (a referent such as "that", "the third one", or an ellipsis fragment);
- key *longer than its referent*: holds a referent span and more, without being the message
  (unless that referent is keyed on its own);
- key *message, no cue* (the convention, not a fault): the message typed no cue at all
  ("How do I apply?" with the topic carried);
- value *url*, *markup*, *padding*: a link, a markup fragment, a part with no word of two
  letters ("0", "1000", "O", "v2": a number, a table's padding or a version).

--quiet CORPUS prints only the counts for that corpus (held-out data: no turn's text).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tellmemore.conversation.referents import find_ellipsis, find_referents  # noqa: E402

MODE = "floor (default)"
CONJUNCTIONS = {"and", "but", "or", "so", "then", "also", "plus"}
KEY_FLAWS = (
    "label",
    "conjunction",
    "whole message around a cue",
    "longer than its referent",
)
VALUE_FLAWS = ("url", "markup", "padding")
_URL = re.compile(r"https?://|www\.|^https?$|\.(?:com|org|html?)\b", re.I)
_MARKUP = re.compile(r"[<>|*#`{}\[\]]|&\w+;")
_WORD = re.compile(r"[^\W\d_]{2,}")
_PADDING = {"n/a", "na", "none", "tbd", "null", "nil"}


def _typed(text: str) -> str:
    return " ".join(text.split()).strip(" ?.!,;:").lower()


def key_flaws(message: str, key: str, keys: Iterable[str] = ()) -> list[str]:
    """The faults of `key` as a binding key of `message` (the docstring's list); `keys`: the
    resolution's other keys (a referent keyed on its own is no fault of a wider cue)."""
    low, msg = _typed(key), _typed(message)
    out = []
    if low not in " ".join(message.split()).lower() and _near(low, msg) < 0.8:
        out.append("label")  # a typo the speller fixed ("Sollutions") is still the user's
    words = low.split()
    if words and words[0] in CONJUNCTIONS:
        out.append("conjunction")
    others = {_typed(k) for k in keys} - {low}
    refs = [_typed(r.text) for r in find_referents(message)]
    ellipsis = find_ellipsis(message)
    cues = [r for r in refs if r and r != low]
    if ellipsis is not None and _typed(ellipsis.fragment) not in ("", msg):
        cues.append(_typed(ellipsis.fragment))
    if low == msg:
        if cues:
            out.append("whole message around a cue")
        elif ellipsis is None and not refs:
            out.append("message, no cue")
    elif any(r in low and r != low and r not in others for r in refs):
        out.append("longer than its referent")
    return out


def _near(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def value_flaws(value: str) -> list[str]:
    out = []
    if _URL.search(value):
        out.append("url")
    if _MARKUP.search(value):
        out.append("markup")
    parts = [p.strip() for p in value.split(", ")]
    if any(not _WORD.search(p) or p.lower() in _PADDING for p in parts):
        out.append("padding")
    return out


Row = tuple[str, str, dict[str, str], list[str]]


def dump_rows(path: Path) -> Iterator[Row]:
    """(set, message, bindings, passes) of a resolution_dump.py JSONL."""
    for line in path.open():
        r = json.loads(line)
        yield r["id"].split("/")[0], r["message"], r["bindings"], r["passes"]


def trial_rows(corpus: str, path: Path) -> Iterator[Row]:
    for r in json.loads(path.read_text())["rows"]:
        if r["mode"] == MODE and r["bindings"]:
            yield corpus, r["message"], r["bindings"], ["(trial)"]


def audit(rows: Iterable[Row], quiet: set[str], show: int) -> str:
    counts: Counter[tuple[str, str, str]] = Counter()
    totals: Counter[str] = Counter()
    shown: list[str] = []
    for corpus, message, bindings, passes in rows:
        by = "+".join(passes) or "(none)"
        for key, value in bindings.items():
            totals[corpus] += 1
            flaws = key_flaws(message, key, bindings) + value_flaws(value)
            for f in flaws:
                counts[(corpus, f, by)] += 1
            bad = [f for f in flaws if f != "message, no cue"]
            if bad and corpus not in quiet and len(shown) < show:
                shown.append(
                    f"| {corpus} | {by} | {', '.join(bad)} | {message[:70]!r} "
                    f"| {key[:50]!r} | {value[:50]!r} |"
                )
    lines = [
        "| set | bindings | " + " | ".join((*KEY_FLAWS, *VALUE_FLAWS)) + " | message, no cue |",
        "|---|---:|" + "---:|" * (len(KEY_FLAWS) + len(VALUE_FLAWS) + 1),
    ]
    for corpus in totals:
        cells = [
            sum(n for (c, f, _), n in counts.items() if c == corpus and f == flaw)
            for flaw in (*KEY_FLAWS, *VALUE_FLAWS, "message, no cue")
        ]
        lines.append(f"| {corpus} | {totals[corpus]} | " + " | ".join(map(str, cells)) + " |")
    lines += ["", "| set | flaw | passes | bindings |", "|---|---|---|---:|"]
    for (corpus, flaw, by), n in sorted(counts.items()):
        lines.append(f"| {corpus} | {flaw} | {by} | {n} |")
    if shown:
        lines += [
            "",
            "| set | passes | flaws | message | key | value |",
            "|---|---|---|---|---|---|",
            *shown,
        ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dump", type=Path, help="a resolution_dump.py JSONL")
    ap.add_argument("--trial", action="append", default=[], metavar="CORPUS=JSON")
    ap.add_argument(
        "--quiet",
        action="append",
        default=[],
        metavar="CORPUS",
        help="counts only for this corpus (held out)",
    )
    ap.add_argument("--show", type=int, default=40, help="faulty bindings listed")
    args = ap.parse_args()
    rows: list[Row] = list(dump_rows(args.dump)) if args.dump else []
    for spec in args.trial:
        corpus, path = spec.split("=", 1)
        rows += trial_rows(corpus, Path(path))
    print(audit(rows, set(args.quiet), args.show))


if __name__ == "__main__":
    main()
