"""Every word list and cue pattern of the rules, read from one data file.

`lexicon.json` (package data) holds named word lists and named regular expressions, each
with a line saying what it is for, and the pairs of lists that must never share a word.
Code asks for a list by name (`words("function_words")`); `tests/analysis/test_lexicon.py`
rejects duplicates, identical lists, broken patterns and conflicts. A rule is thus one
row of data plus the code that reads it, and the data can be measured, diffed and pruned
on its own.
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any

_FLAGS = {"IGNORECASE": re.IGNORECASE, "MULTILINE": re.MULTILINE, "VERBOSE": re.VERBOSE}


@functools.cache
def data() -> dict[str, Any]:
    """The parsed lexicon file (read once per process)."""
    text = resources.files("tellmemore.analysis").joinpath("lexicon.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@functools.cache
def words(name: str) -> frozenset[str]:
    """The word list `name`; a KeyError names the lists that exist."""
    lists = data()["words"]
    if name not in lists:
        raise KeyError(f"no word list {name!r} in lexicon.json; lists: {', '.join(sorted(lists))}")
    return frozenset(lists[name]["words"])


@functools.cache
def pattern(name: str) -> re.Pattern[str]:
    """The compiled cue pattern `name`; a KeyError names the patterns that exist."""
    pats = data()["patterns"]
    if name not in pats:
        raise KeyError(f"no pattern {name!r} in lexicon.json; patterns: {', '.join(sorted(pats))}")
    entry = pats[name]
    flags = 0
    for flag in entry.get("flags", []):
        flags |= _FLAGS[flag]
    source = entry["pattern"]
    if isinstance(source, list):  # a long pattern is written as lines, joined
        source = "".join(source)
    return re.compile(source, flags)


@functools.cache
def cue_rows(name: str) -> tuple[dict[str, Any], ...]:
    """The cue table `name` (rows of a pattern and what it means), in order; a row's
    "pattern_ref" is compiled from the named pattern, its "pattern" inline (IGNORECASE)."""
    cues = data().get("cues", {})
    if name not in cues:
        raise KeyError(f"no cue table {name!r} in lexicon.json; tables: {', '.join(sorted(cues))}")
    out = []
    for row in cues[name]["rows"]:
        ref = row.get("pattern_ref")
        compiled = pattern(ref) if ref else re.compile(row["pattern"], re.IGNORECASE)
        out.append({**row, "compiled": compiled})
    return tuple(out)
