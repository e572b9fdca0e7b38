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
    )


def _body(text: str, header: str) -> str:
    lines = text.splitlines()
    if len(lines) > 1 and (lines[0].strip() == header or " > " in lines[0]):
        lines = lines[1:]
    return " ".join(line.strip() for line in lines if line.strip())
