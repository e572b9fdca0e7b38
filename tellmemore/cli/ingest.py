"""`tellmemore ingest PATH...`: load, chunk, embed and index documents."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from tellmemore.cli.common import (
    JsonOpt,
    ProjectOpt,
    console,
    open_assistant,
    print_json,
    progress_bar,
)
from tellmemore.ingest.loaders.base import UNSUPPORTED, supported_extensions
from tellmemore.types import SkippedFile


def ingest_command(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest.")],
    sync: Annotated[
        bool, typer.Option("--sync", help="Delete indexed documents gone from these folders.")
    ] = False,
    tenant: Annotated[str, typer.Option("--tenant", help="Tenant the documents belong to.")] = "",
    project: ProjectOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Ingest Markdown and MDX, text, HTML, PDF, Word (.docx), OpenDocument (.odt),
    PowerPoint (.pptx), reStructuredText (.rst) and JSONL files. Safe to rerun: unchanged
    content is not re-embedded, and a killed run resumes where it stopped."""
    from tellmemore.cli.common import utf8_id

    utf8_id(tenant, "--tenant")
    assistant = open_assistant(project)
    try:
        if json_out:
            report = assistant.ingest(paths, tenant=tenant, sync=sync)
            print_json(report.to_dict())
            return
        with progress_bar(console=console, transient=True) as bar:
            task = bar.add_task("Ingesting", total=None)

            def progress(done: int, total: int, label: str) -> None:
                bar.update(task, completed=done, total=total, description=label[:40])

            report = assistant.ingest(paths, tenant=tenant, sync=sync, progress=progress)
    finally:
        assistant.close()
    table = Table(title=f"Ingested in {report.seconds:.1f}s")
    for col in ("", "added", "updated", "unchanged", "deleted", "skipped"):
        table.add_column(col, justify="right" if col else "left")
    table.add_row(
        "documents",
        str(report.docs_added),
        str(report.docs_updated),
        str(report.docs_unchanged),
        str(report.docs_deleted),
        str(len(report.skipped)),
    )
    table.add_row(
        "chunks",
        str(report.chunks_added),
        str(report.chunks_updated),
        str(report.chunks_unchanged),
        str(report.chunks_deleted),
        "",
    )
    console.print(table)
    console.print(f"{report.chunks_embedded} chunks embedded.")
    print_skipped(report.skipped)
    for warning in report.warnings:
        console.print(f"[yellow]warning[/] {warning}")
    for flagged in report.flagged:
        console.print(f"[red]flagged[/] {flagged}: looks like instructions to a model")


LISTED_UNSUPPORTED = 5
"""Up to this many files of types no loader reads are listed one by one; more (a built
site's scripts, styles and images) are counted by extension: `--json` lists each."""


def print_skipped(skipped: Sequence[SkippedFile]) -> None:
    """Each file skipped for a reason of its own on its line; files of a type no loader
    reads listed too when few, else one line counting them by extension."""
    unsupported = [s for s in skipped if s.reason.startswith(UNSUPPORTED)]
    grouped = len(unsupported) > LISTED_UNSUPPORTED
    for item in skipped:
        if not (grouped and item.reason.startswith(UNSUPPORTED)):
            console.print(f"[yellow]skipped[/] {item.path}: {item.reason}")
    if grouped:
        kinds = Counter(Path(s.path).suffix.lower() or "(no extension)" for s in unsupported)
        counts = ", ".join(f"{n} {kind}" for kind, n in kinds.most_common())
        console.print(
            f"[yellow]skipped[/] {len(unsupported)} files of types no loader reads ({counts});"
            f" supported: {', '.join(supported_extensions())}"
        )
