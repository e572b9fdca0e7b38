"""Typos fixed against the index's vocabulary, for the search only."""

from __future__ import annotations

from collections.abc import Iterable

from tellmemore.conversation.spelling import correct_spelling, english_words
from tellmemore.types import TermStats

from .histories import corpus_stats

DOCS = [
    "The monthly pass costs 25 dollars.",
    "A monthly pass covers every city bike.",
    "Cancel the monthly pass online.",
    "Mortgage scams target home owners.",
    "Report mortgage fraud to the state.",
    "Mortgage relief programs help owners.",
    "Protein in the diet.",
]


def test_the_tokenizer_dictionary_is_bundled() -> None:
    words = english_words()
    assert len(words) > 10_000
    assert {"monthly", "mortgage", "silly"} <= words


def test_an_unseen_misspelt_word_becomes_its_frequent_neighbour() -> None:
    text, fixes = correct_spelling("Does the montly pass cover e-bikes?", corpus_stats(DOCS))
    assert text == "Does the monthly pass cover e-bikes?"
    assert fixes == {"montly": "monthly"}


def test_the_first_capital_is_kept() -> None:
    text, fixes = correct_spelling("Mortage scams", corpus_stats(DOCS))
    assert text == "Mortgage scams"
    assert fixes == {"Mortage": "mortgage"}


def test_real_words_names_and_codes_are_never_changed() -> None:
    stats = corpus_stats(DOCS)
    for text in [
        "is that silly?",  # an English word the documents lack
        "feeling tipsy",  # a derived word ("tips" + "y") the tokenizer lacks
        "What about Montly Python?",  # a capitalised word inside the sentence: a name
        "plan CC-PRO-2026 montl",  # too short to guess and codes are protected
    ]:
        assert correct_spelling(text, stats) == (text, {}), text


def test_a_fix_needs_a_word_the_index_uses() -> None:
    assert correct_spelling("how much protain?", corpus_stats(DOCS)) == ("how much protain?", {})


def test_without_an_index_or_with_a_failing_one_nothing_changes() -> None:
    def broken(terms: Iterable[str]) -> TermStats:
        raise RuntimeError("index closed")

    assert correct_spelling("montly pass", None) == ("montly pass", {})
    assert correct_spelling("montly pass", broken) == ("montly pass", {})


def test_a_huge_word_is_no_typo_and_costs_nothing() -> None:
    """Its edit-distance-1 neighbourhood (53 x n strings of n letters) took a property
    test past 24 GB for a 100k-letter token."""
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    text = "montly " + "a" * 100_000
    fixed, fixes = correct_spelling(text, corpus_stats(DOCS))
    assert fixes == {"montly": "monthly"}
    assert fixed == "monthly " + "a" * 100_000
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mib < 200


def test_the_history_phrasing_reads_the_message_as_searched() -> None:
    """govt: "Sollutions" searched "Solutions", but the history phrasing still began with
    the typo, which matches nothing."""
    from tellmemore.conversation.phrasings import search_phrasings
    from tellmemore.types import Resolution, Turn

    history = [Turn("user", "Mortgage scams"), Turn("assistant", "Report them to the state.")]
    message = "montly pass?"
    p = search_phrasings(message, Resolution(query="monthly pass?"), history, corpus_stats(DOCS))
    extra = p.queries[-1]
    assert extra.startswith("monthly pass?") and "Mortgage scams" in extra
    assert message in p.queries  # the message as typed is still searched


def test_the_turn_runner_hands_its_fixed_message_to_the_phrasings() -> None:
    """The turn runner fixes typos once, before the gate; the phrasings reuse that."""
    from tellmemore.conversation.phrasings import search_phrasings
    from tellmemore.types import Resolution, Turn

    history = [Turn("user", "Mortgage scams"), Turn("assistant", "Report them to the state.")]
    p = search_phrasings(
        "montly pass?", Resolution(query="monthly pass?"), history, None, searched="monthly pass?"
    )
    assert p.queries[-1].startswith("monthly pass?")


def test_a_word_whose_inflection_the_vocabulary_holds_is_no_typo() -> None:
    """The tokenizer knows "baked" but not "bake": "how do I bake bread?" was searched as
    "how do I bike bread?" over a corpus full of bikes."""
    bikes = ["Lock the bike.", "Report the bike.", "The bike is free.", "Bread."]
    assert "bake" not in english_words()
    text, fixes = correct_spelling("how do I bake bread?", corpus_stats(bikes))
    assert text == "how do I bake bread?"
    assert fixes == {}


def test_a_plural_whose_singular_the_dictionary_knows_is_no_typo() -> None:
    """WordPiece keeps "status" but not "statuses": the plural is a real word, and the
    index's "statues" (edit distance 1) must not replace it (Clef handbook)."""
    docs = [*DOCS, "Slack statues.", "The statues of the park.", "Two statues stand."]
    assert "statuses" not in english_words() and "status" in english_words()
    text, fixes = correct_spelling("what are the Slack statuses?", corpus_stats(docs))
    assert (text, fixes) == ("what are the Slack statuses?", {})
