"""`tellmemore ask` (one turn) and `tellmemore chat` (an interactive conversation)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from tellmemore.cli.common import (
    JsonOpt,
    ProjectOpt,
    console,
    open_assistant,
    print_json,
    utf8_id,
)
from tellmemore.cli.render import plain, print_answer, print_resolution_line
from tellmemore.errors import InputError


def ask_command(
    message: Annotated[str, typer.Argument(help="Your message.")],
    session: Annotated[
        str | None, typer.Option("--session", "-s", help="Continue (or start) this session.")
    ] = None,
    history: Annotated[
        Path | None,
        typer.Option("--history", help="A JSON list of {role, content} turns to answer after."),
    ] = None,
    tenant: Annotated[str, typer.Option("--tenant", help="Tenant to search in.")] = "",
    project: ProjectOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Answer one message, with its sources. With --session the turn is remembered."""
    from tellmemore.assistant import parse_history

    if session is not None and history is not None:
        raise InputError("use either --session or --history, not both")
    if session is not None:
        utf8_id(session, "--session")
    utf8_id(tenant, "--tenant")
    assistant = open_assistant(project)
    try:
        turns = parse_history(history) if history is not None else None
        chat = assistant.session(session, tenant=tenant) if session else None
        if chat is not None:
            answer = chat.ask(message)
        else:
            from tellmemore.assistant import Session

            answer = Session(assistant, None, tenant=tenant).ask(message, history=turns or [])
    finally:
        assistant.close()
    if json_out:
        print_json(answer.to_dict())
        return
    print_answer(console, answer)
    if answer.session_id:
        console.print(f"[dim]session {answer.session_id} · trace {answer.trace_id}[/]")
    else:
        console.print(f"[dim]trace {answer.trace_id} (tellmemore feedback {answer.trace_id} up)[/]")


def chat_command(
    session: Annotated[
        str | None, typer.Option("--session", "-s", help="Resume this session.")
    ] = None,
    tenant: Annotated[str, typer.Option("--tenant", help="Tenant to search in.")] = "",
    project: ProjectOpt = None,
) -> None:
    """Chat with your documents. Above each answer: what was searched and what it is about.
    Type /quit (or Ctrl-D) to leave."""
    from tellmemore.answer.stream import DeltaEvent, DoneEvent, ResolutionEvent

    if session is not None:
        utf8_id(session, "--session")
    utf8_id(tenant, "--tenant")
    assistant = open_assistant(project)
    chat = assistant.session(session, tenant=tenant)
    console.print(f"[dim]Session {chat.id}. Type /quit to leave.[/]")
    try:
        while True:
            try:
                message = console.input("[bold green]you>[/] ")
            except (EOFError, KeyboardInterrupt):
                console.print()
                break
            if message.strip() in ("/quit", "/exit"):
                break
            if not message.strip():
                continue
            try:
                stream = chat.stream(message)
                for event in stream:
                    if isinstance(event, ResolutionEvent) and event.resolution is not None:
                        res = event.resolution
                        if not res.ambiguous:
                            about = ", ".join(dict.fromkeys(res.bindings.values())) or None
                            print_resolution_line(console, res.query, about)
                    elif isinstance(event, DeltaEvent):
                        console.print(plain(event.text), end="", markup=False, highlight=False)
                    elif isinstance(event, DoneEvent):
                        console.print()
                        print_answer(console, event.answer, streamed=True)
            except InputError as exc:
                console.print(f"[red]{escape(str(exc))}[/]")
    finally:
        assistant.close()
