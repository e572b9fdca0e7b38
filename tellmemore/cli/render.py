"""How an Answer looks in a terminal: what was searched, what it is about, the sources.

Document text is printed as plain text, never as Rich markup: a chunk holding
"[/mnt/data]" or "[bold]" is shown as written (markup would drop it, or crash on a closing
tag). Markdown links keep their text: "you're [required](https://x) to" prints as
"you're required (https://x) to", not as "you're (https://x) to".
"""

from __future__ import annotations

import re

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from tellmemore.answer.citations import page_label
from tellmemore.answer.degraded import degraded_notes
from tellmemore.types import Answer

_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(([^)\s]*)(?:\s+\"[^\"]*\")?\)")


def plain(text: str) -> str:
    """`text` with Markdown links as "text (url)" (an image as its alt text; a link whose
    text is its URL, or that points inside the page, as its text alone)."""

    def link(m: re.Match[str]) -> str:
        image, label, url = m.group(1), m.group(2).strip(), m.group(3)
        if image or not url or url.startswith("#") or url == label:
            return label or url
        return f"{label} ({url})" if label else url

    return _LINK.sub(link, text)


def document_text(text: str, style: str = "") -> Text:
    """Document or user text as a Rich `Text`: printed as written, links kept readable."""
    return Text(plain(text), style=style)


def print_resolution_line(console: Console, query: str | None, about: str | None) -> None:
    if query:
        console.print(Text.assemble(("Searching for:", "dim"), " ", plain(query)))
    if about:
        console.print(Text.assemble(("Answering about:", "dim"), " ", (plain(about), "bold")))


def print_answer(console: Console, answer: Answer, *, streamed: bool = False) -> None:
    if not streamed:
        if answer.decision.value == "retrieve" and not answer.clarification:
            print_resolution_line(console, answer.standalone_query, answer.answering_about)
        if answer.clarification:
            console.print(Text.assemble(("?", "bold yellow"), " ", plain(answer.clarification)))
        elif answer.abstained:
            console.print(
                Text.assemble(("No answer in the documents.", "bold red"), " ", answer.answer)
            )
        else:
            console.print(document_text(answer.answer), highlight=False)
    for i, c in enumerate(answer.citations, start=1):
        where = " > ".join((c.title, *c.section))
        version = f" (v{c.version})" if c.version else ""
        page = f", {page_label(c.pages)}" if c.pages else ""
        link = f" {c.url}" if c.url else ""
        aimed = f" (holds text aimed at a model: {', '.join(c.flags)})"
        flagged = (aimed, "red") if c.flags else ""
        console.print(
            Text.assemble(
                "  ", (f"[{i}]", "cyan"), f" {plain(where)}{version}{page}{link}", flagged
            ),
            highlight=False,
        )
    for note in degraded_notes(answer.degraded):
        console.print(f"[yellow]![/] {escape(note)}")
