"""A document's Markdown read into sections and blocks, by markdown-it-py (CommonMark and
tables), so what is a heading, a list, a table or a code fence is decided by a parser that
follows the spec rather than by line patterns: a table that interrupts a paragraph, a list
item's lazy continuation line, a Setext heading, a fence's closing marker.

Each block keeps its source lines as written (the chunk text is the document's own
Markdown); only the block boundaries come from the parse. An indented line outside a list
stays a paragraph, as before: text extracted from PDFs and HTML is often indented, and
reading it as a code block would split prose line by line.

One line is rewritten: a table's delimiter row, whose dashes say nothing but "a table" and
cost a model token each. A formatter that pads every column to its widest cell (Prettier,
and most editors' table commands) writes a 460-dash delimiter under a wide table; the
chunker could then not repeat the header in the table's later chunks, and those chunks'
vectors were mostly dashes. It is kept as at most `---` per cell (alignment colons kept),
the same table to any Markdown reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+\S")
"""A line that opens a list item: where an over-long list is cut between items."""
_NUMBERED = re.compile(r"^ {0,3}\d{1,9}[.)][ \t]+\S")
_TABLE = re.compile(r"^\s*\|")
_QUOTE = re.compile(r"^\s{0,3}>")
_DELIMITER_CELL = re.compile(r"^\s*(:?)-+(:?)\s*$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"[*_`]+")

_KINDS = {
    "paragraph_open": "para",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "table_open": "table",
    "blockquote_open": "quote",
    "fence": "code",
    "html_block": "para",
}
"""Top-level token -> block kind ("hr" and headings are no blocks)."""


@dataclass(frozen=True)
class Block:
    """A paragraph, list, table, code fence or quote: kept whole when it fits."""

    kind: str
    text: str


@dataclass(frozen=True)
class Section:
    path: tuple[str, ...]
    blocks: tuple[Block, ...]


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # no indented code blocks: text extracted from PDFs and web pages is often indented,
    # and reading it as code would cut prose apart (fences still mark code)
    return MarkdownIt("commonmark").enable("table").disable("code")


def clean_heading(text: str) -> str:
    """Heading text without Markdown links and emphasis marks."""
    return " ".join(_EMPHASIS.sub("", _LINK.sub(r"\1", text)).split())


def line_kind(line: str) -> str:
    """ "list", "table", "quote" or "para": how a line of plain (not Markdown) text reads,
    for loaders that must decide where a paragraph ends without a parse."""
    if LIST_ITEM.match(line):
        return "list"
    if _TABLE.match(line):
        return "table"
    if _QUOTE.match(line):
        return "quote"
    return "para"


def parse_sections(text: str, title: str = "") -> list[Section]:
    """Sections in document order, each with its heading path and blocks. A level-1
    heading equal to the document title is the title, not a section. A line of only
    whitespace is blank, Unicode spaces included: CommonMark counts only spaces and tabs,
    and the no-break-space lines of web text would join the paragraphs around them."""
    lines = ["" if line.isspace() else line for line in text.splitlines()]
    parsed, origin = _parse_lines(lines)
    tokens = _parser().parse("\n".join(parsed))
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    blocks: list[Block] = []
    path: tuple[str, ...] = ()
    title_key = title.strip().casefold()
    list_start: int | None = None  # source line of blocks[-1] while it is the last list
    for i, tok in enumerate(tokens):
        if tok.level != 0 or tok.nesting < 0:
            continue
        if tok.type not in _KINDS:
            list_start = None  # a heading or a rule ends the list
        if tok.type == "heading_open":
            heading = clean_heading(_inline(tokens, i))
            if not heading:
                continue
            if blocks:
                sections.append(Section(path, tuple(blocks)))
            blocks = []
            level = int(tok.tag[1])
            if level == 1 and not stack and heading.casefold() == title_key:
                continue
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, heading))
            path = tuple(h for _, h in stack)
            continue
        kind = _KINDS.get(tok.type)
        if kind is None or tok.map is None:
            continue
        start, end = origin[tok.map[0]], origin[tok.map[1]]
        if kind == "list" and list_start is not None:
            # a list right after a list: CommonMark starts a new one when the bullet
            # changes ("-" to "*"), a reader sees one list, and it is kept whole as one
            blocks.pop()
            start = list_start
        body = "\n".join(lines[start:end]).strip("\n")
        if kind == "table":
            body = compact_delimiter(body)
        if body.strip():
            blocks.append(Block(kind, body))
        list_start = start if kind == "list" and body.strip() else None
    if blocks:
        sections.append(Section(path, tuple(blocks)))
    return sections


def compact_delimiter(table: str) -> str:
    """`table` (header row first) with its delimiter row written short: "| :--- | ---: |"
    for "|:-------------|--------------:|" (a run of three dashes or fewer stays as it is).
    Anything else is returned as it is."""
    lines = table.split("\n")
    if len(lines) < 2:
        return table
    row = lines[1].strip()
    cells = row.strip("|").split("|")
    marks = [_DELIMITER_CELL.match(c) for c in cells]
    if not row or not all(marks):
        return table
    short = " | ".join(f"{m[1]}{'-' * min(3, len(m[0].strip(': ')))}{m[2]}" for m in marks if m)
    lead = lines[1][: len(lines[1]) - len(lines[1].lstrip())]
    lines[1] = lead + ("| " if row.startswith("|") else "") + short
    lines[1] += " |" if row.endswith("|") else ""
    return "\n".join(lines)


def _inline(tokens: list[Token], at: int) -> str:
    """The text of the heading opened at `at` (its inline token)."""
    nxt = tokens[at + 1] if at + 1 < len(tokens) else None
    return nxt.content if nxt is not None and nxt.type == "inline" else ""


def _parse_lines(lines: list[str]) -> tuple[list[str], list[int]]:
    """The lines given to the parser, and for each of them (plus the end) the source line
    it stands for. Text extracted from web pages and PDFs drops the blank line Markdown
    wants before a list: a numbered step right after a paragraph line ("ls -lrth" then
    "3. Find the log") is a list item here, whatever its number, as CommonMark allows
    only for "1.". A blank line is put before it for the parse; it maps to no source line.
    """
    parsed: list[str] = []
    origin: list[int] = []
    for n, line in enumerate(lines):
        if _NUMBERED.match(line) and parsed and parsed[-1] and not LIST_ITEM.match(parsed[-1]):
            parsed.append("")
            origin.append(n)
        parsed.append(line)
        origin.append(n)
    origin.append(len(lines))
    return parsed, origin
