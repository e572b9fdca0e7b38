"""The offline answer's edits and table discipline on real documents not in the repository.

    .venv/bin/python bench/answers_real_docs.py [FILE.md ...]

Default documents: Node.js's own Markdown documentation as Debian installs it
(/usr/share/doc/nodejs: BUILDING.md, GOVERNANCE.md, api/corepack.md, api/intl.md,
api/documentation.md, api/tty.md): prose, lists and tables nobody here wrote or tuned on.
Each second-level heading becomes a question ("what about <heading>?"); in a fresh
session each is asked, then "make that shorter", then "tell me more" twice. Measured:

- shorter: "make that shorter" is shorter than the answer it rewrites, and cites no
  source the answer did not;
- no repeat: "tell me more" quotes no sentence the conversation has shown (a quoted
  sentence carries a "[n]" marker; an abstention quotes nothing and counts as nothing new);
- padding: a quoted table row whose words (cells, non-label columns, section) the
  question and its standalone query do not name.

No reference answers exist for these documents, so answer quality itself is not scored
here (see bench/extractive_answers.py). Results: bench/results/answers_real_docs.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tellmemore.assistant import Assistant  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.types import Answer  # noqa: E402

NODE = Path("/usr/share/doc/nodejs")
DEFAULT_DOCS = [
    NODE / "BUILDING.md",
    NODE / "GOVERNANCE.md",
    NODE / "api" / "corepack.md",
    NODE / "api" / "intl.md",
    NODE / "api" / "documentation.md",
    NODE / "api" / "tty.md",
]
OUT = ROOT / "bench" / "results" / "answers_real_docs"
QUESTIONS_PER_DOC = 6


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def table_rows(path: Path) -> dict[str, set[str]]:
    """Each table row by its first cell: the words that name it (as tests/answer)."""
    rows: dict[str, set[str]] = {}
    section, header = "", []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            section = line.lstrip("# ")
        if not line.startswith("|"):
            header = []
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if not header:
            header = cells
        elif cells and cells[0] and not set(cells[0]) <= set("-: "):
            label = _words(header[0]) | {w + "s" for w in _words(header[0])}
            rows[cells[0]] = _words(" ".join(cells)) | (
                _words(" ".join([*header[1:], section])) - label
            )
    return rows


def questions(path: Path) -> list[str]:
    heads = [
        re.sub(r"[`*_]|<[^>]+>", "", m.group(1)).strip()
        for m in re.finditer(r"^##\s+(.+)$", path.read_text(encoding="utf-8"), re.MULTILINE)
    ]
    heads = [h for h in heads if 2 <= len(h) <= 60]
    step = max(1, len(heads) // QUESTIONS_PER_DOC)
    return [f"what about {h}?" for h in heads[::step][:QUESTIONS_PER_DOC]]


def _quoted(answer: Answer) -> list[str]:
    """The document sentences an answer quotes (each ends in a "[n]" marker); an
    abstention or a "nothing more" reply quotes none."""
    if answer.abstained or not answer.citations:
        return []
    lines = [re.sub(r"^(?:[-*]|\d+\.)\s+", "", line) for line in answer.answer.splitlines()]
    parts = [p.strip() for line in lines for p in re.split(r"\s*\[\d+\]\s*", line)]
    return [p for p in parts if p and not p.endswith(":")]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("docs", nargs="*", type=Path, default=DEFAULT_DOCS)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    docs = [d for d in args.docs if d.exists()]
    if not docs:
        raise SystemExit("none of the documents exist; pass Markdown files as arguments")
    rows: dict[str, set[str]] = {}
    for d in docs:
        rows.update(table_rows(d))
    counts = {
        "questions": 0, "answered": 0, "shorter": 0, "same_sources": 0, "more_turns": 0,
        "more_repeats": 0, "more_empty": 0, "rows_quoted": 0, "rows_unnamed": 0,
    }  # fmt: skip
    examples: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        assistant = Assistant.open(Path(tmp) / "project", settings=Settings())
        try:
            assistant.ingest([str(d) for d in docs])
            for doc in docs:
                for q in questions(doc):
                    counts["questions"] += 1
                    chat = assistant.session()
                    first = chat.ask(q)
                    if first.abstained:
                        continue
                    counts["answered"] += 1
                    asked = _words(f"{q} {first.standalone_query}")
                    for line in first.answer.splitlines():
                        for label, naming in rows.items():
                            if line.lstrip("- ").startswith(f"{label}:") or f": {label};" in line:
                                counts["rows_quoted"] += 1
                                if not asked & naming:
                                    counts["rows_unnamed"] += 1
                                    examples.append({"question": q, "padding": line})
                    short = chat.ask("make that shorter")
                    counts["shorter"] += len(short.answer) < len(first.answer)
                    counts["same_sources"] += {c.id for c in short.citations} <= {
                        c.id for c in first.citations
                    }
                    chat2 = assistant.session()
                    shown = _quoted(chat2.ask(q))
                    for _ in range(2):
                        more = chat2.ask("tell me more")
                        counts["more_turns"] += 1
                        new = _quoted(more)
                        counts["more_empty"] += not new
                        if set(new) & set(shown):
                            counts["more_repeats"] += 1
                            examples.append({"question": q, "repeated": more.answer})
                        shown += new
        finally:
            assistant.close()
    results = {"documents": [str(d) for d in docs], "counts": counts, "examples": examples[:10]}
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")
    c = counts
    md = [
        "# Answer edits and table rows on real documents",
        "",
        "`bench/answers_real_docs.py` on "
        + ", ".join(f"`{d.name}`" for d in docs)
        + " (Node.js documentation as Debian ships it; not in the repository). One question "
        "per sampled `##` heading. A repeat is a quoted (cited) sentence already shown; a "
        '"tell me more" that abstains or finds nothing counts as nothing new.',
        "",
        "Command: `HF_HUB_OFFLINE=1 .venv/bin/python bench/answers_real_docs.py`",
        "",
        "| measure | value |",
        "| --- | --- |",
        f"| questions (answered) | {c['questions']} ({c['answered']}) |",
        f'| "make that shorter" shorter | {c["shorter"]}/{c["answered"]} |',
        f"| ... citing only the answer's sources | {c['same_sources']}/{c['answered']} |",
        f'| "tell me more" turns repeating a shown sentence | {c["more_repeats"]}/'
        f"{c['more_turns']} |",
        f'| "tell me more" turns with nothing new | {c["more_empty"]}/{c["more_turns"]} |',
        f"| table rows quoted / not named by the question | {c['rows_quoted']} / "
        f"{c['rows_unnamed']} |",
    ]
    args.out.with_suffix(".md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
