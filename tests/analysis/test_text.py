"""The shared stemmer, tokenizer and sentence splitter (issue 20: one of each)."""

from __future__ import annotations

import sqlite3

from tellmemore.analysis import split_sentences, stem, tokenize


def test_porter_stems() -> None:
    assert stem("rooms") == "room"
    assert stem("relational") == "relat"
    assert stem("generalizations") == "gener"
    assert stem("billed") == stem("bill")
    assert stem("v6") == "v6"  # codes are kept
    assert stem("is") == "is"


def test_stems_agree_with_sqlite_fts5_porter() -> None:
    """The index's FTS5 `porter` tokenizer and our stemmer count the same terms."""
    words = ["running", "runs", "tiers", "policies", "escalations", "billing", "supported"]
    words += ["connectivity", "generalizations", "relational", "availability", "hopefully"]
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5 (x, tokenize='porter unicode61')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')")
    conn.executemany("INSERT INTO t (x) VALUES (?)", [(w,) for w in words])
    fts = {row[0] for row in conn.execute("SELECT term FROM v")}
    assert {stem(w) for w in words} == fts


def test_tokens_keep_spans_codes_and_numbers() -> None:
    text = "Is ERR-4021 fixed in v6.15.0 for 1,500 users?"
    toks = tokenize(text)
    assert [t.text for t in toks] == [
        *("Is", "ERR-4021", "fixed", "in", "v6.15.0", "for", "1,500", "users")
    ]
    assert all(text[t.start : t.end] == t.text for t in toks)


def test_sentences_do_not_end_at_abbreviations() -> None:
    text = "Use a client, e.g. WireGuard. It works in the U.S. Today too.\nA new line"
    assert split_sentences(text) == [
        "Use a client, e.g. WireGuard.",
        "It works in the U.S. Today too.",
        "A new line",
    ]
    assert split_sentences("One. Two! Three? 4 more.") == ["One.", "Two!", "Three?", "4 more."]
    assert split_sentences("  ") == []
