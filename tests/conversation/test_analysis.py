"""One analysis per text: its parts agree with the package's splitter, tokenizer and
chunker; it is made once per text; an answer prepared when stored is ready next turn."""

from __future__ import annotations

import itertools
import sys
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from tellmemore.analysis import sentence_spans, split_sentences, tokenize
from tellmemore.conversation import constants as C
from tellmemore.conversation.analysis import Analysis, analyze
from tellmemore.conversation.passes.readable import read_form
from tellmemore.conversation.phrases import parse_phrases, phrases
from tellmemore.conversation.prepare import prepare_answer
from tellmemore.conversation.text import content_words, surface_form

ANSWER = (
    "Two tiers. Standard escalation routes a ticket to the on-call engineer within 4 hours. "
    "Enterprise escalation adds a named account manager.\n"
    "Pricing overview\n"
    "Status Page sends alerts. The Pro plan costs $49 a month, e.g. for ten sites. "
    "It includes Status Page."
)


def _sentence_parse(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """The phrases of each sentence parsed on its own (the definition)."""
    out = []
    for s in split_sentences(text):
        out += [(p.text, p.stems) for p in parse_phrases(s, tokenize(s))]
    return out


def test_sentences_are_the_splitters_and_their_spans_point_into_the_text() -> None:
    a = Analysis(ANSWER)
    assert list(a.sentences) == split_sentences(ANSWER)
    assert [ANSWER[x:y] for x, y in sentence_spans(ANSWER)] == split_sentences(ANSWER)
    assert "e.g. for ten sites" in a.sentences[-2]  # an abbreviation ends no sentence


def test_phrases_are_parsed_sentence_by_sentence_from_one_token_list() -> None:
    a = Analysis(ANSWER)
    assert [(p.text, p.stems) for p in a.phrases] == _sentence_parse(ANSWER)
    # a heading line never runs into the line after it
    assert not any("\n" in p.text for p in a.phrases)
    assert "Pricing overview" in {p.text for p in a.phrases}
    whole = parse_phrases(ANSWER, tokenize(ANSWER))  # the text as one run of tokens
    assert any("\n" in p.text for p in whole)  # which is what the split avoids


def test_an_opening_is_a_slice_of_the_same_parse() -> None:
    a = Analysis(ANSWER)
    first_two = " ".join(a.sentences[:2])
    assert [(p.text, p.stems) for p in a.opening(2)] == _sentence_parse(first_two)
    assert a.phrases_in([1, 0]) == [*a.sentence_phrases(1), *a.sentence_phrases(0)]
    assert a.phrases_in([99]) == []
    vocab, stems = a.opening_words(2)
    assert vocab == frozenset(content_words(first_two))
    assert "escal" in stems and "page" not in stems


def test_cue_spans_are_the_referents_and_the_ellipsis() -> None:
    a = analyze("and for the Starter plan, how much is it?")
    assert a.ellipsis is not None and a.ellipsis.opener.lower().startswith("and")
    b = analyze("how much does the second one cost?")
    assert [r.text for r in b.referents] == ["the second one"]
    assert analyze("why can't you answer such a simple question?").complaint is not None


def test_a_text_is_analysed_once_and_a_huge_one_is_never_kept() -> None:
    assert analyze(ANSWER) is analyze(ANSWER)
    assert analyze(ANSWER).phrases is analyze(ANSWER).phrases
    huge = "word " * (C.CACHE_MAX_CHARS // 5 + 10)
    assert analyze(huge) is not analyze(huge)


def test_phrases_of_a_text_are_its_analysis() -> None:
    assert [(p.text, p.stems) for p in phrases(ANSWER)] == _sentence_parse(ANSWER)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab Cd.!?\n e.g. U.S. 12,500 x-y '\""), max_size=120))
def test_spans_and_parse_agree_with_the_definition_on_any_text(text: str) -> None:
    a = Analysis(text)
    assert list(a.sentences) == split_sentences(text)
    assert [(p.text, p.stems) for p in a.phrases] == _sentence_parse(text)
    n = 2
    assert a.opening_words(n)[0] == frozenset(content_words(" ".join(a.sentences[:n])))


def test_an_answer_prepared_when_stored_is_ready_for_the_next_turn() -> None:
    answer = "Cloud Connect links your sites. It costs $99 a month. Plan: Pro; Sites: 10."
    prepare_answer(answer)
    a = analyze(read_form("assistant", answer))
    assert "tokens" in vars(a)  # made when stored, not when the next question comes
    assert a._sentence_phrases  # the opening's phrases were parsed
    prepare_answer("")  # nothing to prepare is no error


def test_surface_form_without_a_regex_keeps_whole_phrases_and_any_case() -> None:
    assert surface_form("pro", ["Plan code: CC-PRO-2026", "Plan: Pro; price"]) == "Pro"
    assert surface_form("pro", ["the PRO_X code", "a pro"]) == "pro"  # inside a word
    assert surface_form("cloud connect", ["we sell Cloud Connect."]) == "Cloud Connect"
    # a letter whose lower case is longer ("İ"): the spans differ, the regex decides
    assert surface_form("status page", ["İ see. Status Page is up"]) == "Status Page"


def test_a_long_answer_is_read_only_as_far_as_its_opening_and_agrees_with_the_whole() -> None:
    """The next turn reads an answer's opening (candidates, the selector): its tokens are
    read that far, not through the whole answer, and they are the tokenizer's."""
    long = ANSWER + " " + " ".join(f"Site {i} has {i} routers in rack {i}." for i in range(60))
    a = Analysis(long)
    opening = a.opening(3)
    vocab = a.opening_words(3)[0]
    assert len(a._head) < len(tokenize(long)) // 4  # the opening's tokens only
    assert [(p.text, p.stems) for p in opening] == _sentence_parse(" ".join(a.sentences[:3]))
    assert vocab == frozenset(content_words(" ".join(a.sentences[:3])))
    assert a.tokens == tuple(tokenize(long))  # read on to the end when asked for
    assert a.opening(3) == opening and a.phrases[: len(opening)] == tuple(opening)


def test_a_sentence_is_parsed_once_whatever_text_it_is_in() -> None:
    """The parse of a sentence reads only its own characters, so the same sentence in
    another text (the selector joins an answer's opening into one text) is not parsed
    again, and gives what parsing it there would."""
    from tellmemore.conversation import analysis

    first = Analysis("Cloud Connect links your sites.\nThe Kestrel Edge plan costs $417 a month.")
    joined = Analysis("Cloud Connect links your sites. The Kestrel Edge plan costs $417 a month.")
    misses = analysis._parsed.cache_info().misses
    one = first.sentence_phrases(1)
    assert analysis._parsed.cache_info().misses == misses + 1
    assert joined.sentence_phrases(1) is one  # found, not parsed
    assert analysis._parsed.cache_info().misses == misses + 1
    assert [(p.text, p.stems) for p in one] == _sentence_parse(
        "The Kestrel Edge plan costs $417 a month."
    )


def test_threads_reading_one_analysis_get_the_tokenizers_tokens() -> None:
    """A service's threads share analyses: tokens read on demand by several threads at
    once come out whole and in order, as one thread reading them alone gets them."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch inside the token loop
    try:
        for i in range(20):
            text = " ".join(
                f"Rack {i}.{j} holds {j} Kestrel routers, see ERR-{i}{j}." for j in range(40)
            )
            _read_together(text)
    finally:
        sys.setswitchinterval(interval)


def _read_together(text: str) -> None:
    a = Analysis(text)
    barrier = threading.Barrier(6)

    def read(n: int) -> None:
        barrier.wait()
        a.opening(n)
        a.opening_words(n)
        if n % 2:
            assert a.tokens == tuple(tokenize(text))

    threads = [threading.Thread(target=read, args=(n,)) for n in range(1, 7)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert a.tokens == tuple(tokenize(text))
    alone = Analysis(text)
    assert [a.opening(n) for n in range(1, 7)] == [alone.opening(n) for n in range(1, 7)]
    assert [a.opening_words(n) for n in range(1, 7)] == [
        alone.opening_words(n) for n in range(1, 7)
    ]


TEXTS = st.text(alphabet=st.sampled_from("ab Cd.!?\n e.g. U.S. 12,500 x-y '\"“;:"), max_size=160)


@settings(max_examples=150, deadline=None)
@given(TEXTS, st.integers(min_value=1, max_value=4))
def test_the_first_phrases_are_the_parse_read_no_further(text: str, n: int) -> None:
    """A list's labels read only a sentence's first phrases: parsing stops once it has
    them, and they are what the whole parse starts with."""
    assert analyze(text).first_phrases(n) == Analysis(text).phrases[:n]
    a = Analysis(text)
    a.first_phrases(n)
    assert a.phrases == Analysis(text).phrases  # a sentence cut short is parsed again


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_two_sentences_still_split_when_joined_exactly_when_the_splitter_says(text: str) -> None:
    from tellmemore.analysis.sentences import still_split

    sents = split_sentences(text)
    for a, b in itertools.pairwise(sents):
        assert still_split(a, b) == (split_sentences(f"{a} {b}") == [a, b])


@settings(max_examples=150, deadline=None)
@given(TEXTS)
def test_the_selectors_opening_is_the_joined_opening_parsed(text: str) -> None:
    """The selector reads an answer's first sentences joined (a line without a full stop
    runs into the next): when they split as before, the answer's own parse is reused."""
    from tellmemore.conversation.selector import _opening_phrases

    a = Analysis(text)
    joined = Analysis(" ".join(a.sentences[:5])).opening(3)
    assert _opening_phrases(a) == joined


@settings(max_examples=150, deadline=None)
@given(TEXTS, st.lists(st.integers(min_value=0, max_value=170), max_size=4))
def test_tokens_read_in_pieces_are_the_tokenizers(text: str, ends: list[int]) -> None:
    a = Analysis(text)
    whole = tokenize(text)
    for end in ends:
        head = a._read_to(end)
        assert head == whole[: len(head)]
        assert all(t.start >= end for t in whole[len(head) :])  # all those before `end`
    assert a.tokens == tuple(whole)
