"""How an Answer looks in a terminal: what was searched, what it is about, the sources."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from tellmemore.answer.citations import page_label
from tellmemore.answer.degraded import degraded_notes
from tellmemore.types import Answer


def print_resolution_line(console: Console, query: str | None, about: str | None) -> None:
    if query:
        console.print(f"[dim]Searching for:[/] {query}")
    if about:
        console.print(f"[dim]Answering about:[/] [bold]{about}[/]")


def print_answer(console: Console, answer: Answer, *, streamed: bool = False) -> None:
    if not streamed:
        if answer.decision.value == "retrieve" and not answer.clarification:
            print_resolution_line(console, answer.standalone_query, answer.answering_about)
        if answer.clarification:
            console.print(f"[bold yellow]?[/] {answer.clarification}")
        elif answer.abstained:
            console.print(f"[bold red]No answer in the documents.[/] {answer.answer}")
        else:
            console.print(answer.answer)
    for i, c in enumerate(answer.citations, start=1):
        where = " > ".join((c.title, *c.section))
        version = f" (v{c.version})" if c.version else ""
        page = f", {page_label(c.pages)}" if c.pages else ""
        link = f" {c.url}" if c.url else ""
        console.print(f"  [cyan][{i}][/] {where}{version}{page}{link}")
    for note in degraded_notes(answer.degraded):
        console.print(f"[yellow]![/] {escape(note)}")
