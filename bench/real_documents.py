"""Answer, ask back or abstain on real documents that are not in the repository.

    .venv/bin/python bench/real_documents.py [--docs /usr/share/common-licenses]

The corpus is Debian's own copy of the common free-software licences (Apache-2.0, the
Artistic licence, BSD, CC0, the GFDL, GPL-2/3, LGPL-2.1/3, MPL-2.0: long legal texts
whose sections resemble each other across licences). The questions below were written
for this bench after the scorers were fitted on MTRAG-UN, and nothing was tuned on them:
questions that name their licence (answerable), questions several licences fit and
nothing picks one (underspecified), and questions the licences do not answer
(unanswerable), some as follow-ups. Results: bench/results/real_documents.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tellmemore.assistant import Assistant  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.types import Answer  # noqa: E402

DOCS = Path("/usr/share/common-licenses")
LICENCES = (
    "Apache-2.0",
    "Artistic",
    "BSD",
    "CC0-1.0",
    "GFDL-1.3",
    "GPL-2",
    "GPL-3",
    "LGPL-2.1",
    "LGPL-3",
    "MPL-2.0",
)
OUT = ROOT / "bench" / "results" / "real_documents"

ANSWERABLE = "ANSWERABLE"
UNANSWERABLE = "UNANSWERABLE"
UNDERSPECIFIED = "UNDERSPECIFIED"

CASES: list[tuple[str, list[str], str]] = [
    # (label, earlier user turns, the labelled message)
    (ANSWERABLE, [], "Under the Mozilla Public License 2.0, how long do I have to cure a breach?"),
    (ANSWERABLE, [], "When does the patent license of the Apache License 2.0 terminate?"),
    (
        ANSWERABLE,
        [],
        "What must I give recipients when I redistribute a work under the Apache License?",
    ),
    (ANSWERABLE, [], "What is Corresponding Source in GPL version 3?"),
    (ANSWERABLE, [], "In the GNU Free Documentation License, what is an Invariant Section?"),
    (
        ANSWERABLE,
        [],
        "Under the Artistic License, may I charge a fee for distributing the package?",
    ),
    (ANSWERABLE, [], "Does the CC0 waiver affect trademark or patent rights?"),
    (ANSWERABLE, [], "What conditions does the BSD license set for redistribution in binary form?"),
    (
        ANSWERABLE,
        [],
        "Under the GNU Lesser General Public License 2.1, what is a work that uses the Library?",
    ),
    (ANSWERABLE, [], "What does GPL version 2 say about distributing the program in object code?"),
    (
        ANSWERABLE,
        ["What is the Mozilla Public License 2.0?"],
        "what does it say about patent claims?",
    ),
    (
        ANSWERABLE,
        ["Tell me about GPL version 3."],
        "what are installation information requirements for user products?",
    ),
    (ANSWERABLE, ["What is the Apache License 2.0?"], "do I have to keep the NOTICE file?"),
    (ANSWERABLE, ["What is the GNU Free Documentation License?"], "what is a Transparent copy?"),
    (UNANSWERABLE, [], "How much does a commercial license for GPL software cost?"),
    (UNANSWERABLE, [], "What is the phone number of the Free Software Foundation helpdesk?"),
    (UNANSWERABLE, [], "How many employees does the Apache Software Foundation have?"),
    (UNANSWERABLE, [], "Do we get a gym membership reimbursement?"),
    (UNANSWERABLE, [], "How do I reset my password?"),
    (UNANSWERABLE, [], "What is the capital of Australia?"),
    (UNANSWERABLE, ["What is the Apache License 2.0?"], "which companies use it the most?"),
    (UNANSWERABLE, ["Tell me about GPL version 3."], "who is the current president of the FSF?"),
    (
        UNANSWERABLE,
        ["What is the Mozilla Public License 2.0?"],
        "how many Firefox users are there?",
    ),
    (UNANSWERABLE, [], "What is the fine for violating the BSD license in Germany?"),
    (UNDERSPECIFIED, [], "Does this license require me to publish my source code?"),
    (UNDERSPECIFIED, [], "How long do I have to cure a violation of the license?"),
    (UNDERSPECIFIED, [], "What does the license say about patents?"),
    (UNDERSPECIFIED, [], "Is there any warranty under the license?"),
    (UNDERSPECIFIED, [], "Which later versions of the license may I use?"),
    (UNDERSPECIFIED, [], "What happens to my rights if I stop violating the license?"),
]


MODES: tuple[tuple[str, dict], ...] = (  # type: ignore[type-arg]
    ("floor (default)", {}),
    ("judged", {"retrieval": {"abstention": "judged"}}),
    ("floor + focus (opt-in)", {"retrieval": {"focus": True}}),
    ("floor + stated value 0.5 (opt-in)", {"retrieval": {"min_value_share": 0.5}}),
    ("floor + gold-removal scorer (opt-in)", {"retrieval": {"abstain_model": "gold_removal"}}),
    ("floor + phrase (opt-in)", {"retrieval": {"phrase": True}}),
    ("floor + ask coordinated (opt-in)", {"conversation": {"ask_coordinated": True}}),
    ("floor + ask from text (opt-in)", {"retrieval": {"ask_from_text": True}}),
)
"""The behaviour modes every real-document bench runs: the default, and the opt-in ones."""


def action(answer: Answer) -> str:
    """What the turn did, as the behaviour tables count it."""
    return "ask" if answer.clarification else "abstain" if answer.abstained else "answer"


def each_mode(project: Path, modes: Sequence[str] = ()) -> Iterator[tuple[str, Assistant]]:
    """The project opened once per behaviour mode (all when `modes` is empty), closed after."""
    for mode, overrides in MODES:
        if modes and mode not in modes:
            continue
        assistant = Assistant.open(project, settings=Settings(**overrides))
        try:
            yield mode, assistant
        finally:
            assistant.close()


def index_facts(project: Path) -> dict:  # type: ignore[type-arg]
    """Chunk count and the index's own calibration, for the results header."""
    assistant = Assistant.open(project, settings=Settings())
    try:
        calibration = assistant.retriever.calibrator.get()
        return {"chunks": assistant.index.count(), "calibration": json.loads(calibration.to_json())}
    finally:
        assistant.close()


def label_table(rows: list[dict], labels: Sequence[str]) -> list[str]:  # type: ignore[type-arg]
    """Markdown rows: per mode and label, how many turns were answered, asked back, abstained."""
    lines = [
        "| mode | label | turns | answered | asked back | abstained |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for mode in dict.fromkeys(r["mode"] for r in rows):
        for label in labels:
            part = [r for r in rows if r["label"] == label and r["mode"] == mode]
            n = {a: sum(r["action"] == a for r in part) for a in ("answer", "ask", "abstain")}
            lines.append(
                f"| {mode} | {label} | {len(part)} | {n['answer']} | {n['ask']} | {n['abstain']} |"
            )
    return lines


def run(docs: Path) -> dict:  # type: ignore[type-arg]
    settings_dir = Path(tempfile.mkdtemp(prefix="tellmemore-licences-"))
    corpus = settings_dir / "docs"
    corpus.mkdir()
    for name in LICENCES:  # plain text, named for its title
        shutil.copyfile(docs / name, corpus / f"{name}.txt")
    assistant = Assistant.open(settings_dir / "project", settings=Settings())
    t0 = time.perf_counter()
    assistant.ingest([corpus])
    ingest_s = time.perf_counter() - t0
    assistant.close()
    rows = []
    for mode, opened in each_mode(settings_dir / "project"):
        rows += ask_all(opened, mode)
    facts = index_facts(settings_dir / "project")
    shutil.rmtree(settings_dir, ignore_errors=True)
    return {"ingest_seconds": round(ingest_s, 1), **facts, "rows": rows}


def ask_all(assistant: Assistant, mode: str) -> list[dict]:  # type: ignore[type-arg]
    rows = []
    for label, earlier, message in CASES:
        chat = assistant.session()
        for turn in earlier:
            chat.ask(turn)
        answer = chat.ask(message)
        rows.append(
            {
                "mode": mode,
                "label": label,
                "history": earlier,
                "message": message,
                "action": action(answer),
                "reply": answer.answer[:300],
                "options": list(answer.clarification_options),
            }
        )
    return rows


def render(payload: dict) -> str:  # type: ignore[type-arg]
    rows = payload["rows"]
    lines = [
        "# Answer, ask back or abstain on real documents (not in the repository)",
        "",
        "```",
        ".venv/bin/python bench/real_documents.py",
        "```",
        "",
        "Corpus: Debian's `/usr/share/common-licenses` (" + ", ".join(LICENCES) + f"), "
        f"{payload['chunks']} chunks. The questions were written for this bench after the "
        "scorers were fitted on MTRAG-UN; nothing was tuned on them. Index calibration: "
        f"`{json.dumps(payload['calibration'])}`.",
        "",
    ]
    lines += label_table(rows, (ANSWERABLE, UNDERSPECIFIED, UNANSWERABLE))
    lines += [
        "",
        "| mode | label | history | message | did | reply |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        reply = r["reply"].replace("\n", " ").replace("|", "\\|")[:160]
        lines.append(
            f"| {r['mode']} | {r['label']} | {' / '.join(r['history'])} | {r['message']} | "
            f"{r['action']} | "
            f"{reply} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=Path, default=DOCS)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    payload = run(args.docs)
    args.out.with_suffix(".json").write_text(json.dumps(payload, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(render(payload))
    print(f"wrote {args.out.with_suffix('.md')}")


if __name__ == "__main__":
    main()
