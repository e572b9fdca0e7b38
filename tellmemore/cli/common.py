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


def open_assistant(project: Path | None):  # type: ignore[no-untyped-def]
    """Settings are built here, at the edge, and passed down."""
    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings

    settings = Settings.load(project) if project is not None else Settings.load()
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
