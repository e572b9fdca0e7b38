"""Word-class guesses without a tagger: whether a frequent verb's form is its bare form, a
participle or the head noun of a compound ("sick leave", "how much paid leave"), read from
the lexicon's word lists and the words around it. Used by `phrases` to cut noun phrases."""

from __future__ import annotations

from collections.abc import Sequence

from tellmemore.analysis import lexicon
from tellmemore.conversation.text import (
    AUXILIARIES,
    COMMON_VERBS,
    FUNCTION_WORDS,
    Token,
    looks_plural,
)

DETERMINERS = lexicon.words("phrase_determiners")


DO = lexicon.words("binding_do")
"""Auxiliaries that take a bare verb: "Will sickle cell kill me?" ends its subject at "kill"."""


VERBISH = COMMON_VERBS | AUXILIARIES | lexicon.words("verbish_more")
"""Words after a do-support subject that are its verb: the subject phrase ended before."""


_NOT_PARTICIPLES = lexicon.words("not_participles")
"""Nouns that end like a past participle."""


ADJECTIVE_ENDINGS = (
    "al", "ive", "ous", "ful", "able", "ible", "ic", "ant", "ent", "less", "ing", "ed", "ly",
)  # fmt: skip


def bare_verb_before_object(toks: Sequence[Token], i: int, run: list[Token]) -> bool:
    """The run is one lower-case word right after an auxiliary taking a bare verb, and
    token i, which ends it, opens an object ("can nominate a", "will affect them"): the
    word is that verb. A subject after the auxiliary is followed by its verb, not by a
    determiner ("can employees take ...")."""
    return (
        len(run) == 1
        and i >= 2
        and toks[i - 2].low in DO
        and run[0] is toks[i - 1]
        and run[0].text.islower()
        and (toks[i].low in DETERMINERS or toks[i].low in _OBJECT_PRONOUNS)
    )


def noun_of_compound(toks: Sequence[Token], i: int, run: list[Token], in_question: bool) -> bool:
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
    if not prev.low.endswith(ADJECTIVE_ENDINGS) and (
        not has_third_person(tok.low) or awaits_verb(toks, i)
    ):
        return False  # "the bone marrow found", "how does the star game work"
    if tok.low.endswith(("s", "ed", "ing")) or prev.low.endswith(("ing", "ed", "ly")):
        return False
    nxt = toks[i + 1].low if i + 1 < len(toks) else ""
    return nxt not in DETERMINERS and nxt not in _OBJECT_PRONOUNS and not nxt[:1].isdigit()


_OBJECT_PRONOUNS = lexicon.words("object_pronouns")


def attributive_participle(toks: Sequence[Token], i: int) -> bool:
    """ "how much paid leave", "the required forms": a past participle between a
    determiner or quantifier and a noun is said of the noun, not a verb."""
    tok = toks[i]
    if i == 0 or i + 1 >= len(toks) or tok.low not in COMMON_VERBS or not tok.text.islower():
        return False
    if has_third_person(tok.low) or tok.low.endswith("ing"):
        return False  # a bare form or an "-ing": "the use", "the remaining"
    if toks[i - 1].low not in DETERMINERS and toks[i - 1].low not in _QUANTIFIERS:
        return False
    nxt = toks[i + 1]
    return nxt.text.islower() and nxt.low not in FUNCTION_WORDS and nxt.low not in DETERMINERS


_QUANTIFIERS = lexicon.words("quantifiers")


def awaits_verb(toks: Sequence[Token], i: int) -> bool:
    """An auxiliary that takes a bare verb comes before token i in its sentence, and no
    verb since: "how does the star game work" ends in that verb."""
    for tok in reversed(toks[:i]):
        if tok.low in DO:
            return True
        if tok.low in VERBISH:
            return False
    return False


def verb_participle(word: str) -> bool:
    """A frequent verb's past participle ("allowed", "paid"): not its bare, "-s" or
    "-ing" form."""
    return word in COMMON_VERBS and not has_third_person(word) and not word.endswith(("s", "ing"))


def has_third_person(word: str) -> bool:
    """A verb's bare form, told by its "-s" form being a verb too ("leave": "leaves"), so
    it can be a noun ("sick leave", "climate change"); "found", "left" cannot."""
    return word + "s" in COMMON_VERBS or word + "es" in COMMON_VERBS


_GRADABLE = lexicon.words("gradable")


def is_graded(word: str) -> bool:
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


def is_comparative(word: str) -> bool:
    """ "better", "cheaper", "other" before "than"; not the noun of "more cases than"."""
    return word.islower() and (word.endswith("er") or word in ("worse", "less"))


def is_participle(word: str) -> bool:
    """A lower-case "-ed" word (not "-eed"): a past participle, never a noun's head."""
    low = word.lower()
    return (
        word.islower()
        and len(low) >= 5
        and low.endswith("ed")
        and not low.endswith("eed")
        and low not in _NOT_PARTICIPLES
    )
