"""`tellmemore search "QUERY"`: ranked chunks, no conversation."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from tellmemore.cli.common import (
    JsonOpt,
    ProjectOpt,
    console,
    open_assistant,
    print_json,
    utf8_id,
)
from tellmemore.cli.render import document_text


def search_command(
    query: Annotated[str, typer.Argument(help="What to search for.")],
    k: Annotated[
        int | None,
        typer.Option("--k", "-k", min=1, max=200, help="How many hits (default: retrieval.k)."),
    ] = None,
    mode: Annotated[
        str | None,
        typer.Option("--mode", help="bm25, dense or hybrid (default: retrieval.mode)."),
    ] = None,
    tenant: Annotated[str | None, typer.Option("--tenant", help="Only this tenant.")] = None,
    project: ProjectOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Search the index for one query and print the ranked chunks with their scores."""
    from tellmemore.types import SearchMode

    if tenant is not None:
        utf8_id(tenant, "--tenant")
    if mode is not None:
        SearchMode.from_str(mode)  # an unknown mode is refused before the model loads
    assistant = open_assistant(project)
    try:
        hits = assistant.search(query, k=k, mode=mode, tenant=tenant)
    finally:
        assistant.close()
    if json_out:
        print_json([h.to_dict() for h in hits])
        return
    if not hits:
        console.print("No results.")
        return
    table = Table(show_lines=False)
    for col in ("#", "score", "title > section", "doc", "text"):
        table.add_column(col)
    for hit in hits:
        body = " ".join(hit.chunk.text.splitlines()[1:])[:160]
        table.add_row(
            str(hit.rank),
            f"{hit.score:.3f}",
            document_text(hit.chunk.header),
            Text(hit.chunk.doc_id),
            document_text(body),
        )
    console.print(table)
