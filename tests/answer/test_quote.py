"""The text of a quoted answer: sentences from different sources are grouped under the
source's name, a quoted list comes back as data, and no row of a table the question does
not name pads an answer."""

from __future__ import annotations

import re
from pathlib import Path

from tellmemore.answer.extractive import Extract
from tellmemore.answer.quote import quote
from tellmemore.ingest import sample_corpus_path
from tellmemore.testing.conformance import make_chunk
from tellmemore.types import Hit


def _hit(key: str, text: str, title: str, section: tuple[str, ...] = (), rank: int = 1) -> Hit:
    return Hit(chunk=make_chunk(key, text, title=title, section=section), score=1.0, rank=rank)


def test_quotes_from_different_policies_are_grouped_under_their_titles() -> None:
    hits = [
        _hit("a", "Parental leave pays 100%.", "Parental leave"),
        _hit("b", "Disability pays 75%.", "Disability insurance", rank=2),
        _hit("c", "Bereavement leave pays 100%.", "Bereavement", rank=3),
    ]
    extracts = [
        Extract("Parental leave pays 100%.", 0, 1.0),
        Extract("Disability pays 75%.", 1, 0.9),
        Extract("Bereavement leave pays 100%.", 2, 0.8),
    ]
    quoted = quote(extracts, hits)
    assert quoted.text == (
        "Parental leave:\nParental leave pays 100%. [1]\n"
        "Disability insurance:\nDisability pays 75%. [2]\n"
        "Bereavement:\nBereavement leave pays 100%. [3]"
    )
    assert [c.title for c in quoted.citations] == [
        "Parental leave",
        "Disability insurance",
        "Bereavement",
    ]


def test_a_documents_sentences_stay_under_one_title() -> None:
    hits = [
        _hit("a", "x", "Parental leave"),
        _hit("b", "y", "Medical insurance", rank=2),
        _hit("c", "z", "Parental leave", ("Pay",), rank=3),
    ]
    extracts = [
        Extract("Leave is 16 weeks.", 0, 1.0),
        Extract("The plan pays 100%.", 1, 0.9),
        Extract("Leave is paid in full.", 2, 0.8),
    ]
    quoted = quote(extracts, hits)
    assert quoted.text == (
        "Parental leave:\nLeave is 16 weeks. [1] Leave is paid in full. [2]\n"
        "Medical insurance:\nThe plan pays 100%. [3]"
    )
    assert [c.title for c in quoted.citations] == [
        "Parental leave",
        "Parental leave",
        "Medical insurance",
    ]


def test_sections_of_one_document_are_not_named() -> None:
    hits = [
        _hit("a", "Leave is 16 weeks.", "Handbook", ("Benefits", "Parental leave")),
        _hit("b", "The plan pays 100%.", "Handbook", ("Benefits", "Medical insurance"), 2),
    ]
    extracts = [Extract("Leave is 16 weeks.", 0, 1), Extract("The plan pays 100%.", 1, 1)]
    assert quote(extracts, hits).text == "Leave is 16 weeks. [1] The plan pays 100%. [2]"


def test_one_source_needs_no_name_and_a_list_comes_back_as_items() -> None:
    hits = [_hit("a", "x", "Career levels")]
    extracts = [
        Extract("There are five levels.", 0, 1.0),
        *(Extract(level, 0, 1.0, item=True) for level in ("Junior", "Mid", "Senior", "Staff")),
    ]
    quoted = quote(extracts, hits)
    assert quoted.text.startswith("There are five levels. [1]\n- Junior [1]")
    assert quoted.items == ("Junior", "Mid", "Senior", "Staff")


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _table_rows() -> dict[str, set[str]]:
    """Every table row of the bundled docs, by its first cell: the words that name it
    (its cells, its section and columns but the label column's class word: "an annual
    plan" names no row of the "Plans" table)."""
    rows: dict[str, set[str]] = {}
    for path in Path(sample_corpus_path()).rglob("*.md"):
        lines = path.read_text(encoding="utf-8").splitlines()
        section, header = "", []
        for line in lines:
            if line.startswith("#"):
                section = line.lstrip("# ")
            if not line.startswith("|"):
                header = []
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not header:
                header = cells
            elif not set(cells[0]) <= set("-: "):
                label = _words(header[0]) | {w + "s" for w in _words(header[0])}
                named = _words(" ".join([*header[1:], section])) - label
                rows[cells[0]] = _words(" ".join(cells)) | named
    return rows


QUESTIONS = [
    "how do I report damage to a bike?",
    "what happens if I return a bike late?",
    "how do I connect my first two sites?",
    "what firmware do the routers need?",
    "how do I escalate a ticket?",
    "what is the uptime commitment?",
    "does Status Page send notifications?",
    "can I get a refund for an annual plan?",
    "what changed in version 3.4?",
    "how do I reset a router?",
    "who do I contact for billing questions?",
    "is there a deposit for bikes?",
]


def test_no_answer_quotes_rows_of_a_table_the_question_does_not_name(sample_assistant) -> None:  # type: ignore[no-untyped-def]
    rows = _table_rows()
    assert len(rows) >= 10
    for question in QUESTIONS:
        answer = sample_assistant.session().ask(question)
        asked = _words(f"{question} {answer.standalone_query}")
        for line in answer.answer.splitlines():
            for label, naming in rows.items():
                # a row reads "Plan: Pro; Price: ..." or, label column unnamed, "Pro; ...";
                # prose opening with the word ("Pro commits to 99.9% ...") is no row
                text = line.lstrip("- ")
                if re.match(rf"{re.escape(label)}[:;.]", text) or f": {label};" in line:
                    assert asked & naming, (question, line)
