"""Plain text files: read like Markdown (front matter optional, a `# ` line is a heading).

Plain text has no heading syntax, but it often has headings: a short line standing
alone between blank lines ("Parental Leave Policy", "Employees"). Those lines become
Markdown headings, the first one the document's title, so chunks name their subject
("Parental Leave Policy > Employees") and the title line is not quoted as a sentence.
A file that already has `# ` headings or front matter is read as written; a text
without heading-like lines chunks by paragraphs under the file stem.

Two layouts of real plain-text documents are read as headings too. An opening block
of up to three short lines ("GNU GENERAL PUBLIC LICENSE" over "Version 3, 29 June
2007", a URL line aside) is the title ("GNU GENERAL PUBLIC LICENSE Version 3"), its
other lines the document's version and URL; the first section's name ("Preamble")
used to be the title. And a line underlined with `===` or `---` (setext, "Mozilla
Public License Version 2.0").
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import replace
from typing import ClassVar

from tellmemore.ingest.blocks import line_kind
from tellmemore.ingest.loaders.base import LoadResult, Source
from tellmemore.ingest.loaders.markdown import document_from_text

HEADING_WORDS = 8
"""A heading line has at most this many words."""
TITLE_BLOCK_LINES = 3
"""An opening title block has at most this many lines (URL lines aside)."""
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_ATX = re.compile(r"^#{1,6}\s", re.MULTILINE)
_SETEXT_UNDERLINE = re.compile(r"^\s*(?:={3,}|-{3,})\s*$")
_URL_LINE = re.compile(r"^<?(?:https?://|www\.)\S+>?$")
_CLOSING_QUOTES = "\"'\u201d\u2019"


def is_heading_line(line: str) -> bool:
    """Short, capitalised, and not a sentence, list item or table row."""
    words = line.split()
    last = line.rstrip(_CLOSING_QUOTES)[-1:]  # 'The "Artistic License"' ends in a word
    return (
        0 < len(words) <= HEADING_WORDS
        and (line[:1].isupper() or line[:1].isdigit() or line[:1] in _CLOSING_QUOTES)
        and (last.isalnum() or last == ")")
        and line_kind(line) == "para"  # not a list item, table row or quote
    )


def heading_of(paragraph: str, *, opening: bool) -> str | None:
    """The heading a paragraph stands for, or None: one heading-like line; a line
    underlined `===`/`---`; or, opening the document, a block of short heading-like
    lines (a title over its version line) read as one title."""
    lines = [line.strip() for line in paragraph.strip().splitlines() if line.strip()]
    if len(lines) == 2 and _SETEXT_UNDERLINE.match(lines[1]) and len(lines[0].split()) <= 12:
        return lines[0]
    if len(lines) == 1:
        return lines[0] if is_heading_line(lines[0]) else None
    kept = [line for line in lines if not _URL_LINE.match(line)]
    if opening and 0 < len(kept) <= TITLE_BLOCK_LINES and all(map(is_heading_line, kept)):
        # a subtitle's first clause ("Version 3", not its date): a title with a comma
        # cannot be offered as one option of a clarifying question
        return " ".join([kept[0], *(line.split(",")[0].strip() for line in kept[1:])])
    return None


_BOX_BORDER = re.compile(r"^[ \t]*(\*{10,})[ \t]*$")


def unframed(text: str) -> str:
    """`text` with its boxes of asterisks opened: a border line of asterisks, lines
    framed `*  ...  *`, a border line (MPL-2.0's warranty disclaimer). Read framed, a
    box's sentences ended in "*" and its heading was no heading."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        end = _box_end(lines, i)
        if end is None:
            out.append(lines[i])
            i += 1
            continue
        inner = [line.strip()[1:-1].rstrip() for line in lines[i + 1 : end]]
        out.extend(textwrap.dedent("\n".join(inner)).split("\n"))
        i = end + 1
    return "\n".join(out)


def _box_end(lines: list[str], start: int) -> int | None:
    """The index of the closing border of a box opening at `start`, or None."""
    if not _BOX_BORDER.match(lines[start]):
        return None
    for j in range(start + 1, len(lines)):
        if _BOX_BORDER.match(lines[j]):
            return j if j > start + 1 else None
        line = lines[j].strip()
        if len(line) < 2 or line[0] != "*" or line[-1] != "*":
            return None
    return None


def with_headings(text: str) -> str:
    """`text` with its heading-like lines (alone in their paragraph, followed by more
    text) written as Markdown headings: the first `# `, the others `## `."""
    if _ATX.search(text) or text.lstrip().startswith("---"):
        return text
    paragraphs = _PARAGRAPH_BREAK.split(text.strip("\n"))
    out: list[str] = []
    fields: dict[str, str] = {}
    titled = False
    for i, paragraph in enumerate(paragraphs):
        heading = heading_of(paragraph, opening=i == 0) if i + 1 < len(paragraphs) else None
        if heading is None:
            out.append(paragraph)
            continue
        out.append(("## " if titled else "# ") + heading)
        titled = True
        if i == 0:
            fields = _title_block_fields(paragraph)
    front = "".join(f"{key}: {value}\n" for key, value in fields.items())
    return (f"---\n{front}---\n" if front else "") + "\n\n".join(out) + "\n"


def _title_block_fields(paragraph: str) -> dict[str, str]:
    """The version and URL lines of an opening title block, as Document fields (quoted as
    an answer sentence, "Version 2.0, January 2004 http://..." answered a question)."""
    lines = [line.strip() for line in paragraph.strip().splitlines()[1:] if line.strip()]
    if not lines or _SETEXT_UNDERLINE.match(lines[0]):
        return {}
    urls = [line.strip("<>") for line in lines if _URL_LINE.match(line)]
    others = [line for line in lines if not _URL_LINE.match(line)]
    fields = {"version": "; ".join(others)} if others else {}
    return fields | ({"url": urls[0]} if urls else {})


class TextLoader:
    format: ClassVar[str] = "text"
    extensions: ClassVar[tuple[str, ...]] = (".txt", ".text")
    binary: ClassVar[bool] = False
    streaming: ClassVar[bool] = False

    def load(self, source: Source) -> LoadResult:
        shaped = replace(source, text=with_headings(unframed(source.text)))
        return LoadResult((document_from_text(shaped, format=self.format),))


LOADER = TextLoader()
