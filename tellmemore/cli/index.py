"""`tellmemore index ...`: look after the index."""

from __future__ import annotations

import typer
from rich.table import Table

from tellmemore.cli.common import JsonOpt, ProjectOpt, console, open_assistant, print_json

app = typer.Typer(
    help="Inspect and maintain the index.", no_args_is_help=True, rich_markup_mode="markdown"
)


@app.command("stats")
def stats_command(project: ProjectOpt = None, json_out: JsonOpt = False) -> None:
    """Counts, size on disk, embedder and engine."""
    assistant = open_assistant(project, must_exist=True)
    try:
        stats = assistant.stats()
    finally:
        assistant.close()
    if json_out:
        print_json(stats)
        return
    table = Table(show_header=False)
    for key, value in stats.items():
        if key == "size_bytes":
            value = f"{value / 1e6:.2f} MB"
        table.add_row(key, str(value))
    console.print(table)


def _register_copy() -> None:
    from tellmemore.cli.index_copy import copy_command

    app.command("copy")(copy_command)


_register_copy()
