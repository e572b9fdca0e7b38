"""List items of an answer: the alternatives "the second one" and "that one" point at.

Bullets and numbered lines, parallel sentences that open with labels sharing a head
word ("Standard escalation routes ... Enterprise escalation adds ..."), or, for
ordinals only, the coordinated clauses of a short answer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence

from tellmemore.analysis import lexicon
from tellmemore.answer.units import LABELLED
from tellmemore.conversation import constants as C
from tellmemore.conversation.analysis import analyze
from tellmemore.conversation.binding import Phrase, phrases, sentences
from tellmemore.conversation.text import content_words, norm, singular, stem, tokenize

_BULLET = lexicon.pattern("bullet")
_LEAD_CHARS = 80
"""Only a sentence's opening can hold its list label."""
_COUNT_WORDS = lexicon.words("lists_count_words")


def list_items(answer: str, *, loose: bool = False) -> list[Phrase]:
    """The alternatives an answer enumerates (`_list_items`), worked out once per answer:
    every later turn asks about the same answers."""
    if len(answer) > C.CACHE_MAX_CHARS:
        return _list_items(answer, loose)
    return list(_cached_items(answer, loose))


@functools.lru_cache(maxsize=1024)
def _cached_items(answer: str, loose: bool) -> tuple[Phrase, ...]:
    return tuple(_list_items(answer, loose))


def _list_items(answer: str, loose: bool) -> list[Phrase]:
    """The alternatives an answer enumerates, in order (bullets, numbers, or parallel
    sentences such as "Standard escalation routes ... Enterprise escalation adds ...").

    `loose` also splits a short answer into coordinated clauses ("Late returns cost ...,
    and damage must be reported"): good enough for "the second one", too weak to call
    two alternatives a coin flip."""
    bullets = [m for line in answer.splitlines() if (m := _BULLET.match(line))]
    if len(bullets) >= 2:
        rows = _table_rows([m.group(1) for m in bullets])  # quoted table rows, one a line
        if rows:
            return rows
        labels = (
            _step(m.group(1)) if _NUMBERED.match(m.group(0)) else _label(m.group(1))
            for m in bullets
        )
        return [p for p in labels if p is not None]
    sents = sentences(answer)
    items = _table_rows(sents) or _labelled(sents) or _parallel_sentences(sents, answer)
    if items or not loose:
        return items
    return _clauses(answer)


def quoted_items(items: Sequence[str], answer: str) -> list[Phrase]:
    """The alternatives of a list an answer quoted, read from its items (`Answer.items`,
    stored with the turn) instead of out of its text: each item named as `list_items`
    names a bullet line (a table row by its first value, a labelled item by its label, a
    step of a procedure the answer numbered by its action)."""
    rows = _table_rows(list(items))
    if rows:
        return rows
    numbered = any(
        _NUMBERED.match(m.group(0)) for line in answer.splitlines() if (m := _BULLET.match(line))
    )
    labels = (_step(it) if numbered else _label(it, short=True) or _name(it) for it in items)
    return [p for p in labels if p is not None]


def _name(item: str) -> Phrase | None:
    """A short item with no noun phrase of its own is a name as it stands: a heading the
    answer listed ("Gliding", a kind of schedule), which "the second one" must count."""
    words = [t.text for t in tokenize(item) if t.text[:1].isalnum()]
    if not words or len(words) > C.MAX_LABEL_WORDS:
        return None
    return Phrase(item.strip(" *_"), tuple(stem(w.lower()) for w in words), None, True)


_NUMBERED = lexicon.pattern("numbered")
_ACTION_END = lexicon.pattern("action_end")


def _step(item: str) -> Phrase | None:
    """A numbered step is an action, named by its clause ("Pick the region closest to your
    sites"), not by its first noun ("Pick")."""
    action = _ACTION_END.split(item, maxsplit=1)[0].strip()
    words = content_words(action)
    if not words or len(tokenize(action)) > 2 * C.MAX_LABEL_WORDS:
        return _label(item)
    return Phrase(action, tuple(stem(w) for w in words), None, False)


def _label(item: str, *, short: bool = False) -> Phrase | None:
    """ "Standard: routes to the on-call queue" -> "Standard"; a quoted table row ("Plan:
    Pro; Price per month: $299; ...") by its first value, "Pro", not its column "Plan";
    else the item's first phrase."""
    row = _ROW.match(item)
    if row is not None and row.group(2).strip(" *_"):
        return _value(row.group(2))
    head = re.split(r"\s*(?::|\s[-–—]\s)\s*", item, maxsplit=1)[0]
    glossed = _FIRST_SENTENCE.split(item.strip(" *_"), maxsplit=1)
    if head == item and len(glossed) == 2:
        # "Do not disturb (gray). This teammate is away ...": a term, then its gloss
        head = glossed[0].rstrip(" .*_")
    if head != item and 0 < len(tokenize(head)) <= C.MAX_LABEL_WORDS:
        ps = phrases(head)
        if ps:
            label = head.strip(" *_")
            return Phrase(label, tuple(s for p in ps for s in p.stems), None, True)
    if short and _name(item) is not None:
        # a short item with no label names itself whole: "Meetings happen in regular
        # hours", not its first noun "Meetings"
        return _name(item)
    ps = phrases(item)
    return ps[0] if ps else None


_FIRST_SENTENCE = re.compile(r"(?<=[.!?])[\s*_]+(?=[A-Z])")


def row_subject(answer: str) -> Phrase | None:
    """The first value of the table row an answer opens with ("Plan: Basic; Price per
    month: $29; ..." -> "Basic"): what a superlative question's answer picked."""
    first = answer.strip().splitlines()[0] if answer.strip() else ""
    bullet = _BULLET.match(first)
    row = _ROW.match(bullet.group(1) if bullet is not None else first)
    return _value(row.group(2)) if row is not None and row.group(2).strip(" *_") else None


_ROW = lexicon.pattern("row")
"""A table row as the extractive answer quotes it: "Plan: Starter; Price per month: $49; ...".
A second "column:" after the ";" tells it from a labelled sentence whose value holds a
";" ("Norrland NR-900: firmware 7.4 or later; needed for 10 Gbit/s sites.")."""


_COLUMN = lexicon.pattern("column")


def column_labels(answer: str) -> list[set[str]]:
    """The column names of the table rows an answer quotes ("Bandwidth per site" in "Plan:
    Pro; ...; Bandwidth per site: 1 Gbit/s."), as stem sets: names of attributes, never
    the thing a pronoun points at. Worked out once per answer (a copy: callers may keep
    what they get)."""
    if len(answer) > C.CACHE_MAX_CHARS:
        return _column_labels(answer)
    return [set(labels) for labels in _cached_labels(answer)]


@functools.lru_cache(maxsize=1024)
def _cached_labels(answer: str) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(labels) for labels in _column_labels(answer))


def _column_labels(answer: str) -> list[set[str]]:
    out: list[set[str]] = []
    for line in answer.splitlines():
        if ";" not in line:
            continue  # a quoted table row holds one between its columns (_ROW)
        m = _BULLET.match(line)
        for sentence in sentences(m.group(1) if m else line):
            if _ROW.match(sentence):
                out.extend({stem(w) for w in content_words(k)} for k in _COLUMN.findall(sentence))
    return [labels for labels in out if labels]


def _table_rows(sents: list[str]) -> list[Phrase]:
    """Consecutive quoted table rows with the same first column: its values are the items
    ("Starter", "Pro", "Enterprise")."""

    def row(s: str) -> tuple[str, Phrase] | None:
        m = _ROW.match(s)
        return (m.group(1).lower(), _value(m.group(2))) if m else None

    return _longest_run(sents, row)


def _labelled(sents: list[str]) -> list[Phrase]:
    """Consecutive sentences that each open with a short label (a list item quoted as
    prose: "Single ride: 3 dollars ... Day pass: 12 dollars ..."): the labels."""

    def label(s: str) -> tuple[str, Phrase] | None:
        m = LABELLED.match(s)
        return ("", _value(m.group(1))) if m and not _ROW.match(s) else None

    return _longest_run(sents, label)


def _longest_run(
    sents: list[str], read: Callable[[str], tuple[str, Phrase] | None]
) -> list[Phrase]:
    """The longest run (2+) of consecutive sentences `read` gives an item for, all under
    one key (a table's first column)."""
    best: list[Phrase] = []
    run: list[Phrase] = []
    key = None
    for s in [*sents, ""]:
        got = read(s) if s else None
        if got is not None and got[0] == key:
            run.append(got[1])
            continue
        if len(run) >= 2 and len(run) > len(best):
            best = run
        key, run = (got[0], [got[1]]) if got else (None, [])
    return best


def _value(text: str) -> Phrase:
    value = text.strip(" *_")
    stems = tuple(stem(t.text) for t in tokenize(value)) or (value.lower(),)
    return Phrase(value, stems, None, True)


def _parallel_sentences(sents: list[str], answer: str) -> list[Phrase]:
    """Consecutive sentences opening with capitalised phrases that share a head word."""
    leads: list[Phrase | None] = []
    for s in sents:
        row = _ROW.match(s)
        if row is not None:  # "Plan: Pro; Price: $299": the row is about Pro, not "Plan"
            leads.append(_value(row.group(2)))
            continue
        ps = _lead(s)
        starts = bool(ps) and s.startswith(ps[0].text) and ps[0].text[:1].isupper()
        leads.append(ps[0] if starts else None)
    best: list[Phrase] = []
    i = 0
    while i < len(leads):
        j = i
        while j < len(leads) and leads[j] is not None:
            j += 1
        group = [p for p in leads[i:j] if p is not None and p.stems[0] not in _COUNT_WORDS]
        for labels in _shared_runs(group):
            if len(labels) > len(best):
                best = labels
        if not best and len(group) >= 2 and _COUNT_WORDS & set(answer.lower().split()):
            best = [_truncate(p, 2) for p in group]
        i = j + 1
    first: dict[tuple[str, ...], Phrase] = {}
    for p in best:  # a label quoted twice ("Pro" in a row and a sentence) counts once
        first.setdefault(p.stems, p)
    unique = list(first.values())
    return unique if len(unique) >= 2 else _shared_subject(sents)


def _lead(sentence: str) -> tuple[Phrase, ...]:
    """The first two phrases of a sentence's opening: all a list label is read from. A
    sentence not opening with a capital has no label (the label is a capitalised phrase
    it starts with), so it is not parsed."""
    if not sentence[:1].isupper():
        return ()
    return analyze(sentence[:_LEAD_CHARS]).first_phrases(2)


def _shared_subject(sents: list[str]) -> list[Phrase]:
    """Consecutive sentences with one subject and parallel qualifiers: "Escalations on the
    Standard tier go ... Escalations on the Enterprise tier go ..." -> "Standard
    escalation", "Enterprise escalation" (the qualifier's own word + the subject)."""
    heads: list[tuple[Phrase, Phrase] | None] = []
    for s in sents:
        ps = _lead(s)
        ok = len(ps) >= 2 and s.startswith(ps[0].text) and ps[0].text[:1].isupper()
        heads.append((ps[0], ps[1]) if ok else None)
    i = 0
    while i < len(heads):
        j = i
        first = heads[i]
        while j < len(heads) and (h := heads[j]) is not None and first is not None:
            if h[0].stems != first[0].stems:
                break
            j += 1
        run = [h for h in heads[i:j] if h is not None]
        quals = _shared_head_labels([q for _, q in run]) if len(run) >= 2 else None
        if quals is not None and run:
            subject = run[0][0]
            noun = subject.text if subject.capitalized else subject.text.lower()
            noun = " ".join(singular(norm(w)) if k == len(noun.split()) - 1 else w
                            for k, w in enumerate(noun.split()))  # fmt: skip
            out = []
            for q in quals:
                own = tokenize(q.text)[:-1]  # "Standard tier" -> "Standard"
                if not own:
                    return []
                text = f"{q.text[: own[-1].end]} {noun}"
                out.append(Phrase(text, (*q.stems[:-1], *map(stem, noun.split())), None, True))
            if len({p.stems for p in out}) == len(out):
                return out
        i = max(j, i + 1)
    return []


def _shared_runs(group: list[Phrase]) -> Iterator[list[Phrase]]:
    """Maximal consecutive sub-runs (2+) of lead phrases sharing a head word.

    The shared words are narrowed phrase by phrase, so a run is read once: labelling
    every prefix of it was quadratic (12 s on a 65k-character answer of short lines)."""
    start = 0
    while start < len(group) - 1:
        common = set(group[start].stems[1:])
        end = start + 1
        while end < len(group) and (narrowed := common & set(group[end].stems[1:])):
            common = narrowed
            end += 1
        labels = _shared_head_labels(group[start:end]) if end - start >= 2 else None
        if labels is not None:
            yield labels
        start = end if end - start >= 2 else start + 1


def _shared_head_labels(group: list[Phrase]) -> list[Phrase] | None:
    """Cut every lead phrase after the word all of them share ("escalation")."""
    common = set(group[0].stems[1:])
    for p in group[1:]:
        common &= set(p.stems[1:])
    if not common:
        return None
    out = []
    for p in group:
        cut = max(i for i, s in enumerate(p.stems) if s in common)
        out.append(_truncate(p, cut + 1))
    return out


def _truncate(p: Phrase, n: int) -> Phrase:
    toks = tokenize(p.text)[:n]
    if not toks:
        return p
    return Phrase(p.text[: toks[-1].end], p.stems[:n], p.prep, p.capitalized, p.det)


def _clauses(answer: str) -> list[Phrase]:
    """A short answer of coordinated clauses ("Late returns cost ..., and damage must ...")."""
    sents = sentences(answer)
    if len(sents) > 2:
        return []
    parts = [c for s in sents for c in re.split(r";\s+|,\s+(?:and|but|while)\s+", s) if c]
    if len(parts) < 2:
        return []
    out = []
    for part in parts:
        ps = phrases(part)
        if not ps:
            return []
        out.append(ps[0])
    return out
