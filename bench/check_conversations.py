"""Check a corpus's labelled conversations against its documents, without running the system.

Every turn's label is one of the three, every `gold` path names a file under the corpus root,
and every `expect` string of an ANSWERABLE turn (or one of a nested list's alternatives)
occurs in one of that turn's gold files, case-insensitively and with whitespace folded. A
label that fails here would blame the system for the label's fault, so run this before the
first trial on a new set of conversations:

    python bench/check_conversations.py --corpus gitlab

Prints one line per problem and exits 1 when there is any; else prints the counts by label.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from handbook_corpora import corpus_for

LABELS = ("ANSWERABLE", "UNANSWERABLE", "UNDERSPECIFIED")
FIELDS = {"message", "answerability", "gold", "expect", "rewrite", "binding", "check", "note"}


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def problems(root: Path, conversations: list[dict]) -> list[str]:  # type: ignore[type-arg]
    """Every problem found, as 'conversation.turn: what is wrong'."""
    found: list[str] = []
    seen: set[str] = set()
    for c in conversations:
        if c["id"] in seen:
            found.append(f"{c['id']}: duplicate conversation id")
        seen.add(c["id"])
        for i, turn in enumerate(c["turns"]):
            where = f"{c['id']}.{i}"
            if set(turn) - FIELDS:
                found.append(f"{where}: unknown fields {sorted(set(turn) - FIELDS)}")
            if turn.get("answerability") not in LABELS:
                found.append(f"{where}: label {turn.get('answerability')!r}")
            missing = [g for g in turn.get("gold", []) if not (root / g).is_file()]
            found += [f"{where}: gold file missing: {g}" for g in missing]
            if i == 0 and "binding" in turn:
                found.append(f"{where}: a first turn has nothing to bind to")
            if turn.get("check") not in (None, "shorter", "new_sentences"):
                found.append(f"{where}: check {turn['check']!r}")
            if turn.get("answerability") != "ANSWERABLE":
                if turn.get("expect"):
                    found.append(f"{where}: only an ANSWERABLE turn has expect strings")
                continue
            if not turn.get("gold"):
                found.append(f"{where}: an ANSWERABLE turn names its gold file")
                continue
            text = _squash(
                " ".join(
                    (root / g).read_text(encoding="utf-8") for g in turn["gold"] if g not in missing
                )
            )
            for want in turn.get("expect", []):
                options = want if isinstance(want, list) else [want]
                if not any(_squash(o) in text for o in options):
                    found.append(f"{where}: expect {options} not in {turn['gold']}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="clef", help="a bundled corpus name or a folder")
    args = parser.parse_args()
    corpus = corpus_for(args.corpus)
    lines = corpus.conversations.read_text(encoding="utf-8").splitlines()
    conversations = [json.loads(line) for line in lines if line.strip()]
    found = problems(corpus.root, conversations)
    for line in found:
        print(line)
    labels = Counter(t["answerability"] for c in conversations for t in c["turns"])
    total = sum(labels.values())
    shares = ", ".join(f"{k} {labels[k]} ({labels[k] / total:.0%})" for k in LABELS)
    print(f"{corpus.name}: {len(conversations)} conversations, {total} turns: {shares}")
    print(f"{len(found)} problem(s)")
    raise SystemExit(1 if found else 0)


if __name__ == "__main__":
    main()
