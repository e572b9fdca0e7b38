"""What every command shares: the project option, settings built at the edge, JSON output."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

ProjectOpt = Annotated[
    Path | None,
    typer.Option(
        "--project",
        "-p",
        help="Project directory holding index.db and state.db [default: ./.tellmemore].",
        show_default=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON output.")]

console = Console()
err_console = Console(stderr=True)


def utf8_id(value: str, what: str) -> str:
    """An id from the command line, refused with a message when it is not UTF-8 text.

    A byte that is not UTF-8 ("s\\xe9") reaches Python as a lone surrogate, which SQLite
    and the terminal refuse: an id holding one can name nothing, so it is an input error.
    """
    from tellmemore.errors import InputError

    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        shown = value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        raise InputError(f"{what} {shown!r} is not valid UTF-8; ids are UTF-8 text") from None
    return value


def open_assistant(project: Path | None, *, must_exist: bool = False):  # type: ignore[no-untyped-def]
    """Settings are built here, at the edge, and passed down.

    `must_exist`: a command that only reads (`index stats`) refuses a project that is not
    there instead of creating an empty one.
    """
    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings
    from tellmemore.errors import ConfigError

    settings = Settings.load(project) if project is not None else Settings.load()
    where = settings.project_dir
    if where.exists() and not where.is_dir():
        raise ConfigError(f"the project {str(where)!r} is a file, not a directory")
    if must_exist and not (where / "state.db").exists():
        raise ConfigError(
            f"no project at {str(where)!r}; create one with `tellmemore ingest PATH "
            f"--project {where}`"
        )
    return Assistant(settings)


def progress_bar(*, console: Console = err_console, **options: Any) -> Any:
    """The progress bar every long command draws: label, bar, done/total, elapsed, left."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        **options,
    )


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")
    sys.stdout.flush()
