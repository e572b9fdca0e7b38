"""Noun phrases of a text: runs of content words cut at verbs, punctuation and clause words,
parsed once per text and cached. No tagger: word lists from the lexicon and shape cues."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tellmemore.analysis import lexicon, split_sentences
from tellmemore.analysis import stem as _stem
from tellmemore.conversation import constants as C
from tellmemore.conversation.text import (
    AUXILIARIES,
    COMMON_VERBS,
    FUNCTION_WORDS,
    GENERIC_NOUNS,
    Token,
    is_protected,
    looks_plural,
    norm,
)

PREPOSITIONS = lexicon.words("binding_prepositions")


_DETS = lexicon.words("phrase_determiners")


_SUBJECT_PRONOUNS = lexicon.words("subject_pronouns")


_DO = lexicon.words("binding_do")
"""Auxiliaries that take a bare verb: "Will sickle cell kill me?" ends its subject at "kill"."""


_VERBISH = COMMON_VERBS | AUXILIARIES | lexicon.words("verbish_more")
"""Words after a do-support subject that are its verb: the subject phrase ended before."""


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


_NOT_PARTICIPLES = lexicon.words("not_participles")
"""Nouns that end like a past participle."""


_JOINERS = lexicon.words("joiners")
"""Joiners allowed inside a capitalised name ("Bank of America")."""


_BREAK_PUNCT = lexicon.pattern("break_punct")


_SENTENCE_END = lexicon.pattern("sentence_end")


_COPULAS = lexicon.words("copulas")


_ADJECTIVE_ENDINGS = (
    "al", "ive", "ous", "ful", "able", "ible", "ic", "ant", "ent", "less", "ing", "ed", "ly",
)  # fmt: skip


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
        while len(run) > 1 and (_is_participle(run[-1].text) or run[-1].low in _NOT_IN_PHRASE_END):
            passive = passive or _is_participle(run[-1].text)
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
            if low in ("one", "ones") and len(run) == 1 and _is_graded(run[0].text):
                run = []  # "the cheaper one", "the fastest ones": a referent, not a thing
            elif low == "than" and _is_comparative(run[-1].text):
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
            or (run and not do_subject and _noun_of_compound(toks, i, run, do_subject))
            or (not run and _attributive_participle(toks, i))
        ):
            if not run:
                prep, det, before = last_prep, last_det, last_fn
                do_subject, do_pending = do_pending, False
            run.append(tok)
            continue
        if run:
            if len(run) == 1 and _bare_verb_before_object(toks, i, run):
                run = []  # "who can nominate a new collaborator?": "nominate" is the verb
            else:
                flush(verb_follows=low in _VERBISH, passive=_verb_participle(low))
        if low in _DO:
            do_pending = True
        elif low not in _DETS:
            do_pending = False
        last_fn = low
        if low in _DETS:
            last_det = True
        else:
            last_prep, last_det = (low if low in PREPOSITIONS else None), False
    flush(at_break=True)
    return tuple(out if limit is None else out[:limit])


def _bare_verb_before_object(toks: Sequence[Token], i: int, run: list[Token]) -> bool:
    """The run is one lower-case word right after an auxiliary taking a bare verb, and
    token i, which ends it, opens an object ("can nominate a", "will affect them"): the
    word is that verb. A subject after the auxiliary is followed by its verb, not by a
    determiner ("can employees take ...")."""
    return (
        len(run) == 1
        and i >= 2
        and toks[i - 2].low in _DO
        and run[0] is toks[i - 1]
        and run[0].text.islower()
        and (toks[i].low in _DETS or toks[i].low in _OBJECT_PRONOUNS)
    )


def _noun_of_compound(toks: Sequence[Token], i: int, run: list[Token], in_question: bool) -> bool:
    """ "annual leave", "parental leave", "medical claim": a verb's bare form right after
    an adjective (by its ending) is the head noun of the adjective's phrase, unless an
    object follows ("the additional staff leave the office") or it is the bare verb of a
    do-question ("does the annual plan include ...")."""
    tok = toks[i]
    if in_question or tok.low not in COMMON_VERBS or not run or not tok.text.islower():
        return False
    prev = run[-1]
    acronym = len(prev.text) > 1 and prev.text.isupper()  # "FMLA leave"
    if not (prev.text.islower() or acronym) or (not acronym and looks_plural(prev.text)):
        return False  # "employees leave early": a plural subject and its verb
    if not prev.low.endswith(_ADJECTIVE_ENDINGS) and (
        not _has_third_person(tok.low) or _awaits_verb(toks, i)
    ):
        return False  # "the bone marrow found", "how does the star game work"
    if tok.low.endswith(("s", "ed", "ing")) or prev.low.endswith(("ing", "ed", "ly")):
        return False
    nxt = toks[i + 1].low if i + 1 < len(toks) else ""
    return nxt not in _DETS and nxt not in _OBJECT_PRONOUNS and not nxt[:1].isdigit()


_OBJECT_PRONOUNS = lexicon.words("object_pronouns")


def _attributive_participle(toks: Sequence[Token], i: int) -> bool:
    """ "how much paid leave", "the required forms": a past participle between a
    determiner or quantifier and a noun is said of the noun, not a verb."""
    tok = toks[i]
    if i == 0 or i + 1 >= len(toks) or tok.low not in COMMON_VERBS or not tok.text.islower():
        return False
    if _has_third_person(tok.low) or tok.low.endswith("ing"):
        return False  # a bare form or an "-ing": "the use", "the remaining"
    if toks[i - 1].low not in _DETS and toks[i - 1].low not in _QUANTIFIERS:
        return False
    nxt = toks[i + 1]
    return nxt.text.islower() and nxt.low not in FUNCTION_WORDS and nxt.low not in _DETS


_QUANTIFIERS = lexicon.words("quantifiers")


def _awaits_verb(toks: Sequence[Token], i: int) -> bool:
    """An auxiliary that takes a bare verb comes before token i in its sentence, and no
    verb since: "how does the star game work" ends in that verb."""
    for tok in reversed(toks[:i]):
        if tok.low in _DO:
            return True
        if tok.low in _VERBISH:
            return False
    return False


def _verb_participle(word: str) -> bool:
    """A frequent verb's past participle ("allowed", "paid"): not its bare, "-s" or
    "-ing" form."""
    return (
        word in COMMON_VERBS and not _has_third_person(word) and not word.endswith(("s", "ing"))
    )


def _has_third_person(word: str) -> bool:
    """A verb's bare form, told by its "-s" form being a verb too ("leave": "leaves"), so
    it can be a noun ("sick leave", "climate change"); "found", "left" cannot."""
    return word + "s" in COMMON_VERBS or word + "es" in COMMON_VERBS


_GRADABLE = lexicon.words("gradable")


def _is_graded(word: str) -> bool:
    """ "cheaper", "cheapest", "bigger", "easiest", "better": a comparative or superlative
    of a common adjective, not a noun in -er ("the router one")."""
    if not word.islower():
        return False
    if word in ("better", "best", "worse", "worst", "less", "least", "more", "most"):
        return True
    for end in ("er", "est"):
        if word.endswith(end):
            base = word[: -len(end)]
            bases = {base, base + "e", base[:-1]}  # cheap-er, larg(e)-er, big(g)-er
            if base.endswith("i"):
                bases.add(base[:-1] + "y")  # eas(y)-ier
            return not bases.isdisjoint(_GRADABLE)
    return False


def _is_comparative(word: str) -> bool:
    """ "better", "cheaper", "other" before "than"; not the noun of "more cases than"."""
    return word.islower() and (word.endswith("er") or word in ("worse", "less"))


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
    return nxt.low in _DETS or nxt.low in _NUMBER_WORDS or nxt.text.isdigit()


def _is_participle(word: str) -> bool:
    """A lower-case "-ed" word (not "-eed"): a past participle, never a noun's head."""
    low = word.lower()
    return (
        word.islower()
        and len(low) >= 5
        and low.endswith("ed")
        and not low.endswith("eed")
        and low not in _NOT_PARTICIPLES
    )


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
    return not low.endswith(_ADJECTIVE_ENDINGS)


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
