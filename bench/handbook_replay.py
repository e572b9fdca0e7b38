"""A handbook trial's follow-ups resolved again by this tree, with the trial's own replies
as history: a resolver change is read in a minute instead of a whole trial (issue 20).

    .venv/bin/python bench/handbook_replay.py --corpus tts --trial TRIAL.json --out OUT.json

The corpus is ingested once into --cache (kept for the next run). Each turn goes through
the gate and the embedded resolver as `turn.py` calls them, over the stateless history
(the stored session's resolutions are recomputed). Prints the turns whose standalone query
differs from the trial's; replaying the trial's own tree reproduces nearly all of them.
The replies are the trial's: a change that moves retrieval shows only in a new trial.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from handbook_corpora import CORPORA  # noqa: E402
from handbook_trial import copy_corpus  # noqa: E402

from tellmemore.assistant import Assistant  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation.gate import gate  # noqa: E402
from tellmemore.conversation.headings import headings_of  # noqa: E402
from tellmemore.conversation.preamble import without_preamble  # noqa: E402
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext  # noqa: E402
from tellmemore.turn import scoped_headings, scoped_term_stats  # noqa: E402
from tellmemore.types import Resolution, Turn  # noqa: E402

MODE = "floor (default)"


def project(corpus: str, cache: Path) -> Path:
    """The corpus ingested into `cache` once."""
    done = cache / "done"
    if not done.exists():
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir(parents=True)
        docs = copy_corpus(cache / "handbook", CORPORA[corpus].root)
        assistant = Assistant.open(cache / "project", settings=Settings())
        try:
            assistant.ingest([docs])
        finally:
            assistant.close()
        done.write_text("1")
    return cache / "project"


def replay(corpus: str, trial: Path, cache: Path) -> list[dict[str, Any]]:
    rows = [r for r in json.loads(trial.read_text())["rows"] if r["mode"] == MODE]
    assistant = Assistant.open(project(corpus, cache), settings=Settings())
    out: list[dict[str, Any]] = []
    try:
        index = assistant.retriever.index
        stats, heads = scoped_term_stats(index, ""), scoped_headings(index, "")
        window = assistant.settings.conversation.window
        histories: dict[str, list[Turn]] = {}
        for r in rows:
            history = histories.setdefault(r["conversation"], [])
            asked = without_preamble(r["message"])
            verdict = gate(asked, history, stats, headings=headings_of(heads))
            res = Resolution(query=asked)
            if verdict.needs_resolution:
                ctx = ResolveContext(term_stats=stats, headings=heads, window=window)
                res = EmbeddedResolver().resolve(r["message"], history, ctx)
            out.append(
                {
                    "conversation": r["conversation"],
                    "turn": r["turn"],
                    "message": r["message"],
                    "gate": verdict.reason,
                    "query": res.query,
                    "bindings": dict(res.bindings),
                    "passes": list(res.passes),
                    "trial_query": r["standalone"],
                    "trial_bindings": r["bindings"],
                    "labelled_binding": r["labelled_binding"],
                    "rewrite": r["rewrite"],
                }
            )
            history += [Turn("user", r["message"]), Turn("assistant", r["reply"] or "")]
    finally:
        assistant.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", choices=sorted(CORPORA), required=True)
    ap.add_argument("--trial", type=Path, required=True, help="a handbook_trial.py JSON")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/tellmemore-handbook-replay"))
    args = ap.parse_args()
    out = replay(args.corpus, args.trial, args.cache / args.corpus)
    args.out.write_text(json.dumps(out, indent=1))
    asked = [o for o in out if o["trial_query"] is not None]
    same = sum(o["query"] == o["trial_query"] for o in asked)
    print(f"{same}/{len(asked)} standalone queries as in the trial")
    for o in asked:
        if o["query"] != o["trial_query"]:
            print(f"{o['conversation']}.{o['turn']} {o['message']!r} [{o['gate']}] {o['passes']}")
            print(f"   now   {o['query']!r} {o['bindings']}")
            print(f"   trial {o['trial_query']!r} {o['trial_bindings']}")


if __name__ == "__main__":
    main()
