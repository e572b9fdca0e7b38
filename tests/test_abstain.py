"""When a turn abstains: a low cosine and a low lexical coverage, read over the question."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tellmemore.answer.abstain import evidence_hits, lexical_coverage, should_abstain, stem
from tellmemore.conversation.text import words
from tellmemore.testing.conformance import make_chunk
from tellmemore.types import Hit, TermStats


def corpus_stats(texts: list[str]) -> Callable[[Iterable[str]], TermStats]:
    """Document frequencies of a tiny corpus, words folded as the coverage measure folds them
    (plurals only: abstain.stem), so the counts are the ones these cases were written with."""
    docs = [{stem(w) for w in words(t)} for t in texts]

    def lookup(terms: Iterable[str]) -> TermStats:
        return TermStats(len(docs), {t: sum(stem(t) in d for d in docs) for t in terms})

    return lookup


RELEASE = "Version 3.4: Sydney became generally available. The API gained bulk site import."
CORPUS = [
    RELEASE,
    "Cloud Connect runs in six regions, among them Sydney and Frankfurt.",
    "Status Page sends email and SMS notifications.",
    "The API uses tokens. The API is versioned.",
]


def hit(text: str, dense: float, rank: int = 1) -> Hit:
    return Hit(chunk=make_chunk(str(rank), text), score=dense, rank=rank, dense=dense)


def test_a_high_cosine_answers_without_reading_the_words() -> None:
    def never() -> float:
        raise AssertionError("coverage read although the cosine was enough")

    assert not should_abstain([hit(RELEASE, 0.6)], min_dense_score=0.35, coverage=never)


def test_a_low_cosine_abstains_unless_a_hit_holds_the_question_s_words() -> None:
    hits = [hit(RELEASE, 0.27)]
    covered = lexical_coverage(
        ["what changed in version 3.4?"],
        {"what changed in version 3.4?": hits},
        corpus_stats(CORPUS),
    )
    foreign = lexical_coverage(
        ["does the API support GraphQL?"],
        {"does the API support GraphQL?": hits},
        corpus_stats(CORPUS),
    )
    assert covered >= 0.5 > foreign  # "GraphQL", in no chunk, weighs the most
    assert not should_abstain(
        hits, min_dense_score=0.35, coverage=lambda: covered, min_coverage=0.5
    )
    assert should_abstain(hits, min_dense_score=0.35, coverage=lambda: foreign, min_coverage=0.5)
    assert should_abstain(hits, min_dense_score=0.35)  # no coverage: the cosine decides
    assert should_abstain([], min_dense_score=0.0)


PRICES = (
    "| Plan | Price per month | Storage |\n| --- | --- | --- |\n"
    "| Starter | USD 9 | 100 GB |\n| Business | USD 29 | 1 TB |"
)


def test_a_superlative_a_table_s_numbers_answer_is_covered_by_the_table() -> None:
    """ "which plan is the cheapest?" sits at a low cosine to a price table, and no chunk
    says "cheapest": the prices answer it, so the documents do speak of it."""
    corpus = [PRICES, "Support is available on business days.", "Backups run nightly."]
    question = "which plan is the cheapest?"
    table = [hit(PRICES, 0.29)]
    covered = lexical_coverage([question], {question: table}, corpus_stats(corpus))
    prose = [hit("Support is available on business days.", 0.29)]
    not_covered = lexical_coverage([question], {question: prose}, corpus_stats(corpus))
    assert covered >= 0.5 > not_covered
    fastest = "which plan is the fastest?"  # no speed column: the words stay unheld
    assert lexical_coverage([fastest], {fastest: table}, corpus_stats(corpus)) < 0.5


def test_the_evidence_is_the_question_s_own_ranking() -> None:
    """The history phrasing's hits (a close match for the earlier turns) are not evidence."""
    own = [hit("Cloud Connect runs in six regions.", 0.2, 1)]
    context = [hit(RELEASE, 0.7, 2)]
    per_query = {"capital of France?": own, "capital of France? what regions?": context}
    found = evidence_hits(own + context, per_query, ["capital of France?"])
    assert found == own
    assert should_abstain(found, min_dense_score=0.35)
    assert evidence_hits(context, {}, ["capital of France?"]) == context  # no rankings at hand


def test_a_failing_term_lookup_gives_no_coverage_and_no_crash() -> None:
    """The explore profile once made the index's term look-up fail mid-turn (FTS5 handed
    back a token that was not UTF-8): the turn must go on, on the cosine alone."""

    def broken(terms: list[str]):  # type: ignore[no-untyped-def]
        raise RuntimeError("could not decode")

    question = "what changed in version 3.4?"
    assert lexical_coverage([question], {question: [hit(RELEASE, 0.27)]}, broken) == 0.0
