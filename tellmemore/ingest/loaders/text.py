"""Plain text files: read like Markdown (front matter optional, a `# ` line is a heading).

Plain text has no heading syntax, but it often has headings: a short line standing
alone between blank lines ("Parental Leave Policy", "Employees"). Those lines become
Markdown headings, the first one the document's title, so chunks name their subject
("Parental Leave Policy > Employees") and the title line is not quoted as a sentence.
A file that already has `# ` headings or front matter is read as written; a text
without heading-like lines chunks by paragraphs under the file stem.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import ClassVar

from tellmemore.ingest.chunking import line_kind
from tellmemore.ingest.loaders.base import LoadResult, Source
from tellmemore.ingest.loaders.markdown import document_from_text

HEADING_WORDS = 8
"""A heading line has at most this many words."""
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_ATX = re.compile(r"^#{1,6}\s", re.MULTILINE)


def is_heading_line(line: str) -> bool:
    """Short, capitalised, and not a sentence, list item or table row."""
    words = line.split()
    return (
        0 < len(words) <= HEADING_WORDS
        and (line[:1].isupper() or line[:1].isdigit())
        and (line[-1:].isalnum() or line[-1:] == ")")
        and line_kind(line) == "para"  # not a list item, table row or quote
    )


def with_headings(text: str) -> str:
    """`text` with its heading-like lines (alone in their paragraph, followed by more
    text) written as Markdown headings: the first `# `, the others `## `."""
    if _ATX.search(text) or text.lstrip().startswith("---"):
        return text
    paragraphs = _PARAGRAPH_BREAK.split(text.strip("\n"))
    out: list[str] = []
    titled = False
    for i, paragraph in enumerate(paragraphs):
        line = paragraph.strip()
        if "\n" not in line and i + 1 < len(paragraphs) and is_heading_line(line):
            out.append(("## " if titled else "# ") + line)
            titled = True
        else:
            out.append(paragraph)
    return "\n\n".join(out) + "\n"


class TextLoader:
    format: ClassVar[str] = "text"
    extensions: ClassVar[tuple[str, ...]] = (".txt", ".text")
    binary: ClassVar[bool] = False
    streaming: ClassVar[bool] = False

    def load(self, source: Source) -> LoadResult:
        shaped = replace(source, text=with_headings(source.text))
        return LoadResult((document_from_text(shaped, format=self.format),))


LOADER = TextLoader()
