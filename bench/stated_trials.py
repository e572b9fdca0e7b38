"""The stated-value rule (`answer.stated`) over every handbook turn that reaches it, read
again offline: a change to the rule is measured on Clef, TTS and PostHog in seconds.

    .venv/bin/python bench/stated_trials.py log --corpus tts --out /tmp/st_tts
    .venv/bin/python bench/stated_trials.py read /tmp/st_clef /tmp/st_tts /tmp/st_posthog \
        [--near 1.01 0.6 ...] [--share 0.5] [--show]

`log` runs a default-mode handbook trial (bench/handbook_trial.py, the stated rule off)
and keeps, for every turn that reaches the stated check (neither the floor nor the
focus or phrase rule abstained), the question, the evidence hits as `turn.py` passes
them and the document frequencies of the question's words: OUT.json (the trial) and
OUT_log.json. `read` runs `stated.value_share` over those inputs and counts the turns
the rule would add an abstention on: UNANSWERABLE caught, ANSWERABLE abstained (and of
those, how many the default answered fully right). `--show` prints the turns, never for
PostHog (held out: counts only).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import handbook_trial as ht  # noqa: E402
from handbook_corpora import CORPORA, HELD_OUT  # noqa: E402

from tellmemore import turn as turn_module  # noqa: E402
from tellmemore.answer import stated  # noqa: E402
from tellmemore.answer.focus import candidates  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation.text import content_words  # noqa: E402
from tellmemore.types import Chunk, Hit, TermStats  # noqa: E402

LOG: list[dict[str, Any]] = []
CURRENT: dict[str, Any] = {"key": None}


def _logging(original: Callable[..., Any]) -> Callable[..., Any]:
    def logged(self: Any, own: Sequence[Hit], asked: Sequence[str], req: Any) -> Any:
        question = next((q for q in asked if q.strip()), "")
        if question and own:
            words = list(dict.fromkeys([*candidates(question), *content_words(question)]))
            stats = turn_module.scoped_term_stats(self.retriever.index, req.tenant)(words)
            LOG.append(
                {
                    "key": CURRENT["key"],
                    "question": question,
                    "n_chunks": stats.n_chunks,
                    "df": {w: stats.df.get(w, 0) for w in words},
                    "hits": [
                        {
                            "id": h.chunk.id,
                            "doc": h.chunk.doc_id,
                            "title": h.chunk.title,
                            "section": list(h.chunk.section),
                            "text": h.chunk.text,
                            "dense": h.dense,
                        }
                        for h in own[: stated.STATED_HITS]
                    ],
                }
            )
        return original(self, own, asked, req)

    return logged


def _converse(
    assistant: Any, mode: str, conversations: list[dict[str, Any]], corpus: Path, passages: Any
) -> list[dict[str, Any]]:
    """`handbook_trial.converse`, naming the turn each stated check belongs to."""
    rows = []
    for conv in conversations:
        chat, shown = assistant.session(), []
        for i, turn in enumerate(conv["turns"]):
            CURRENT["key"] = [conv["id"], i]
            t0 = time.perf_counter()
            answer = chat.ask(turn["message"])
            hits = assistant.conversations.trace(answer.trace_id).get("hits") or []
            row = {
                "mode": mode,
                "conversation": conv["id"],
                "turn": i,
                "message": turn["message"],
                **ht.labels(turn),
                "action": ht.action(answer),
                "standalone": answer.standalone_query,
                "bindings": dict(answer.bindings),
                "cited": [ht.relative(c.doc, corpus) for c in answer.citations],
                "hits": [ht.hit_row(h, corpus, passages) for h in hits],
                "options": list(answer.clarification_options),
                "reply": answer.answer,
                "seconds": round(time.perf_counter() - t0, 3),
            }
            rows.append({**row, **ht.judge(row, shown, passages)})
            shown.append(answer.answer)
    return rows


def log(corpus: str, out: Path) -> None:
    runner = turn_module.TurnRunner
    runner._unstated_value = _logging(runner._unstated_value)  # type: ignore[method-assign]
    ht.converse = _converse
    payload = ht.run(["floor (default)"], CORPORA[corpus])
    out.with_suffix(".json").write_text(json.dumps(payload))
    Path(f"{out}_log.json").write_text(json.dumps(LOG))
    print(f"{len(LOG)} turns reached the stated check")


def read(prefixes: list[Path], nears: list[float], share: float, show: bool) -> None:
    from tellmemore.index.embedders import load_embedder

    embed = load_embedder(Settings().embedder).embed_documents
    for near in nears:
        cells = []
        for prefix in prefixes:
            trial = json.loads(prefix.with_suffix(".json").read_text())
            corpus = trial["corpus"]["name"]
            rows = {(r["conversation"], r["turn"]): r for r in trial["rows"]}
            caught = abstained = right = 0
            for e in json.loads(Path(f"{prefix}_log.json").read_text()):
                r = rows[tuple(e["key"])]
                hits = [
                    Hit(
                        Chunk(
                            h["id"],
                            h["doc"],
                            h["text"],
                            title=h["title"],
                            section=tuple(h["section"]),
                        ),
                        0.0,
                        i + 1,
                        None,
                        h["dense"],
                    )
                    for i, h in enumerate(e["hits"])
                ]
                df, n = e["df"], e["n_chunks"]

                def stats(words: list[str], df: dict[str, int] = df, n: int = n) -> TermStats:
                    return TermStats(n, {w: int(df.get(w, 0)) for w in words})

                got = stated.value_share(e["question"], hits, stats, embed, min_near=near)
                if got.share >= share:
                    continue
                caught += r["label"] == "UNANSWERABLE"
                abstained += r["label"] == "ANSWERABLE"
                right += r["label"] == "ANSWERABLE" and r["category"] is None
                if show and corpus not in HELD_OUT:
                    print(f"  {near} {corpus} {r['label']} {got.share:.2f} {e['question']}")
            cells.append(
                f"{corpus}: +{caught} caught, +{abstained} answerable ({right} right before)"
            )
        print(f"value_min_near {near}: " + " | ".join(cells))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    lg = sub.add_parser("log")
    lg.add_argument("--corpus", choices=sorted(CORPORA), required=True)
    lg.add_argument("--out", type=Path, required=True)
    rd = sub.add_parser("read")
    rd.add_argument("prefixes", type=Path, nargs="+")
    rd.add_argument("--near", type=float, nargs="+", default=[Settings().retrieval.value_min_near])
    rd.add_argument("--share", type=float, default=0.5)
    rd.add_argument("--show", action="store_true")
    args = ap.parse_args()
    if args.cmd == "log":
        log(args.corpus, args.out)
    else:
        read(args.prefixes, args.near, args.share, args.show)


if __name__ == "__main__":
    main()
