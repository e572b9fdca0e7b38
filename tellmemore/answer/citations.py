"""Hits -> Citations: what a user needs to open and check a source."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from tellmemore.injection import injection_flags
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
        url=safe_url(chunk.url),
        snippet=body,
        section=chunk.section,
        score=round(hit.score, 6),
        pages=_pages(chunk.metadata.get("page_span")),
        flags=_flags(chunk.metadata.get("flags"), chunk.text),
    )


_IGNORED_IN_URLS = re.compile(r"[\x00-\x20\x7f]")
SAFE_SCHEMES = frozenset({"http", "https"})


def safe_url(url: str) -> str:
    """`url` if a browser may open it as a link: http(s), or relative; else "".

    A document's front matter can say `url: javascript:alert(1)`, and a client renders the
    citation url as a link. Browsers ignore tabs, newlines and controls inside a URL
    ("java\tscript:"), so the scheme is read without them.
    """
    compact = _IGNORED_IN_URLS.sub("", url or "")
    if not compact:
        return ""
    scheme = urlsplit(compact).scheme.lower() if ":" in compact else ""
    if scheme and scheme not in SAFE_SCHEMES:
        return ""
    if not scheme and re.match(r"^[a-z][a-z0-9+.-]*:", compact, re.IGNORECASE):
        return ""  # a scheme urlsplit did not see
    return url.strip()


def _flags(stored: object, text: str) -> tuple[str, ...]:
    """The flags ingestion stored with the chunk and those today's detector finds in it (a
    chunk ingested before a pattern existed is flagged all the same)."""
    kept = [f for f in stored if isinstance(f, str)] if isinstance(stored, list) else []
    return tuple(dict.fromkeys([*kept, *injection_flags(text)]))


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
