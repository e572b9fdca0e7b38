"""A PDF page's text read back into Markdown-like text: headings, paragraphs, lists, tables.

A PDF keeps no structure, only text drawn at positions, in fonts, at sizes. The chunker
splits Markdown-like text on its headings and blocks, so a PDF read as bare lines was one
section under its title: every chunk named only the document, never its section, and each
paragraph was a run of hard-wrapped lines. Employee handbooks and policies are often PDFs.

pypdf's text visitor reports every run of text it extracts with its font and the matrices
that place it (`Run`). From those alone, with no word list (`Layout` holds what the whole
document says):

- the body size is the size most characters of the document are set in;
- a heading is a short line set clearly larger than the body (`HEADING_RATIO`), its level
  the rank of its size (the largest is `#`), or a short bold body-size line alone in its
  paragraph (`_bold_heading`);
- a paragraph ends where the gap to the next line is wider than `PARAGRAPH_GAP` times the
  document's usual wrapped-line spacing;
- a list item opens with a bullet glyph or a number, or is indented past the page's margin
  (a browser draws its bullets as shapes); a short line ends an item;
- a table is three or more lines drawn in as many runs lined up in columns (`_tables`);
- a run inside a link annotation is written "[text](address)" (`linked`);
- wrapped lines are joined mid-sentence; a line that ends a sentence or ends short keeps
  its break (`_joined`).

bench/results/format_parity.md measures handbooks printed as PDFs against the same
Markdown, and bench/pdf_structure.py how much of their structure is read back.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

HEADING_RATIO = 1.1
"""A line set at least this many times the body size is a heading (a browser's or word
processor's smallest larger heading is 1.17x its body text)."""
MAX_HEADING_WORDS = 20
"""A longer line in large type is display text, not a heading."""
PARAGRAPH_GAP = 1.4
"""A gap between lines this many times the page's usual line spacing ends a paragraph
(a blank line's worth of space is about 1.5-2x; a wrapped line's is 1x)."""

WRAPPED_SPACING = 1.2
"""A wrapped line's distance from the one above, in body sizes, when the document shows
none (every paragraph one line)."""
SHORT_LINE = 0.75
"""A line shorter than this share of the document's full-width line (`Layout.full`) ended
where its writer ended it: it keeps its line break, and an indented line after it starts a
new list item."""
INDENT = 0.5
"""A line starting this many body sizes right of the margin is indented (a list item)."""

BOLD_HEADING_WORDS = 12
"""A line of body-size bold type alone in its paragraph, no longer than this and not ending
a sentence, is a heading (a word processor's lowest heading levels)."""
TABLE_ROWS = 3
"""Lines in a row whose runs line up in columns before they are read as a table (a header
and two rows): two lines with a link or a bold word each line up by chance."""
COLUMN_SLACK = 3.0
"""Points two cells of one column may start apart (a right-aligned or centred figure)."""
LINK_SLACK = 1.5
"""Points a run may start left of its link's rectangle (browsers pad the rectangle), and
must start left of its right edge (a run just after the link starts on that edge)."""
_BOLD_NAMES = ("bold", "black", "heavy", "semibold", "demi")
"""How a PostScript font name says its weight ("Arial-BoldMT", "LiberationSerif-Bold")."""

_BULLET = re.compile(r"^(?:[•◦▪▫●○■□‣⁃∙·–—\uf0b7-]|\d{1,3}[.)]|[a-z][.)])\s+")
_MARKER = re.compile(r"^(?:[•◦▪▫●○■□‣⁃∙·–—\uf0b7-]|\d{1,3}[.)]|[a-z][.)])$")
"""A run that is only a list marker: the numbers of a numbered list, not a table's column."""
_GLYPH_BULLET = re.compile("^[•◦▪▫●○■□‣⁃∙·–—\uf0b7-]\\s+")


@dataclass(frozen=True)
class Run:
    """A piece of text as the visitor reported it: its text (may hold line breaks), the
    size it is set at (points, after scaling), and where its baseline is (None: unknown)."""

    text: str
    size: float
    y: float | None
    x: float | None = None
    bold: bool = False
    link: str = ""
    """The address of the link annotation the run is drawn in ("" for none)."""


@dataclass
class Line:
    text: str
    size: float
    y: float | None
    x: float | None = None
    bold: bool = False
    width: int = 0
    """Characters shown (a link's address is written out but not shown)."""
    cells: tuple[tuple[float, str], ...] = ()
    """(left edge, text) of each run of the line: a table row's cells."""


def run_of(
    text: str,
    cm: Sequence[float],
    tm: Sequence[float],
    font_size: float | None,
    font: Mapping[str, Any] | None = None,
) -> Run:
    """A visitor call as a `Run`: the font size scaled by the text and current matrices,
    the baseline's place in page space, and whether the font's name says it is bold."""
    size = float(font_size or 0.0)
    name = str((font or {}).get("/BaseFont", "")).lower()
    bold = any(w in name for w in _BOLD_NAMES)
    try:
        scale = math.sqrt(abs(tm[0] * tm[3] - tm[1] * tm[2])) * math.sqrt(
            abs(cm[0] * cm[3] - cm[1] * cm[2])
        )
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
    except (IndexError, TypeError):
        return Run(text, size, None, None, bold)
    if not all(map(math.isfinite, (scale, x, y, size))):  # a hostile matrix: no layout
        return Run(text, 0.0, None, None, bold)
    return Run(text, round(size * scale, 1), y, x, bold)


def linked(
    runs: Sequence[Run], links: Sequence[tuple[float, float, float, float, str]]
) -> list[Run]:
    """`runs` with the address of the link annotation each starts in (`links`: x0, y0, x1,
    y1, address), so a PDF keeps the link a web page or a word processor printed."""
    if not links:
        return list(runs)
    out = []
    for run in runs:
        address = ""
        if run.x is not None and run.y is not None:
            for x0, y0, x1, y1, uri in links:
                if x0 - LINK_SLACK <= run.x <= x1 - LINK_SLACK and y0 - LINK_SLACK <= run.y <= y1:
                    address = uri
                    break
        out.append(dataclasses.replace(run, link=address) if address else run)
    return out


def lines_of(runs: Sequence[Run]) -> list[Line]:
    """The page's lines (the visitor's text split at its line breaks), each with the size
    most of its characters are set in and the baseline of its first visible run; a run
    drawn inside a link is written as Markdown writes a link, "[text](address)"."""
    lines: list[Line] = []
    text: list[str] = []
    sizes: Counter[float] = Counter()
    y: float | None = None
    x: float | None = None
    bold = True
    link = ""
    shown = 0
    cells: list[tuple[float, str]] = []

    def close_link() -> None:
        nonlocal link
        if link:
            text.append(f"]({link})")
            link = ""

    def close() -> None:
        nonlocal y, x, bold, shown
        close_link()
        joined = "".join(text).strip()
        if joined:
            size = sizes.most_common(1)[0][0] if sizes else 0.0
            found = tuple((at, c.strip()) for at, c in cells if c.strip())
            lines.append(Line(joined, size, y, x, bold, shown, found))
        text.clear()
        sizes.clear()
        cells.clear()
        y = x = None
        bold = True
        shown = 0

    for run in runs:
        pieces = run.text.split("\n")
        for i, piece in enumerate(pieces):
            if i:
                close()
            if not piece:
                continue
            if run.link != link:
                close_link()
                if run.link and piece.strip():
                    stripped = piece.lstrip()
                    text.append(piece[: len(piece) - len(stripped)] + "[")
                    piece, link = stripped, run.link
            text.append(piece)
            shown += len(piece)
            if run.x is not None and piece.strip() and (i or not cells or run.x != cells[-1][0]):
                cells.append((run.x, piece))
            elif cells:
                cells[-1] = (cells[-1][0], cells[-1][1] + piece)
            visible = len(piece.strip())
            if visible:
                sizes[run.size] += visible
                bold = bold and run.bold
                if y is None:
                    y, x = run.y, run.x
    close()
    return lines


@dataclass(frozen=True)
class Layout:
    """What the whole document says about its type: the body size, the heading level of
    each larger size, the usual distance between two wrapped lines of body text, and the
    length in characters of a line of body text that runs the full width."""

    body: float
    levels: dict[float, int]
    spacing: float
    full: int


def layout_of(pages: Sequence[Sequence[Line]]) -> Layout | None:
    """The document's `Layout`; None when the visitor reported no sizes."""
    chars: Counter[float] = Counter()
    for lines in pages:
        for line in lines:
            chars[line.size] += line.width
    body = chars.most_common(1)[0][0] if chars else 0.0
    if body <= 0:
        return None
    sizes = sorted(
        {line.size for lines in pages for line in lines if _heading_sized(line, body)},
        reverse=True,
    )
    levels = {size: min(i + 1, 6) for i, size in enumerate(sizes)}
    gaps = sorted(
        g
        for lines in pages
        for a, b in itertools.pairwise(lines)
        if a.size == body and b.size == body
        for g in [_gap(a, b)]
        if g is not None and 0 < g < math.inf
    )
    spacing = gaps[len(gaps) // 4] if gaps else body * WRAPPED_SPACING
    if spacing > 1.6 * body:  # no wrapped line anywhere: every gap is a paragraph's
        spacing = body * WRAPPED_SPACING
    lengths = sorted(line.width for lines in pages for line in lines if line.size == body)
    full = lengths[int(0.9 * (len(lengths) - 1))] if lengths else 0
    return Layout(body, levels, spacing, full)


def _heading_sized(line: Line, body: float) -> bool:
    words = line.text.split()
    return (
        line.size >= body * HEADING_RATIO
        and 0 < len(words) <= MAX_HEADING_WORDS
        and any(c.isalpha() for c in line.text)
    )


def page_markdown(lines: Sequence[Line], layout: Layout) -> str:
    """One page's lines as Markdown-like text: headings as `#` lines, paragraphs and list
    items as blocks, wrapped lines joined. Without bullet glyphs (a browser draws its
    bullets as shapes), a list is lines indented past the page's left margin, and a new
    item starts after a line that ended short of the page's full width."""
    margin = _margin(lines, layout.body)
    indents = _indents(lines, layout, margin)
    full = layout.full
    blocks: list[tuple[bool, str]] = []  # (a list item?, its text)
    current: list[tuple[str, int]] = []  # (text, characters shown)
    heading: tuple[int, list[str]] | None = None

    def flush() -> None:
        nonlocal heading
        if heading is not None:
            blocks.append((False, "#" * heading[0] + " " + " ".join(heading[1])))
            heading = None
        if current:
            text = _joined(current, full)
            blocks.append((_BULLET.match(text.lstrip()) is not None, text))
            current.clear()

    bold_level = min(len(layout.levels) + 1, 6)
    tables = _tables(lines, layout)
    bullet_x: float | None = None  # where the current item's text bullet is
    previous: Line | None = None
    for i, line in enumerate(lines):
        if i in tables:
            if tables[i]:
                flush()
                blocks.append((False, tables[i]))
            previous = line
            continue
        gap = _gap(previous, line)
        wide = gap is not None and gap > PARAGRAPH_GAP * layout.spacing
        level = layout.levels.get(line.size)
        if level is None and _bold_heading(lines, i, layout, wide or previous is None):
            level = bold_level
        if level is not None:
            if heading is not None and heading[0] == level and not wide:
                heading[1].append(line.text)  # a heading wrapped over two lines
            else:
                flush()
                heading = (level, [line.text])
            previous = line
            continue
        x = _x(line)
        depth = None if x is None else indents.get(x)
        text = line.text
        item = _BULLET.match(text) is not None
        short = previous is not None and previous.width < SHORT_LINE * full
        # a text bullet's item goes on hanging right of its bullet ("1. As of ... for" /
        # "team members and managers."), as a word processor indents it
        hangs = (
            not item
            and bullet_x is not None
            and x is not None
            and x > bullet_x
            and not (wide or short)
        )
        if depth is not None and not item and not hangs:
            starts = previous is None or wide or short or _x(previous) != _x(line)
            if starts:
                text, item = "- " + text, True
        left_list = depth is None and previous is not None and _x(previous) in indents
        if heading is not None or previous is None or wide or item or (left_list and not hangs):
            flush()
        if item:
            bullet_x = x if _BULLET.match(line.text) else None
            text = "  " * (depth or 0) + _GLYPH_BULLET.sub("- ", text, count=1)
        elif not hangs:
            bullet_x = None
        current.append((text, line.width))
        previous = line
    flush()
    out = ""
    for i, (item, text) in enumerate(blocks):
        if i:
            out += "\n" if item and blocks[i - 1][0] else "\n\n"  # a list's items together
        out += text
    return out


def _tables(lines: Sequence[Line], layout: Layout) -> dict[int, str]:
    """Tables among the page's lines, by line index: the first row's index maps to the
    table as a Markdown pipe table, each other row's to "". A table is `TABLE_ROWS` or more
    consecutive body lines, each drawn in the same number (two or more) of separate runs
    whose left edges, after the first, line up column by column (within `COLUMN_SLACK`;
    the first cell of a header may be centred); a line right above it in as many runs is
    its header row, however its labels are aligned."""
    out: dict[int, str] = {}
    i = 0
    while i < len(lines):
        first = lines[i]
        k = len(first.cells)
        j = i + 1
        if k >= 2 and first.size not in layout.levels and not _MARKER.match(first.cells[0][1]):
            while (
                j < len(lines)
                and len(lines[j].cells) == k
                and lines[j].size not in layout.levels
                and all(
                    abs(a[0] - b[0]) <= COLUMN_SLACK
                    for a, b in zip(first.cells[1:], lines[j].cells[1:], strict=True)
                )
            ):
                j += 1
        if j - i >= TABLE_ROWS:
            above = lines[i - 1] if i else None
            if above is not None and len(above.cells) == k and i - 1 not in out:
                i -= 1  # a header row whose labels are centred over their columns
            rows = [[c.replace("|", "\\|") for _, c in line.cells] for line in lines[i:j]]
            table = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * k]
            table += ["| " + " | ".join(row) + " |" for row in rows[1:]]
            out[i] = "\n".join(table)
            out.update(dict.fromkeys(range(i + 1, j), ""))
            i = j
        else:
            i += 1
    return out


def _bold_heading(lines: Sequence[Line], i: int, layout: Layout, alone_above: bool) -> bool:
    """Line `i` is body-size bold type alone in its paragraph, short, and ends no sentence
    (a question may: "How is time off calculated?")."""
    line = lines[i]
    if not (line.bold and line.size == layout.body and alone_above):
        return False
    if len(line.text.split()) > BOLD_HEADING_WORDS or line.text.endswith((".", ",", ";", "!")):
        return False
    after = _gap(line, lines[i + 1]) if i + 1 < len(lines) else None
    return i + 1 == len(lines) or (after is not None and after > PARAGRAPH_GAP * layout.spacing)


def _x(line: Line) -> float | None:
    return None if line.x is None else round(line.x)


def _margin(lines: Sequence[Line], body: float) -> float | None:
    """The page's left margin: the leftmost edge two or more of its body lines start at
    (a page of list items still has its lead-in lines at the margin)."""
    starts = Counter(_x(line) for line in lines if line.size == body and line.x is not None)
    shared = [x for x, n in starts.items() if x is not None and n >= 2]
    edges = shared or [x for x in starts if x is not None]
    return min(edges) if edges else None


def _indents(lines: Sequence[Line], layout: Layout, margin: float | None) -> dict[float, int]:
    """List depth by left edge: the page's body lines that start clearly right of its
    margin, the nearest indentation depth 0."""
    if margin is None:
        return {}
    edges = sorted(
        {
            x
            for line in lines
            if line.size == layout.body
            for x in [_x(line)]
            if x is not None and x > margin + INDENT * layout.body
        }
    )
    return {x: i for i, x in enumerate(edges)}


def _gap(previous: Line | None, line: Line) -> float | None:
    """How far below the previous line's baseline this one is (None: unknown; a line
    above it, a new column or a table cell read out of order, counts as a wide gap)."""
    if previous is None or previous.y is None or line.y is None:
        return None
    gap = previous.y - line.y
    return gap if gap > 0 else math.inf


def _joined(lines: Sequence[tuple[str, int]], full: int) -> str:
    """A paragraph's lines (text, characters shown) as the writer wrote them: a line that
    ran to the full width (`full` characters) in the middle of a sentence wrapped, and
    joins the next with a space; a shorter one, or one ending a sentence, keeps its line
    break ("Norrland NR-500: firmware 7.2 or later." above the next router: the answer
    reads such lines as items). A line ending in a hyphen joins the next without a space
    ("travel-and-" + "leave"): layout engines break lines after a word's own hyphen; a
    hyphen a justifier added ("exam-" + "ple") stays, a lesser harm."""
    out = lines[0][0]
    for (before, width), (line, _) in itertools.pairwise(lines):
        if width < SHORT_LINE * full or before.endswith((".", "!", "?", ":", ";")):
            out += "\n" + line
        elif re.search(r"[A-Za-z]-$", before) and line[:1].isalpha():
            out += line
        else:
            out += " " + line
    return out
