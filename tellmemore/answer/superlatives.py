"""The table row a superlative question asks for ("which plan is the cheapest?").

An extractive answer cannot reason, but it can compare numbers: when the retrieved
chunks hold rows of one table ("Plan: Starter; Price per month: $49; ...") and the
question asks for the cheapest, the most sites or the highest bandwidth, the row with
the smallest or largest value in the matching column is the answer. Without this,
whichever row ranks first is quoted, right or not.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

_PRICE = ("price", "cost", "fee")
_SPEED = ("speed", "bandwidth", "throughput", "rate")
_FIXED: tuple[tuple[re.Pattern[str], tuple[str, ...], bool], ...] = (
    (re.compile(r"\b(?:cheap(?:est|er)|less expensive|least expensive|lowest[- ]priced)\b"),
     _PRICE, False),
    (re.compile(r"\b(?:more expensive|most expensive|pricier|priciest|highest[- ]priced)\b"),
     _PRICE, True),
    (re.compile(r"\bfast(?:est|er)\b"), _SPEED, True),
    (re.compile(r"\bslow(?:est|er)\b"), _SPEED, False),
)  # fmt: skip
"""Superlatives that name their column by meaning: (pattern, column words, largest?)."""
_DIRECTED = re.compile(
    r"\b(most|more|highest|higher|largest|larger|biggest|bigger|greatest|greater|maximum|max|"
    r"fewest|fewer|least|less|lowest|lower|smallest|smaller|minimum|min)\s+"
    r"(?:number of\s+)?([a-z][a-z-]*)"
)
"""Superlatives and comparatives ("which of Pro or Enterprise has more sites?") that
name their column."""
_LARGEST = frozenset(
    "most more highest higher largest larger biggest bigger greatest greater maximum max".split()  # noqa: SIM905
)
_UNLIMITED = frozenset({"unlimited", "unmetered", "infinite", "no limit"})
_NUMBER = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*([kKMGT](?=i?(?:bit|b|B|byte|Hz)))?")
_SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_PAIR = re.compile(r"^\s*([^:;]{1,40}):\s*(.+?)\s*$")


COMPARING = frozenset(
    """
    most least more less highest lowest largest smallest biggest greatest fewest maximum
    minimum max min cheapest priciest fastest slowest expensive priced dearest cheaper
    pricier faster slower higher lower larger smaller bigger greater fewer
    """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Words that ask for a comparison: a table's numbers, not its words, answer them."""
_QUESTION_WORDS = COMPARING | frozenset(
    """
    which what who whose one ones is are was were the a an of for in on at to by has have
    had with do does did can could will would should there their its it they them this
    that these those me my our your i we you and or than per number
    """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Words that say how the question asks, not what it asks about."""


def _words(text: str) -> set[str]:
    """Lower-case words, a plural "s" dropped ("plans" = "plan")."""
    found = re.findall(r"[a-z0-9]+", text.lower())
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in found}


def _about(asked: set[str], table: list[Row]) -> bool:
    """The question names something the table holds: a row ("Starter or Pro") or a
    column ("bandwidth"). Without this, the cheapest row of any retrieved table would
    answer "which pass is the cheapest?"."""
    held = set().union(*(_words(row.text) for row in table))
    return bool(asked & held)


@dataclass(frozen=True)
class Row:
    """A table row as the extractive answer quotes it, read as column -> value."""

    text: str
    cells: dict[str, str]


def parse_row(text: str) -> Row | None:
    """ "Plan: Starter; Price per month: $49." -> {"Plan": "Starter", ...}; None when the
    text is not a row of at least two cells."""
    cells: dict[str, str] = {}
    for part in text.rstrip(". ").split(";"):
        m = _PAIR.match(part)
        if m is None:
            return None
        cells[m.group(1).strip()] = m.group(2).strip()
    return Row(text, cells) if len(cells) >= 2 else None


def value(cell: str) -> float | None:
    """The number a cell states: "$1,450" -> 1450, "10 Gbit/s" -> 1e10, "unlimited" -> inf."""
    if cell.strip().lower() in _UNLIMITED:
        return math.inf
    m = _NUMBER.search(cell)
    if m is None:
        return None
    number = float(m.group(1).replace(",", ""))
    return number * _SCALE.get(m.group(2) or "", 1.0)


def wanted(question: str) -> tuple[tuple[str, ...], bool] | None:
    """(words naming the column, whether the largest value is wanted), or None when the
    question asks for no extreme."""
    low = question.lower()
    for pattern, columns, largest in _FIXED:
        if pattern.search(low):
            return columns, largest
    m = _DIRECTED.search(low)
    if m is None:
        return None
    return tuple(_words(m.group(2))), m.group(1) in _LARGEST


def pick(question: str, texts: Sequence[str]) -> str | None:
    """The row of `texts` that answers a superlative `question`, or None.

    Only rows of one table (same columns) are compared, and only on a column the
    question names; a tie, or fewer than two comparable rows, picks nothing.
    """
    want = wanted(question)
    if want is None:
        return None
    words, largest = want
    tables: dict[tuple[str, ...], list[Row]] = {}
    for row in (r for r in map(parse_row, texts) if r is not None):
        tables.setdefault(tuple(row.cells), []).append(row)
    asked = _words(question) - _QUESTION_WORDS
    for i, (columns, table) in enumerate(tables.items()):
        if asked and not _about(asked, table):
            continue  # "which pass is the cheapest?" is not asked of a table of plans
        if not asked and i > 0:
            return None  # "which is the cheapest?" names nothing: the best-ranked table only
        column = next((c for c in columns if _words(c) & set(words)), None)
        if column is None:
            continue
        named = [r for r in table if _words(next(iter(r.cells.values()))) <= asked]
        if len(named) >= 2:
            table = named  # "is Pro or Starter faster?": only the rows the question names
        scored = [(v, r) for r in table if (v := value(r.cells[column])) is not None]
        if len(scored) < 2:
            continue
        best = max(v for v, _ in scored) if largest else min(v for v, _ in scored)
        winners = [r for v, r in scored if v == best]
        return winners[0].text if len(winners) == 1 else None
    return None
