"""String surgery for standalone queries: splice antecedents into the message, rebuild an
elided question, append carried phrases, write and read clarifying questions.

Every function keeps the message's own characters outside the spans it replaces, so
codes, numbers and dates survive exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

from tellmemore.analysis import lexicon
from tellmemore.conversation.binding import Phrase
from tellmemore.conversation.referents import ORDINAL_HEADS, ORDINALS, Referent, ReferentKind
from tellmemore.conversation.text import (
    TIME_WORDS,
    Token,
    norm,
    stem,
    tokenize,
)

_PREPS = lexicon.words("compose_prepositions")
_CONDITIONS = lexicon.words("conditions")
"""Openers of a condition clause: "and if I never return it?" replaces "if I return it late"."""
MAX_TAIL_TOKENS = 4
_DETERMINERS = lexicon.words("determiners")
_TRAILING_ARTICLE = lexicon.pattern("trailing_article")
_TRAILING_DETERMINER = lexicon.pattern("trailing_determiner")
"""A trailing "on weekdays" this short is replaced by the new modifier "on holidays"."""


def split_end(text: str) -> tuple[str, str]:
    """("How much is it", "?") from "How much is it?"."""
    core = text.rstrip()
    end = ""
    while core and core[-1] in "?!.":
        end = core[-1] + end
        core = core[:-1].rstrip()
    return core, end


def splice(
    message: str,
    edits: Sequence[tuple[Referent, str]],
    *,
    scope: tuple[Referent, str] | None = None,
) -> str:
    """`message` with each referent span replaced; `scope` text inserted after one of them."""
    out, pos = [], 0
    for ref, text in sorted(edits, key=lambda e: e[0].start):
        out.append(message[pos : ref.start])
        out.append(text)
        if scope is not None and scope[0] is ref:
            out.append(" " + scope[1])
        pos = ref.end
    out.append(message[pos:])
    return "".join(out)


def splice_modifier(base: str, fragment: str) -> str | None:
    """ "What time do shops close on weekdays?" + "on holidays" ->
    "What time do shops close on holidays?"."""
    if not fragment:
        return None
    core, end = split_end(base)
    toks = tokenize(fragment)
    if toks and toks[0].low in _CONDITIONS:
        # "what if I return it late?" + "if I never return it": the new condition
        # replaces the old one, wherever it starts
        # ("When does the shop open?": a question word, not a condition)
        at = [t for t in tokenize(core)[1:] if t.low == toks[0].low]
        if at:
            return f"{core[: at[-1].start].rstrip()} {fragment}{end or '?'}"
    if toks and toks[0].low in _PREPS:
        core_toks = tokenize(core)
        tail = range(len(core_toks) - 1, max(len(core_toks) - 1 - MAX_TAIL_TOKENS, -1), -1)
        for i in tail:
            if core_toks[i].low == toks[0].low:
                if _is_time(core[core_toks[i].end :]) == _is_time(fragment):
                    core = core[: core_toks[i].start].rstrip()
                break  # "the SLA on status page incidents" + "on holidays": both stay
        else:
            named = _named_scope(core_toks, tail) if _names_a_scope(toks) else None
            if named is not None:  # "... step 3 on Windows?" + "for macOS": the scope is swapped
                core = core[: core_toks[named].start].rstrip()
    return f"{core} {fragment}{end or '?'}"


_SCOPE_PREPS = lexicon.words("scope_preps")
"""Prepositions of a scope ("on Windows", "for macOS", "in Dublin"): one replaces another."""


def is_name(word: str) -> bool:
    """A capital anywhere makes a word a name: "Windows", "macOS", "EU"."""
    return any(c.isupper() for c in word)


def _names_a_scope(toks: list[Token]) -> bool:
    """ "for macOS", "in Cork": a scope preposition before a name, nothing else."""
    return len(toks) in (2, 3) and toks[0].low in _SCOPE_PREPS and is_name(toks[1].text)


def _named_scope(core_toks: list[Token], tail: range) -> int | None:
    """Where the core's closing scope ("on Windows") starts, if it ends with one."""
    for i in tail:
        if core_toks[i].low in _SCOPE_PREPS:
            obj = core_toks[i + 1 :]
            return i if 1 <= len(obj) <= 2 and all(is_name(t.text) for t in obj) else None
    return None


_IN_TIMES = lexicon.words("in_times")
_BARE_TIMES = lexicon.words("bare_times")


def time_qualifier(fragment: str) -> str:
    """A bare time as a qualifier: "Sundays" -> "on Sundays", "the evening" -> "in the
    evening", "night" -> "at night"; "tomorrow" needs no preposition."""
    toks = tokenize(fragment)
    last = toks[-1].low if toks else ""
    if last in _BARE_TIMES:
        return fragment
    prep = "in" if last in _IN_TIMES else "at" if last in ("night", "nights") else "on"
    return f"{prep} {fragment}"


_THE_ORDINAL = lexicon.pattern("the_ordinal")


def same_ordinal(query: str, typed: str) -> str:
    """ "and the last one?" after "what's the second step?": the rebuilt question asks
    for "the last step", not "the second step" with the last step's text."""
    new = _THE_ORDINAL.search(typed)
    if new is None or new.group("ordinal").lower() not in ORDINALS:
        return query
    for m in _THE_ORDINAL.finditer(query):
        old = m.group("ordinal").lower()
        swapped = old in ORDINALS and old != new.group("ordinal").lower()
        if swapped and m.group("head").lower() in ORDINAL_HEADS:
            at = m.start("ordinal")
            return query[:at] + new.group("ordinal") + query[m.end("ordinal") :]
    return query


def _is_time(phrase: str) -> bool:
    """ "on weekdays", "on public holidays": a time qualifier, which a new time qualifier
    replaces; "on status page incidents" is the subject, which it qualifies."""
    return any(t.low in TIME_WORDS for t in tokenize(phrase))


def append_phrases(message: str, picked: Sequence[tuple[Phrase, str]]) -> str:
    """ "population back then" + "Quit India Movement" ->
    "population back then (Quit India Movement)"; a known preposition reads better:
    "Disaster Recovery for Block Storage"."""
    if not picked:
        return message
    core, end = split_end(message)
    first, text = picked[0]
    rest = [t for _, t in picked[1:]]
    if first.prep:
        out = f"{core} {first.prep} {text}"
        if rest:
            out += f" ({', '.join(rest)})"
    else:
        out = f"{core} ({', '.join([text, *rest])})"
    return out + end


def append_words(message: str, words: Sequence[str]) -> str:
    """ "how do I apply?" + ["FMLA", "leave"] -> "how do I apply (FMLA leave)?": single
    carried words (conversation/terms.py) after the message's own words; into the carried
    phrases' parenthesis when the query ends with one ("in July (full amount, budget
    learning)"), not a second one after it."""
    if not words:
        return message
    core, end = split_end(message)
    if core.endswith(")") and "(" in core:
        return f"{core[:-1]}, {' '.join(words)}){end}"
    return f"{core} ({' '.join(words)}){end}"


def replacement(ref: Referent, phrase: Phrase, text: str, message: str) -> str:
    """What replaces a referent span: the antecedent (with "the", "'s" and a capital as
    the sentence needs), or the referent supplemented when the antecedent is only the
    topic ("those conversations (Watson Assistant)")."""
    if (
        ref.kind == ReferentKind.DEMONSTRATIVE
        and ref.modifier
        and stem(ref.modifier) not in phrase.stems
    ):
        return f"{ref.text} ({text})"
    supplemented = ref.kind == ReferentKind.OTHER or (
        ref.kind == ReferentKind.ORDINAL and ref.modifier is not None
    )
    if supplemented and stem(ref.modifier or "one") not in phrase.stems:
        return f"{ref.text} ({text})"  # "the second step (Pick the region ...)"
    if ref.kind == ReferentKind.WHICH:
        return f"which of {text}"
    common_head = text[:1].islower() or text.split()[-1][:1].islower()
    out = f"the {text}" if phrase.det and common_head else text  # "the Pro plan"
    if ref.kind == ReferentKind.POSSESSIVE or ref.text.lower() == "his":
        out += "'s"
    if ref.text.lower().replace("’", "'") == "it's" or (
        ref.kind == ReferentKind.PRONOUN and ref.text.lower() == "its"
    ):
        out += " is"  # "if it's missed" (or "its missed") -> "if the SLA is missed"
    if ref.start == 0 and message[:1].isupper():
        out = out[:1].upper() + out[1:]
    return out


def splice_word(message: str, start: int, word: str, antecedent_text: str) -> str:
    """`message` with the head `word` at `start` replaced by the antecedent ("the projector"
    -> "the pinhole projector"); a possessive keeps its mark ("the New England Patriots'
    coach")."""
    if norm(word) != word.lower().replace("’", "'"):
        antecedent_text += "'" if antecedent_text.endswith("s") else "'s"
    return message[:start] + antecedent_text + message[start + len(word) :]


def keep_protected(query: str, missing: Sequence[str]) -> str:
    """`query` with the message's codes, numbers and dates it lost appended (seed 002)."""
    return f"{query} {' '.join(missing)}" if missing else query


def scope_text(prep: str | None, text: str) -> str:
    """ "on Cloud Connect": the scope a bound phrase of the answer gets."""
    return f"{prep or 'for'} {text}"
