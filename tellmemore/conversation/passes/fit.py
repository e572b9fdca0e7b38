"""A pronoun's antecedent chosen by what the documents can answer.

The salience of the history's phrases (how rare, how recent, who said them) ranks the
candidates; among the first few, the one that turns the message into a question the index
answers well is more likely the one meant. "how far back do they go?" with "the background
check" in place of "they" finds the policy's passage; with "the necessary pieces" (a rarer
phrase of the last answer) it finds nothing close. Each candidate is put in the referent's
place, the question searched (`ResolveContext.passage_fit`: its best passage's cosine), and
salience + weight x cosine decides. Nothing here is a word list; the evidence is the user's
own index, and the antecedent is still a phrase of the conversation, never the documents'.
Held out (bench/results/antecedent_fit.md): labelled bindings of six handbooks +5 / -0,
MTRAG-UN follow-up nDCG@5 +0.005 / +0.004, MTRAG leave-one-domain-out within 0.005.
"""

from __future__ import annotations

from tellmemore.conversation import chooser
from tellmemore.conversation import constants as C
from tellmemore.conversation.binding import Candidate, overlaps
from tellmemore.conversation.passes.state import RunState
from tellmemore.conversation.realize import replacement, splice
from tellmemore.conversation.referents import Referent
from tellmemore.conversation.text import content_words, stem


def by_passage_fit(
    st: RunState, message: str, ref: Referent, ranked: list[tuple[Candidate, float]]
) -> Candidate:
    """The antecedent among `ranked` (candidates with their agreement-weighted salience,
    best first) whose rewritten question fits the documents best, salience counting too.
    The first one when the caller has no index, when it shares a word with the message
    (its fit cannot be compared: `own_stems`), or when no other candidate could take its
    place."""
    fit = st.context.passage_fit
    if fit is None:
        return ranked[0][0]
    said = own_stems(message, ref)
    if overlaps(ranked[0][0].phrase.stems, said):
        return ranked[0][0]
    head = [
        (c, s)
        for c, s in ranked[: C.FIT_CANDIDATES]
        if c.score >= C.MIN_ANTECEDENT and not overlaps(c.phrase.stems, said)
    ]
    if len(head) < 2:
        return ranked[0][0]
    questions = [
        splice(message, [(ref, replacement(ref, c.phrase, st.surface(c.phrase), message))])
        for c, _ in head
    ]
    return head[choose(st, head, list(fit(questions)))][0]


def choose(st: RunState, head: list[tuple[Candidate, float]], fits: list[float]) -> int:
    """The index in `head` of the antecedent meant: the learned chooser's pick
    (`conversation.chooser`, `ResolveContext.learned_antecedent`), else salience + weight x
    fit."""
    model = chooser.shipped() if st.context.learned_antecedent else None
    if model is not None:
        return model.best(chooser.features(head, fits, len(st.history)))
    return hand_set(head, fits)


def hand_set(head: list[tuple[Candidate, float]], fits: list[float]) -> int:
    """The hand-set choice: salience + FIT_WEIGHT x fit."""
    return max(range(len(head)), key=lambda i: head[i][1] + C.FIT_WEIGHT * fits[i])


def own_stems(message: str, ref: Referent) -> set[str]:
    """The stems of the message's content words outside the referent. A candidate holding
    one makes a question that says it twice in the referent's place ("what is plan code
    CC-PRO-2026's plan code?"), which matches the passage holding them, the answer, whatever
    is meant: its fit cannot be compared with the others'."""
    return {stem(w) for w in content_words(f"{message[: ref.start]} {message[ref.end :]}")}
