"""The sentence choice alone on a real handbook: each labelled turn asked as its gold rewrite.

    .venv/bin/python bench/handbook_sentences.py --corpus clef|tts|posthog [--out FILE]

bench/handbook_trial.py judges whole conversations, so a change of sentence choice shows only
where the conversation layer produced the same query and the retriever the same passages.
Here each ANSWERABLE turn with `expect` strings is asked as its labelled `rewrite` (the
question as a self-contained one; the message when there is none), its top passages are
searched, and the offline answer (`extractive.best_sentences`, the shipped scorer and
selection) is judged: every `expect` string in the answer, among the turns whose first 3
passages hold them all (so retrieval misses do not count). Run it from a checkout to
measure that checkout's code (before/after: bench/results/handbook_subject.md). The
selection settings are the shipped ones (`retrieval.spread_gap`, `quote_nearest`,
`quote_continuation`, `quote_opening`, `quote_headed`) unless a flag overrides one; before
session 20 the bench left the spread and the nearest sentence off unless asked (Clef 74/90
that way, 81/90 as shipped).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path[:0] = [os.getcwd(), str(Path(__file__).resolve().parent)]

from handbook_corpora import corpus_for  # noqa: E402
from handbook_trial import copy_corpus, load  # noqa: E402

from tellmemore.answer import extractive  # noqa: E402
from tellmemore.assistant import Assistant  # noqa: E402
from tellmemore.config import Settings  # noqa: E402


def _holds(text: str, expect: list[Any]) -> bool:
    low = text.lower()
    return all(any(a.lower() in low for a in ([e] if isinstance(e, str) else e)) for e in expect)


def labelled_queries(conversations: Path) -> Iterator[tuple[str, str, list[Any]]]:
    """(turn id, query, expect strings) of every ANSWERABLE turn with expect strings, asked
    as its labelled rewrite (the message when there is none)."""
    for conv in load(conversations):
        for i, turn in enumerate(conv["turns"]):
            if turn.get("answerability") == "ANSWERABLE" and turn.get("expect"):
                yield f"{conv['id']}.{i}", turn.get("rewrite") or turn["message"], turn["expect"]


def run(
    corpus: str,
    spread_gap: float | None,
    nearest: bool,
    continuation: bool,
    opening: bool = False,
    single_gap: float | None = None,
    headed: bool = False,
) -> dict[str, Any]:
    source = corpus_for(corpus)
    with tempfile.TemporaryDirectory(prefix="tellmemore-sentences-") as work:
        docs = copy_corpus(Path(work) / "docs", source.root)
        assistant = Assistant.open(Path(work) / "project", settings=Settings())
        assistant.ingest([docs])
        embed = assistant.embedder.embed_documents
        rows = []
        for turn_id, query, expect in labelled_queries(source.conversations):
            hits = assistant.search(query, k=5)
            passages = " ".join(h.chunk.text for h in hits[: extractive.MAX_CHUNKS])
            quoted = extractive.best_sentences(
                query,
                hits,
                embed=embed,
                spread_gap=spread_gap,
                single_gap=single_gap,
                nearest=nearest,
                continuation=continuation,
                opening=opening,
                headed=headed,
            )
            answer = " ".join(e.sentence for e in quoted)
            rows.append(
                {
                    "turn": turn_id,
                    "query": query,
                    "in_passages": _holds(passages, expect),
                    "answered": _holds(answer, expect),
                }
            )
        assistant.close()
    held = [r for r in rows if r["in_passages"]]
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return {
        "corpus": corpus,
        "commit": commit,
        "turns": len(rows),
        "passages_hold_expect": len(held),
        "answer_holds_expect": sum(r["answered"] for r in held),
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default="clef")
    parser.add_argument("--out", type=Path)
    shipped = Settings().retrieval
    parser.add_argument(
        "--spread-gap",
        type=float,
        default=shipped.spread_gap,
        help=f"retrieval.spread_gap (shipped: {shipped.spread_gap}; 2.0 turns it off)",
    )
    parser.add_argument(
        "--spread-gap-single",
        type=float,
        default=shipped.spread_gap_single,
        help="retrieval.spread_gap_single, the gap for a question asking for one thing "
        f"(shipped: {shipped.spread_gap_single}; 2.0: the same as --spread-gap)",
    )
    parser.add_argument(
        "--nearest",
        action=argparse.BooleanOptionalAction,
        default=shipped.quote_nearest,
        help=f"retrieval.quote_nearest (shipped: {shipped.quote_nearest})",
    )
    parser.add_argument(
        "--continuation",
        action=argparse.BooleanOptionalAction,
        default=shipped.quote_continuation,
        help=f"retrieval.quote_continuation (shipped: {shipped.quote_continuation})",
    )
    parser.add_argument(
        "--opening",
        action=argparse.BooleanOptionalAction,
        default=shipped.quote_opening,
        help=f"retrieval.quote_opening (shipped: {shipped.quote_opening})",
    )
    parser.add_argument(
        "--headed",
        action=argparse.BooleanOptionalAction,
        default=shipped.quote_headed,
        help=f"retrieval.quote_headed (shipped: {shipped.quote_headed})",
    )
    args = parser.parse_args()
    result = run(
        args.corpus,
        args.spread_gap,
        args.nearest,
        args.continuation,
        args.opening,
        args.spread_gap_single,
        args.headed,
    )
    result["continuation"] = args.continuation
    result["headed"] = args.headed
    result["opening"] = args.opening
    result["spread_gap"] = args.spread_gap
    result["spread_gap_single"] = args.spread_gap_single
    result["nearest"] = args.nearest
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(
        f"{result['corpus']} at {result['commit']}: {result['answer_holds_expect']}/"
        f"{result['passages_hold_expect']} answers hold every expect string "
        f"({result['turns']} answerable turns with expect strings)"
    )


if __name__ == "__main__":
    main()
