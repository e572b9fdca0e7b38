"""Things a question sets side by side: "my laptop and phone", "between FMLA and paid
parental leave", "static or dynamic secrets", "Terraform vs Ansible".

A follow-up that then speaks of one thing ("what rules do I have to follow with it?",
"how do I apply?") means one of them, and nothing says which: binding the more salient
one is a guess (seed 003). `one_of` reads which conjunct an antecedent is, and how close
the other one comes, for the two decisions that ask instead of guessing (a singular
pronoun in `passes.bind`, a message with no subject of its own in `passes.carry`).

The analysis is shared by both and reads only what the phrase parser already gives (the
question's noun phrases and the characters between them); the joining words and the
pronouns that point at a thing are data (lexicon: "coordination", "coordination_contrast",
"thing_pronouns"). The one threshold (`COORD_RATIO`) is chosen by
`bench/referent_ambiguity.py` on each MTRAG-UN domain with MTRAG's follow-ups (each
resolvable: an ask there is a false one) as negatives. Opt-in
(`conversation.ask_coordinated`): it asked the two such turns of the TTS handbook, nothing
new on MTRAG or MTRAG-UN, and on the held-out PostHog handbook no missed ask-back and one
false one (bench/results/coordination_ask.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tellmemore.analysis import lexicon
from tellmemore.conversation.analysis import analyze
from tellmemore.conversation.binding import Candidate, Phrase
from tellmemore.conversation.phrases import PREDICATES
from tellmemore.conversation.text import COMMON_VERBS, FUNCTION_WORDS, norm, stem
from tellmemore.conversation.verbforms import DETERMINERS, DO

_GAP = lexicon.pattern("coordination")
"""What may stand between two conjuncts: "and", "or", "vs", a determiner after it, and
up to two modifiers the phrase parser left out ("and paid parental leave")."""

_CONTRAST = lexicon.pattern("coordination_contrast")
"""A question that sets its conjuncts against each other ("between", "or", "vs",
"difference", "compare"): what follows speaks of one of them, not of both together."""


THING_PRONOUNS = lexicon.words("thing_pronouns")
"""A pronoun that points at one thing ("it"), not at what was said ("this"): "any good idea
to this?" after "chemo and fertility" means both at once (MTRAG's one resolvable follow-up
the rule read)."""


@dataclass(frozen=True)
class Coordination:
    """Conjuncts of one question, as options to offer, and whether they were contrasted."""

    options: tuple[Phrase, ...]
    contrast: bool


def coordinations(question: str) -> list[Coordination]:
    """The groups of two or more noun phrases `question` joins with "and", "or", "vs"."""
    a = analyze(question)
    located: list[tuple[Phrase, int, int]] = []
    pos = 0
    for p in a.phrases:
        at = question.find(p.text, pos)
        if at < 0:
            continue
        located.append((p, at, at + len(p.text)))
        pos = at + len(p.text)
    groups: list[list[tuple[Phrase, int, int]]] = []
    last = -1  # the located phrase the last group ends with
    for k in range(1, len(located)):
        prev, cur = located[k - 1], located[k]
        m = _GAP.fullmatch(question[prev[2] : cur[1]])
        if m is None:
            continue
        mods, tail = m.group("mod") or "", (m.group("tail") or "").strip()
        if any(_not_modifier(norm(w)) for w in (*mods.split(), *tail.split())) or (
            norm(tail) in PREDICATES
        ):
            continue  # "and then", "and reduce costs", "plans available and": no conjunct
        item = (_grow(cur[0], mods), cur[1] - len(mods), cur[2])
        if groups and last == k - 1 and not tail:
            groups[-1].append(item)  # "A and B or C"
        else:
            first = prev[0]
            if tail:  # "Starter" + "plan" the parser took for do-support's verb
                first = Phrase(f"{first.text} {tail}", (*first.stems, stem(norm(tail))))
            groups.append([(first, prev[1], prev[2] + 1 + len(tail)), item])
        last = k
    out = []
    for g in groups:
        options = _without_verb(question, g)
        if len({frozenset(p.stems) for p in options}) < len(options):
            continue  # one thing said twice
        contrast = bool(_CONTRAST.search(question))
        out.append(Coordination(tuple(options), contrast))
    return out


def _not_modifier(word: str) -> bool:
    return word in FUNCTION_WORDS or (word in COMMON_VERBS and not word.endswith(("ed", "id")))


def _grow(p: Phrase, mods: str) -> Phrase:
    """The conjunct with the modifiers the parser left out before it ("paid")."""
    if not mods.strip():
        return p
    words = mods.split()
    return Phrase(f"{mods.strip()} {p.text}", (*(stem(norm(w)) for w in words), *p.stems))


def _without_verb(question: str, group: Sequence[tuple[Phrase, int, int]]) -> list[Phrase]:
    """The conjuncts, the last without the bare verb an auxiliary's subject ends in ("will
    my laptop and phone arrive?": "phone", not "phone arrive")."""
    phrases = [p for p, _, _ in group]
    first, last = group[0], group[-1]
    before = [norm(w) for w in question[: first[1]].split()]
    while before and before[-1] in DETERMINERS:
        before.pop()
    rest = question[last[2] :].strip()
    words = last[0].text.split()
    if before and before[-1] in DO and (not rest or not rest[0].isalnum()) and len(words) > 1:
        cut = last[0]
        phrases[-1] = Phrase(" ".join(words[:-1]), cut.stems[:-1], cut.prep, cut.capitalized)
    return [_without_predicate(p) for p in phrases]


def _without_predicate(p: Phrase) -> Phrase:
    """The conjunct without an adjective said of it ("the monthly pass better for
    tourists": "monthly pass")."""
    words = p.text.split()
    while len(words) > 1 and norm(words[-1]) in PREDICATES:
        words.pop()
    if len(words) == len(p.text.split()):
        return p
    return Phrase(" ".join(words), p.stems[: len(words)], p.prep, p.capitalized)


@dataclass(frozen=True)
class OneOf:
    """An antecedent that is one conjunct of the last question, and its rivals."""

    options: tuple[Phrase, ...]
    ratio: float
    """The best other conjunct's candidate score over the antecedent's (0: none scored)."""
    contrast: bool


def _own(p: Phrase, options: Sequence[Phrase]) -> set[str]:
    """The conjunct's words the others do not share ("runtime distribution" of two
    charts)."""
    shared = set.intersection(*(set(o.stems) for o in options))
    return set(p.stems) - shared or set(p.stems)


def one_of(
    question: str,
    message: str,
    best: Phrase,
    ranked: Sequence[tuple[Candidate, float]],
) -> OneOf | None:
    """`best` (the antecedent binding would pick) is one conjunct of `question` (the user's
    last question), and `message` names none of them: the conjuncts, and how close the
    best other conjunct's score comes to the antecedent's. `ranked`: candidates with their
    scores, best first. None when the antecedent is no conjunct."""
    said = analyze(message).stems
    top = next((s for c, s in ranked if c.phrase is best), ranked[0][1] if ranked else 0.0)
    for group in coordinations(question):
        opts = group.options
        hit = [o for o in opts if _own(o, opts) & set(best.stems)]
        if len(hit) != 1:
            continue
        if any(_own(o, opts) & said for o in opts):
            return None  # "what rules apply to the phone?": it names one
        others = [o for o in opts if o is not hit[0]]
        rival = max(
            (s for c, s in ranked if any(_own(o, opts) & set(c.phrase.stems) for o in others)),
            default=0.0,
        )
        ratio = rival / top if top > 0 else 0.0
        return OneOf(opts, ratio, group.contrast)
    return None


COORD_RATIO = 0.0
"""A pronoun bound to one conjunct of the last question asks which one when the other
conjunct's candidate score is at least this share of it (0: whenever it is a conjunct).
Chosen by bench/referent_ambiguity.py on each MTRAG-UN domain with MTRAG's follow-ups as
negatives (the loosest ratio that asks none of them): 0 on both. The scores compare IDF
more than what the user meant: both conjuncts were said in one breath."""


def asks(found: OneOf | None, ratio: float = COORD_RATIO) -> bool:
    return found is not None and found.ratio >= ratio


def asks_carried(found: OneOf | None, ratio: float = COORD_RATIO) -> bool:
    """A message with no subject of its own would carry one conjunct of a question that
    set them against each other ("difference between FMLA and paid parental leave", then
    "how do I apply?")."""
    return found is not None and found.contrast and found.ratio >= ratio
