"""Do the retrieved passages answer this question? The features of the abstain decision,
and the specific abstention that names what the documents do cover nearby.

Features (each read over the hits of the question's own phrasings, `abstain.evidence_hits`):

- `cos`: the best cosine placed on this index's own scale (`calibration.normalised`): a
  handbook's 0.30 and an encyclopedia's 0.50 can mean the same;
- `coverage`: the IDF-weighted share of the question's words one top hit holds;
- `missing`: how rare (normalised IDF) the rarest question word is that no top hit holds:
  a gym membership is not an insurance reimbursement, however close the vectors are;
- `type_missing`: the question asks for a number, a price, a duration or a time and no
  top hit states one (`answer_types`);
- `flat`: how little the best hit stands out from the rest of the top five;
- `new_coverage`: the IDF-weighted share of the words the message adds to the
  conversation (its words the history does not hold) that the top three hits hold: a
  follow-up's own ask ("can I download them?") against passages that match its topic;
- `sentence_cos`: the best cosine between the question and one sentence of the top three
  passages, on the index's scale: a passage can match a question's topic while none of
  its sentences says what is asked ("how many people were arrested?" over a passage on
  the protests); `sentence_gain`: how much sharper that is than the passage's cosine;
- `raw_cos`, `raw_sentence`: the same two cosines as they are, on no index's scale;
- `both_signals`: the share of the top three hits both BM25 and the dense search found;
- `rare_held`: the IDF-weighted share of the question's rarer half of words one of the
  top three hits holds;
- `sentence_rare`: the IDF-weighted share of the question's rarer half of words one
  sentence of the top three hits holds: a passage can hold the words in different places
  ("Cloud Shell" in one sentence, "free" in another) without saying what is asked;
- `sentence_type_missing`: the question asks for a value and the sentence that best holds
  its rarer words states none;
- `dense_margin`: the best cosine minus the fifth best (a question the documents answer
  tends to have one passage standing out from its neighbours);
- `bm25_top`: the best BM25 score of the top hits, on its raw scale (0.0 when BM25 found
  none of them);
- `value_share`: for a question asking for a value, the largest share of its focus words
  a sentence stating such a value holds (`stated.value_share`; 1.0 for other questions):
  `judge` reads it as a rule (`retrieval.min_value_share`), not through the scorer.

`judge` weighs them with a scorer fitted on labelled conversations (`scorer.Scorer`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tellmemore.answer import answer_types, focus
from tellmemore.answer.abstain import COVERAGE_HITS, lexical_coverage
from tellmemore.answer.calibration import Calibration
from tellmemore.answer.stated import value_share
from tellmemore.answer.units import sentences
from tellmemore.conversation.analysis import analyze
from tellmemore.conversation.text import AUXILIARIES, FUNCTION_WORDS, content_words, stem
from tellmemore.index.base import Vector
from tellmemore.types import Hit, TermStats, Turn

log = logging.getLogger(__name__)

FEATURES = (
    "raw_cos",
    "raw_sentence",
    "coverage",
    "missing",
    "rare_held",
    "new_coverage",
    "type_missing",
    "both_signals",
)
"""What the shipped abstain scorer reads. Not `cos` or `sentence_cos`: on the index's own
scale they did not carry from one MTRAG-UN domain to the other (bench/results/behaviour.md:
Wikipedia answers the everyday foreign probes, so its scale is upside down)."""
TYPE_HITS = 3
"""Top hits that must state the asked kind of answer (a number, a price, ...)."""


@dataclass(frozen=True)
class Gap:
    """What the question asks that the evidence does not hold: its words, rarest first."""

    words: tuple[str, ...]
    rarity: float
    """The normalised IDF (0..1) of the rarest missing word; 0 when nothing is missing."""


def gap(questions: Sequence[str], hits: Sequence[Hit], stats: TermStats | None) -> Gap:
    """The question words (of the first phrasing that has any) no top hit holds."""
    held: set[str] = set()
    for h in hits[:COVERAGE_HITS]:
        held |= {stem(w) for w in content_words(f"{h.chunk.header} {h.chunk.text}")}
    for q in questions:
        words = list(dict.fromkeys(w for w in content_words(q)))
        if not words:
            continue
        lost = [w for w in words if stem(w) not in held]
        if not lost:
            return Gap((), 0.0)
        if stats is None:
            return Gap(tuple(lost), 1.0)
        top = math.log(1.0 + (max(stats.n_chunks, 1) + 0.5) / 0.5)
        scored = sorted(lost, key=lambda w: -stats.idf(stem(w)))
        return Gap(tuple(scored), min(1.0, stats.idf(stem(scored[0])) / top))
    return Gap((), 0.0)


def stats_for(
    questions: Sequence[str], term_stats: Callable[[list[str]], TermStats] | None
) -> TermStats | None:
    """The document frequencies of the questions' words (None: not at hand)."""
    wanted = sorted({stem(w) for q in questions for w in content_words(q)})
    if term_stats is None or not wanted:
        return None
    try:
        return term_stats(wanted)
    except Exception:  # an index that cannot count words: no rarity
        log.warning("term statistics failed; the missing words are not weighed", exc_info=True)
        return None


def features(
    questions: Sequence[str],
    hits: Sequence[Hit],
    per_query: Mapping[str, Sequence[Hit]],
    term_stats: Callable[[list[str]], TermStats] | None,
    calibration: Calibration,
    message: str = "",
    history: Sequence[Turn] = (),
    embed: Callable[[list[str]], Vector] | None = None,
    *,
    value_min_near: float = 1.01,
    value_enough: float = 1.0,
) -> dict[str, float]:
    """The abstain features of a turn whose question reads `questions` (its own
    phrasings, the resolved one first) and whose evidence is `hits`."""
    dense = sorted((h.dense for h in hits if h.dense is not None), reverse=True)
    best = dense[0] if dense else 0.0
    top5 = dense[:5]
    flat = 1.0 - (best - sum(top5) / len(top5)) * 10 if top5 else 1.0
    missing = gap(questions, hits, stats_for(questions, term_stats))
    kind = next((k for q in questions if (k := answer_types.asked_type(q)) is not None), None)
    if kind not in answer_types.VALUE_KINDS:
        kind = None  # the judge was fitted on value questions (a number, price, duration, time)
    type_missing = 0.0
    if kind is not None:
        stated = any(answer_types.holds(h.chunk.text, kind) for h in hits[:TYPE_HITS])
        type_missing = 0.0 if stated else 1.0
    sentence = sentence_match(questions, hits, embed, calibration, best)
    held, typed = best_sentence(questions, hits, term_stats, kind)
    return {
        "cos": calibration.normalised(best),
        "coverage": lexical_coverage(questions, per_query, term_stats),
        "missing": missing.rarity,
        "type_missing": type_missing,
        "flat": max(0.0, min(1.0, flat)),
        "new_coverage": new_coverage(message, history, hits, term_stats),
        **sentence,
        "raw_cos": best,
        "raw_sentence": best + sentence["sentence_gain"] if embed is not None else best,
        "both_signals": both_signals(hits),
        "rare_held": rare_held(questions, hits, term_stats),
        "sentence_rare": held,
        "sentence_type_missing": typed,
        "dense_margin": best - dense[min(4, len(dense) - 1)] if dense else 0.0,
        "bm25_top": max((h.bm25 for h in hits[:COVERAGE_HITS] if h.bm25 is not None), default=0.0),
        "value_share": value_share(
            next((q for q in questions if q.strip()), ""),
            hits,
            term_stats,
            embed,
            min_near=value_min_near,
            enough=value_enough,
        ).share,
    }


AGREE_HITS = 3


def both_signals(hits: Sequence[Hit]) -> float:
    """The share of the top hits that both BM25 and the dense search found: a question the
    documents answer tends to match a passage by its words and by its meaning at once."""
    top = list(hits[:AGREE_HITS])
    if not top:
        return 0.0
    return sum(h.bm25 is not None and h.dense is not None for h in top) / len(top)


def rarer_half(
    questions: Sequence[str], term_stats: Callable[[list[str]], TermStats] | None
) -> dict[str, float]:
    """The question's rarer half of words (the words that say what it is about, not
    "how", "get") and their IDF (1.0 each without statistics)."""
    question = next((q for q in questions if content_words(q)), "")
    words = sorted({stem(w) for w in content_words(question)})
    if not words:
        return {}
    stats = stats_for([question], term_stats)
    idf = {w: stats.idf(w) if stats is not None else 1.0 for w in words}
    ranked = sorted(words, key=lambda w: -idf[w])
    return {w: idf[w] for w in ranked[: max(1, (len(ranked) + 1) // 2)]}


def _share(rare: Mapping[str, float], text: str) -> float:
    held = {stem(w) for w in content_words(text)}
    return sum(v for w, v in rare.items() if w in held) / (sum(rare.values()) or 1.0)


def rare_held(
    questions: Sequence[str],
    hits: Sequence[Hit],
    term_stats: Callable[[list[str]], TermStats] | None,
) -> float:
    """The IDF-weighted share of the question's rarer half of words one of the top three
    hits holds; 1.0 for a question without words."""
    rare = rarer_half(questions, term_stats)
    if not rare:
        return 1.0
    return max(
        (_share(rare, f"{h.chunk.header} {h.chunk.text}") for h in hits[:NEW_HITS]), default=0.0
    )


def best_sentence(
    questions: Sequence[str],
    hits: Sequence[Hit],
    term_stats: Callable[[list[str]], TermStats] | None,
    kind: answer_types.AnswerType | None = None,
) -> tuple[float, float]:
    """(`sentence_rare`, `sentence_type_missing`): the largest share of the question's
    rarer half of words one sentence of the top three hits holds (its passage's header
    counts: a section names what its sentences are about), and 1.0 when the question asks
    for a value of `kind` that sentence does not state. (1.0, 0.0) for a question without
    words."""
    rare = rarer_half(questions, term_stats)
    if not rare:
        return 1.0, 0.0
    best, text = 0.0, ""
    for h in hits[:NEW_HITS]:
        for t in sentences(h.chunk.text, h.chunk.header):
            share = _share(rare, f"{h.chunk.header} {t}")
            if share > best:
                best, text = share, t
    missing = kind is not None and not (text and answer_types.holds(text, kind))
    return best, 1.0 if missing else 0.0


SENTENCE_HITS = 3
MAX_SENTENCES = 48
"""Sentences embedded per turn at most (about 0.1-0.3 s with MiniLM on a CPU)."""


def sentence_match(
    questions: Sequence[str],
    hits: Sequence[Hit],
    embed: Callable[[list[str]], Vector] | None,
    calibration: Calibration,
    passage_cos: float,
) -> dict[str, float]:
    """`sentence_cos` and `sentence_gain` (0.0 each without an embedder)."""
    question = next((q for q in questions if q.strip()), "")
    texts: list[str] = []
    for h in hits[:SENTENCE_HITS]:
        texts += [t for t in sentences(h.chunk.text, h.chunk.header) if content_words(t)]
    texts = texts[:MAX_SENTENCES]
    if embed is None or not question or not texts:
        return {"sentence_cos": 0.0, "sentence_gain": 0.0}
    vectors = np.asarray(embed([question, *texts]), dtype=np.float32)
    best = float((vectors[1:] @ vectors[0]).max())
    return {
        "sentence_cos": calibration.normalised(best),
        "sentence_gain": best - passage_cos,
    }


NEW_HITS = 3


def new_coverage(
    message: str,
    history: Sequence[Turn],
    hits: Sequence[Hit],
    term_stats: Callable[[list[str]], TermStats] | None,
) -> float:
    """The IDF-weighted share of the message's new words (not in the history) that one of
    the top hits holds; 1.0 when the message adds no word."""
    said = {stem(w) for t in history for w in content_words(t.content)}
    new = sorted({stem(w) for w in content_words(message)} - said)
    if not new:
        return 1.0
    stats = None
    if term_stats is not None:
        try:
            stats = term_stats(new)
        except Exception:
            stats = None
    weight = {w: stats.idf(w) if stats is not None else 1.0 for w in new}
    total = sum(weight.values()) or 1.0
    best = 0.0
    for h in hits[:NEW_HITS]:
        held = {stem(w) for w in content_words(f"{h.chunk.header} {h.chunk.text}")}
        best = max(best, sum(v for w, v in weight.items() if w in held) / total)
    return best


def nearby_subjects(hits: Sequence[Hit], n: int = 2) -> list[str]:
    """What the closest passages are about, for the abstention to name: their deepest
    heading (a section when they share a title), distinct, best first."""
    out: list[str] = []
    for h in hits:
        c = h.chunk
        # an opaque id ("ibmcld_04178-7-2164") is nothing to tell the user about
        title = "" if c.title == c.doc_id and _opaque(c.title) else c.title
        name = ((c.section[-1] if c.section else title) or title).strip()
        if name and name.lower() not in {o.lower() for o in out}:
            out.append(name)
        if len(out) == n:
            break
    return out


def both_named(first: str, second: str) -> str:
    """Two subjects joined by "and", quoted when a name holds an "and" of its own:
    "Exercise Prices and 409a Valuations and Salary and Equity Compensation" reads as four
    things."""
    if " and " in f"{first.lower()}|{second.lower()}":
        return f"“{first}” and “{second}”"
    return f"{first} and {second}"


def _opaque(text: str) -> bool:
    """A record id standing in for a title ("ibmcld_04178-7-2164")."""
    return " " not in text.strip() and any(ch.isdigit() for ch in text)


def lacking_phrase(question: str, lost: Sequence[str]) -> str:
    """The question's own words for what the evidence lacks: the span from the first to
    the last missing word when it is short ("capital of Mongolia"), else the noun phrases
    holding the two rarest ("July or full amount"). Only a thing can be lacking: what is
    named holds a word of one of the question's noun phrases (`conversation.analysis`),
    else it is "" ("nothing about keeps", "nothing about afterwards" named a verb or an
    adverb the passages happen not to use)."""
    phrases = [p.text for p in analyze(question).phrases]
    nouns = {stem(w) for p in phrases for w in content_words(p)}
    things = [w for w in lost if stem(w) in nouns]
    if not things:
        return ""
    tokens = question.strip(" ?!.").split()
    bare = [t.strip("?!.,;:'\"()").lower() for t in tokens]
    where = [i for i, t in enumerate(bare) if t in {w.lower() for w in lost}]
    if where and where[-1] - where[0] < MAX_SPAN_WORDS:
        start, end = where[0], where[-1] + 1
        # the span is a phrase, not a clause: "how long is the probation period?" lacks
        # "probation period", not "long is the probation period"
        verbs = [i for i in range(start, end) if bare[i] in AUXILIARIES]
        if verbs and any(i > verbs[-1] for i in where):
            start = verbs[-1] + 1
        # a thing starts and ends the span: "cover a treadmill" lacks "treadmill"; a word
        # before "of" heads its phrase ("capital of Mongolia")
        while (
            start < end and stem(bare[start]) not in nouns and bare[start + 1 : start + 2] != ["of"]
        ):
            start += 1
        while end > start and stem(bare[end - 1]) not in nouns:
            end -= 1
        while start < end - 1 and bare[start] in FUNCTION_WORDS:
            start += 1
        if end > start:
            return " ".join(t.strip('?!.,;:"()') for t in tokens[start:end])
    # far apart: the noun phrases holding the two rarest ("July or full amount")
    held = [
        next(p for p in phrases if stem(w) in {stem(x) for x in content_words(p)}) for w in things
    ]
    return " or ".join(list(dict.fromkeys(held))[:2])


MAX_SPAN_WORDS = 5


def abstention(
    questions: Sequence[str],
    hits: Sequence[Hit],
    stats: TermStats | None = None,
    lacking: str | None = None,
) -> str:
    """A specific abstention: what the documents cover nearby, what they lack (`lacking`,
    or the question's words no top hit holds), and the next step (seed 002)."""
    near = nearby_subjects(hits)
    if lacking is None:
        missing = gap(questions, hits, stats)
        question = next((q for q in questions if content_words(q)), "")
        # "the FSF" over passages naming the Free Software Foundation: they are about it
        spelt = {
            a
            for h in hits[:COVERAGE_HITS]
            for a in focus.initialisms(f"{h.chunk.header}\n{h.chunk.text}")
        }
        lacking = lacking_phrase(question, [w for w in missing.words if w.lower() not in spelt])
    if near:
        found = near[0] if len(near) == 1 else both_named(near[0], near[1])
        about = (
            (lacking if lacking.startswith("that ") else f"about {lacking}")
            if lacking
            else "that answers this"
        )
        head = f"I found {found} in the documents, but nothing {about}."
        step = (
            "Try asking about one of those, or name the document or the term it would use; "
            "if it is not written down, the team that owns it is the one to ask."
        )
    else:
        head = "I couldn't find anything in the documents that answers this."
        step = (
            "Try naming the product, plan or policy you mean, or rephrase with the words "
            "the documentation would use."
        )
    return f"{head} {step}"
