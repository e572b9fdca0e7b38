"""The chunker's sentence splitter: abbreviations and initials end no sentence."""

from __future__ import annotations

from tellmemore.ingest.sentences import is_abbreviation, split_sentences


def test_abbreviations_and_initials_end_no_sentence() -> None:
    text = (
        "We offer leave, e.g. Vacation days. The U.S. Army pays. Is there a cap? No. "
        'The cap is 5. See No. 5 below. He said "Go." Then left. J. Smith wrote it.'
    )
    assert split_sentences(text) == [
        "We offer leave, e.g. Vacation days.",
        "The U.S. Army pays.",
        "Is there a cap?",
        "No.",
        "The cap is 5.",
        "See No. 5 below.",
        'He said "Go."',
        "Then left.",
        "J. Smith wrote it.",
    ]


def test_is_abbreviation() -> None:
    assert is_abbreviation("i.e.") and is_abbreviation("(e.g.") and is_abbreviation("Dr.")
    assert is_abbreviation("No.", "5 below") and not is_abbreviation("No.", "The cap")
    assert not is_abbreviation("Sweden.") and not is_abbreviation("it")
