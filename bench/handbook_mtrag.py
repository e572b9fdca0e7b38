"""The handbook and help-site corpora's follow-ups as MTRAG-format datasets (session 49,
Exp CJ: more data for the history-phrase selector's fit).

    .venv/bin/python bench/handbook_mtrag.py OUT TAG
    HF_HUB_OFFLINE=1 .venv/bin/python bench/term_stats_index.py OUT/hb-* --cache TS
    HF_HUB_OFFLINE=1 .venv/bin/python bench/loo_eval.py --cache /work/cache/bench_md \
        --extra-fit OUT/hb-* --extra-cache TS --out DIR

Each corpus ran by `bench/default_trials.sh` as TAG becomes OUT/hb-<corpus>/: corpus.jsonl
(one passage per page, its path as id) and conversations.jsonl (every turn after the first:
the history is the user's messages and the default's replies as the trial recorded them,
the rewrite is the labelled one or, for a self-contained turn, the message itself, so that
it is a topic-switch probe). MTRAG never enters: the selector is still tested on MTRAG held
out. Result: bench/results/selector_handbooks.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

from handbook_corpora import corpus_for, tag_trials  # noqa: E402

from tellmemore.conversation.text import strip_citations  # noqa: E402

PAGES = (".md", ".rst")
MODE = "floor (default)"


def follow_ups(
    conversation: dict[str, Any], replies: dict[tuple[str, int], str]
) -> list[dict[str, Any]]:
    """A conversation's turns after the first as MTRAG records; stops where the trial did."""
    records: list[dict[str, Any]] = []
    history: list[dict[str, str]] = []
    for i, turn in enumerate(conversation["turns"]):
        if i > 0:
            records.append(
                {
                    "task_id": f"{conversation['id']}<::>{i + 1}",
                    "conversation_id": conversation["id"],
                    "turn": i + 1,
                    "history": list(history),
                    "message": turn["message"],
                    "rewrite": turn.get("rewrite") or turn["message"],
                    "gold": turn.get("gold") or [],
                }
            )
        reply = replies.get((conversation["id"], i))
        if reply is None:
            break
        history += [
            {"role": "user", "content": turn["message"]},
            {"role": "assistant", "content": strip_citations(reply)},
        ]
    return records


def write(name: str, trial: dict[str, Any], out: Path) -> int:
    """OUT/hb-<name>/ for one corpus; the number of follow-ups written."""
    corpus = corpus_for(name)
    folder = out / f"hb-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as f:
        for page in sorted(p for p in corpus.root.rglob("*") if p.is_file() and p.suffix in PAGES):
            text = page.read_text(encoding="utf-8", errors="replace")
            rel = str(page.relative_to(corpus.root))
            f.write(json.dumps({"_id": rel, "title": page.stem, "text": text}) + "\n")
    replies = {
        (r["conversation"], r["turn"]): r["reply"] for r in trial["rows"] if r["mode"] == MODE
    }
    n = 0
    with open(folder / "conversations.jsonl", "w", encoding="utf-8") as f:
        for line in corpus.conversations.read_text(encoding="utf-8").splitlines():
            for record in follow_ups(json.loads(line), replies):
                f.write(json.dumps(record) + "\n")
                n += 1
    return n


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, tag = Path(sys.argv[1]), sys.argv[2]
    total = sum(write(name, trial, out) for name, _, trial in tag_trials(tag))
    print(f"{total} follow-ups written under {out}")


if __name__ == "__main__":
    main()
