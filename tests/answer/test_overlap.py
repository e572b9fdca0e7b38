"""The key facts of a reference answer: what bench/extractive_answers.py counts as said."""

from __future__ import annotations

from tellmemore.answer.overlap import key_facts
from tellmemore.answer.words import terms


def test_key_facts_are_the_numbers_names_and_rare_words_not_asked() -> None:
    rare = set(terms("payroll"))

    def idf(term: str) -> float:
        return 5.0 if term in rare else 1.0

    reference = (
        "Employees also accrue 1 hour of sick leave for every 30 hours of work, "
        "which Clef records in payroll."
    )
    facts = key_facts(reference, "how does sick leave accrue?", reference, idf)
    assert facts == {"1", "30", "clef", "payroll"}  # numbers, a name, a rare word
    # the words asked are no fact of the answer, and only what the passages hold counts
    assert key_facts(reference, "how does sick leave accrue in Clef?", "30 days", idf) == {"30"}
