"""Subject substitution: "what about the Enterprise plan?" puts the new subject in the
previous question ("does the Pro plan include escalation?" -> "does the Enterprise plan
include escalation?"), keeping every other character of it."""

from __future__ import annotations

import re

from tellmemore.analysis import lexicon
from tellmemore.conversation import constants as C
from tellmemore.conversation.binding import PREDICATES, Phrase, Salience, phrases
from tellmemore.conversation.realize.splice import (
    _DETERMINERS,
    _TRAILING_ARTICLE,
    _TRAILING_DETERMINER,
    splice_modifier,
)
from tellmemore.conversation.referents import ORDINAL_HEADS
from tellmemore.conversation.text import (
    FUNCTION_WORDS,
    RELATIONAL_NOUNS,
    content_words,
    looks_plural,
    norm,
    stem,
    tokenize,
)


def substitute_subject(
    base: str, fragment: str, salience: Salience, *, varied: str | None = None
) -> str | None:
    """ "what's the latency in Amsterdam?" + "Frankfurt" -> "what's the latency in Frankfurt?".

    The replaced phrase is `varied` when the base holds it whole but no phrase parse gives
    it (a list item such as a step: "Pick the region closest to your sites"), else one
    sharing a word with the fragment ("Standard escalation" for "Enterprise escalation"),
    else the phrase the previous follow-up varied (`varied`: "and for Enterprise?" then
    "what about Status Page?" replaces Enterprise), else the most salient phrase of the
    same kind (a name for a name); an attribute ("the late fee") is no subject slot.
    """
    if not fragment:
        return None
    for_people = _people_for_the_asker(base, fragment)
    if for_people is not None:  # "what about contractors?" after "... do I get?"
        return for_people
    parallel = _parallel_one(base, fragment)
    if parallel is not None:  # "and a minor one?" after "... to a critical one?"
        return parallel
    ps = phrases(base)
    if not ps:
        return None
    frag = {stem(w) for w in content_words(fragment)}
    overlap = [p for p in ps if set(p.stems) & frag]
    slot = [p for p in ps if varied and p.text.lower() == varied.lower()]
    at = base.lower().find(varied.lower()) if varied and not slot else -1
    if at >= 0 and varied is not None:  # a list item the previous question named whole
        return base[:at] + fragment + base[at + len(varied) :]
    if overlap:
        target = overlap[0]
    elif slot:
        target = slot[0]
    else:
        if not frag & _ATTRIBUTES:
            # "what about e-bikes?" after "how much is the late fee?": the fee is what is
            # asked of the subject, not the subject; with no other phrase, qualify it
            ps = [p for p in ps if p.stems[-1] not in _ATTRIBUTES]
            if not ps:
                return splice_modifier(base, f"for {fragment}")
        caps = any(t.text[:1].isupper() for t in tokenize(fragment))
        pool = [p for p in ps if p.capitalized and not _sentence_initial(base, p)] if caps else []
        target = max(pool or ps, key=lambda p: salience.phrase(p.stems))
    idx = base.find(target.text)
    if idx < 0:
        return None
    old = (
        _name_within(target.text, fragment)
        or _possessor_within(target.text, fragment, salience)
        or _without_predicate(target.text)
    )
    idx = base.find(old, idx)
    head = base[:idx]
    end = idx + len(old)
    swapped = _modifier_swap(fragment, old) or _kind_swap(fragment, old)
    if swapped is not None:  # "the Team one" for "Status Page Business plan"
        return base[:idx] + swapped + base[end:]
    fragment = _head_for_one(fragment, old)
    one = _PRO_FORM.match(base, end)
    if one is not None and len(content_words(fragment)) >= 2:
        end = one.end()  # "the Standard one" + "the Team plan": "the Team plan", not "... one"
    frag_toks = tokenize(fragment)
    if frag_toks and frag_toks[0].low in _DETERMINERS:
        # "the deadline" replacing "a flat tyre": one determiner, the fragment's
        head = _TRAILING_DETERMINER.sub("", head)
    elif frag_toks and looks_plural(frag_toks[-1].text):
        head = _TRAILING_ARTICLE.sub(" ", head)  # "kids" replacing "a license": no "a kids"
    return head + fragment + base[end:]


_PEOPLE = lexicon.words("people")
"""Groups of people; "-ers" alone would take routers and servers for people."""


_PEOPLE_ENDINGS = ("ees", "ists", "ians")


_ASKER = lexicon.pattern("asker")
"""The asker as a subject ("do I get", "can we use"; "i" typed lower-case too)."""


_AM = lexicon.pattern("am")


def _people_for_the_asker(base: str, fragment: str) -> str | None:
    """ "how many days of annual leave do I get?" + "contractors" -> "... do contractors
    get?": a group of people stands in for the asker, not for the leave."""
    toks = [t for t in tokenize(fragment) if t.low not in _DETERMINERS]
    if not toks or len(toks) > 3:
        return None
    head = toks[-1].low
    if head not in _PEOPLE and not (head.endswith(_PEOPLE_ENDINGS) and len(head) > 5):
        return None
    asker = _asked_subject(base)
    if asker is None:
        return None
    am = _AM.search(base)
    if am is not None:  # "am I eligible?" -> "are contractors eligible?"
        first = "Are" if base[am.start()].isupper() else "are"
        swapped = (
            f"{first} {fragment}" if am.group(0).lower().startswith("am") else (f"{fragment} are")
        )
        return base[: am.start()] + swapped + base[am.end() :]
    return base[: asker.start()] + fragment + base[asker.end() :]


def _asked_subject(base: str) -> re.Match[str] | None:
    """The asker the question asks about: the only "I" or "we" of `base`, or of several the
    only one right after an auxiliary, the subject of the question itself ("I joined 2
    months ago, do I qualify?": the second "I"; the first tells the situation)."""
    asker = list(_ASKER.finditer(base))
    if len(asker) == 1:
        return asker[0]
    asked = [m for m in asker if _after_auxiliary(base, m.start())]
    return asked[0] if len(asked) == 1 else None


def _after_auxiliary(text: str, at: int) -> bool:
    before = tokenize(text[:at])  # the package's one tokenizer: "ago, do" ends in "do"
    return bool(before) and before[-1].low in _AUXILIARIES


_AUXILIARIES = lexicon.words("auxiliaries")


_ENDS_IN_ONE = lexicon.pattern("ends_in_one")


_ATTRIBUTES = frozenset(stem(w) for w in RELATIONAL_NOUNS)


_KIND_ONE = lexicon.pattern("kind_one")


def _parallel_one(base: str, fragment: str) -> str | None:
    """ "how fast do you respond to a critical one?" + "a minor one" -> "... to a minor
    one?": a "kind one" fragment replaces the kind of the base's own "kind one"."""
    new = _KIND_ONE.search(fragment)
    old = _KIND_ONE.search(base)
    if new is None or old is None or new.group("kind").lower() in FUNCTION_WORDS:
        return None
    return base[: old.start("kind")] + new.group("kind") + base[old.end("kind") :]


def _kind_swap(fragment: str, replaced: str) -> str | None:
    """ "business" for "basic plan" -> "business plan": a bare word replaces the kind of a
    phrase headed by a class noun (plan, tier, option), as "the business one" would."""
    toks = tokenize(fragment)
    words = replaced.split()
    if len(toks) != 1 or len(words) < 2 or toks[0].low in ORDINAL_HEADS:
        return None
    if words[-1].lower() not in ORDINAL_HEADS:
        return None
    return _modifier_swap(f"{toks[0].text} one", replaced)


def _modifier_swap(fragment: str, replaced: str) -> str | None:
    """ "the Team one" replacing "Status Page Business plan" -> "Status Page Team plan": the
    pro-form keeps the head and changes one modifier, the last capitalised one for a
    capitalised kind ("Business"), else the one right before the head ("daily pass")."""
    m = _ENDS_IN_ONE.match(fragment)
    words = replaced.split()
    if m is None or len(words) < 2 or not words[-1].isalpha():
        return None  # "version 6.15": a code ends it, no head noun to keep
    kind = [t.text for t in tokenize(m.group("kind")) if t.low not in _DETERMINERS]
    if len(kind) != 1:
        return None
    if kind[0][:1].isupper():
        at = [i for i, w in enumerate(words[:-1]) if w[:1].isupper()]
        if not at:
            return None
        i = at[-1]
    else:
        i = len(words) - 2
    return " ".join([*words[:i], kind[0], *words[i + 1 :]])


def _head_for_one(fragment: str, replaced: str) -> str:
    """ "the Cisco one" replacing "routers" -> "the Cisco routers": the pro-form "one"
    stands for the head noun of what it replaces."""
    m = _ENDS_IN_ONE.match(fragment)
    nouns = [w for w in replaced.split() if w.isalpha() and w.islower()]
    if m is None or not nouns or not content_words(m.group("kind")):
        return fragment
    head = nouns[-1]  # "the previous one" replacing "version 6.15": the previous version
    if m.group("one").lower() == "one" and looks_plural(head):
        head = head[:-1]  # "the Cisco one" is one router
    return f"{m.group('kind')} {head}{m.group('end')}"


def _without_predicate(phrase: str) -> str:
    """ "flat tyre free" -> "flat tyre": "what about damage?" after "is the flat tyre
    free?" asks whether damage is free."""
    toks = tokenize(phrase)
    if len(toks) > 1 and toks[-1].low in PREDICATES:
        return phrase[: toks[-2].end]
    return phrase


_PRO_FORM = lexicon.pattern("pro_form")


def _name_within(phrase: str, fragment: str) -> str | None:
    """The name inside a longer phrase that a bare name replaces: "Frankfurt" for
    "Berlin office" replaces "Berlin" ("the Frankfurt office", not "the Frankfurt")."""
    frag = tokenize(fragment)
    if not frag or not all(t.text[:1].isupper() for t in frag):
        return None
    toks = tokenize(phrase)
    caps = [t for t in toks if t.text[:1].isupper()]
    if not caps or len(caps) == len(toks):
        return None
    first, last = toks.index(caps[0]), toks.index(caps[-1])
    if toks[first : last + 1] != caps:
        return None  # names apart ("Berlin and the Paris office"): leave the phrase whole
    return phrase[caps[0].start : caps[-1].end]


def _possessor_within(phrase: str, fragment: str, salience: Salience) -> str | None:
    """The possessor a bare name replaces in a possessive phrase: "saturn" for "jupiter's
    rings" replaces "jupiter" ("saturn's rings", the rings still asked about). A name is
    one word, capitalised, distinctive in the documents or new to them; "moons" or "size" would
    replace the head instead (the whole phrase, as before)."""
    frag = tokenize(fragment)
    toks = tokenize(phrase)
    if len(frag) != 1 or len(toks) < 2 or not toks[0].low.endswith(("'s", "’s")):
        return None
    word = frag[0].text
    distinctive = salience.weight(word) >= C.DISTINCTIVE_IDF or norm(word) in salience.unseen
    if looks_plural(word) or not (word[:1].isupper() or distinctive):
        return None
    return phrase[toks[0].start : toks[0].end - 2]


def _sentence_initial(text: str, p: Phrase) -> bool:
    return text.lstrip().startswith(p.text)
