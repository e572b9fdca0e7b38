"""`tellmemore index copy --to URI`: move the index to another engine without re-embedding.

A thin command over `tellmemore.index.copy`: it opens the project's index
(`index.uri` in the settings) and the target, copies with a progress bar and
prints what it did. Rerunning after an interruption resumes (chunks already
in the target with the same content hash are skipped). Imports are lazy so
that `tellmemore --help` stays fast and pymilvus loads only for Milvus.
"""

from __future__ import annotations

from typing import Annotated

import typer

from tellmemore.cli.common import JsonOpt, ProjectOpt, console, print_json, progress_bar

ToOpt = Annotated[
    str,
    typer.Option(
        "--to",
        help=(
            "Target index: a file path or sqlite:PATH (SQLite), milvus://HOST:PORT or "
            "http(s)://HOST:PORT (Milvus server), milvus-lite:PATH.db (in-process Milvus)."
        ),
        show_default=False,
    ),
]
BatchOpt = Annotated[
    int, typer.Option("--batch-size", min=1, max=4096, help="Chunks per write to the target.")
]
PruneOpt = Annotated[
    bool,
    typer.Option("--prune", help="Also delete chunks from the target that the source lacks."),
]


def copy_command(
    to: ToOpt,
    project: ProjectOpt = None,
    batch_size: BatchOpt = 256,
    prune: PruneOpt = False,
    json_out: JsonOpt = False,
) -> None:
    """Copy the index (chunks and vectors, no re-embedding) to another engine; resumable."""
    from tellmemore.config import Settings
    from tellmemore.index.copy import copy_index, describe, open_source, open_target

    settings = Settings.load(project) if project is not None else Settings.load()
    source = open_source(settings)
    try:
        target = open_target(settings, to, source)
        try:
            with progress_bar(disable=json_out) as bar:
                task = bar.add_task("copying", total=None)

                def progress(done: int, total: int) -> None:
                    bar.update(task, completed=done, total=total)

                report = copy_index(
                    source,
                    target,
                    batch_size=batch_size,
                    prune=prune,
                    progress=progress,
                    source_name=describe(settings),
                    target_name=to,
                )
        finally:
            target.close()
    finally:
        source.close()
    if json_out:
        print_json(report.to_dict())
        return
    console.print(
        f"Copied {report.copied} chunks from {report.source} to {report.target} "
        f"({report.skipped} already there, {report.pruned} pruned) in {report.seconds:.1f} s."
    )
    console.print(f"To use it: set index.uri = {to!r} (or TELLMEMORE_INDEX__URI={to}).")
