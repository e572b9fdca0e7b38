"""The state of one resolution: the history made readable, the salience cache, and what
several passes look up once (the previous question and its resolution, the lists of
recent answers, the antecedent a pronoun chain keeps)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Set
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from tellmemore.analysis import lexicon
from tellmemore.conversation import constants as C
from tellmemore.conversation.analysis import analyze
from tellmemore.conversation.binding import (
    Candidate,
    Phrase,
    Salience,
    phrases,
)
from tellmemore.conversation.decide import decide
from tellmemore.conversation.gate import gate
from tellmemore.conversation.headings import headings_of
from tellmemore.conversation.lists import column_labels, list_items, quoted_items
from tellmemore.conversation.named import without_heading
from tellmemore.conversation.passes.readable import (
    _readable,
)
from tellmemore.conversation.preamble import without_preamble
from tellmemore.conversation.realize import (
    is_name,
)
from tellmemore.conversation.referents import (
    Ellipsis,
    Referent,
    ReferentKind,
    find_referents,
    no_answer_complaint,
)
from tellmemore.conversation.text import (
    content_words,
    stem,
    strip_citations,
    surface_form,
)
from tellmemore.types import Decision, Resolution, Turn

if TYPE_CHECKING:  # annotations only: resolvers/ imports this module
    from tellmemore.conversation.resolvers.base import ResolveContext


def mention(text: str, item: Phrase) -> int:
    """Where lower-cased `text` first names `item` as a whole word, else -1."""
    m = re.search(rf"\b{re.escape(item.text.lower())}\b", text)
    return m.start() if m else -1


def support(answer: str, pos: int, item: Phrase, asked: set[str]) -> int:
    """How many words of the question the answer's sentence naming `item` at `pos` repeats,
    besides the item's own."""
    start = max(answer.rfind(". ", 0, pos) + 1, 0)
    end = answer.find(". ", pos)
    sentence = answer[start : end if end >= 0 else len(answer)]
    said = {stem(w) for w in content_words(sentence)} - set(item.stems)
    return len(said & asked)


ALTERNATIVE_KINDS = (ReferentKind.ONE, ReferentKind.OTHER, ReferentKind.WHICH)


@dataclass(frozen=True)
class Ambiguous:
    """A coin flip between these options: the turn asks which one is meant."""

    options: list[Phrase]


CHAINED_KINDS = (ReferentKind.PRONOUN, ReferentKind.POSSESSIVE)
"""Pronouns that keep the previous question's topic when the previous question had one."""


CLAUSE = lexicon.pattern("clause")
"""Where a clause ends: a noun phrase before it can be a later pronoun's antecedent."""


def with_passes(res: Resolution, *names: str) -> Resolution:
    """`res` recording that `names` fired, before the passes it records already."""
    merged = tuple(dict.fromkeys((*names, *res.passes)))
    return res if merged == res.passes else replace(res, passes=merged)


class RunState:
    """One resolution: the history, the shared salience cache, the candidates."""

    def __init__(
        self, history: list[Turn], context: ResolveContext, prepared: Set[int] = frozenset()
    ) -> None:
        """`prepared`: indices of `history` already made readable (a sub-run over the
        parent's history: its typos are fixed once, not again for every sub-run)."""
        self.history, read = _readable(history, context.window, context.term_stats, prepared)
        self._read = frozenset(read)
        self._casing_texts = [self.history[i].content for i in read]
        """Where a phrase's best casing is looked for: the turns read, not the whole session."""
        self.context = context
        self.salience = Salience(context.term_stats)
        self.headings = headings_of(context.headings)
        self.depth = 0
        self.refit = False
        """A pronoun's antecedent was chosen by the passage fit over the most salient one
        (`passes.fit`): the resolution records the "fit" pass."""
        self.declined: frozenset[str] = frozenset()
        """Stems of the options a clarifying question offered that the reply did not choose
        ("phone" chosen over "laptop"): never added back as the topic's scope."""
        self._chain: tuple[Phrase, str] | Literal[False] | None = False
        """The chained antecedent once looked up (False: not yet)."""
        self._picked: Phrase | Literal[False] | None = False
        """The option the last answer picked, once looked up (False: not yet)."""
        self._prev: tuple[int, str] | Literal[False] | None = False
        """The previous user question (its turn, its text), once looked up."""
        self._prev_res: tuple[RunState, Resolution] | Literal[False] | None = False
        """The previous question resolved over the history before it, once."""
        self._prev_parts: tuple[list[Referent], Ellipsis | None] | None = None
        """The previous question's referents and ellipsis, once read."""
        self._inner: tuple[str, int, int] | None = None
        """(message, end of its first name or distinctive phrase, end of its first noun
        phrase): pronouns after them may point inside the message."""
        self._columns: dict[int, list[set[str]]] = {}
        """Column names of the table rows each answer quotes, by turn, once looked up."""
        self._lists: dict[tuple[int, bool], list[Phrase]] = {}
        """List items of each turn, by (turn, loose), once parsed."""

    def resolve(self, message: str, *, depth: int, prefer: str | None = None) -> Resolution:
        """`message` resolved over this state's history (the passes in their order)."""
        from tellmemore.conversation.passes.dispatch import resolve

        return resolve(self, message, depth=depth, prefer=prefer)

    def sub_run(self, end: int) -> RunState:
        """A run over the history before turn `end`, reusing what this run prepared."""
        return RunState(self.history[:end], self.context, {i for i in self._read if i < end})

    def previous_question(self, depth: int) -> tuple[str, str] | None:
        """The previous user question as typed, and made standalone (ellipses chain).
        Small talk and requests about an answer ("thanks", "make it shorter") are no
        question: "what about Status Page?" after "thanks" varies the one before."""
        previous = self.previous()
        if previous is None:
            return None
        prev = previous[1]
        if depth >= C.ELLIPSIS_DEPTH:
            return prev, prev
        resolved = self.previous_resolved()
        res = resolved[1] if resolved is not None else None
        return prev, (prev if res is None or res.ambiguous else res.query)

    def previous(self) -> tuple[int, str] | None:
        """The previous user question's turn and text ("By the way, ..." dropped), once."""
        if self._prev is False:
            idx = self.previous_question_index()
            text = without_preamble(self.history[idx].content.strip()) if idx is not None else ""
            self._prev = (idx, text) if idx is not None and text else None
        return self._prev

    def previous_parts(self) -> tuple[list[Referent], Ellipsis | None]:
        """The previous question's referents and ellipsis, read once per run (the chained
        pronoun, the scope and the swapped-out subject all ask)."""
        if self._prev_parts is None:
            previous = self.previous()
            text = previous[1] if previous is not None else ""
            a = analyze(text)
            self._prev_parts = (list(a.referents), a.ellipsis) if text else ([], None)
        return self._prev_parts

    def previous_resolved(self) -> tuple[RunState, Resolution] | None:
        """The previous question as it was resolved, once per run: ellipses, chained
        pronouns and "they both" all read it. A stored session gives it (the turn's
        Resolution from state.db); otherwise it is resolved again over the history before
        it (a sub-run), at most ELLIPSIS_DEPTH deep: a chain of 660 "what about X?" turns
        once overflowed the stack."""
        if self._prev_res is False:
            previous = self.previous()
            self._prev_res = None
            if previous is not None:
                stored = self.history[previous[0]].resolution
                if stored is not None:
                    self._prev_res = (self, without_heading(stored, self.history, previous[0]))
                elif self.depth < C.ELLIPSIS_DEPTH:
                    sub = self.sub_run(previous[0])
                    sub.salience = self.salience
                    self._prev_res = (sub, sub.resolve(previous[1], depth=self.depth + 1))
        return self._prev_res

    def last_own_subject(self) -> int:
        """The turn of the previous question when it named its own subject ("ok thanks.
        what routers does cloud connect support?"), else -1: scope comes from it, not from
        the pass asked about before."""
        previous = self.previous()
        if previous is None:
            return -1
        idx, text = previous
        refs, ellipsis = self.previous_parts()
        if refs or ellipsis is not None:
            return -1
        verdict = gate(text, self.history[:idx], salience=self.salience, headings=self.headings)
        return -1 if verdict.needs_resolution else idx

    def swapped_out(self) -> set[str]:
        """Stems of what the previous question's ellipsis swapped out: "is that the same for
        Cloud Connect?" after a question on Status Page left Status Page behind, and the
        next "what does it cost?" must not bind it or carry it as scope."""
        previous = self.previous()
        if previous is None or self.previous_parts()[1] is None:
            return set()  # no ellipsis, nothing swapped: and no sub-run on the hot path
        resolved = self.previous_resolved()
        if resolved is None or resolved[1].ambiguous:
            return set()
        res = resolved[1]
        said = {stem(w) for v in res.bindings.values() for w in content_words(v)}
        return said - {stem(w) for w in content_words(res.query)}

    def previous_question_index(self) -> int | None:
        return next(
            (
                i
                for i in range(len(self.history) - 1, -1, -1)
                if self.history[i].role == "user"
                and decide(self.history[i].content, self.history[:i]).decision is Decision.RETRIEVE
                and no_answer_complaint(self.history[i].content) is None
            ),
            None,
        )

    def read_vocabularies(self) -> list[frozenset[str]]:
        """The words candidates come from (user turns of the window + the first one, the
        opening of the last answer), from their analyses: primed in one term_stats call."""
        out = []
        window = self.context.window
        users = [i for i, t in enumerate(self.history) if t.role == "user"]
        keep = set(users[-window:]) | set(users[:1])
        for i in keep:
            out.append(analyze(self.history[i].content).vocabulary)
        last = next((t for t in reversed(self.history) if t.role == "assistant"), None)
        if last is not None:
            out.append(analyze(last.content).opening_words(C.ASSISTANT_SENTENCES)[0])
        return out

    def is_column(self, c: Candidate) -> bool:
        """A column name of a table row an answer quoted ("Bandwidth" of "Bandwidth per site:
        1 Gbit/s"): "how long until they respond?" had bound it."""
        if c.role != "assistant":
            return False
        if c.turn not in self._columns:  # the answer the candidate was said in, read once
            self._columns[c.turn] = column_labels(self.history[c.turn].content)
        return any(set(c.stems) <= labels for labels in self._columns[c.turn])

    def items(self, *, loose: bool = False) -> tuple[list[Phrase], int]:
        """List items of the most recent assistant answer (within the window) that has one."""
        return next(self.recent_lists(loose=loose), ([], -1))

    def items_naming(self, word: str) -> list[Phrase]:
        """The items that hold `word` in the most recent list (within the window) that has
        any: "the Norrland ones" after a clarification listed only the Kestrel models."""
        s = stem(word)
        for items, _ in self.recent_lists():
            named = [p for p in items if s in p.stems]
            if named:
                return named
        return []

    def siblings_of(self, bound: Iterable[str]) -> list[set[str]]:
        """The stems of the other items of a recent list that holds a bound antecedent: the
        alternatives the referent chose against, never its topic."""
        bound_low = {b.lower() for b in bound}
        out: list[set[str]] = []
        for items, _ in self.recent_lists():
            if bound_low & {p.text.lower() for p in items}:
                out += [set(p.stems) for p in items if p.text.lower() not in bound_low]
        return out

    def recent_lists(self, *, loose: bool = False) -> Iterator[tuple[list[Phrase], int]]:
        """Each assistant answer within the window that lists 2+ items, newest first."""
        seen = 0
        for i in range(len(self.history) - 1, -1, -1):
            turn = self.history[i]
            if turn.role != "assistant":
                continue
            seen += 1
            if seen > self.context.window:
                return
            items = self.list_at(i, loose=loose)
            if len(items) >= 2:
                yield items, i

    def list_at(self, i: int, *, loose: bool = False) -> list[Phrase]:
        """The items turn `i` lists, parsed once per run (several rules ask): the list it
        quoted when the session stored one (`Turn.items`), else read out of its text (a
        stateless caller's history, a generated answer)."""
        key = (i, loose)
        if key not in self._lists:
            turn = self.history[i]
            self._lists[key] = (
                quoted_items(turn.items, turn.content)
                if turn.items
                else list_items(turn.content, loose=loose)
            )
        return self._lists[key]

    def is_name(self, phrase: Phrase) -> bool:
        """Every word capitalised somewhere in the conversation ("doctor strange" typed by
        the user, "Doctor Strange" in the answer; "macOS" inside): a name a person pronoun
        can bind."""
        words = self.surface(phrase).split()
        return bool(words) and all(is_name(w) or not w[:1].isalpha() for w in words)

    def surface(self, phrase: Phrase) -> str:
        return surface_form(phrase.text, self._casing_texts)

    def inner_bounds(self, message: str) -> tuple[int, int]:
        """Where the message's first name or distinctive phrase ends, and where the clause
        after its first noun phrase ends (cached per message)."""
        if self._inner is None or self._inner[0] != message:
            strong = weak = len(message) + 1
            pos = 0
            for p in phrases(message):
                at = message.find(p.text, pos)
                end = at + len(p.text)
                pos = max(pos, end)
                distinctive = self.salience.phrase(p.stems) >= C.DISTINCTIVE_IDF
                if p.capitalized or (len(p.stems) >= 2 and distinctive):
                    strong = min(strong, end)
                weak = min(weak, end)
            first_clause_end = next(
                (m.start() for m in CLAUSE.finditer(message) if m.start() >= weak), None
            )
            self._inner = (
                message,
                strong,
                first_clause_end if first_clause_end is not None else len(message) + 1,
            )
        _, strong, clause_end = self._inner
        return strong, clause_end

    def picked_alternative(self) -> Phrase | None:
        """The alternative the last answer picked when the question before it asked which
        one: after "which one is the cheapest?" answered "Plan: Starter; ... $49", the "it"
        of "how many sites does it include?" is Starter, not a phrase of the answer. Looked
        up once per run, however many pronouns ask for it."""
        if self._picked is False:
            self._picked = self.find_picked()
        return self._picked

    def find_picked(self) -> Phrase | None:
        h = self.history
        if len(h) < 3 or h[-1].role != "assistant" or h[-2].role != "user":
            return None
        if not any(r.kind == ReferentKind.WHICH for r in find_referents(h[-2].content)):
            return None
        offered = next(
            (
                items
                for i in range(len(h) - 3, -1, -1)
                if h[i].role == "assistant" and len(items := self.list_at(i)) >= 2
            ),
            [],
        )
        answer = strip_citations(h[-1].content).lower()
        found = [(pos, item) for item in offered if (pos := mention(answer, item)) >= 0]
        if not found:
            return None
        # "which one do I need for 10 Gbit/s?" answered with both models: the one whose
        # sentence says "10 Gbit/s" is picked, else the one named first
        asked = {stem(w) for w in content_words(h[-2].content)}
        return max(found, key=lambda f: (support(answer, f[0], f[1], asked), -f[0]))[1]

    def chained_antecedent(self) -> tuple[Phrase, str] | None:
        """What the previous question's pronoun was bound to: "how much does it cost?"
        then "can I use my own domain with it?" keep talking about Status Page. Worked
        out once per run, however many pronouns the message holds."""
        if self._chain is False:
            from tellmemore.conversation.passes.pronoun import find_chained

            self._chain = find_chained(self)
        return self._chain
