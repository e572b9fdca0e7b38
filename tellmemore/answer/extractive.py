"""The default answer, with no LLM: the retrieved sentences that best answer the query.

Each chosen sentence carries the number of its citation, so the answer is
checkable line by line. Sentences are scored by the query terms they share
(weighted by rarity within the retrieved set, so words every passage shares
count little), with a prior for better-ranked chunks; list items and table
rows count as sentences so "the second step" can be quoted whole.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tellmemore.answer import steps, superlatives
from tellmemore.answer.answer_types import asked_type, holds
from tellmemore.injection import quotable
from tellmemore.types import Hit

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-']*")
LIST_MARKER = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s+")
"""A list item's bullet or number at the start of a line."""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"(])")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "could",
        "do",
        "does",
        "did",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "us",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "about",
        "any",
        "there",
    ]
)

MAX_SENTENCES = 3
"""At most this many sentences: enough to answer, short enough to read."""
MAX_CHUNKS = 3
"""Only the best few chunks are quoted; lower ones are usually near-misses."""
HEADER_WEIGHT = 0.5
"""Weight of query terms a sentence inherits from its chunk header."""
RELATIVE_FLOOR = 0.5
"""A sentence scoring below half the best one is not worth quoting."""
ANSWER_TYPE_WEIGHT = 2.0
"""Bonus of a sentence that shares a query word and states an answer of the kind asked
("how long" and "within 30 minutes"): about one rare shared word."""


@dataclass(frozen=True)
class Extract:
    sentence: str
    hit_index: int
    score: float
    item: bool = False
    """A list item or table row: shown on a line of its own."""
    step: bool = False
    """A step of a procedure quoted whole from step 1: shown numbered."""


def terms(text: str) -> list[str]:
    """Lowercased content words with a light plural/suffix folding."""
    out = []
    for w in _WORD.findall(text.lower()):
        if w in _STOP or (len(w) < 2 and not w.isdigit()):  # "sev 2" vs "sev 1"
            continue
        out.append(_fold(w))
    return out


def _fold(word: str) -> str:
    for suffix in ("ies", "es", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


LABELLED = re.compile(r"^([A-Z][^:;.?!]{0,38}):\s+\S")
"""A sentence opening with a short label ("Norrland NR-500: firmware 7.2 or later.", "Day
pass: 12 dollars, unlimited rides"): two or more in a row are a list written as lines
(a PDF's list loses its bullets). The conversation layer reads quoted answers with it."""
_POINTS_AHEAD = re.compile(r"\b(?:below|the following|as follows)\b", re.IGNORECASE)

MAX_ITEMS = 8
"""Items of a list or table quoted after the sentence or heading that announces them."""
_COUNT = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|several|\d+)\s+([A-Za-z][\w-]*)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Unit:
    """A sentence, or a list item or table row (`item`), of a chunk."""

    text: str
    item: bool = False
    row: bool = False
    """A table row (also an item)."""
    step: bool = False
    """An item of a numbered list (also an item): a procedure's step."""
    key: str = ""
    """What a table row or a labelled item is about: the row's first cell ("Business"),
    the item's label ("Monthly pass")."""


def sentences(text: str, header: str | None = None) -> list[str]:
    """Sentences, list items and table rows of a chunk, without its header line."""
    return [u.text for u in units(text, header)]


def units(text: str, header: str | None = None) -> list[Unit]:
    """Sentences, list items and table rows of a chunk, without its header line.

    Hard-wrapped paragraph lines are joined first, so a sentence is never cut
    at a line break.
    """
    lines = text.splitlines()
    if lines and (lines[0].strip() == header or " > " in lines[0] or lines[0].startswith("#")):
        lines = lines[1:]
    blocks: list[tuple[str, bool, bool, bool, str]] = []  # (text, item, row, numbered, key)
    paragraph: list[str] = []
    table_header: list[str] | None = None
    in_item = False
    numbered = False

    def flush() -> None:
        nonlocal in_item, numbered
        if paragraph:
            blocks.append((" ".join(paragraph), in_item, False, in_item and numbered, ""))
            paragraph.clear()
        in_item = numbered = False

    for at, raw in enumerate(lines):
        line = raw.strip()
        if header and line == header.strip():
            flush()  # the title again, as a PDF page repeats it above its text
            continue
        if not paragraph and _is_bare_heading(line, lines[at + 1] if at + 1 < len(lines) else ""):
            continue  # "Firmware notes" above its paragraph: a PDF's heading, no sentence
        if not line.startswith("|"):
            table_header = None
        if not line or set(line) <= set("|-: "):
            flush()
            continue
        if line.startswith("#"):
            flush()
            continue
        if line.startswith("|"):
            flush()
            cells = [c.strip() for c in line.strip("|").split("|")]
            if table_header is None:
                table_header = cells  # a header row is not a fact on its own
            else:
                pairs = zip(table_header, cells, strict=False)
                row = "; ".join(f"{h}: {c}" if h else c for h, c in pairs if c) + "."
                blocks.append((row, True, True, False, cells[0] if cells else ""))
            continue
        if LIST_MARKER.match(line):
            flush()
            in_item = True
            numbered = line[:1].isdigit()
            paragraph.append(LIST_MARKER.sub("", line))
            continue
        paragraph.append(line)
    flush()
    out: list[Unit] = []
    for block, item, row, step, key in blocks:
        if item:  # an item is quoted whole, even when it holds two sentences
            text = block.strip()
            out.append(Unit(text, True, row=row, step=step, key=key or _label(text)))
            continue
        out.extend(Unit(p.strip()) for p in _SENTENCE_END.split(block) if p.strip())
    return _labelled_runs(out)


_HEADING_WORDS = 4


def _is_bare_heading(line: str, following: str) -> bool:
    """A short line without punctuation that opens a paragraph whose next line starts a
    sentence ("Firmware notes" / "Firmware 7.3 of the ..."): a heading of extracted text
    (a PDF's), which joined to its paragraph opened the quote "Firmware notes Firmware 7.3"."""
    nxt = following.strip()
    return (
        0 < len(line.split()) <= _HEADING_WORDS
        and line[-1:].isalnum()
        and nxt[:1].isupper()
        and not LIST_MARKER.match(line)
        and not line.startswith("|")
    )


def _label(item: str) -> str:
    """A list item's label ("Monthly pass" of "Monthly pass: 25 dollars per month"): what
    the item is about, as a table row's first cell is."""
    m = LABELLED.match(item)
    return m.group(1) if m else ""


def _labelled_runs(us: list[Unit]) -> list[Unit]:
    """Two or more consecutive labelled sentences become list items."""
    out: list[Unit] = []
    i = 0
    while i < len(us):
        j = i
        while j < len(us) and not us[j].item and LABELLED.match(us[j].text):
            j += 1
        if j - i >= 2:
            out.extend(Unit(u.text, True, key=_label(u.text)) for u in us[i:j])
            i = j
        else:
            out.append(us[i])
            i += 1
    return out


_DAYS_OF = {
    "weekend": ("saturday", "sunday"),
    "weekday": ("monday", "tuesday", "wednesday", "thursday", "friday"),
}
"""Documents state opening hours by day ("Saturday and Sunday: 09:00 to 18:00"), people
ask by weekend or weekday."""


def query_terms(query: str) -> set[str]:
    """The query's terms, with the days a "weekend" or "weekday" stands for."""
    q_terms = set(terms(query))
    for word, days in _DAYS_OF.items():
        if word in q_terms:
            q_terms.update(days)
    return q_terms


def _the_step(query: str, chunk_units: Sequence[Sequence[Unit]]) -> list[Extract]:
    """The step a question asks for by number, alone (steps.pick_step)."""
    procedures = [[u.text for u in us if u.step] for us in chunk_units]
    picked = steps.pick_step(query, procedures)
    if picked is None:
        return []
    hi, k, text = picked
    return [Extract(f"Step {k}: {text}", hi, 1.0)]


def best_sentences(query: str, hits: Sequence[Hit]) -> list[Extract]:
    """The sentences to quote, in reading order (by chunk rank, then position)."""
    q_terms = query_terms(query)
    kind = asked_type(query)
    candidates: list[tuple[int, int, str, list[str], set[str]]] = []
    # never quote what speaks to the assistant, nor a document's own [n] or <source> tags
    chunk_units = [quotable(units(h.chunk.text, h.chunk.header)) for h in hits[:MAX_CHUNKS]]
    step = _the_step(query, chunk_units)
    if step:
        return step
    for hi, us in enumerate(chunk_units):
        for si, unit in enumerate(us):
            row_key = set(terms(unit.key)) if unit.row else set()  # a label: no bonus (F1)
            candidates.append((hi, si, unit.text, terms(unit.text), row_key))
    if not candidates:
        return []
    df: Counter[str] = Counter()
    for *_, toks, _key in candidates:
        df.update(set(toks))
    n = len(candidates)
    scored: list[tuple[float, int, int, str]] = []
    header_terms = [set(terms(h.chunk.header)) for h in hits[:MAX_CHUNKS]]
    typed = set(terms(query))
    for hi, si, sentence, toks, key in candidates:
        overlap = typed.intersection(toks)
        # sorted: a float sum in set order would depend on the process's string hash seed,
        # and a near-tie at RELATIVE_FLOOR could then quote other sentences on another run
        lexical = sum(math.log(1 + n / df[t]) for t in sorted(overlap))
        days = sorted((q_terms - typed).intersection(toks))
        if days:  # "weekends" held by "Saturday and Sunday": one word's worth, not two
            lexical += max(math.log(1 + n / df[t]) for t in days)
        # A row is about its first cell: "Business" in the query picks the Business row,
        # not the Starter row that mentions "business days" (the whole cell: "Sev 2", not
        # the "Sev" of every row).
        if key and key <= q_terms:
            lexical += sum(math.log(1 + n / df[t]) for t in sorted(key & overlap))
        # A sentence is also about its chunk's subject ("... > Enterprise tier"), at a discount.
        inherited = (q_terms & header_terms[hi]) - overlap
        lexical += HEADER_WEIGHT * sum(math.log(1 + n / max(df[t], 1)) for t in sorted(inherited))
        prior = 1.0 / (1 + hi)
        if kind is not None and (overlap or inherited) and holds(sentence, kind):
            lexical += ANSWER_TYPE_WEIGHT  # "within how long?": the sentence with a duration
        length_penalty = 1.0 if len(toks) >= 3 else 0.5
        scored.append(((lexical + prior) * length_penalty, hi, si, sentence))
    scored = _holding_the_identifier(scored, hits, query)
    scored.sort(key=lambda s: (-s[0], s[1], s[2]))
    top = scored[0][0]
    # One sentence per chunk first (the best of each good chunk), so an answer over
    # two tiers quotes both; then fill with the next best sentences.
    chosen: list[tuple[float, int, int, str]] = []
    seen_chunks: set[int] = set()
    for cand in scored:
        if cand[1] not in seen_chunks and cand[0] >= RELATIVE_FLOOR * top:
            chosen.append(cand)
            seen_chunks.add(cand[1])
    for cand in scored:
        if len(chosen) >= MAX_SENTENCES:
            break
        if cand not in chosen and cand[0] >= RELATIVE_FLOOR * top:
            chosen.append(cand)
    chosen = _named_rows_only(chosen, chunk_units, q_terms)[:MAX_SENTENCES]
    chosen.sort(key=lambda s: (s[1], s[2]))
    out: list[Extract] = []
    quoted: set[tuple[int, int]] = set()

    def quote(hi: int, sj: int, score: float, *, step: bool = False) -> None:
        if (hi, sj) not in quoted:
            quoted.add((hi, sj))
            unit = chunk_units[hi][sj]
            out.append(Extract(unit.text, hi, score, item=unit.item, step=step))

    listing = listed_class(query)
    for sc, hi, si, _ in chosen:
        us = chunk_units[hi]
        if us[si].item:
            for sj in _procedure(us, si):  # a procedure's steps, all of them
                quote(hi, sj, sc, step=True)
            if listing is not None and _lists(listing, us[si], header_terms[hi]):
                for sj in _whole_list(us, si):  # "what are the plans?": every plan
                    quote(hi, sj, sc)
            quote(hi, si, sc)  # a lone item (a no-op when it was one of those steps)
            continue
        if si > 0 and _PRONOUN_OPENING.match(us[si].text) and not us[si - 1].item:
            quote(hi, si - 1, sc)  # "It includes two sites": what "it" is, said just before
        quote(hi, si, sc)
        for sj in _announced_items(us, si, q_terms):
            quote(hi, sj, sc)
    if listing is not None and not any(e.item for e in out):
        # "what are the API rate limits?" quoted three sentences about limits and not the
        # table of them: the list its section or labels name is the answer
        named = _named_list(listing, chunk_units, header_terms)
        if named is not None:
            for sj in named[1]:
                quote(named[0], sj, top)
    return _superlative_first(query, chunk_units, out)


_PRONOUN_OPENING = re.compile(
    r"^(?:It|They|This|These|Those|He|She|Its|Their)\b(?!\s+is\s+\w+\s+to\b)"
)
"""A sentence whose subject is said in the sentence before it ("It includes two sites");
not a dummy "It is important to ..."."""


def _holding_the_identifier(
    scored: list[tuple[float, int, int, str]], hits: Sequence[Hit], query: str
) -> list[tuple[float, int, int, str]]:
    """ "what changed in version 3.4?": when some chunk holds a version or code of the
    question (in its heading or its text), only those chunks answer; the notes of the
    other versions share "version" and nothing that matters."""
    ids = [t for t in _ID_TOKEN.findall(query.lower()) if _IDENTIFIER.match(t)]
    if not ids:
        return scored
    pattern = re.compile(r"(?<![\w.-])(?:" + "|".join(map(re.escape, ids)) + r")(?![\w-]|\.\d)")
    holding = {
        hi
        for hi, h in enumerate(hits[:MAX_CHUNKS])
        if pattern.search(h.chunk.text.lower()) or pattern.search((h.chunk.header or "").lower())
    }
    kept = [s for s in scored if s[1] in holding]
    return kept or scored


_ID_TOKEN = re.compile(r"[a-z0-9](?:[a-z0-9-]|\.(?=\d))*")
"""A word, a dotted number ("3.4", "6.15.0") being one."""
_IDENTIFIER = re.compile(r"^(?:\d+(?:\.\d+)+|[a-z]{1,4}(?:-[a-z]{0,2})?\d+[a-z]?)$")
"""A version or a code ("3.4", "6.15.0", "cc-e231", "v4", "nr-900"); not a year, a count,
an ordinal or a name with a number ("1945", "11th", "7-day", "covid-19")."""


def _named_rows_only(
    chosen: list[tuple[float, int, int, str]],
    chunk_units: Sequence[Sequence[Unit]],
    q_terms: set[str],
) -> list[tuple[float, int, int, str]]:
    """When the question names a row of a table ("Business") or a labelled item ("Monthly
    pass"), the rows and items of that chunk it does not name ("Starter ... business
    days", "Day pass: ...") are no answer: they go. Those of other chunks stay."""

    def keyed(hi: int, si: int) -> bool:
        return bool(chunk_units[hi][si].key)

    def named(hi: int, si: int) -> bool:
        """The question holds a word of this key that no sibling's key has: "Sev 2" names
        the Sev 2 row, not the Sev 1 row; "Sundays" names "Saturday and Sunday"."""
        own = set(terms(chunk_units[hi][si].key))
        others = {t for sj, u in enumerate(chunk_units[hi]) if sj != si for t in terms(u.key)}
        return bool((own - others) & q_terms)

    with_named = {hi for _, hi, si, _ in chosen if keyed(hi, si) and named(hi, si)}
    return [
        c for c in chosen if c[1] not in with_named or not keyed(c[1], c[2]) or named(c[1], c[2])
    ]


_MODIFIERS = r"(?:(?!(?:of|for|in|on|per|to|and|or)\s)[a-z][\w-]*\s+){0,2}"
"""Up to two words before the listed noun ("the api rate limits"), none a preposition."""
_LISTING = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"^(?:what|which)\s+(?:are|were)\s+(?:all\s+)?(?:the\s+|your\s+)?{_MODIFIERS}"
        r"(?P<noun>[a-z][\w-]*s)\b",
        r"^(?:what|which)\s+(?:kinds?\s+of\s+|types?\s+of\s+)?(?P<noun>[a-z][\w-]*s)\s+"
        r"(?:are\s+there|do\s+(?:you|we|they)\s+(?:have|offer)|does\s+.+\s+(?:have|offer))\b",
        rf"^list\s+(?:all\s+)?(?:the\s+)?{_MODIFIERS}(?P<noun>[a-z][\w-]*s)\b",
    )
)
"""A question that asks for a list: "what are the plans?", "which levels are there?",
"what plans does the API have?", "list the steps". Not "what are the limits of Pro?"."""


def listed_class(query: str) -> str | None:
    """The class whose members `query` asks for ("plan" of "what are the plans?"), folded
    like `terms`; None for a question about one thing."""
    text = query.strip().rstrip("?.! ")
    for pattern in _LISTING:
        m = pattern.match(text)
        if m is None:
            continue
        rest = text[m.end() :].strip().lower()
        if rest and rest.split()[0] in ("of", "for", "in", "on", "per"):
            return None  # "what are the limits of Pro?": a fact about Pro
        return _fold(m.group("noun").lower())
    return None


def _lists(noun: str, item: Unit, header: set[str]) -> bool:
    """Whether `item`'s list is of `noun`s: its label ("Plan: Free; ...", "Level 1: ...")
    or its section ("... > Escalation levels") names them. Release notes that mention plans
    are no list of plans."""
    return noun in header or noun in terms(_label(item.text))


def _named_list(
    noun: str, chunk_units: Sequence[Sequence[Unit]], header_terms: Sequence[set[str]]
) -> tuple[int, list[int]] | None:
    """(chunk, its items) of the first list among the quoted chunks that is of `noun`s."""
    for hi, us in enumerate(chunk_units):
        first = next((j for j, u in enumerate(us) if u.item), None)
        if first is not None and _lists(noun, us[first], header_terms[hi]):
            return hi, _whole_list(us, first)
    return None


def _whole_list(us: Sequence[Unit], si: int) -> list[int]:
    """Every item of the list or table holding item `si`, at most MAX_ITEMS, in order."""
    start = si
    while start > 0 and us[start - 1].item and si - start < MAX_ITEMS - 1:
        start -= 1
    end = si + 1
    while end < len(us) and us[end].item and end - start < MAX_ITEMS:
        end += 1
    return list(range(start, end))


def _procedure(us: Sequence[Unit], si: int) -> list[int]:
    """All steps of the numbered list holding step `si` when the list opens its chunk (its
    section heading announces it: "Connect your first two sites" then steps 1-7): step 3
    quoted alone answered "how do I connect my sites?"."""
    if si >= MAX_ITEMS or not all(u.step for u in us[: si + 1]):
        return []
    end = si
    while end < len(us) and us[end].step and end < MAX_ITEMS:
        end += 1
    return list(range(end))


def _superlative_first(
    query: str, chunk_units: Sequence[Sequence[Unit]], out: list[Extract]
) -> list[Extract]:
    """For "which plan is the cheapest?", the row the numbers pick opens the answer and
    the other rows go: quoting every plan's price would leave the choice to the reader."""
    rows = [(hi, u.text) for hi, us in enumerate(chunk_units) for u in us if u.item]
    picked = superlatives.pick(query, [text for _, text in rows])
    if picked is None:
        return out
    hit_index = next(hi for hi, text in rows if text == picked)
    score = max((e.score for e in out), default=0.0)
    others = [e for e in out if superlatives.parse_row(e.sentence) is None]
    return [Extract(sentence=picked, hit_index=hit_index, score=score), *others]


def _announced_items(us: Sequence[Unit], si: int, q_terms: set[str]) -> list[int]:
    """The items right after unit `si` when it, or a sentence between it and them,
    announces them ("... works with any router. The models below are tested ...")."""
    items = _items_after(us, si)
    if items and any(_announces(us[j].text, q_terms) for j in range(si, items[0])):
        return items
    return []


def _announces(sentence: str, q_terms: set[str]) -> bool:
    """ "Cloud Connect is sold in three plans.", "Three steps:", "The models below are
    tested" for a question about plans, steps or routers: the list that follows is the
    answer."""
    if sentence.rstrip().endswith(":") or _POINTS_AHEAD.search(sentence):
        return True
    return any(_fold(m.group(1).lower()) in q_terms for m in _COUNT.finditer(sentence))


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
