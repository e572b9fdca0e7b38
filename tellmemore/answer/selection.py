"""Which of the scored sentences an answer quotes, and which lines come with them.

The fitted scorer (`answer.scoring`) ranks; its weights were fitted on MTRAG's long
reference answers, which retell the opening of the top passage, so by rank alone the
answer often quotes a passage's opening and the next passage's best sentence, and misses
the sentence that holds what was asked ("how does sick leave accrue?" quoted the vacation
sentence; "what's the discount on the convertible note?" never quoted "20%"). So the
choice also asks, of the sentences the scorer finds worth quoting:

- *the asked words*: the sentence holding most of the question's words (weighted by their
  rarity among the candidates: the scorer's `idf` feature) is quoted when no chosen
  sentence holds as much;
- *the asked kind*: for "how many / how much / how long / when", the sentence that states
  a value of that kind and holds most of the asked words is quoted when no chosen one
  does.

- *the nearest* (`retrieval.quote_nearest`, on by default): the sentence most similar to the
  question (MiniLM). The scorer's weights, fitted on MTRAG's long retelling references,
  pay a long sentence early in a big passage more than similarity, so the one sentence
  that says what was asked ("If you leave GSA, your comp time will be paid out.", cosine
  0.91, the turn's best by 0.09) lost its place to longer openings. With it, a chosen
  sentence that already holds the most asked words or the asked kind is not displaced.
  Held out it gains on the handbooks (PostHog's trial 50 -> 54/99 fully right) and on
  MTRAG's retrieved passages, what users get; it loses on MTRAG's gold passages
  (clapnq F1 0.440 -> 0.425), the references the scorer was fitted to
  (bench/results/wrong_sentence_causes.md).

- *the continuation* (`retrieval.quote_continuation`, opt-in): the sentence right
  after the best one, in its passage, is quoted before the best sentence of another
  passage (the spread, `ranked`) that the scorer rates lower, when it holds a word of the
  question. The answer often goes on in the next sentence ("You'll never get in trouble
  for pinging them ..." after "... used to false alarms"; "Once those 90 days are up, the
  options count as non-qualified ..."), and the spread gave its slot to another passage's
  restatement. One that holds no asked word ("It may also help some employees avoid
  burnout ...") is no answer to the question and waits its turn. Opt-in: it gains on
  Clef and TTS and on MTRAG's passages, and loses one turn of the held-out PostHog trial
  and 0.008 F1 on MTRAG-UN cloud (bench/results/continuation.md).

- *the opening* (`retrieval.quote_opening`, opt-in): the top chunk keeps its best
  sentence (no rule displaces it), and the top chunk's first sentence, when the scorer
  finds it worth quoting, is brought in last. Retrieval ranks the chunk whose heading
  names what was asked first, but the sentence scorer reads sentences without their
  heading: under "Maxiflex" the one sentence "Same as Variable Week, but you only work 9
  days ..." never says "maxiflex", and the asked-words and nearest rules gave its place
  to sentences of the Definitions section. It gains on TTS (written from it) and one
  Clef trial turn, nothing held out (PostHog, MTRAG within 0.003 F1):
  bench/results/opening_rule.md.

Each takes the place of the chosen sentence least similar to the question (MiniLM),
never the first, and only when it is at least as similar as that one: a sentence that
shares a rare word and is about something else ("For more information ...") does not.
Held out on MTRAG (bench/results/extractive_answers.md) and on the Clef handbook
(bench/results/handbook_trial.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np

from tellmemore.answer import scoring
from tellmemore.answer.answer_types import VALUE_KINDS, AnswerType, holds
from tellmemore.answer.legacy import Scored
from tellmemore.answer.units import Unit

MAX_SENTENCES = 3
"""At most this many sentences: enough to answer, short enough to read."""
MAX_PARALLEL = 4
"""Lines quoted beside a chosen one because they state the same for another case."""


@dataclass(frozen=True)
class Evidence:
    """What a candidate holds of the question, beside its score."""

    coverage: float
    """The question's words it holds, weighted by rarity, relative to the best candidate."""
    typed: bool
    """It states a value of the kind a value question asks for (and shares a word)."""
    cosine: float
    """The embedder's similarity of candidate and question."""


def evidence(x: np.ndarray, kind: AnswerType | None) -> list[Evidence]:
    """Each candidate's evidence, read from its row of the scorer's features `x`."""
    col = {name: i for i, name in enumerate(scoring.FEATURES)}
    value = kind in VALUE_KINDS
    return [
        Evidence(
            coverage=float(row[col["idf"]]),
            typed=value and bool(row[col["answer_type"]]),
            cosine=float(row[col["cosine"]]),
        )
        for row in x
    ]


def choose(
    scored: Sequence[Scored],
    threshold: float,
    held: dict[tuple[int, int], Evidence],
    spread: Collection[int] | None = None,
    nearest: bool = False,
    continuation: bool = False,
    opening: bool = False,
) -> list[Scored]:
    """The sentences to quote: ranked (`ranked`, over the chunks `spread`, with
    `continuation` the best sentence's next one before a lower-rated spread), then the
    asked words and the asked kind brought in, and with `nearest` (`retrieval.quote_nearest`,
    on by default) the sentence most like the question, and with `opening`
    (`retrieval.quote_opening`, opt-in) the top chunk's own voice (see the module
    docstring). `held` maps (chunk, unit) to its evidence; a candidate missing from it is
    taken for one without evidence."""
    none = Evidence(0.0, False, 0.0)

    def ev(c: Scored) -> Evidence:
        return held.get((c[1], c[2]), none)

    asks = (lambda c: ev(c).coverage > 0) if continuation else None
    chosen = ranked(scored, threshold, spread, asks)

    worth = [c for c in scored if c[0] >= threshold]
    said = {said_key(c[3]) for c in chosen}
    fixed = {(chosen[0][1], chosen[0][2])}

    def bring(c: Scored) -> None:
        if c in chosen or said_key(c[3]) in said:
            return
        if len(chosen) < MAX_SENTENCES:
            chosen.append(c)
        else:
            movable = [d for d in chosen if (d[1], d[2]) not in fixed]
            if not movable:
                return
            weakest = min(movable, key=lambda d: (ev(d).cosine, d[0]))
            if ev(c).cosine < ev(weakest).cosine:
                return
            chosen[chosen.index(weakest)] = c
        said.add(said_key(c[3]))
        fixed.add((c[1], c[2]))

    def keep(holding: list[Scored]) -> None:
        # with `nearest`, a chosen sentence that already answers a rule stays
        if nearest:
            fixed.update((d[1], d[2]) for d in holding)

    top_own = [c for c in scored if c[1] == 0]
    if opening and top_own:
        best_own = max(top_own, key=lambda c: (c[0], -c[2]))
        if best_own in chosen:
            fixed.add((best_own[1], best_own[2]))  # the top chunk keeps its best sentence
    if worth:
        most = max(ev(c).coverage for c in worth)
        holding = [c for c in chosen if ev(c).coverage >= most]
        if most > 0 and not holding:
            bring(max(worth, key=lambda c: (ev(c).coverage, ev(c).typed, c[0])))
        elif most > 0:
            keep(holding)
    typed = [c for c in worth if ev(c).typed and ev(c).coverage > 0]
    if typed:
        best = max(typed, key=lambda c: (ev(c).coverage, c[0]))
        holding = [c for c in chosen if ev(c).typed and ev(c).coverage >= ev(best).coverage]
        if not holding:
            bring(best)
        else:
            keep(holding)
    if nearest and worth:
        bring(max(worth, key=lambda c: (ev(c).cosine, c[0])))
    if opening:
        first = next((c for c in top_own if c[2] == 0 and c[0] >= threshold), None)
        if first is not None:
            bring(first)  # the top chunk's opening: what its section is about
    return chosen


def ranked(
    scored: Sequence[Scored],
    threshold: float,
    spread: Collection[int] | None = None,
    continues: Callable[[Scored], bool] | None = None,
) -> list[Scored]:
    """The best candidate, then the best of each other chunk in `spread` (None: every
    chunk), then the next best, as long as their probability reaches `threshold`: an
    answer over two tiers quotes both ("what escalation options do we have?" quoted the
    intro and Standard, not Enterprise, and "the enterprise one" then had nothing to point
    back to). A chunk much less similar to the query than the best one is left out of
    the spread (`extractive.spread`): its best sentence displaced the top chunk's second
    one, which answered ("... between 10:30am-1:00p Pacific Time" for "what timezone are the core
    meeting hours in?"). With `continues`, the sentence right after the best one in its
    chunk, when `continues` accepts it, comes before any spread sentence it outscores
    (the module docstring's *continuation*)."""
    order = sorted(scored, key=lambda s: (-s[0], s[1], s[2]))
    chosen = [order[0]]
    said = {said_key(order[0][3])}

    def fresh(cand: Scored) -> bool:
        # the same sentence in two passages (a page and its copy) says nothing twice
        return cand[0] >= threshold and said_key(cand[3]) not in said

    after = (order[0][1], order[0][2] + 1)
    nxt = next((c for c in order if (c[1], c[2]) == after), None)
    if continues is None or nxt is None or not continues(nxt):
        nxt = None
    for cand in order[1:]:
        if spread is not None and cand[1] not in spread:
            continue
        if fresh(cand) and all(cand[1] != c[1] for c in chosen):
            if nxt is not None and nxt[0] > cand[0] and fresh(nxt) and nxt not in chosen:
                chosen.append(nxt)  # the best sentence goes on before another chunk's
                said.add(said_key(nxt[3]))
            chosen.append(cand)
            said.add(said_key(cand[3]))
    for cand in order[1:]:
        if len(chosen) >= MAX_SENTENCES:
            break
        if fresh(cand) and cand not in chosen:
            chosen.append(cand)
            said.add(said_key(cand[3]))
    return chosen[:MAX_SENTENCES]


def said_key(sentence: str) -> str:
    """A sentence's words, case and spacing aside: what tells two copies of it apart."""
    return " ".join(re.findall(r"\w+", sentence.casefold()))


def parallel(us: Sequence[Unit], si: int, query: str, kind: AnswerType | None) -> list[int]:
    """The lines right before and after unit `si` that state the same thing for another
    case, when the question asks for a value: each states a value of the asked kind and
    holds the same words of the question ("$175,000 was raised on notes with a cap of $5m"
    and "... with a cap of $6m" for "what are the caps?"). One of them alone reads as the
    whole answer."""
    if kind not in VALUE_KINDS or not holds(us[si].text, kind):
        return []
    asked = scoring.content_stems(query)
    own = asked & scoring.content_stems(us[si].text)
    if not own:
        return []

    def same(j: int) -> bool:
        return holds(us[j].text, kind) and (asked & scoring.content_stems(us[j].text)) == own

    out: list[int] = []
    for step in (-1, 1):
        j = si + step
        while 0 <= j < len(us) and same(j) and len(out) < MAX_PARALLEL:
            out.append(j)
            j += step
    return sorted(out)


_STATEMENT = re.compile(r"[.!?]$|\d")
"""A heading that says something: a sentence ("Our mission is to ... online.") or one
that states a value ("Technical Interview — 2 Hour")."""


def telling_headings(
    query: str, quoted: dict[int, list[str]], sections: Sequence[Sequence[str]]
) -> dict[int, str]:
    """The heading to quote before chunk i's sentences (`quoted[i]`): the chunk's own
    heading, when it says something (`_STATEMENT`) and holds a word of the question that
    none of those sentences holds. "What's the company's mission?" is answered by the
    heading "Our mission is to empower everyone to own their identity online."; the chunk's
    sentences only go on from it. `sections[i]` is chunk i's section path."""
    asked = scoring.content_stems(query)
    out: dict[int, str] = {}
    for hi, sentences in quoted.items():
        path = sections[hi] if hi < len(sections) else ()
        heading = path[-1].strip() if path else ""
        if not heading or not _STATEMENT.search(heading):
            continue
        said = set().union(*(scoring.content_stems(s) for s in sentences))
        if (scoring.content_stems(heading) & asked) - said:
            out[hi] = heading
    return out
