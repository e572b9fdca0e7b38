"""Query text -> FTS5 MATCH: stopwords and syntax dropped, terms quoted and OR-ed."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tellmemore.index.lexical import STOPWORDS, fts_query, query_terms


def test_stopwords_are_dropped() -> None:
    assert query_terms("What does the Enterprise tier cover on weekends?") == [
        "enterprise",
        "tier",
        "cover",
        "weekends",
    ]


@pytest.mark.parametrize("text", ["", "   ", "the of and", "?!", "AND OR NOT * ( ^ ", '"" ()'])
def test_nothing_left_gives_no_query(text: str) -> None:
    assert fts_query(text) is None


def test_codes_stay_phrases_and_terms_are_quoted() -> None:
    assert query_terms("ERR-4032 in v2.1 follow-up") == ["err 4032", "v2 1", "follow"]
    assert fts_query("ERR-4032 weekend") == '"err 4032" OR "weekend"'


def test_terms_are_deduplicated_and_bounded() -> None:
    assert query_terms("Tier tier TIER") == ["tier"]
    assert len(query_terms(" ".join(f"w{i}x" for i in range(500)))) == 64


def test_stopword_list_is_lowercase_words() -> None:
    assert all(w.isalpha() and w == w.lower() for w in STOPWORDS)


@pytest.fixture(scope="module")
def fts() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5 (body, tokenize='porter unicode61')")
    conn.execute("INSERT INTO t (body) VALUES ('weekend support ERR-4032 and v2.1')")
    return conn


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_gives_a_valid_match_expression(fts: sqlite3.Connection, text: str) -> None:
    match = fts_query(text)
    if match is not None:
        fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,)).fetchall()
