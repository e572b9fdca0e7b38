"""PDF files through pypdf: the text layer of every page, joined in order.

Where each page starts is kept (`Document.page_starts`), so a chunk's citation names
its pages ("p. 4").

A PDF keeps no heading structure, only text drawn in fonts at sizes and positions, so the
text layer is read back into Markdown-like text (`pdf_layout`): lines in larger type are
headings, wide gaps end paragraphs, bullets and indents make list items, runs lined up in
columns make tables, link annotations stay links, wrapped lines are joined. The chunker then
cuts a PDF handbook by its sections, as it cuts the same handbook in Markdown, and each
chunk names its section. The title is the PDF's own (without a file name's extension), else
its first top-level heading, else the file stem.

Encrypted PDFs are opened when they use an empty user password (common for "protected"
PDFs); otherwise, like a broken file, they raise LoaderError "cannot read PDF: ...". A PDF
without a text layer (scanned pages) is skipped with a reason, not indexed empty.
"""

from __future__ import annotations

import io
import logging
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

from tellmemore.errors import LoaderError
from tellmemore.ingest.loaders import pdf_layout
from tellmemore.ingest.loaders.base import (
    DEFAULT_MAX_TEXT_CHARS,
    Document,
    LoadResult,
    Source,
    text_too_long,
)
from tellmemore.ingest.loaders.html import first_h1


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
    text (empty pages, such as scanned ones, are left out but keep their number). A
    sentence a page break cut ("... you may be" / "affected by ...") is joined by a space:
    one paragraph, not two."""
    parts: list[str] = []
    starts: list[tuple[int, int]] = []
    at = 0
    for number, page in enumerate(pages, start=1):
        page = page.strip()
        if not page:
            continue
        if parts:
            cut = re.search(r"[\w,]$", parts[-1]) is not None and page[:1].islower()
            if cut:
                parts[-1] += " "
                at += 1
            else:
                parts[-1] += "\n\n"
                at += 2
        starts.append((at, number))
        parts.append(page)
        at += len(page)
    return "".join(parts), tuple(starts)


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
            runs: list[pdf_layout.Run] = []

            def visit(text: str, cm: Any, tm: Any, font: Any, size: Any) -> None:
                nonlocal drawn
                drawn += len(text)
                if drawn > max_chars:
                    raise _TooLong
                runs.append(pdf_layout.run_of(text, cm, tm, size, font))

            plain: list[str] = []
            page_lines: list[list[pdf_layout.Line]] = []
            for page in reader.pages:
                runs.clear()
                plain.append(page.extract_text(visitor_text=visit) or "")
                page_lines.append(pdf_layout.lines_of(pdf_layout.linked(runs, _links(page))))
                drawn = sum(len(p) for p in plain)
            pages = _laid_out(plain, page_lines)
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


_ADDRESS = re.compile(r"(?:https?://|mailto:)\S{1,290}")
"""A link worth keeping: a web or mail address (not a jump inside the document)."""


def _links(page: Any) -> list[tuple[float, float, float, float, str]]:
    """The page's link annotations to web or mail addresses: (x0, y0, x1, y1, address)."""
    out = []
    for ref in page.get("/Annots") or ():
        try:
            annotation = ref.get_object()
            action = annotation.get("/A")
            uri = str(action.get_object().get("/URI", "")) if action is not None else ""
            rect = [float(v) for v in annotation["/Rect"]]
            (x0, x1), (y0, y1) = sorted(rect[0::2]), sorted(rect[1::2])
        except Exception:  # a broken annotation is no link; the text stays
            continue
        if annotation.get("/Subtype") == "/Link" and _ADDRESS.fullmatch(uri):
            out.append((x0, y0, x1, y1, uri))
    return out


def _laid_out(plain: list[str], page_lines: list[list[pdf_layout.Line]]) -> list[str]:
    """Each page as Markdown-like text (`pdf_layout`): headings, paragraphs, list items;
    the bare text layer where the visitor reported no sizes."""
    layout = pdf_layout.layout_of(page_lines)
    if layout is None:
        return plain
    return [pdf_layout.page_markdown(lines, layout) for lines in page_lines]


def _usable_title(title: str) -> str:
    """The metadata title without a file name's extension: a PDF printed from a file
    often carries that file's name ("Vacation and Sick Leave.html")."""
    return re.sub(r"\.[A-Za-z][A-Za-z0-9]{1,4}$", "", title).strip()


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
                    title=_usable_title(title) or first_h1(text) or source.stem,
                    text=text + "\n",
                    source=source.source,
                    format=self.format,
                    metadata={"pages": len(pages)},
                    page_starts=page_starts,
                ),
            )
        )


LOADER = PDFLoader()
