"""Ordinal follow-ups over every list of sections a handbook has, realized and searched:
does the standalone query find the item's own section? (issue 20; issue 21 item 3)

    .venv/bin/python bench/ordinal_items.py --corpus tts [--corpus clef] [--out FILE.md]

The labelled conversations hold only a few "the second one" turns, so this reads the
documents' own lists: every section with 2 to 8 subsections is a kinds answer whose items
are the subsection titles ("Types of flexible schedules" > Flexitour, Gliding, ...). For
each item it asks, after "What are the <section>?" (and after "Which <section> does the
handbook describe?") answered with that list (items stored as `Answer.items` are), "how
does the <nth> one work?" and "and the <nth> one?", resolves them with this tree's embedded
resolver over the index's term statistics and headings, and searches the query with the
phrasings a turn fuses beside it. Right: the top 1 / top 3 hits hold a chunk of the item's
own section (its section path ends with the item). Fixed phrasings of the same item are
searched too, so a realization can be set against the alternatives it did not choose.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from handbook_replay import project  # noqa: E402

from tellmemore.assistant import Assistant  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation.phrasings import search_phrasings  # noqa: E402
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext  # noqa: E402
from tellmemore.turn import scoped_headings, scoped_term_stats  # noqa: E402
from tellmemore.types import Resolution, Turn, header_line  # noqa: E402

log = logging.getLogger("ordinal_items")
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
MIN_ITEMS, MAX_ITEMS = 2, 8

Phrasing = Callable[[str, str], str]
FOLLOW_UPS = ("how does the {n} one work?", "and the {n} one?")
LISTINGS = ("What are the {topic}?", "Which {topic} does the handbook describe?")
"""The question each list answers: plain, and with a subject the item could displace."""
FIXED: dict[str, dict[str, Phrasing]] = {
    FOLLOW_UPS[0]: {
        "how does item work?": lambda item, topic: f"how does {item} work?",
        "how does item of topic work?": lambda item, topic: f"how does {item} of {topic} work?",
    },
    FOLLOW_UPS[1]: {
        "item": lambda item, topic: item,
        "item (topic)": lambda item, topic: f"{item} ({topic})",
        "and item?": lambda item, topic: f"and {item}?",
        "what about item (topic)?": lambda item, topic: f"what about {item} ({topic})?",
        "what are the item?": lambda item, topic: f"What are the {item}?",
    },
}
"""The phrasings set against the resolver's, searched in the same fusion (the message as
typed and the history phrasings beside them, `conversation.phrasings`). "What are the
<item>?" is the listing question with the item in its subject's place."""


def lists_of(headings: list[str]) -> list[tuple[str, str, list[str]]]:
    """(parent heading, its title, its subsection titles) for each section with 2-8
    subsections, in the index's heading order."""
    children: dict[str, list[str]] = defaultdict(list)
    for h in headings:
        parts = h.split(" > ")
        for n in range(1, len(parts)):
            parent, child = " > ".join(parts[:n]), parts[n]
            if child not in children[parent]:
                children[parent].append(child)
    return [
        (p, p.split(" > ")[-1], kids)
        for p, kids in children.items()
        if MIN_ITEMS <= len(kids) <= MAX_ITEMS and " > " in p
    ]


def run(corpus: str, cache: Path) -> dict[str, list[tuple[bool, bool]]]:
    assistant = Assistant.open(project(corpus, cache / corpus), settings=Settings())
    out: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    try:
        index = assistant.retriever.index
        stats, heads = scoped_term_stats(index, ""), scoped_headings(index, "")
        ctx = ResolveContext(term_stats=stats, headings=heads)
        resolver = EmbeddedResolver()
        for parent, topic, items in lists_of(list(heads())):
            listed = "".join(f"- {item} [1]\n" for item in items)
            answer = Turn("assistant", listed, items=tuple(items))
            for form, listing in enumerate(LISTINGS):
                asked = Turn("user", listing.format(topic=topic))
                for n, item in enumerate(items):
                    own = header_line("", [*parent.split(" > "), item]).lower()

                    def right(
                        query: str,
                        res: Resolution,
                        message: str,
                        own: str = own,
                        history: tuple[Turn, ...] = (asked, answer),
                    ) -> tuple[bool, bool]:
                        said = replace(res, query=query)
                        ph = search_phrasings(message, said, history, stats)
                        hits = assistant.retriever.search(ph.queries, weights=ph.weights).hits
                        found = [
                            header_line(h.chunk.title, h.chunk.section).lower().startswith(own)
                            for h in hits[:3]
                        ]
                        return bool(found[:1] and found[0]), any(found)

                    for follow in FOLLOW_UPS:
                        message = follow.format(n=ORDINALS[n])
                        res = resolver.resolve(message, [asked, answer], ctx)
                        got = right(res.query, res, message)
                        short = follow.format(n="<nth>")
                        after = "" if form == 0 else f" (after {listing!r})"
                        out[f"{short} resolved{after}"].append(got)
                        log.debug("%s | %s -> %s %s", own, message, res.query, got)
                        if form > 0:
                            continue  # the fixed phrasings: once
                        for name, phrase in FIXED[follow].items():
                            got = right(phrase(item, topic), res, message)
                            out[f"{short} as: {name}"].append(got)
                            log.debug("%s | %s %s", own, name, got)
    finally:
        assistant.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", action="append", required=True)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/tellmemore-handbook-replay"))
    ap.add_argument("--out", type=Path)
    ap.add_argument("--log", type=Path, help="each query and whether it found the item")
    args = ap.parse_args()
    if args.log:
        logging.basicConfig(filename=args.log, level=logging.WARNING, format="%(message)s")
        log.setLevel(logging.DEBUG)
    lines = ["| corpus | query | items | top 1 | top 3 |", "| --- | --- | --- | --- | --- |"]
    for corpus in args.corpus:
        for name, got in run(corpus, args.cache).items():
            top1, top3 = sum(g[0] for g in got), sum(g[1] for g in got)
            lines.append(f"| {corpus} | {name} | {len(got)} | {top1} | {top3} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
