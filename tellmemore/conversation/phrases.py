"""Noun phrases of a text: runs of content words cut at verbs, punctuation and clause words,
parsed once per text and cached. No tagger: word lists from the lexicon and shape cues."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tellmemore.analysis import lexicon, split_sentences
from tellmemore.analysis import stem as _stem
from tellmemore.conversation import constants as C
from tellmemore.conversation.text import (
    COMMON_VERBS,
    FUNCTION_WORDS,
    GENERIC_NOUNS,
    Token,
    is_protected,
    norm,
)
from tellmemore.conversation.verbforms import (
    ADJECTIVE_ENDINGS,
    DETERMINERS,
    DO,
    VERBISH,
    attributive_participle,
    bare_verb_before_object,
    is_comparative,
    is_graded,
    is_participle,
    noun_of_compound,
    verb_participle,
)

PREPOSITIONS = lexicon.words("binding_prepositions")


_SUBJECT_PRONOUNS = lexicon.words("subject_pronouns")


_NOT_NOUNS = lexicon.words("not_nouns")
"""Frequent adjectives and adverbs a lone word can be, which no pronoun points at
(superlatives too: "the cheapest" is the cheapest something)."""


PREDICATES = _NOT_NOUNS | lexicon.words("predicates_more")
"""Adjectives said of a noun at the end of a run ("is the flat tyre free"): kept in the
phrase (the human rewrites carry them too), but no part of a subject that is replaced."""


_COUNT_WORDS = lexicon.words("binding_count_words")
_MODIFIERS = _NOT_NOUNS | _COUNT_WORDS
"""A run of these alone is no antecedent ("the last two")."""


_TRAILING_ADVERBS = lexicon.words("trailing_adverbs")
"""Adverbs that end a run of content words but are no part of its noun phrase."""


_POSTPOSITIVE = lexicon.words("postpositive")
"""Adjectives said of the noun before them ("are there Lite pricing plans available?",
"Moxie sounds familiar"): no part of the noun phrase."""


_NOT_IN_PHRASE_END = _TRAILING_ADVERBS | _POSTPOSITIVE
"""Words that end no noun phrase of two or more words (made once, not per run)."""


_ASPECTUAL = lexicon.words("aspectual")
"""Verbs whose "-ing" is the action itself ("it keeps failing"), not a thing they act on."""


_ACTING_VERBS = COMMON_VERBS - _ASPECTUAL  # "-ing" after them is a thing ("affect skywatching")

_IMPERATIVES = lexicon.words("imperatives")
"""Verbs a request opens with ("Name two spacecraft ...", "List the benefits ...")."""


_NUMBER_WORDS = lexicon.words("number_words")


_JOINERS = lexicon.words("joiners")
"""Joiners allowed inside a capitalised name ("Bank of America")."""


_BREAK_PUNCT = lexicon.pattern("break_punct")


_SENTENCE_END = lexicon.pattern("sentence_end")


_COPULAS = lexicon.words("copulas")


@dataclass(slots=True, unsafe_hash=True)
class Phrase:
    """A run of content words in one text, as written there. Never changed once made (the
    analyses that keep it are shared), but not declared frozen: a frozen dataclass sets
    each field through object.__setattr__, a third of making one."""

    text: str
    stems: tuple[str, ...]
    prep: str | None = None
    """The preposition before it in its sentence ("on" in "on cloud connect")."""
    capitalized: bool = False
    det: bool = False
    """Written after a determiner ("the monthly pass"): substitutions keep one."""


def phrases(text: str) -> list[Phrase]:
    """Noun-phrase-like runs of content words of `text`, left to right, sentence by
    sentence: the phrases of its analysis (`analysis.analyze`, parsed once per text).

    No tagger: runs break at function words, frequent verbs, punctuation and sentence
    ends (a line break too: a heading never runs into the line after it); a lone word
    that reads as an adjective, a participle, a predicate ("is crucial") or a generic noun
    ("week", "things") is no antecedent.
    """
    from tellmemore.conversation.analysis import analyze  # it parses with this module

    return list(analyze(text).phrases)


def parse_phrases(text: str, toks: Sequence[Token], limit: int | None = None) -> tuple[Phrase, ...]:
    """The phrases of one sentence of `text`, given as its tokens (spans into `text`);
    with `limit`, only its first `limit` phrases, read no further than they reach (a phrase
    once made is never changed by the tokens after it)."""
    out: list[Phrase] = []
    run: list[Token] = []
    prep: str | None = None
    last_prep: str | None = None
    det = False
    last_det = False
    before = ""
    last_fn = ""
    initial: set[int] = set()
    do_pending = False
    do_subject = False

    def flush(at_break: bool = False, verb_follows: bool = False, passive: bool = False) -> None:
        nonlocal run
        if not run:
            return
        while run and run[-1].low in _JOINERS:
            run.pop()
        if do_subject and not verb_follows and len(run) > 1 and run[-1].text.islower():
            run.pop()  # "how does version 6.15.0 differ from ...": do-support's bare verb
        while len(run) > 1 and (is_participle(run[-1].text) or run[-1].low in _NOT_IN_PHRASE_END):
            passive = passive or is_participle(run[-1].text)
            run.pop()  # "the Act enacted", "states located": a verb ends the noun phrase;
            # "return the bike late": an adverb does too ("late fee" keeps its "late")
        if run and _is_antecedent(run, before, det, initial, at_break, passive):
            out.extend(_cut(text, run, prep, det, initial))
        run = []

    n_toks = len(toks)
    prev_end, prev_low = 0, ""
    for i, tok in enumerate(toks):
        if limit is not None and len(out) >= limit:
            return tuple(out[:limit])
        word = tok.text
        p_low = prev_low  # the token before ("" before the first)
        if not i:
            initial.add(tok.start)
        elif (between := text[prev_end : tok.start]) != " ":  # one space matches neither
            if _SENTENCE_END.search(between):
                initial.add(tok.start)
            if _BREAK_PUNCT.search(between):
                if run:
                    flush(at_break=True)
                do_pending = False
                last_prep, last_det, last_fn = None, False, ""
        prev_end, prev_low = tok.end, tok.low
        low = tok.low if "'" not in tok.low and "’" not in tok.low else norm(word)  # norm()
        if not run and word.islower() and i:
            if p_low == "how" and low not in FUNCTION_WORDS:
                last_fn = low  # "how fast", "how often": an adverb or adjective, no noun
                continue
            if (p_low in _SUBJECT_PRONOUNS or p_low == "one") and _after_subject_pronoun(toks, i):
                last_fn = low  # "do they respond", "which one protects more": its verb
                continue
        if run:
            if low in ("one", "ones") and len(run) == 1 and is_graded(run[0].text):
                run = []  # "the cheaper one", "the fastest ones": a referent, not a thing
            elif low == "than" and is_comparative(run[-1].text):
                run.pop()  # "is a dynamic secret better than ...": a comparative, no noun
        joiner = (
            low in _JOINERS
            and run
            and run[-1].text[:1].isupper()
            and i + 1 < n_toks
            and toks[i + 1].text[:1].isupper()
        )
        opens = tok.start in initial or (i and p_low in ("please", "you"))
        if opens and _opens_request(low, toks[i + 1 : i + 2]):
            if run:
                flush()
            last_fn = low
            continue
        if (
            joiner
            or (low not in FUNCTION_WORDS and low not in COMMON_VERBS and low)
            or (run and not do_subject and noun_of_compound(toks, i, run, do_subject))
            or (not run and attributive_participle(toks, i))
            or _in_title(toks, i, run, initial)
        ):
            if not run:
                prep, det, before = last_prep, last_det, last_fn
                do_subject, do_pending = do_pending, False
            run.append(tok)
            continue
        if run:
            if len(run) == 1 and bare_verb_before_object(toks, i, run):
                run = []  # "who can nominate a new collaborator?": "nominate" is the verb
            else:
                flush(verb_follows=low in VERBISH, passive=verb_participle(low))
        if low in DO:
            do_pending = True
        elif low not in DETERMINERS:
            do_pending = False
        last_fn = low
        if low in DETERMINERS:
            last_det = True
        else:
            last_prep, last_det = (low if low in PREPOSITIONS else None), False
    flush(at_break=True)
    return tuple(out if limit is None else out[:limit])


def _in_title(toks: Sequence[Token], i: int, run: list[Token], initial: set[int]) -> bool:
    """A verb's form capitalised inside a Title-Case name ("Medical Leave of Absence",
    "Paid Parental Leave Policy"): mid-sentence, a capital says name, not verb, when a
    capitalised word of the name is next to it."""
    tok = toks[i]
    if not tok.text[:1].isupper() or tok.start in initial or tok.low in FUNCTION_WORDS:
        return False
    if run and run[-1].text[:1].isupper():
        return True
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    return nxt is not None and nxt.text[:1].isupper() and nxt.low not in FUNCTION_WORDS


def _after_subject_pronoun(toks: Sequence[Token], i: int) -> bool:
    """Token i follows a subject pronoun ("they"), or "one" after "which"/"each"."""
    if i == 0:
        return False
    prev = toks[i - 1].low
    if prev in _SUBJECT_PRONOUNS:
        return True
    return prev == "one" and i > 1 and toks[i - 2].low in ("which", "each", "every")


def _opens_request(low: str, following: Sequence[Token]) -> bool:
    """ "Name two spacecraft", "List the benefits", "Excuse me": an imperative verb, not
    a noun ("Name servers are slow" keeps its noun)."""
    if not following:
        return False
    nxt = following[0]
    if low in ("excuse", "pardon") and nxt.low == "me":
        return True  # "Excuse me, I meant ...": a formula, not a subject
    if low not in _IMPERATIVES:
        return False
    return nxt.low in DETERMINERS or nxt.low in _NUMBER_WORDS or nxt.text.isdigit()


def _is_antecedent(
    run: list[Token],
    before: str,
    det: bool,
    initial: set[int],
    at_break: bool = False,
    passive: bool = False,
) -> bool:
    """Whether a run is a thing a referent can point at. With `passive`, a participle
    followed the lone word: after a copula it is the subject of a passive ("how are
    salaries decided?"), not a predicate ("is crucial")."""
    if len(run) > 1:  # ... unless every word is a modifier or a count ("the last two")
        return any(norm(t.text) not in _MODIFIERS for t in run)
    tok = run[0]
    low = norm(tok.text)
    named = tok.text[:1].isupper() and tok.start not in initial
    if named or is_protected(tok.text):
        return True
    if low in GENERIC_NOUNS or low in _NOT_NOUNS or low in _TRAILING_ADVERBS:
        return False  # "week", "available", "late" ("if I work late"): no thing
    if before in _COPULAS and not det and not passive:
        return False
    if before == "to" and not det:
        return False  # "how to gather", "wants to recreate": an infinitive, not a thing
    if before in ("most", "least"):
        return False  # "which is the most popular?": a superlative adjective, not a thing
    if det and before == "the" and at_break:
        return True  # "what about the homeless?": an adjective used as a noun
    if low.endswith("ing") and before in _ACTING_VERBS and at_break:
        return True  # "the sources of light that affect skywatching": a gerund, the object
    return not low.endswith(ADJECTIVE_ENDINGS)


def _cut(
    text: str, run: list[Token], prep: str | None, det: bool, initial: set[int]
) -> list[Phrase]:
    """Runs longer than MAX_PHRASE_WORDS are cut into pieces of that size, except a pair of
    names joined by "and" whose sides each fit ("Kestrel Edge K3 and Kestrel Edge K7" had
    been cut into "Kestrel Edge K3 and Kestrel" and "Edge K7")."""
    if len(run) <= C.MAX_PHRASE_WORDS or _fitting_pair(run):
        pieces = [run]
    else:
        pieces = [run[i : i + C.MAX_PHRASE_WORDS] for i in range(0, len(run), C.MAX_PHRASE_WORDS)]
    out = []
    for n, piece in enumerate(pieces):
        stems = tuple([_stem(w) for t in piece if (w := norm(t.text)) not in _JOINERS])
        if not stems:
            continue
        caps = False
        for t in piece:
            if (t.text[:1].isupper() and t.start not in initial) or is_protected(t.text):
                caps = True
                break
        out.append(
            Phrase(
                text[piece[0].start : piece[-1].end],
                stems,
                prep if n == 0 else None,
                caps,
                det and n == 0,
            )
        )
    return out


def _fitting_pair(run: list[Token]) -> bool:
    """A long run that is two phrases joined by one "and", each short enough to keep."""
    if len(run) <= C.MAX_PHRASE_WORDS:
        return False
    joins = [i for i, t in enumerate(run) if t.low in ("and", "&")]
    return (
        len(joins) == 1
        and 0 < joins[0] <= C.MAX_PHRASE_WORDS
        and len(run) - joins[0] - 1 <= C.MAX_PHRASE_WORDS
    )


def sentences(text: str) -> list[str]:
    """The package's one sentence splitter (tellmemore.analysis)."""
    return split_sentences(text)
