"""The default answer, with no LLM: the retrieved sentences that best answer the query.

Each chosen sentence carries the number of its citation, so the answer is
checkable line by line. Sentences are scored by the query terms they share
(weighted by rarity within the retrieved set, so words every passage shares
count little), with a prior for better-ranked chunks; list items and table
rows count as sentences so "the second step" can be quoted whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypedDict

from tellmemore.answer import edits, lists, scoring, selection, steps, superlatives
from tellmemore.answer import legacy as legacy_ranking
from tellmemore.answer import reading as passage_reading
from tellmemore.answer.answer_types import AnswerType, amount_columns, asked_type
from tellmemore.answer.legacy import Scored
from tellmemore.answer.lists import listed_class
from tellmemore.answer.selection import MAX_SENTENCES
from tellmemore.answer.units import (  # noqa: F401 - LABELLED, LIST_MARKER, sentences re-exported
    LABELLED,
    LIST_MARKER,
    Unit,
    label,
    sentences,
    units,
)
from tellmemore.answer.words import terms
from tellmemore.injection import quotable
from tellmemore.types import Hit

if TYPE_CHECKING:
    from tellmemore.config import RetrievalSettings

MAX_CHUNKS = 3
"""Only the best few chunks are quoted; lower ones are usually near-misses."""
SPREAD_GAP = 0.1
"""The gap of `retrieval.spread_gap` (its default): a chunk whose dense
similarity to the query is within this of the best chunk's gets a sentence of its own in
the answer (`selection.ranked`); a farther one only by its probability. The dense cosine,
not the fused score: a follow-up's passages are fused by RRF over several phrasings, whose
scores differ by a few percent whatever the passages hold. Chosen on the Clef handbook
(bench/results/extractive_spread.md)."""


class Selection(TypedDict):
    """The settings of `best_sentences` that choose what is quoted, by keyword."""

    spread_gap: float | None
    single_gap: float | None
    nearest: bool
    continuation: bool
    opening: bool
    headed: bool
    reading: bool


def selection_of(settings: RetrievalSettings) -> Selection:
    """`best_sentences`' selection keywords as `settings` set them: the turn and the benches
    read them here, so a new selection setting reaches every caller at once."""
    return Selection(
        spread_gap=settings.spread_gap,
        single_gap=settings.spread_gap_single,
        nearest=settings.quote_nearest,
        continuation=settings.quote_continuation,
        opening=settings.quote_opening,
        headed=settings.quote_headed,
        reading=settings.read_siblings,
    )


@dataclass(frozen=True)
class Extract:
    sentence: str
    hit_index: int
    score: float
    item: bool = False
    """A list item or table row: shown on a line of its own."""
    step: bool = False
    """A step of a procedure quoted whole from step 1: shown numbered."""


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


def best_sentences(
    query: str,
    hits: Sequence[Hit],
    *,
    embed: scoring.Embed | None = None,
    scorer: scoring.Scorer | None = None,
    legacy: bool = False,
    exclude: Sequence[str] = (),
    spread_gap: float | None = None,
    single_gap: float | None = None,
    nearest: bool = True,
    continuation: bool = False,
    outline: Callable[[Hit], Sequence[Sequence[str]]] | None = None,
    opening: bool = False,
    headed: bool = False,
    reading: bool = False,
) -> list[Extract]:
    """The sentences to quote, in reading order (by chunk rank, then position).

    Candidates are ranked by the fitted sentence scorer (`answer.scoring`; `scorer`
    defaults to the shipped weights) with `embed` giving the query-sentence similarity.
    Without `embed`, or with `legacy`, they are ranked by the hand-set word-overlap score
    (`answer.legacy`, the first extractive answer, the benchmark's baseline); `legacy`
    also keeps the table rows the question does not name. `exclude` (`edits.shown_sentences`: the
    conversation's answers so far) leaves out every sentence already shown, so "tell me
    more" says something new; then the chunks below the best few are read too.
    `spread_gap` (None: off) gates which chunks give the answer a sentence of their own
    (`spread`), `single_gap` (None: the same) narrows it for a question that asks for one
    thing (`spread_gap_for`); `nearest` also quotes the sentence most like the query (the default,
    `retrieval.quote_nearest`; `selection.choose`), `continuation` the best sentence's next
    one before another chunk's (opt-in, `retrieval.quote_continuation`), `opening` the top
    chunk's best sentence kept and its opening brought in (opt-in, `retrieval.quote_opening`);
    `headed` has the selection rules read a sentence's similarity with its chunk's heading
    before it (opt-in, `retrieval.quote_headed`, `_fitted_scores`).
    `outline` gives a
    hit's document's section paths in order: a list question that quoted no list gets the
    kinds the top document's headings name (`lists.kind_headings`). `reading` (on by default,
    `retrieval.read_siblings`) lets a 4th or 5th hit from a document already read take the
    weakest passage's place (`answer.reading`); `hit_index` still counts in `hits`."""
    keywords = Selection(
        spread_gap=spread_gap,
        single_gap=single_gap,
        nearest=nearest,
        continuation=continuation,
        opening=opening,
        headed=headed,
        reading=False,
    )
    if reading and embed is not None and not legacy and not exclude:
        order = passage_reading.order(query, hits, embed)
        if order[:MAX_CHUNKS] != list(range(min(MAX_CHUNKS, len(hits)))):
            subset = [hits[i] for i in order]
            return _mapped_back(query, subset, order, embed, scorer, keywords, outline)
    q_terms = query_terms(query)
    if exclude:
        return _unshown(query, hits, exclude, embed, scorer, keywords)
    # never quote what speaks to the assistant, nor a document's own [n] or <source> tags
    chunk_units = [quotable(units(h.chunk.text, h.chunk.header)) for h in hits[:MAX_CHUNKS]]
    step = _the_step(query, chunk_units)
    if step:
        return step
    if not any(chunk_units):
        return []
    if legacy or embed is None:
        scored = legacy_ranking.scores(query, hits, chunk_units, q_terms)
        scored = _holding_the_identifier(scored, hits, query)
        chosen = legacy_ranking.choice(scored, MAX_SENTENCES)
    else:
        fitted = scorer or scoring.shipped()
        scored, held = _fitted_scores(query, hits, chunk_units, embed, fitted, headed)
        scored = _holding_the_identifier(scored, hits, query)
        gap = spread_gap_for(query, spread_gap, single_gap)
        near = None if gap is None else spread(hits, gap)
        chosen = selection.choose(
            scored,
            fitted.threshold,
            held,
            near,
            nearest=nearest,
            continuation=continuation,
            opening=opening,
        )
    top = max(s[0] for s in scored)
    row_named = None if legacy else _table_naming(query, hits)
    return _assemble(query, chosen, chunk_units, hits, q_terms, top, row_named, outline)


def spread_gap_for(query: str, wide: float | None, single: float | None) -> float | None:
    """The spread gap for `query`: `wide` when it asks for several things (`lists.asks_several`:
    "what escalation options do we have?" wants each option's passage, and the Enterprise
    tier's sat 0.07 below the best one's), else the narrower `single` (a farther passage is
    then mostly a near miss). None (no gate) stays None."""
    if wide is None or single is None or lists.asks_several(query):
        return wide
    return min(wide, single)


def spread(hits: Sequence[Hit], gap: float = SPREAD_GAP) -> set[int]:
    """The quoted chunks about as close to the query as the best one (within `gap`, dense
    cosine): each may give the answer a sentence of its own. All of them when a chunk's
    cosine is unknown (a BM25-only hit, a caller's own passages)."""
    top = hits[:MAX_CHUNKS]
    cosines = [h.dense for h in top]
    if any(c is None for c in cosines):
        return set(range(len(top)))
    best = max(c for c in cosines if c is not None)
    return {i for i, c in enumerate(cosines) if c is not None and c >= best - gap}


def _unshown(
    query: str,
    hits: Sequence[Hit],
    shown: Sequence[str],
    embed: scoring.Embed | None,
    scorer: scoring.Scorer | None,
    keywords: Selection,
) -> list[Extract]:
    """The best sentences not yet shown, from the best chunks that still hold one."""
    fresh: list[Hit] = []
    origin: list[int] = []
    for i, h in enumerate(hits):
        us = units(h.chunk.text, h.chunk.header)
        left = [u for u in us if not edits.was_shown(u.text, shown)]
        if left:
            body = "\n\n".join(f"- {u.text}" if u.item else u.text for u in left)
            text = f"{h.chunk.header}\n\n{body}"  # units() drops the header line again
            fresh.append(replace(h, chunk=replace(h.chunk, text=text)))
            origin.append(i)
    if not fresh:
        return []
    return _mapped_back(query, fresh, origin, embed, scorer, keywords, None)


def _mapped_back(
    query: str,
    subset: Sequence[Hit],
    origin: Sequence[int],
    embed: scoring.Embed | None,
    scorer: scoring.Scorer | None,
    keywords: Selection,
    outline: Callable[[Hit], Sequence[Sequence[str]]] | None,
) -> list[Extract]:
    """`best_sentences` over `subset` (hits of the caller's list, `origin[i]` the caller's
    index of `subset[i]`), each extract's `hit_index` counted in the caller's list again."""
    picked = best_sentences(query, subset, embed=embed, scorer=scorer, outline=outline, **keywords)
    return [replace(e, hit_index=origin[e.hit_index]) for e in picked]


def _fitted_scores(
    query: str,
    hits: Sequence[Hit],
    chunk_units: Sequence[Sequence[Unit]],
    embed: scoring.Embed | None,
    scorer: scoring.Scorer,
    headed: bool = False,
) -> tuple[list[Scored], dict[tuple[int, int], selection.Evidence]]:
    """Every candidate with the fitted scorer's probability that it belongs in the answer,
    and what each holds of the question (`selection.evidence`), by (chunk, unit).

    With `headed` the evidence's similarity is that of the sentence read under its chunk's
    heading ("...> Maxiflex" then "Same as Variable Week, but you only work 9 days ..."):
    a section's sentences rarely repeat what its heading names, so read alone the one that
    answers looked less like the question than sentences of a section about something else,
    and the nearest-sentence and asked-words rules displaced it. The scorer's own cosine
    features stay as fitted (bench/results/headed_similarity.md)."""
    candidates = candidates_of(chunk_units)
    headers = [h.chunk.header or h.chunk.title or "" for h in hits[:MAX_CHUNKS]]
    kind = asked_type(query)
    ranks = scoring.passage_ranks([h.dense for h in hits[:MAX_CHUNKS]], scorer.rank_by)
    x = scoring.features(query, candidates, headers, kind, embed, ranks)
    p = scorer.probabilities(x)
    scored = [
        (float(pi), c.hit_index, c.position, c.text) for pi, c in zip(p, candidates, strict=True)
    ]
    evidence = selection.evidence(x, kind)
    if headed and embed is not None and candidates:
        read = [f"{headers[c.hit_index]}\n\n{c.text}".strip() for c in candidates]
        vectors = embed([query, *read])
        cosines = vectors[1:] @ vectors[0]
        evidence = [replace(e, cosine=float(cos)) for e, cos in zip(evidence, cosines, strict=True)]
    held = {(c.hit_index, c.position): e for c, e in zip(candidates, evidence, strict=True)}
    return scored, held


def candidates_of(chunk_units: Sequence[Sequence[Unit]]) -> list[scoring.Candidate]:
    """The quotable units of the quoted chunks, as the scorer's candidates."""
    return [
        scoring.Candidate(u.text, hi, si, item=u.item)
        for hi, us in enumerate(chunk_units)
        for si, u in enumerate(us)
    ]


def _assemble(
    query: str,
    chosen: list[Scored],
    chunk_units: Sequence[Sequence[Unit]],
    hits: Sequence[Hit],
    q_terms: set[str],
    top: float,
    row_named: Callable[[int, Unit], bool] | None = None,
    outline: Callable[[Hit], Sequence[Sequence[str]]] | None = None,
) -> list[Extract]:
    """The chosen units in reading order, with what completes them: a procedure's steps,
    a listed class's whole list, the sentence a pronoun points back to, announced items."""
    header_terms = [set(terms(h.chunk.header)) for h in hits[:MAX_CHUNKS]]
    chosen = _named_rows_only(chosen, chunk_units, q_terms)[:MAX_SENTENCES]
    chosen.sort(key=lambda s: (s[1], s[2]))
    out: list[Extract] = []
    quoted: set[tuple[int, int]] = set()
    said: set[str] = set()

    def quote(hi: int, sj: int, score: float, *, step: bool = False) -> None:
        unit = chunk_units[hi][sj]
        if row_named is not None and unit.row and not row_named(hi, unit):
            return  # a row of a table the question does not name is padding
        lead = lists.lead_in(chunk_units[hi], sj) if unit.item else None
        if lead is not None and (hi, lead) not in quoted:
            # "It does not address:" before "- A fully remote employee"; an item's parent
            # item (and the parent's own lead-in) before it
            quote(hi, lead, score)
        if (hi, sj) not in quoted:
            quoted.add((hi, sj))
            if not unit.item and selection.said_key(unit.text) in said:
                return  # a page and its copy: the sentence is quoted once
            said.add(selection.said_key(unit.text))
            out.append(Extract(unit.text, hi, score, item=unit.item, step=step))

    def completed(hi: int, si: int, score: float) -> None:
        """What unit `si` promises, quoted after it: the items under an item ending in a
        colon; for a question the document asks (an FAQ's "Q: Can I use the stipend for a
        family member?"), the answer after it, in the next chunk when the question ends
        its own."""
        for sj in lists.sub_items(chunk_units[hi], si):
            quote(hi, sj, score)
        if not _asks(chunk_units[hi][si].text):
            return
        at, sj = hi, si + 1
        if sj >= len(chunk_units[hi]):
            nxt = _next_chunk(hits, hi)
            if nxt is None or not chunk_units[nxt]:
                return
            at, sj = nxt, 0
        if _asks(chunk_units[at][sj].text):
            return  # questions in a row (an FAQ's index): no answer to take
        quote(at, sj, score)
        completed(at, sj, score)  # the answer's own items ("A: two kinds:")

    listing = listed_class(query)
    kind = asked_type(query)
    for sc, hi, si, _ in chosen:
        us = chunk_units[hi]
        if us[si].item:
            for sj in lists.procedure(us, si):  # a procedure's steps, all of them
                quote(hi, sj, sc, step=True)
            if listing is not None and lists.lists(listing, us[si], header_terms[hi]):
                for sj in lists.whole_list(us, si):  # "what are the plans?": every plan
                    quote(hi, sj, sc)
            parent = lists.lead_in(us, si)
            for sj in lists.sub_items(us, parent) if parent is not None else ():
                quote(hi, sj, sc)  # "a maximum of:" and every case it announces
            quote(hi, si, sc)  # a lone item (a no-op when it was one of those steps)
            completed(hi, si, sc)
            continue
        if si > 0 and _PRONOUN_OPENING.match(us[si].text) and not us[si - 1].item:
            quote(hi, si - 1, sc)  # "It includes two sites": what "it" is, said just before
        par = selection.parallel(us, si, query, kind)  # "a cap of $5m", "a cap of $6m"
        for sj in par:
            if sj < si:
                quote(hi, sj, sc)
        quote(hi, si, sc)
        completed(hi, si, sc)
        for sj in par:
            if sj > si:
                quote(hi, sj, sc)
        for sj in lists.announced_items(us, si, q_terms):
            quote(hi, sj, sc)
        nxt = _next_chunk(hits, hi) if lists.announced_past_end(us, si, q_terms) else None
        if nxt is not None:  # the chunk ended between the announcement and its list
            for sj in lists.leading_items(chunk_units[nxt]):
                quote(nxt, sj, sc, step=chunk_units[nxt][sj].step)
    if listing is not None and not any(e.item for e in out):
        # "what are the API rate limits?" quoted three sentences about limits and not the
        # table of them: the list its section or labels name is the answer
        named = lists.named_list(listing, chunk_units, header_terms)
        if named is not None:
            for sj in named[1]:
                quote(named[0], sj, top)
    kinds_of = lists.asked_kinds(query.strip().rstrip("?.! "))
    if kinds_of is not None and outline is not None and hits and sum(e.item for e in out) < 2:
        out = _with_kind_headings(out, kinds_of, hits[0], outline(hits[0]), top)
    return _superlative_first(query, chunk_units, _headed(query, out, hits))


def _asks(text: str) -> bool:
    """A unit that is a question ("Q: Can I work part-time during my leave?", "Moving to
    another country?"): a document that asks one answers it next."""
    return text.rstrip(" *_\"'”’)").endswith("?")


def _next_chunk(hits: Sequence[Hit], hi: int) -> int | None:
    """The quoted hit holding the chunk that follows hit `hi`'s in its document's section."""
    chunk = hits[hi].chunk
    ordinal = chunk.metadata.get("ordinal")
    if not isinstance(ordinal, int):
        return None
    for hj, other in enumerate(hits[:MAX_CHUNKS]):
        c = other.chunk
        if (c.doc_id, c.section) == (chunk.doc_id, chunk.section) and (
            c.metadata.get("ordinal") == ordinal + 1
        ):
            return hj
    return None


def _with_kind_headings(
    out: list[Extract], noun: str, first: Hit, outline: Sequence[Sequence[str]], top: float
) -> list[Extract]:
    """ "what kinds of flexible schedules does GSA allow?" quoted no list: the kinds are the
    headings of the top document's section about schedules (`lists.kind_headings`),
    quoted as the answer's list after the top chunk's sentences. A lone item quoted
    beside them ("Same as Variable Week, ...") stays as a sentence: it is no kind, and
    "the second one" counts the kinds."""
    kinds = lists.kind_headings(noun, first.chunk.section, first.chunk.title, outline)
    if not kinds:
        return out
    out = [replace(e, item=False) for e in out]
    at = max((k + 1 for k, e in enumerate(out) if e.hit_index == 0), default=0)
    return out[:at] + [Extract(k, 0, top, item=True) for k in kinds] + out[at:]


def _headed(query: str, out: list[Extract], hits: Sequence[Hit]) -> list[Extract]:
    """`out` with a chunk's telling heading (`selection.telling_headings`) before its
    first quoted sentence."""
    quoted: dict[int, list[str]] = {}
    for e in out:
        quoted.setdefault(e.hit_index, []).append(e.sentence)
    sections = [h.chunk.section for h in hits[:MAX_CHUNKS]]
    headings = selection.telling_headings(query, quoted, sections)
    headed: list[Extract] = []
    for e in out:
        heading = headings.pop(e.hit_index, None)
        if heading is not None:
            headed.append(Extract(heading, e.hit_index, e.score))
        headed.append(e)
    return headed


def _table_naming(query: str, hits: Sequence[Hit]) -> Callable[[int, Unit], bool]:
    """Whether the question names a table row: its label ("Pro"), a column ("price",
    "support tier") or the table's section ("Shop hours"); an amount question ("how much
    ...?") names a column of amounts. A job-title table quoted for "how much parental
    leave do we get?" is padding, and its rows became the next turn's topic."""
    asked = scoring.content_stems(query)
    kind = asked_type(query)
    amounts = amount_columns() if kind is AnswerType.PRICE else frozenset()
    listing = listed_class(query)

    def named(hi: int, unit: Unit) -> bool:
        section = hits[hi].chunk.section[-1] if hits[hi].chunk.section else ""
        columns = [part.split(": ", 1)[0] for part in unit.text.split("; ") if ": " in part]
        # the label column's heading ("Plan") is the class of every row: "an annual plan"
        # names no row of the plans table; "plan code" names its "code" column
        # (and a section named "Plans" is the same class)
        label_words = scoring.content_stems(columns[0]) if columns else set()
        named_columns = scoring.content_stems(" ".join(columns[1:])) - label_words
        words = scoring.content_stems(unit.key) | named_columns
        words |= scoring.content_stems(section) - label_words
        if asked & words:
            return True
        classes = f"{columns[0]} {section} {hits[hi].chunk.title}" if columns else ""
        if listing is not None and listing in terms(classes):
            return True  # "what plans are there?": every row is a plan
        if columns and _asks_for_all(query, columns[0]):
            return True  # "what plans are there for cloud connect?", "the plans"
        return bool(amounts & named_columns)

    return named


def _asks_for_all(query: str, label_column: str) -> bool:
    """The question asks for the rows' class in the plural ("what plans ...", "which
    levels ...", "the plans"): the whole table, not one row; "an annual plan" does not."""
    nouns = [w for w in re.findall(r"[a-z]+", label_column.lower()) if len(w) > 2]
    if not nouns:
        return False
    plural = "|".join(f"{re.escape(n)}(?:s|es)" for n in nouns)
    pattern = rf"\b(?:what|which|list|all|the|your|our)\s+(?:[a-z-]+\s+){{0,2}}(?:{plural})\b"
    return re.search(pattern, query.lower()) is not None


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
