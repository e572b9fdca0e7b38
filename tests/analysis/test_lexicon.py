"""The lexicon file (issue 20): every word list and cue pattern once, no conflicts."""

from __future__ import annotations

import itertools
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from tellmemore.analysis import lexicon

PACKAGE = Path(lexicon.__file__).resolve().parents[1]


def _raw() -> str:
    return resources.files("tellmemore.analysis").joinpath("lexicon.json").read_text("utf-8")


def _strict_pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [k for k, _ in pairs]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise ValueError(f"duplicate keys in lexicon.json: {dupes}")
    return dict(pairs)


def test_no_duplicate_entry_names() -> None:
    json.loads(_raw(), object_pairs_hook=_strict_pairs)


def test_no_word_twice_in_a_list_and_words_are_normalised() -> None:
    for name, entry in lexicon.data()["words"].items():
        ws = entry["words"]
        assert ws, name
        dupes = sorted({w for w in ws if ws.count(w) > 1})
        assert not dupes, f"{name} repeats {dupes}"
        odd = [w for w in ws if w != w.strip().lower() or not w]
        assert not odd, f"{name} has words not lower-case or padded: {odd}"


def test_no_two_lists_are_the_same() -> None:
    lists = lexicon.data()["words"]
    for a, b in itertools.combinations(lists, 2):
        assert set(lists[a]["words"]) != set(lists[b]["words"]), f"{a} and {b} are one list"


def test_no_two_patterns_are_the_same() -> None:
    pats = lexicon.data()["patterns"]
    seen: dict[tuple[str, tuple[str, ...]], str] = {}
    for name, entry in pats.items():
        source = entry["pattern"]
        source = source if isinstance(source, str) else "".join(source)
        key = (source, tuple(entry.get("flags", [])))
        assert key not in seen, f"{name} and {seen[key]} are one pattern"
        seen[key] = name


def _conflicts(lists: dict[str, Any], disjoint: list[list[str]]) -> list[str]:
    out = []
    for a, b in disjoint:
        shared = set(lists[a]["words"]) & set(lists[b]["words"])
        if shared:
            out.append(f"{a} and {b} must not share words; both hold {sorted(shared)}")
    return out


def test_disjoint_lists_share_no_word() -> None:
    assert _conflicts(lexicon.data()["words"], lexicon.data()["disjoint"]) == []


def test_every_pattern_compiles() -> None:
    for name in lexicon.data()["patterns"]:
        assert isinstance(lexicon.pattern(name), re.Pattern)


def test_every_entry_is_read_by_code() -> None:
    """A rule no code reads is dead data: delete it from the file."""
    source = "\n".join(
        p.read_text("utf-8") for p in PACKAGE.rglob("*.py") if "analysis" not in p.parts[-2:]
    ) + (PACKAGE / "analysis" / "sentences.py").read_text("utf-8")
    data = lexicon.data()
    for kind, call in (("words", "words"), ("patterns", "pattern")):
        for name in data[kind]:
            assert f'lexicon.{call}("{name}")' in source, f"{kind} {name!r} is read by no code"


def test_unknown_names_are_a_clear_error() -> None:
    with pytest.raises(KeyError, match="function_words"):
        lexicon.words("no_such_list")
    with pytest.raises(KeyError, match="no pattern 'nope'"):
        lexicon.pattern("nope")


def test_the_checks_can_fail() -> None:
    """A conflict and a duplicate key are caught (the checks above are not vacuous)."""
    lists = {"a": {"words": ["x", "y"]}, "b": {"words": ["y"]}}
    assert _conflicts(lists, [["a", "b"]]) == ["a and b must not share words; both hold ['y']"]
    with pytest.raises(ValueError, match="duplicate keys"):
        json.loads('{"a": 1, "a": 2}', object_pairs_hook=_strict_pairs)


def test_cue_tables_compile_are_read_and_hold_no_duplicate_row() -> None:
    source = "\n".join(p.read_text("utf-8") for p in PACKAGE.rglob("*.py"))
    for name, table in lexicon.data().get("cues", {}).items():
        assert f'lexicon.cue_rows("{name}")' in source, f"cue table {name!r} is read by no code"
        rows = lexicon.cue_rows(name)
        keys = [r.get("pattern") or r.get("pattern_ref") for r in table["rows"]]
        assert len(keys) == len(set(keys)), f"{name} repeats a row"
        assert all(isinstance(r["compiled"], re.Pattern) for r in rows)
        assert all(r.get("kind") in (None, "modifier", "subject", "more") for r in rows)
