"""PDF files through pypdf: the text layer of every page, joined in order.

Where each page starts is kept (`Document.page_starts`), so a chunk's citation names
its pages ("p. 4").

A PDF has no reliable heading structure, so its chunks are packed by
paragraphs under the document title. Encrypted PDFs are opened when they use
an empty user password (common for "protected" PDFs); otherwise, like a
broken file, they raise LoaderError "cannot read PDF: ...". A PDF without a
text layer (scanned pages) is skipped with a reason, not indexed empty.
"""

from __future__ import annotations

import io
import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import ClassVar

from tellmemore.errors import LoaderError
from tellmemore.ingest.loaders.base import (
    DEFAULT_MAX_TEXT_CHARS,
    Document,
    LoadResult,
    Source,
    text_too_long,
)


class _TooLong(Exception):
    """Raised from pypdf's text visitor once the file's text passes the limit."""


@contextmanager
def _quiet_pypdf() -> Iterator[None]:
    """pypdf reports recoverable defects ("EOF marker not found") both as warnings and
    through its logger, which Python prints to stderr when the application configured no
    logging: in the middle of the ingest report. The file's fate is in the report."""
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


def join_pages(pages: list[str]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The pages' text, blank-line separated, and (offset, page number) of each page with
    text (empty pages, such as scanned ones, are left out but keep their number)."""
    parts: list[str] = []
    starts: list[tuple[int, int]] = []
    at = 0
    for number, page in enumerate(pages, start=1):
        page = page.strip()
        if not page:
            continue
        if parts:
            at += 2
        starts.append((at, number))
        parts.append(page)
        at += len(page)
    return "\n\n".join(parts), tuple(starts)


def pdf_pages(
    data: bytes, *, where: str, max_chars: int = DEFAULT_MAX_TEXT_CHARS
) -> tuple[list[str], str]:
    """(the text layer of every page, title from the PDF metadata).

    Extraction stops as soon as the text drawn so far passes `max_chars`: a few KB of
    PDF can draw one form a hundred thousand times (a text bomb).
    """
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        with _quiet_pypdf():
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted:
                try:
                    opened = reader.decrypt("")
                except Exception as exc:
                    raise LoaderError(where, f"cannot read PDF: encrypted ({exc})") from exc
                if not opened:
                    raise LoaderError(where, "cannot read PDF: encrypted with a password")
            drawn = 0

            def count(text: str, *_: object) -> None:
                nonlocal drawn
                drawn += len(text)
                if drawn > max_chars:
                    raise _TooLong

            pages = []
            for page in reader.pages:
                pages.append(page.extract_text(visitor_text=count) or "")
                drawn = sum(len(p) for p in pages)
            title = ""
            meta = reader.metadata
            if meta is not None and meta.title:
                title = str(meta.title).strip()
    except LoaderError:
        raise
    except _TooLong:
        raise text_too_long(where, max_chars) from None
    except (PdfReadError, Exception) as exc:
        raise LoaderError(where, f"cannot read PDF: {type(exc).__name__}: {exc}") from exc
    return pages, title


class PDFLoader:
    format: ClassVar[str] = "pdf"
    extensions: ClassVar[tuple[str, ...]] = (".pdf",)
    binary: ClassVar[bool] = True
    streaming: ClassVar[bool] = False

    def load(self, source: Source) -> LoadResult:
        if not source.data.lstrip().startswith(b"%PDF"):
            raise LoaderError(source.source, "cannot read PDF: no %PDF header (not a PDF file)")
        pages, title = pdf_pages(source.data, where=source.source, max_chars=source.max_text_chars)
        text, page_starts = join_pages(pages)
        if not text.strip():
            raise LoaderError(
                source.source, "PDF has no text layer (scanned pages?); run OCR on it first"
            )
        return LoadResult(
            (
                Document(
                    doc_id=source.doc_id,
                    title=title or source.stem,
                    text=text + "\n",
                    source=source.source,
                    format=self.format,
                    metadata={"pages": len(pages)},
                    page_starts=page_starts,
                ),
            )
        )


LOADER = PDFLoader()
