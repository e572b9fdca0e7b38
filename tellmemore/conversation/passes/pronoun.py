"""The pronoun pass: "it", "they", "this plan" bound to the most salient agreeing phrase,
or to what the previous question's pronoun was bound to (a chain); pronouns whose
antecedent is in the message itself stand alone."""

from __future__ import annotations

from tellmemore.analysis import lexicon
from tellmemore.conversation.binding import (
    PREDICATES,
    PREPOSITIONS,
    Candidate,
    Phrase,
    containing,
    phrases,
)
from tellmemore.conversation.lists import row_subject
from tellmemore.conversation.passes.state import CHAINED_KINDS, CLAUSE, RunState
from tellmemore.conversation.referents import (
    EllipsisKind,
    Referent,
    ReferentKind,
)
from tellmemore.conversation.text import (
    FUNCTION_WORDS,
    content_words,
    stem,
    tokenize,
)


def find_chained(st: RunState) -> tuple[Phrase, str] | None:
    previous = st.previous()
    if previous is None:
        return None
    prev = previous[1]
    prev_refs, ellipsis = st.previous_parts()
    picked = row_answering(st, previous[0], prev_refs)
    if picked is not None:
        return picked
    sources = [r for r in prev_refs if chain_source(r)]
    refs = {r.text.lower() for r in sources}
    if ellipsis is None:
        # no ellipsis named the subject: whatever referent the previous question had
        # bound ("does the enterprise one cover weekends?" bound to Enterprise
        # escalation) is what a pronoun now keeps, not a phrase of the answer
        sources = list(prev_refs)
        refs = {r.text.lower() for r in sources}
    elif refs:
        ellipsis = None
    if not refs and ellipsis is None:
        return None
    resolved = st.previous_resolved()
    if resolved is None:
        return None
    sub, res = resolved
    for key, value in res.bindings.items():
        # a cue ("that" in "and if I miss that?") stood for the whole question: no
        # antecedent of a referent, and not one to chain through
        if key.lower() in refs and key not in res.cues:
            ref = next(r for r in sources if r.text.lower() == key.lower())
            head = complemented(sub, prev, ref)
            if head is not None:
                return head, "user"
            return Phrase(value, tuple(stem(w) for w in content_words(value))), "user"
    if ellipsis is not None and res.bindings and res.query != prev:
        own = {stem(w) for w in content_words(ellipsis.fragment) if not w.endswith("ly")}
        if ellipsis.kind is EllipsisKind.SUBJECT:
            # "what about the Cisco one?" made the Cisco router the subject: "how do I set
            # it up?" is about it
            return next(((p, "user") for p in phrases(res.query) if set(p.stems) & own), None)
        # "and to care for a veteran who is ill?" added to "Is FMLA leave paid?": the
        # subject is still FMLA leave, and "who is eligible for it?" asks about it
        return next(((p, "user") for p in phrases(res.query) if not set(p.stems) & own), None)
    return None


def row_answering(st: RunState, asked: int, refs: list[Referent]) -> tuple[Phrase, str] | None:
    """ "how many subscribers does the cheaper one allow?" left "the cheaper one"
    unbound, and the answer opened with the row the numbers picked ("Plan: Basic;
    ..."): "does it have an uptime SLA?" is about Basic, not about subscribers."""
    if not any(r.kind == ReferentKind.ONE for r in refs):
        return None
    resolved = st.previous_resolved()
    if resolved is None or resolved[1].bindings:
        return None  # bound: the chain goes through the binding
    answer = next((t for t in st.history[asked + 1 :] if t.role == "assistant"), None)
    subject = row_subject(answer.content) if answer is not None else None
    return (subject, "assistant") if subject is not None else None


def complemented(st: RunState, message: str, ref: Referent) -> Phrase | None:
    """The message's own phrase that `ref` is the complement of: after "what's the
    uptime SLA for it?", a new "it" ("what credit do I get if you miss it?") is the SLA,
    the question's subject, not what the SLA was for."""
    strong, _ = st.inner_bounds(message)
    if strong > ref.start or message[strong : ref.start].strip().lower() not in PREPOSITIONS:
        return None
    before = phrases(message[:strong])
    return before[-1] if before else None


def stands_alone(
    st: RunState, message: str, ref: Referent, cands: list[Candidate], items: list[Phrase]
) -> bool:
    """The referent needs nothing from the history: bound earlier in the message, or a
    demonstrative whose noun no phrase of the history holds ("how can all this money
    help?" after "NASA has invested a lot": the noun says what is meant, and binding
    the most salient phrase instead made "this money (Saturn)")."""
    if bound_in_message(st, message, ref):
        return True
    noun = ref.modifier
    if ref.kind is not ReferentKind.DEMONSTRATIVE or not noun or noun.lower().endswith("ly"):
        return False  # "are these regionally affected?": "these" alone points back
    return containing(noun, items) is None and containing(noun, [c.phrase for c in cands]) is None


def bound_in_message(st: RunState, message: str, ref: Referent) -> bool:
    """A pronoun whose antecedent is earlier in the same message: a name or a
    distinctive phrase anywhere before it ("What about HIV? did it kill many?"), or any
    noun phrase in an earlier clause ("update my credit card, but it keeps failing";
    not "what is the price of it")."""
    if ref.kind == ReferentKind.DEMONSTRATIVE:
        # "I keep seeing the word Kubernetes, but I don't understand this term"
        strong, _ = st.inner_bounds(message)
        return strong <= ref.start and (ref.modifier or "").lower() in _METALINGUISTIC
    if ref.kind not in (ReferentKind.PRONOUN, ReferentKind.POSSESSIVE, ReferentKind.PERSON):
        return False
    strong, clause_end = st.inner_bounds(message)
    if clause_end < ref.start:
        return True  # a noun phrase, then a clause boundary, then the pronoun
    if ref.kind == ReferentKind.PRONOUN and object_of_same_clause(message, ref, strong):
        return False  # "does the Basic plan include it?": not the Basic plan itself
    if complemented(st, message, ref) is not None:
        return False  # "what's the uptime SLA for it?": not the SLA's own complement
    return strong <= ref.start


def object_of_same_clause(message: str, ref: Referent, strong: int) -> bool:
    """A pronoun right after a verb, in the clause of the name before it, is that verb's
    object: never the clause's own subject ("Did NASA fund it?", "does the Basic plan
    include it?"). A possessive may be ("Does the Lite plan keep its data?")."""
    if strong > ref.start or CLAUSE.search(message[strong : ref.start]):
        return False
    # only the word before matters: no re-tokenising the whole prefix for every pronoun
    before = tokenize(message[max(0, ref.start - _LOOKBACK_CHARS) : ref.start])
    if not before:
        return False
    verb = before[-1]
    return verb.text.islower() and verb.low not in FUNCTION_WORDS


_LOOKBACK_CHARS = 40
"""Enough text before a pronoun to hold the word before it."""


def ends_in_predicate(phrase: Phrase) -> bool:
    """ "Sydney available", "Lite pricing plans available": a name or noun, then what was
    said of it."""
    words = phrase.text.split()
    return len(words) > 1 and len(phrase.stems) == len(words) and words[-1].lower() in PREDICATES


def chain_source(ref: Referent) -> bool:
    """A referent of the previous question whose antecedent a pronoun keeps: a pronoun, or
    a bare "that one" ("how much is that one?" bound to Enterprise, then "does it include
    escalation?"); "the Cisco one" names its own subject (an ellipsis)."""
    return ref.kind in CHAINED_KINDS or (ref.kind == ReferentKind.ONE and not ref.modifier)


_METALINGUISTIC = lexicon.words("metalinguistic")
"""Nouns with which "this term" names a word of the same message, not an earlier thing."""
