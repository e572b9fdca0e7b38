"""Lists in a quoted chunk: which question asks for one, which list is of the asked
class, a procedure's steps, the items a sentence announces and the line that leads a
list in ("It does not address:"), so an item is never quoted without what it is a list of.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tellmemore.analysis import lexicon
from tellmemore.analysis.stemmer import stem
from tellmemore.answer.units import Unit, label
from tellmemore.answer.words import fold, terms
from tellmemore.conversation.coordination import coordinations
from tellmemore.conversation.text import looks_plural
from tellmemore.conversation.verbforms import DETERMINERS

_POINTS_AHEAD = re.compile(r"\b(?:below|the following|as follows)\b", re.IGNORECASE)

MAX_ITEMS = 8
"""Items of a list or table quoted after the sentence or heading that announces them."""
_COUNT = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|several|\d+)\s+([A-Za-z][\w-]*)",
    re.IGNORECASE,
)


_MODIFIERS = r"(?:(?!(?:of|for|in|on|per|to|and|or)\s)[a-z][\w-]*\s+){0,2}"
"""Up to two words before the listed noun ("the api rate limits"), none a preposition."""
_LISTING = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"^(?:what|which)\s+(?:are|were)\s+(?:all\s+)?(?:the\s+|your\s+)?{_MODIFIERS}"
        r"(?P<noun>[a-z][\w-]*s)\b",
        rf"^list\s+(?:all\s+)?(?:the\s+)?{_MODIFIERS}(?P<noun>[a-z][\w-]*s)\b",
    )
)
"""A question that asks for "the Xs": "what are the plans?", "list the steps". Not "what
are the limits of Pro?"."""
_WORD = re.compile(r"[a-z][a-z'-]*")


def listed_class(query: str) -> str | None:
    """The class whose members `query` asks for ("plan" of "what are the plans?"), folded
    like `terms`; None for a question about one thing."""
    text = query.strip().rstrip("?.! ")
    kinds = asked_kinds(text)
    if kinds is not None:
        return kinds
    for pattern in _LISTING:
        m = pattern.match(text)
        if m is None:
            continue
        rest = text[m.end() :].strip().lower()
        if rest and rest.split()[0] in ("of", "for", "in", "on", "per"):
            return None  # "what are the limits of Pro?": a fact about Pro
        return fold(m.group("noun").lower())
    return None


def asked_kinds(query: str) -> str | None:
    """The noun whose kinds a question asks for, folded, whatever its verb: the head of the
    noun phrase after a kind noun ("what kinds of leave do we have?", "which types of
    flexible schedules does GSA allow?": "leave", "schedule"), or a plural noun phrase
    right after "what"/"which" that a verb or "there" follows ("which levels are there?",
    "what plans does the API have?", "what tools exist?"). None otherwise."""
    words = _WORD.findall(query.lower())
    if len(words) < 3:
        return None
    for i, w in enumerate(words[:-2]):
        # plural only: "what kind of leave is it?" asks for one kind
        if w in lexicon.words("kind_nouns") and words[i + 1] == "of":
            head = _head(words[i + 2 :])
            return fold(head) if head else None
    if words[0] not in ("what", "which"):
        return None
    head = _head(words[1:])
    if head is None or not head.endswith("s") or head.endswith("ss"):
        return None
    after = words[1 + words[1:].index(head) + 1 :]
    if after and (after[0] in lexicon.words("auxiliaries") or after[0] in _ENDS):
        return fold(head)
    return None


def asks_several(query: str) -> bool:
    """Whether `query` asks for several things, each of which may stand in a passage of its
    own, so the answer keeps one sentence of each (`extractive.spread_gap_for`): the members
    or kinds of a class (`listed_class`: "what escalation options do we have?"), a plural
    noun asked about ("which plans include SSO?", "what are the fees for Pro?"), or things
    the question joins ("FMLA and paid parental leave", `coordinations`)."""
    text = query.strip().rstrip("?.! ")
    if listed_class(text) is not None:
        return True
    words = _WORD.findall(text.lower())
    if words and words[0] in ("what", "which"):
        rest = words[1:]
        if rest and rest[0] in ("are", "were"):
            rest = rest[1:]
        while rest and (rest[0] in DETERMINERS or rest[0] == "all"):
            rest = rest[1:]
        head = _head(rest)
        if head is not None and looks_plural(head) and head not in lexicon.words("common_verbs"):
            return True  # not "what happens ...?"
    return bool(coordinations(text))


def _head(words: Sequence[str]) -> str | None:
    """The last word of the noun phrase `words` opens ("flexible schedules" of "flexible
    schedules does GSA allow"): it ends at a function word or a word saying it exists;
    a common verb ends it once it has a word ("leave" is a noun when it comes first)."""
    out: list[str] = []
    for w in words:
        if w in lexicon.words("function_words") or w in _ENDS:
            break
        if out and w in lexicon.words("common_verbs"):
            break
        out.append(w)
    return out[-1] if out else None


_ENDS = lexicon.words("existence_words")


def lists(noun: str, item: Unit, header: set[str]) -> bool:
    """Whether `item`'s list is of `noun`s: its label ("Plan: Free; ...", "Level 1: ...")
    or its section ("... > Escalation levels") names them. Release notes that mention plans
    are no list of plans."""
    return noun in header or noun in terms(label(item.text))


def named_list(
    noun: str, chunk_units: Sequence[Sequence[Unit]], header_terms: Sequence[set[str]]
) -> tuple[int, list[int]] | None:
    """(chunk, its items) of the first list among the quoted chunks that is of `noun`s."""
    for hi, us in enumerate(chunk_units):
        first = next((j for j, u in enumerate(us) if u.item), None)
        if first is not None and lists(noun, us[first], header_terms[hi]):
            return hi, whole_list(us, first)
    return None


def whole_list(us: Sequence[Unit], si: int) -> list[int]:
    """Every item of the list or table holding item `si`, at most MAX_ITEMS, in order."""
    start = si
    while start > 0 and us[start - 1].item and si - start < MAX_ITEMS - 1:
        start -= 1
    end = si + 1
    while end < len(us) and us[end].item and end - start < MAX_ITEMS:
        end += 1
    return list(range(start, end))


def procedure(us: Sequence[Unit], si: int) -> list[int]:
    """All steps of the numbered list holding step `si` when the list opens its chunk (its
    section heading announces it: "Connect your first two sites" then steps 1-7): step 3
    quoted alone answered "how do I connect my sites?"."""
    if si >= MAX_ITEMS or not all(u.step for u in us[: si + 1]):
        return []
    end = si
    while end < len(us) and us[end].step and end < MAX_ITEMS:
        end += 1
    return list(range(end))


def lead_in(us: Sequence[Unit], sj: int) -> int | None:
    """The line that says what item `sj` is a case of: the item it is indented under
    ("Three to five weeks in advance for:" over "Conference events that cost more than
    $2,500"), else the line ending in a colon right before its list ("It does not
    address:")."""
    if us[sj].item and us[sj].indent > 0:
        for j in range(sj - 1, -1, -1):
            if not us[j].item:
                break
            if us[j].indent < us[sj].indent:
                return j
    j = sj
    while j > 0 and us[j - 1].item:
        j -= 1
    if j > 0 and not us[j - 1].item and us[j - 1].text.rstrip().endswith(":"):
        return j - 1
    return None


def sub_items(us: Sequence[Unit], si: int) -> list[int]:
    """The items indented under item `si` when it ends in a colon: what it announces
    ("- All teammates will be able to spend a maximum of:" over "  - $80 per day for all 3
    meals"), at most MAX_ITEMS. Quoted alone, such an item promises an answer it does not
    give."""
    if not us[si].item or not us[si].text.rstrip().endswith(":"):
        return []
    under: list[int] = []
    for j in range(si + 1, len(us)):
        if not us[j].item or us[j].indent <= us[si].indent or len(under) >= MAX_ITEMS:
            break
        under.append(j)
    return under


def announced_items(us: Sequence[Unit], si: int, q_terms: set[str]) -> list[int]:
    """The items right after unit `si` when it, or a sentence between it and them,
    announces them ("... works with any router. The models below are tested ...")."""
    items = _items_after(us, si)
    if items and any(_announces(us[j].text, q_terms) for j in range(si, items[0])):
        return items
    return []


def announced_past_end(us: Sequence[Unit], si: int, q_terms: set[str]) -> bool:
    """Unit `si`, or a sentence after it, announces a list that its chunk ends before
    ("... submit the following paperwork." as the chunk's last lines): the items are
    the next chunk's."""
    if si + 3 < len(us) or any(u.item for u in us[si + 1 :]):
        return False
    return any(_announces(us[j].text, q_terms) for j in range(si, len(us)))


def leading_items(us: Sequence[Unit]) -> list[int]:
    """The list that opens a chunk, after at most a couple of sentences (a continued
    announcement), at most MAX_ITEMS."""
    return _items_after(us, -1)


def _announces(sentence: str, q_terms: set[str]) -> bool:
    """ "Cloud Connect is sold in three plans.", "Three steps:", "The models below are
    tested" for a question about plans, steps or routers: the list that follows is the
    answer."""
    if sentence.rstrip().endswith(":") or _POINTS_AHEAD.search(sentence):
        return True
    return any(fold(m.group(1).lower()) in q_terms for m in _COUNT.finditer(sentence))


def _items_after(us: Sequence[Unit], si: int) -> list[int]:
    """The list items or table rows right after unit `si` (a couple of sentences may sit
    between the announcement and its list), at most MAX_ITEMS."""
    start = next((j for j in range(si + 1, min(si + 4, len(us))) if us[j].item), None)
    if start is None:
        return []
    end = start
    while end < len(us) and us[end].item and end - start < MAX_ITEMS:
        end += 1
    return list(range(start, end))


def kind_headings(
    noun: str, section: Sequence[str], title: str, outline: Sequence[Sequence[str]]
) -> list[str]:
    """The kinds of `noun` that a document's headings name, in the document's order, for
    the chunk at `section` of the document titled `title` whose sections are `outline`
    (every chunk's section path, in order): the subsections of the deepest heading on the
    chunk's path that names the noun ("Types of flexible schedules" > Flexitour, Gliding,
    ...), else the sections beside the chunk's own when most of them name it ("Bereavement
    Leave", "Jury Duty", "Pregnancy Disability Leave", ...). [] when no heading lists them."""
    key = stem(noun)

    def names(heading: str) -> bool:
        return key in {stem(w) for w in _WORD.findall(heading.lower())}

    def under(prefix: Sequence[str]) -> list[str]:
        n = len(prefix)
        found = (tuple(s)[n] for s in outline if len(s) > n and tuple(s)[:n] == tuple(prefix))
        return list(dict.fromkeys(h for h in found if h.strip()))[:MAX_ITEMS]

    prefixes = [section[:n] for n in range(len(section), 0, -1) if names(section[n - 1])]
    if names(title):
        prefixes.append(())
    for prefix in prefixes:
        kinds = under(prefix)
        if len(kinds) >= 2:
            return kinds
    if section:
        beside = under(section[:-1])
        if len(beside) >= 3 and 2 * sum(names(h) for h in beside) > len(beside):
            return beside
    return []
