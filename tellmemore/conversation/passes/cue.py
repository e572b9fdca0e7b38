"""The key of a whole-message binding (issue 20: the binding shown to the user is clean).

A referent pass keys its binding by the referent it replaced ("it", "the first one"). An
ellipsis rebuilt from the previous question, or a topic carried into a message that names
none, binds the message as a whole; its key is the message's *cue*, the words as typed
that point back, one convention for every such pass:

1. the first referent the message typed that no other binding keys ("the third one" in
   "tell me more about the third one"), else its first pointer word, a pronoun or a
   clause-final demonstrative the binder left alone ("that" in "and if I miss that?",
   "it" in "does it apply if we adopt?");
2. else the ellipsis's fragment, its conjunction dropped: "for Enterprise" in "and for
   Enterprise?", "installation" in "what about installation?";
3. else the ellipsis's opener, its conjunction dropped: "tell me more";
4. else the message as typed: "How do I apply?" with the topic carried typed no cue at all.

A key narrower than the message is recorded in `Resolution.cues`: it stands for the
whole message, so a later pronoun does not chain through it and the phrasings do not read
it as a referent the resolver replaced.
"""

from __future__ import annotations

from collections.abc import Collection

from tellmemore.analysis import lexicon
from tellmemore.conversation.referents import (
    DEMONSTRATIVES,
    PRONOUNS,
    find_ellipsis,
    find_referents,
)
from tellmemore.conversation.text import tokenize

_CONJUNCTIONS = frozenset(("and", "but", "or", "so", "then", "also", "plus"))
_DUMMY = lexicon.words("dummy_it_next")
_AUXILIARIES = lexicon.words("auxiliaries")


def as_typed(text: str) -> str:
    """The words of `text` as the user typed them, spaces folded, end punctuation dropped."""
    return " ".join(text.split()).strip(" ?.!,;:")


def cue_key(typed: str, taken: Collection[str] = ()) -> str:
    """The key of a whole-message binding of `typed` (the module's convention); `taken`:
    the keys the message's referent bindings hold already."""
    whole = as_typed(typed)
    for ref in find_referents(typed):
        key = as_typed(ref.text)
        if key and key not in taken:
            return key
    pointer = _pointer_word(typed)
    if pointer and pointer not in taken:
        return pointer
    ellipsis = find_ellipsis(typed)
    if ellipsis is not None:
        for part in (ellipsis.fragment, ellipsis.opener):
            key = _unjoined(as_typed(_as_cased(part, typed)))
            if key and key not in taken:
                return key
    rest = _unjoined(whole)  # "and?" is all conjunction: the message as typed
    return rest if rest and rest not in taken else whole


def narrower(key: str, typed: str) -> tuple[str, ...]:
    """(key,) when `key` is a cue inside `typed`, not the whole message: `Resolution.cues`."""
    return () if key == as_typed(typed) else (key,)


def _pointer_word(typed: str) -> str | None:
    """The first pronoun of `typed` that points ("does it apply": not the dummy "it" of
    "is it possible to"), or its first demonstrative that ends a clause ("if I miss that?":
    not the "that" of "the rule that says") or is the subject after an auxiliary ("is
    that at full pay?", "how long does that go on for?")."""
    toks = tokenize(typed)
    for i, t in enumerate(toks):
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if t.low in PRONOUNS and not (t.low == "it" and nxt is not None and nxt.low in _DUMMY):
            return t.text
        ends = nxt is None or bool(typed[t.end : nxt.start].strip())
        subject = i > 0 and toks[i - 1].low in _AUXILIARIES
        if t.low in DEMONSTRATIVES and (ends or subject):
            return t.text
    return None


def _as_cased(part: str, typed: str) -> str:
    """`part` as `typed` spells it ("In water", not the lowered "in water")."""
    at = typed.lower().find(part.lower())
    return typed[at : at + len(part)] if at >= 0 and part else part


def _unjoined(text: str) -> str:
    """`text` without the conjunctions that open it ("and for contractors")."""
    words = text.split()
    while words and words[0].lower().strip(",") in _CONJUNCTIONS:
        words = words[1:]
    return " ".join(words).strip(" ,")
