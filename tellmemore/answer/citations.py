"""Hits -> Citations: what a user needs to open and check a source."""

from __future__ import annotations

from tellmemore.types import Citation, Hit

SNIPPET_CHARS = 240


def citation(hit: Hit, snippet: str | None = None) -> Citation:
    chunk = hit.chunk
    body = snippet if snippet is not None else _body(chunk.text, chunk.header)
    if len(body) > SNIPPET_CHARS:
        body = body[: SNIPPET_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return Citation(
        id=chunk.id,
        doc=chunk.doc_id,
        title=chunk.title or chunk.doc_id,
        version=chunk.version,
        url=chunk.url,
        snippet=body,
        section=chunk.section,
        score=round(hit.score, 6),
        pages=_pages(chunk.metadata.get("page_span")),
    )


def _pages(span: object) -> tuple[int, ...]:
    """The chunk's page span as ints; () when absent or not a list of page numbers (an
    index written by another tool)."""
    if not isinstance(span, list | tuple) or not 1 <= len(span) <= 2:
        return ()
    if not all(isinstance(p, int) and not isinstance(p, bool) and p > 0 for p in span):
        return ()
    return tuple(span)


def page_label(pages: tuple[int, ...]) -> str:
    """ "p. 4", "pp. 4-5", or "" for a source without pages."""
    if not pages:
        return ""
    return f"p. {pages[0]}" if len(pages) == 1 else f"pp. {pages[0]}-{pages[-1]}"


def _body(text: str, header: str) -> str:
    lines = text.splitlines()
    if len(lines) > 1 and (lines[0].strip() == header or " > " in lines[0]):
        lines = lines[1:]
    return " ".join(line.strip() for line in lines if line.strip())
