"""The sentence splitter finds its boundaries from the characters that can end or open one,
and splits exactly where its defining pattern, tried at every character, says."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tellmemore.analysis import sentence_spans, split_sentences
from tellmemore.analysis.sentences import _add_stripped, _ends_in_abbreviation

_DEFINITION = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“])|\n+")


def _by_the_pattern(text: str) -> list[tuple[int, int]]:
    """The splitter as first written: the boundary pattern searched at every character."""
    out: list[tuple[int, int]] = []
    start = begin = 0
    for m in _DEFINITION.finditer(text):
        if "\n" not in m.group(0) and _ends_in_abbreviation(text[start : m.start()]):
            start = m.end()
            continue
        _add_stripped(text, begin, m.start(), out)
        start = begin = m.end()
    _add_stripped(text, begin, len(text), out)
    return out


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('aB1.!? \n\t\u00a0"“e.g.Dr.x')), max_size=80))
def test_the_boundaries_are_the_patterns_on_any_text(text: str) -> None:
    assert sentence_spans(text) == _by_the_pattern(text)


def test_a_stop_needs_a_capital_digit_or_quote_after_its_spaces_and_a_break_always_splits() -> None:
    text = "It costs $5. the fee is due.\n\nSee Dr. Smith e.g. Monday. 2 sites! “Yes” ok?\nno"
    assert split_sentences(text) == [
        "It costs $5. the fee is due.",
        "See Dr. Smith e.g. Monday.",
        "2 sites!",
        "“Yes” ok?",
        "no",
    ]
    assert sentence_spans(text) == _by_the_pattern(text)
