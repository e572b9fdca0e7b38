"""A chunk's quotable units: its sentences, list items and table rows.

A table row is one unit ("Plan: Pro; Price per month: $299."), a list item is one unit
even when it holds two sentences, and a paragraph is cut into sentences by the chunker's
own splitter (`ingest.sentences`), which cuts at no "e.g." and no "U.S.".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tellmemore.ingest.sentences import split_sentences

LIST_MARKER = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s+")
"""A list item's bullet or number at the start of a line."""

LABELLED = re.compile(r"^([A-Z][^:;.?!]{0,38}):\s+\S")
"""A sentence opening with a short label ("Norrland NR-500: firmware 7.2 or later.", "Day
pass: 12 dollars, unlimited rides"): two or more in a row are a list written as lines
(a PDF's list loses its bullets). The conversation layer reads quoted answers with it."""
_RUN_ON = re.compile(r"(?<=[a-z]{2}[.!?])(?=[A-Z][a-z])")
"""Where a sentence runs into the next with no space ("... synchronous rotation.Daily Moon
Guide"): text scraped from a web page loses the space between its blocks, and the whole
page became one quote."""


@dataclass(frozen=True)
class Unit:
    """A sentence, or a list item or table row (`item`), of a chunk."""

    text: str
    item: bool = False
    row: bool = False
    """A table row (also an item)."""
    step: bool = False
    """An item of a numbered list (also an item): a procedure's step."""
    key: str = ""
    """What a table row or a labelled item is about: the row's first cell ("Business"),
    the item's label ("Monthly pass")."""
    indent: int = 0
    """A list item's indentation in columns: an item indented under another is one case
    of it ("Three to five weeks in advance for:" / "  - Conference events that cost more
    than $2,500")."""


def sentences(text: str, header: str | None = None) -> list[str]:
    """Sentences, list items and table rows of a chunk, without its header line."""
    return [u.text for u in units(text, header)]


def units(text: str, header: str | None = None) -> list[Unit]:
    """Sentences, list items and table rows of a chunk, without its header line.

    Hard-wrapped paragraph lines are joined first, so a sentence is never cut
    at a line break.
    """
    lines = text.splitlines()
    if lines and (lines[0].strip() == header or " > " in lines[0] or lines[0].startswith("#")):
        lines = lines[1:]
    # (text, item, row, numbered, key, indent)
    blocks: list[tuple[str, bool, bool, bool, str, int]] = []
    paragraph: list[str] = []
    table_header: list[str] | None = None
    in_item = False
    numbered = False
    indent = 0

    def flush() -> None:
        nonlocal in_item, numbered, indent
        if paragraph:
            blocks.append((" ".join(paragraph), in_item, False, in_item and numbered, "", indent))
            paragraph.clear()
        in_item = numbered = False
        indent = 0

    for at, raw in enumerate(lines):
        line = raw.strip()
        if header and line == header.strip():
            flush()  # the title again, as a PDF page repeats it above its text
            continue
        if not paragraph and _is_bare_heading(line, lines[at + 1] if at + 1 < len(lines) else ""):
            continue  # "Firmware notes" above its paragraph: a PDF's heading, no sentence
        if not line.startswith("|"):
            table_header = None
        if not line or set(line) <= set("|-: "):
            flush()
            continue
        if line.startswith("#"):
            flush()
            continue
        if line.startswith("|"):
            flush()
            cells = [c.strip() for c in line.strip("|").split("|")]
            if table_header is None:
                table_header = cells  # a header row is not a fact on its own
            else:
                pairs = zip(table_header, cells, strict=False)
                row_text = "; ".join(f"{h}: {c}" if h else c for h, c in pairs if c)
                row_text += "" if row_text.endswith((".", "!", "?")) else "."
                blocks.append((row_text, True, True, False, cells[0] if cells else "", 0))
            continue
        if LIST_MARKER.match(line):
            flush()
            in_item = True
            numbered = line[:1].isdigit()
            indent = len(raw.expandtabs(4)) - len(raw.expandtabs(4).lstrip())
            paragraph.append(LIST_MARKER.sub("", line))
            continue
        paragraph.append(line)
    flush()
    out: list[Unit] = []
    for block, item, is_row, step, key, depth in blocks:
        if item:  # an item is quoted whole, even when it holds two sentences
            text = block.strip()
            unit = Unit(text, True, row=is_row, step=step, key=key or label(text), indent=depth)
            out.append(unit)
            continue
        out.extend(Unit(p) for p in split_sentences(_RUN_ON.sub(" ", block)))
    return _labelled_runs(out)


_HEADING_WORDS = 4


def _is_bare_heading(line: str, following: str) -> bool:
    """A short line without punctuation that opens a paragraph whose next line starts a
    sentence ("Firmware notes" / "Firmware 7.3 of the ..."): a heading of extracted text
    (a PDF's), which joined to its paragraph opened the quote "Firmware notes Firmware 7.3"."""
    nxt = following.strip()
    return (
        0 < len(line.split()) <= _HEADING_WORDS
        and line[-1:].isalnum()
        and nxt[:1].isupper()
        and not LIST_MARKER.match(line)
        and not line.startswith("|")
    )


def label(item: str) -> str:
    """A list item's label ("Monthly pass" of "Monthly pass: 25 dollars per month"): what
    the item is about, as a table row's first cell is."""
    m = LABELLED.match(item)
    return m.group(1) if m else ""


def _labelled_runs(us: list[Unit]) -> list[Unit]:
    """Two or more consecutive labelled sentences become list items."""
    out: list[Unit] = []
    i = 0
    while i < len(us):
        j = i
        while j < len(us) and not us[j].item and LABELLED.match(us[j].text):
            j += 1
        if j - i >= 2:
            out.extend(Unit(u.text, True, key=label(u.text)) for u in us[i:j])
            i = j
        else:
            out.append(us[i])
            i += 1
    return out
