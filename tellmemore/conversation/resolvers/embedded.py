"""The default resolver: no model call, about a millisecond.

It binds referents ("that one", "it", "the second") to phrases of the recent
history chosen by salience (IDF from the index's term statistics x recency, user
turns over assistant turns, list items of the last answer for ordinals), rebuilds
ellipses ("and on holidays?") from the previous question, carries the
conversation's topic into messages with too little signal of their own, and
carries nothing when the message brings its own distinctive subject. When two
alternatives are a coin flip it asks instead of guessing (seed 003).

The query is human-readable ("does Enterprise escalation on Cloud Connect cover
weekends?") because it is shown to the user; the message's own words, codes,
numbers and dates are never altered, only supplemented.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator, Sequence, Set
from dataclasses import dataclass, replace
from typing import ClassVar

from tellmemore.analysis import lexicon
from tellmemore.conversation import constants as C
from tellmemore.conversation.binding import (
    PREDICATES,
    PREPOSITIONS,
    Candidate,
    Phrase,
    Salience,
    TermStatsLookup,
    agreement,
    collect_candidates,
    containing,
    matching,
    phrases,
    same_head_pair,
    same_number,
    sentences,
)
from tellmemore.conversation.compose import (
    append_phrases,
    clarification_question,
    is_name,
    parse_clarification,
    replacement,
    same_ordinal,
    splice,
    splice_modifier,
    substitute_subject,
    time_qualifier,
)
from tellmemore.conversation.decide import decide
from tellmemore.conversation.definites import find_definite, spliced
from tellmemore.conversation.gate import GateResult, gate
from tellmemore.conversation.headings import headings_of
from tellmemore.conversation.lists import column_labels, list_items, row_subject
from tellmemore.conversation.preamble import split_preamble, without_preamble
from tellmemore.conversation.referents import (
    ORDINAL_HEADS,
    Ellipsis,
    EllipsisKind,
    Referent,
    ReferentKind,
    find_ellipsis,
    find_referents,
    is_bare_time,
    no_answer_complaint,
    still_true,
)
from tellmemore.conversation.resolvers.base import ResolveContext
from tellmemore.conversation.selector import candidates as selector_candidates
from tellmemore.conversation.selector import default_model
from tellmemore.conversation.spelling import correct_spelling
from tellmemore.conversation.text import (
    FUNCTION_WORDS,
    GENERIC_NOUNS,
    MONTHS,
    RELATIONAL_NOUNS,
    content_words,
    looks_plural,
    missing_protected,
    stem,
    strip_citations,
    surface_form,
    tokenize,
)
from tellmemore.types import Decision, Resolution, Turn

logger = logging.getLogger(__name__)

_CLAUSE = lexicon.pattern("clause")
"""Where a clause ends: a noun phrase before it can be a later pronoun's antecedent."""
_ALTERNATIVE_KINDS = (ReferentKind.ONE, ReferentKind.OTHER, ReferentKind.WHICH)
_METALINGUISTIC = lexicon.words("metalinguistic")
"""Nouns with which "this term" names a word of the same message, not an earlier thing."""


@dataclass(frozen=True)
class _Ambiguous:
    options: list[Phrase]


class EmbeddedResolver:
    """Resolve a follow-up from the history and term statistics, without a model.

    >>> history = [Turn("user", "What does the monthly pass cost?"),
    ...            Turn("assistant", "The monthly pass costs 30 dollars.")]
    >>> EmbeddedResolver().resolve("Does it include e-bikes?", history, ResolveContext()).query
    'Does the monthly pass include e-bikes?'
    """

    name: ClassVar[str] = "embedded"

    def resolve(self, message: str, history: Sequence[Turn], context: ResolveContext) -> Resolution:
        start = time.perf_counter()
        preamble = split_preamble(message)
        asked = preamble.rest if preamble is not None else message
        try:
            res = _Run(list(history), context).resolve(asked, depth=0)
            if preamble is not None and preamble.switches and set(res.bindings) == {"topic"}:
                res = Resolution(query=asked)  # "by the way, ...": the topic is left behind
        except Exception as exc:
            logger.exception("embedded resolver failed on %r", message[:200])
            res = Resolution(query=message, degraded=f"embedded resolver error: {exc!r}")
        missing = missing_protected(message, res.query)
        if missing:  # the contract: codes, numbers and dates of the message reach the index
            res = replace(res, query=f"{res.query} {' '.join(missing)}")
        return replace(res, resolver=self.name, latency_ms=(time.perf_counter() - start) * 1000.0)


def _only_pointing_at_the_answer(message: str, refs: list[Referent]) -> bool:
    """ "why can't you answer that?": the complaint's only referents are what it could not
    answer, not a thing to search for."""
    complaint = no_answer_complaint(message) or ""
    end = message.lower().find(complaint.lower()) + len(complaint)
    return all(r.start >= end and r.text.lower() in _ANSWER_POINTERS for r in refs)


_ANSWER_POINTERS = lexicon.words("answer_pointers")


class _Run:
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
        self._depth = 0
        self._chain: tuple[Phrase, str] | bool | None = False
        """The chained antecedent once looked up (False: not yet)."""
        self._picked: Phrase | bool | None = False
        """The option the last answer picked, once looked up (False: not yet)."""
        self._prev: tuple[int, str] | bool | None = False
        """The previous user question (its turn, its text), once looked up."""
        self._prev_res: tuple[_Run, Resolution] | bool | None = False
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
        self._depth = depth
        history = self.history
        if not any(t.content.strip() for t in history) or not tokenize(message):
            return Resolution(query=message)
        if prefer is None:
            chained = self._clarification_reply(message, depth)
            if chained is not None:
                return chained
        self.salience.prime([message, self.context.summary, *self._read_texts()])
        refs = find_referents(message)
        ellipsis = find_ellipsis(message)
        verdict: GateResult | None = None
        complaint = no_answer_complaint(message) if ellipsis is None else None
        if complaint is not None and prefer is None and _only_pointing_at_the_answer(message, refs):
            prev = self._previous_question(depth)
            if prev is not None:  # the previous question, still unanswered, asked again
                return Resolution(query=prev[1], bindings={complaint.lower(): prev[1]})
        if not refs and ellipsis is None and prefer is None:
            verdict = gate(message, history, salience=self.salience, headings=self.headings)
            if not verdict.needs_resolution:
                return Resolution(query=message)  # its own subject: carry nothing
            definite = (
                find_definite(message, history) if verdict.reason.startswith("definite") else None
            )
            if definite is not None:
                text = self._surface(definite.antecedent)
                return Resolution(
                    query=spliced(message, definite, text), bindings={definite.text: text}
                )
        cands = collect_candidates(
            history, self.salience, window=self.context.window, summary=self.context.summary
        )
        own = {stem(w) for w in content_words(message)}
        dropped = self._swapped_out()
        cands = [
            c
            for c in cands
            if not set(c.stems) <= own and not self._is_column(c) and not set(c.stems) & dropped
        ]
        needs_items = prefer is not None or any(
            r.kind in (*_ALTERNATIVE_KINDS, ReferentKind.ORDINAL) for r in refs
        )
        items, list_turn = self._items() if needs_items else ([], -1)
        if refs:
            return self._bind(message, refs, ellipsis, cands, items, list_turn, prefer, depth)
        if ellipsis is not None:
            return self._ellipsis(message, ellipsis, cands, depth)
        return self._carry(message, cands, key="topic", verdict=verdict)

    # --- referents --------------------------------------------------------------------

    def _bind(
        self,
        message: str,
        refs: list[Referent],
        ellipsis: Ellipsis | None,
        cands: list[Candidate],
        items: list[Phrase],
        list_turn: int,
        prefer: str | None,
        depth: int,
    ) -> Resolution:
        edits: list[tuple[Referent, str]] = []
        bindings: dict[str, str] = {}
        from_assistant = False
        bound_before: tuple[Referent, Phrase] | None = None
        for ref in refs:
            if prefer is None and self._stands_alone(message, ref, cands, items):
                continue
            if (
                ref.kind in _CHAINED_KINDS
                and bound_before is not None
                and (agreement(ref, bound_before[1]) >= 1.0 or same_number(ref, bound_before[0]))
            ):
                # "the second one, does it include helmets?": "it" is that one; "are
                # those sport played by women, can they play them?": "them" is those
                continue
            out = self._both(ref, message, cands) or self._bind_one(
                ref, cands, items, list_turn, prefer
            )
            if isinstance(out, _Ambiguous):  # a coin flip between alternatives: ask
                return Resolution(
                    query=message,
                    ambiguous=True,
                    clarification=clarification_question(out.options),
                    candidates=tuple(p.text for p in out.options),
                )
            if out is None:
                continue
            phrase, source_role = out
            if ref.kind in _CHAINED_KINDS and _ends_in_predicate(phrase):
                # "is Sydney available?" then "the latency to it": Sydney, not "Sydney available"
                phrase = replace(
                    phrase, text=phrase.text.rsplit(None, 1)[0], stems=phrase.stems[:-1]
                )
            bound_before = (ref, phrase)
            text = self._surface(phrase)
            bindings[ref.text] = text
            edits.append((ref, replacement(ref, phrase, text, message)))
            from_assistant |= source_role != "user"
        if not edits and all(self._stands_alone(message, r, cands, items) for r in refs):
            if ellipsis is not None:
                return self._ellipsis(message, ellipsis, cands, depth)
            return Resolution(query=message)  # "North Carolina ... its weather": inside
        if not edits:
            if ellipsis is not None:
                return self._ellipsis(message, ellipsis, cands, depth)
            return Resolution(query=message, unbound_referent=True)
        query = splice(message, edits)
        if ellipsis is not None and ellipsis.kind != EllipsisKind.MORE:
            again = find_ellipsis(query) or ellipsis
            res = self._ellipsis(query, again, cands, depth, typed_fragment=ellipsis.fragment)
            return replace(res, bindings={**bindings, **res.bindings})
        if from_assistant:
            scope = self._scope(query, bindings, cands)
            if scope is not None:
                first = edits[0][0]
                scope_text = f"{scope.prep or 'for'} {self._surface(scope)}"
                query = splice(message, edits, scope=(first, scope_text))
                bindings["scope"] = self._surface(scope)
        return Resolution(query=query, bindings=bindings)

    def _bind_one(
        self,
        ref: Referent,
        cands: list[Candidate],
        items: list[Phrase],
        list_turn: int,
        prefer: str | None,
    ) -> tuple[Phrase, str] | _Ambiguous | None:
        if prefer is not None and ref.kind not in (ReferentKind.DEMONSTRATIVE,):
            match = matching(prefer, items) or Phrase(prefer, tuple(map(stem, prefer.split())))
            return match, "assistant"
        if ref.kind == ReferentKind.ORDINAL:
            if not items:
                items = self._items(loose=True)[0]
            if not items:
                return None
            n = ref.ordinal or 1
            if 1 < ref.count <= len(items):  # "the last two"
                picked = items[-ref.count :] if n == -1 else items[: ref.count]
                joined = " and ".join(self._surface(p) for p in picked)
                return Phrase(joined, tuple(s for p in picked for s in p.stems)), "assistant"
            if n == -1 or n <= len(items):
                return items[n - 1 if n > 0 else -1], "assistant"
            return None
        if ref.modifier and ref.kind in (ReferentKind.ONE, ReferentKind.DEMONSTRATIVE):
            named = [p for p in items if stem(ref.modifier) in p.stems]
            named = named or self._items_naming(ref.modifier)
            if len(named) >= 2 and ref.kind is ReferentKind.ONE:
                if ref.text.lower().endswith("ones"):  # "the Norrland ones": all of them
                    joined = " and ".join(self._surface(p) for p in named)
                    return Phrase(joined, tuple(s for p in named for s in p.stems)), "assistant"
                return _Ambiguous(named)  # "the Kestrel one" of two Kestrel models: ask
            hit = named[0] if named else containing(ref.modifier, [c.phrase for c in cands])
            if hit is not None:
                return hit, "assistant"
            if ref.kind == ReferentKind.ONE:
                return None  # "the regular one" among items none of which is regular
        if ref.kind == ReferentKind.ONE and not ref.modifier:
            picked = self._picked_alternative()  # "how much is that one?" after "which ...?"
            if picked is not None:
                return picked, "user"  # the user asked for it: no scope to add
        # a list the user moved on from ("My tyre went flat." after the shop hours) holds
        # no "other one": it is said of the current topic ("the other one (tyre)"), below
        if ref.kind == ReferentKind.WHICH:
            asked = self._asked_between()
            if asked is not None:  # "the difference between Starter and Pro?" then "which one"
                return asked, "user"
        if (
            ref.kind in _ALTERNATIVE_KINDS
            and len(items) >= 2
            and not self._left_behind(items, list_turn)
        ):
            return self._alternative(ref, items, list_turn)
        if ref.kind == ReferentKind.WHICH:
            pair = same_head_pair([c.phrase for c in cands])
            if pair is not None:  # "static secrets" ... "dynamic secrets": which one?
                joined = " or ".join(self._surface(p) for p in pair)
                return Phrase(joined, tuple(s for p in pair for s in p.stems)), "assistant"
            chained = self._chained_antecedent() if self._depth < C.ELLIPSIS_DEPTH else None
            if chained is not None and " and " in chained[0].text:
                # "how do I set them up?" was about two models: "which one" is one of them
                options = chained[0].text.replace(" and ", " or ")
                return Phrase(options, chained[0].stems), "user"
        if ref.kind in _CHAINED_KINDS and self._depth < C.ELLIPSIS_DEPTH:
            picked = self._picked_alternative()
            if picked is not None and agreement(ref, picked) >= 1.0:
                return picked, "user"  # the user asked for it: no scope to add
            chained = self._chained_antecedent()
            if chained is not None and agreement(ref, chained[0]) >= 1.0:
                return chained
        pool = [c for c in cands if _can_be_pointed_at(c)]
        if ref.kind == ReferentKind.PERSON:
            pool = [c for c in pool if self._is_name(c.phrase)] or pool
        if not pool:
            return None
        best = max(pool, key=lambda c: c.score * agreement(ref, c.phrase))
        if best.score < C.MIN_ANTECEDENT:
            return None
        return best.phrase, best.role

    def _both(
        self, ref: Referent, message: str, cands: list[Candidate]
    ) -> tuple[Phrase, str] | None:
        """ "do they both rotate secrets?" after "which one, static or dynamic secrets?": a
        plural pronoun with "both" is the pair just set side by side, not the most salient
        plural ("vulnerabilities")."""
        if ref.text.lower() not in ("they", "them") or not _BOTH.match(message[ref.end :]):
            return None
        pair = self._previous_pair() if self._depth < C.ELLIPSIS_DEPTH else None
        if pair is None and (asked := self._asked_between()) is not None:
            pair = asked, "user"
        if pair is None and (heads := same_head_pair([c.phrase for c in cands])) is not None:
            text = " and ".join(self._surface(p) for p in heads)
            pair = Phrase(text, tuple(s for p in heads for s in p.stems)), "assistant"
        if pair is None:
            return None
        phrase, role = pair
        return replace(phrase, text=_JOINS.sub(" and ", phrase.text)), role

    def _previous_pair(self) -> tuple[Phrase, str] | None:
        """Two things the previous question was bound to ("which one protects more?" ->
        "Static secret or Dynamic secrets")."""
        resolved = self._previous_resolved()
        if resolved is None:
            return None
        value = next((v for v in resolved[1].bindings.values() if _JOINS.search(v)), None)
        if value is None:
            return None
        return Phrase(value, tuple(stem(w) for w in content_words(value))), "user"

    def _asked_between(self) -> Phrase | None:
        """The two things the user's last question set side by side ("between Starter and
        Pro", "Starter or Pro"): what "which one" then chooses from."""
        last = next((t.content for t in reversed(self.history) if t.role == "user"), "")
        m = _BETWEEN.search(last)
        if m is None:
            return None
        pair = [m.group("a").strip(), m.group("b").strip()]
        if not all(content_words(p) and len(p.split()) <= C.MAX_LABEL_WORDS for p in pair):
            return None
        text = " or ".join(pair)
        return Phrase(text, tuple(stem(w) for w in content_words(text)))

    def _left_behind(self, items: list[Phrase], list_turn: int) -> bool:
        """The list is in an older answer and the user's last turn moved on: it names none
        of the items ("and the other one?" after "tell me about Enterprise" still means
        the list; after "My tyre went flat." it does not, even when a turn between named an
        item: "and on public holidays?" then "My tyre went flat.")."""
        last_answer = max((i for i, t in enumerate(self.history) if t.role == "assistant"))
        if list_turn >= last_answer:
            return False
        last_user = next(
            (t for t in reversed(self.history[list_turn + 1 :]) if t.role == "user"), None
        )
        said = {stem(w) for w in content_words(last_user.content)} if last_user else set()
        return not any(set(it.stems) & said for it in items)

    def _sub_run(self, end: int) -> _Run:
        """A run over the history before turn `end`, reusing what this run prepared."""
        return _Run(self.history[:end], self.context, {i for i in self._read if i < end})

    def _picked_alternative(self) -> Phrase | None:
        """The alternative the last answer picked when the question before it asked which
        one: after "which one is the cheapest?" answered "Plan: Starter; ... $49", the "it"
        of "how many sites does it include?" is Starter, not a phrase of the answer. Looked
        up once per run, however many pronouns ask for it."""
        if self._picked is False:
            self._picked = self._find_picked()
        return self._picked

    def _find_picked(self) -> Phrase | None:
        h = self.history
        if len(h) < 3 or h[-1].role != "assistant" or h[-2].role != "user":
            return None
        if not any(r.kind == ReferentKind.WHICH for r in find_referents(h[-2].content)):
            return None
        offered = next(
            (
                items
                for i in range(len(h) - 3, -1, -1)
                if h[i].role == "assistant" and len(items := self._list_at(i)) >= 2
            ),
            [],
        )
        answer = strip_citations(h[-1].content).lower()
        found = [(pos, item) for item in offered if (pos := _mention(answer, item)) >= 0]
        if not found:
            return None
        # "which one do I need for 10 Gbit/s?" answered with both models: the one whose
        # sentence says "10 Gbit/s" is picked, else the one named first
        asked = {stem(w) for w in content_words(h[-2].content)}
        return max(found, key=lambda f: (_support(answer, f[0], f[1], asked), -f[0]))[1]

    def _chained_antecedent(self) -> tuple[Phrase, str] | None:
        """What the previous question's pronoun was bound to: "how much does it cost?"
        then "can I use my own domain with it?" keep talking about Status Page. Worked
        out once per run, however many pronouns the message holds."""
        if self._chain is False:
            self._chain = self._find_chained()
        return self._chain

    def _find_chained(self) -> tuple[Phrase, str] | None:
        previous = self._previous()
        if previous is None:
            return None
        prev = previous[1]
        prev_refs, ellipsis = self._previous_parts()
        picked = self._row_answering(previous[0], prev_refs)
        if picked is not None:
            return picked
        sources = [r for r in prev_refs if _chain_source(r)]
        refs = {r.text.lower() for r in sources}
        if ellipsis is not None and (ellipsis.kind != EllipsisKind.SUBJECT or refs):
            ellipsis = None
        if not refs and ellipsis is None:
            return None
        resolved = self._previous_resolved()
        if resolved is None:
            return None
        sub, res = resolved
        for key, value in res.bindings.items():
            if key.lower() in refs:
                ref = next(r for r in sources if r.text.lower() == key.lower())
                head = sub._complemented(prev, ref)
                if head is not None:
                    return head, "user"
                return Phrase(value, tuple(stem(w) for w in content_words(value))), "user"
        if ellipsis is not None and res.bindings and res.query != prev:
            # "what about the Cisco one?" made the Cisco router the subject: "how do I set
            # it up?" is about it
            own = {stem(w) for w in content_words(ellipsis.fragment) if not w.endswith("ly")}
            return next(((p, "user") for p in phrases(res.query) if set(p.stems) & own), None)
        return None

    def _row_answering(self, asked: int, refs: list[Referent]) -> tuple[Phrase, str] | None:
        """ "how many subscribers does the cheaper one allow?" left "the cheaper one"
        unbound, and the answer opened with the row the numbers picked ("Plan: Basic;
        ..."): "does it have an uptime SLA?" is about Basic, not about subscribers."""
        if not any(r.kind == ReferentKind.ONE for r in refs):
            return None
        resolved = self._previous_resolved()
        if resolved is None or resolved[1].bindings:
            return None  # bound: the chain goes through the binding
        answer = next((t for t in self.history[asked + 1 :] if t.role == "assistant"), None)
        subject = row_subject(answer.content) if answer is not None else None
        return (subject, "assistant") if subject is not None else None

    def _complemented(self, message: str, ref: Referent) -> Phrase | None:
        """The message's own phrase that `ref` is the complement of: after "what's the
        uptime SLA for it?", a new "it" ("what credit do I get if you miss it?") is the SLA,
        the question's subject, not what the SLA was for."""
        strong, _ = self._inner_bounds(message)
        if strong > ref.start or message[strong : ref.start].strip().lower() not in PREPOSITIONS:
            return None
        before = phrases(message[:strong])
        return before[-1] if before else None

    def _stands_alone(
        self, message: str, ref: Referent, cands: list[Candidate], items: list[Phrase]
    ) -> bool:
        """The referent needs nothing from the history: bound earlier in the message, or a
        demonstrative whose noun no phrase of the history holds ("how can all this money
        help?" after "NASA has invested a lot": the noun says what is meant, and binding
        the most salient phrase instead made "this money (Saturn)")."""
        if self._bound_in_message(message, ref):
            return True
        noun = ref.modifier
        if ref.kind is not ReferentKind.DEMONSTRATIVE or not noun or noun.lower().endswith("ly"):
            return False  # "are these regionally affected?": "these" alone points back
        return (
            containing(noun, items) is None and containing(noun, [c.phrase for c in cands]) is None
        )

    def _bound_in_message(self, message: str, ref: Referent) -> bool:
        """A pronoun whose antecedent is earlier in the same message: a name or a
        distinctive phrase anywhere before it ("What about HIV? did it kill many?"), or any
        noun phrase in an earlier clause ("update my credit card, but it keeps failing";
        not "what is the price of it")."""
        if ref.kind == ReferentKind.DEMONSTRATIVE:
            # "I keep seeing the word Kubernetes, but I don't understand this term"
            strong, _ = self._inner_bounds(message)
            return strong <= ref.start and (ref.modifier or "").lower() in _METALINGUISTIC
        if ref.kind not in (ReferentKind.PRONOUN, ReferentKind.POSSESSIVE, ReferentKind.PERSON):
            return False
        strong, clause_end = self._inner_bounds(message)
        if clause_end < ref.start:
            return True  # a noun phrase, then a clause boundary, then the pronoun
        if ref.kind == ReferentKind.PRONOUN and _object_of_same_clause(message, ref, strong):
            return False  # "does the Basic plan include it?": not the Basic plan itself
        if self._complemented(message, ref) is not None:
            return False  # "what's the uptime SLA for it?": not the SLA's own complement
        return strong <= ref.start

    def _inner_bounds(self, message: str) -> tuple[int, int]:
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
                (m.start() for m in _CLAUSE.finditer(message) if m.start() >= weak), None
            )
            self._inner = (
                message,
                strong,
                first_clause_end if first_clause_end is not None else len(message) + 1,
            )
        _, strong, clause_end = self._inner
        return strong, clause_end

    def _alternative(
        self, ref: Referent, items: list[Phrase], list_turn: int
    ) -> tuple[Phrase, str] | _Ambiguous:
        """Pick among list items by focus: which one the user (then the assistant) named
        since, or just before, the list. Equal focus is a coin flip."""
        shared = set(items[0].stems)
        for it in items[1:]:
            shared &= set(it.stems)
        focus = []
        for it in items:
            own = set(it.stems) - shared
            score = 0.0
            for i, turn in enumerate(self.history):
                if i < list_turn - 1 or not own:
                    continue
                if i == list_turn:
                    continue  # the list itself names every item once
                turn_stems = {stem(w) for w in content_words(turn.content)}
                if own & turn_stems:
                    score += 1.0 if turn.role == "user" else C.ASSISTANT_WEIGHT
            focus.append(score)
        chained = self._chained_antecedent() if self._depth < C.ELLIPSIS_DEPTH else None
        if chained is not None:  # "what firmware does it need?" (it = NR-900): NR-900 has focus
            for k, it in enumerate(items):
                if set(it.stems) == set(chained[0].stems):
                    focus[k] += 1.0
        if ref.kind == ReferentKind.WHICH:
            joined = " or ".join(it.text for it in items)
            return Phrase(joined, tuple(s for it in items for s in it.stems)), "assistant"
        order = sorted(range(len(items)), key=lambda k: -focus[k])
        best, second = order[0], order[1]
        if focus[best] - focus[second] < C.AMBIGUITY_MARGIN:
            tied = [items[k] for k in order if focus[best] - focus[k] < C.AMBIGUITY_MARGIN]
            return _Ambiguous(sorted(tied, key=items.index))
        if ref.kind == ReferentKind.OTHER:
            if len(items) == 2:
                return items[second], "assistant"
            return _Ambiguous([items[k] for k in sorted(order[1:])])
        return items[best], "assistant"

    def _read_texts(self) -> list[str]:
        """The texts candidates come from (user turns of the window + the first one, the
        opening of the last answer): primed in one term_stats call."""
        out = []
        window = self.context.window
        users = [i for i, t in enumerate(self.history) if t.role == "user"]
        keep = set(users[-window:]) | set(users[:1])
        for i in keep:
            out.append(self.history[i].content)
        last = next((t for t in reversed(self.history) if t.role == "assistant"), None)
        if last is not None:
            out.append(" ".join(sentences(last.content)[: C.ASSISTANT_SENTENCES]))
        return out

    def _is_column(self, c: Candidate) -> bool:
        """A column name of a table row an answer quoted ("Bandwidth" of "Bandwidth per site:
        1 Gbit/s"): "how long until they respond?" had bound it."""
        if c.role != "assistant":
            return False
        if c.turn not in self._columns:  # the answer the candidate was said in, read once
            self._columns[c.turn] = column_labels(self.history[c.turn].content)
        return any(set(c.stems) <= labels for labels in self._columns[c.turn])

    def _items(self, *, loose: bool = False) -> tuple[list[Phrase], int]:
        """List items of the most recent assistant answer (within the window) that has one."""
        return next(self._recent_lists(loose=loose), ([], -1))

    def _items_naming(self, word: str) -> list[Phrase]:
        """The items that hold `word` in the most recent list (within the window) that has
        any: "the Norrland ones" after a clarification listed only the Kestrel models."""
        s = stem(word)
        for items, _ in self._recent_lists():
            named = [p for p in items if s in p.stems]
            if named:
                return named
        return []

    def _sibling_in(self, base: str, fragment: str) -> str | None:
        """An item of a recent list that `base` names, when `fragment` names another item of
        that list: "what about the Norrland ones?" after "is the Kestrel Edge K7 supported
        on the Starter plan?" replaces the Kestrel model, not the plan."""
        low = base.lower()
        for items, _ in self._recent_lists():
            if any(p.text in fragment for p in items):
                named = [p for p in items if p.text not in fragment and p.text.lower() in low]
                if named:
                    return named[0].text
        return None

    def _recent_lists(self, *, loose: bool = False) -> Iterator[tuple[list[Phrase], int]]:
        """Each assistant answer within the window that lists 2+ items, newest first."""
        seen = 0
        for i in range(len(self.history) - 1, -1, -1):
            turn = self.history[i]
            if turn.role != "assistant":
                continue
            seen += 1
            if seen > self.context.window:
                return
            items = self._list_at(i, loose=loose)
            if len(items) >= 2:
                yield items, i

    def _list_at(self, i: int, *, loose: bool = False) -> list[Phrase]:
        """The items turn `i` lists, parsed once per run (several rules ask)."""
        key = (i, loose)
        if key not in self._lists:
            self._lists[key] = list_items(self.history[i].content, loose=loose)
        return self._lists[key]

    def _scope(self, query: str, bindings: dict[str, str], cands: list[Candidate]) -> Phrase | None:
        """The user's topic phrase the bound query still lacks ("on Cloud Connect")."""
        have = {stem(w) for w in content_words(query)}
        for b in bindings.values():
            have |= {stem(w) for w in content_words(b)}
        since = self._last_own_subject()
        for c in cands:
            if c.turn < since:
                continue  # before the user's last question of its own: a topic left behind
            if c.role not in ("user", "summary") or c.score < C.MIN_ANTECEDENT:
                continue
            if c.score < C.SCOPE_MIN and not self._is_name(c.phrase):
                continue  # a product name is scope even when every document names it
            words = c.phrase.text.split()
            if all(w.lower() in ORDINAL_HEADS or w.lower() in RELATIONAL_NOUNS for w in words) or (
                len(words) == 1 and looks_plural(words[0]) and not self._is_name(c.phrase)
            ):
                # a class noun or an attribute scopes nothing: "is Kestrel Edge K3 for
                # routers ...", "which of Starter or Pro for difference ..."
                continue
            if not set(c.stems) & have:
                return c.phrase
        return None

    # --- ellipsis and low signal --------------------------------------------------------

    def _ellipsis(
        self,
        message: str,
        ellipsis: Ellipsis,
        cands: list[Candidate],
        depth: int,
        *,
        typed_fragment: str | None = None,
    ) -> Resolution:
        """`typed_fragment`: the fragment as the user typed it, when a referent in it was just bound
        ("and the monthly one?" -> "and Monthly pass?"): whether it names a subject of its
        own is judged on the user's words, not on the antecedent's capitals."""
        own = [
            t.text
            for t in tokenize(ellipsis.fragment if typed_fragment is None else typed_fragment)
            if t.low not in FUNCTION_WORDS and t.low not in GENERIC_NOUNS
        ]
        distinctive = [
            w for w in own if w[:1].isupper() or self.salience.weight(w) >= C.DISTINCTIVE_IDF
        ]
        asks_again = still_true(ellipsis.opener)  # "is that different for Cloud Connect?"
        if not asks_again and (
            len(distinctive) >= C.OWN_SUBJECT_WORDS
            or (distinctive and len(own) >= C.OWN_SUBJECT_RUN)
        ):
            # "and about North Carolina in the Civil War", "what about the major discoveries
            # made by the spacecraft Galileo?": the fragment names its subject, and is what
            # is searched: the opener is conversation, which the dense model reads as words
            if typed_fragment is None and ellipsis.kind is EllipsisKind.SUBJECT:
                return Resolution(query=ellipsis.fragment)
            return Resolution(query=message)
        prev = self._previous_question(depth)
        opener = ellipsis.opener.strip().lower()
        if opener == "what if" and len(content_words(ellipsis.fragment)) >= 2:
            # "what if I lose the bike?" brings a clause of its own: carrying the last
            # subject ("students, passes") searched for passes, not for the lost bike
            return Resolution(query=message)
        if ellipsis.kind == EllipsisKind.MORE or prev is None:
            return self._carry(message, cands, key=opener)
        previous, base = prev
        fragment = ellipsis.fragment
        if ellipsis.kind == EllipsisKind.MODIFIER:
            if is_bare_time(fragment):
                fragment = time_qualifier(fragment)
            query = splice_modifier(base, fragment)
        else:
            varied = _varied(previous) or self._sibling_in(base, fragment)
            query = substitute_subject(base, fragment, self.salience, varied=varied)
        if query is None:
            return self._carry(message, cands, key=ellipsis.opener.strip().lower())
        if typed_fragment is not None:
            query = same_ordinal(query, typed_fragment)
        # bound to the previous question made standalone: "Answering about: does the Pro
        # plan include escalation?" says what "it" was, where the typed question would not
        return Resolution(query=query, bindings={ellipsis.opener.strip().lower(): base})

    def _previous_question(self, depth: int) -> tuple[str, str] | None:
        """The previous user question as typed, and made standalone (ellipses chain).
        Small talk and requests about an answer ("thanks", "make it shorter") are no
        question: "what about Status Page?" after "thanks" varies the one before."""
        previous = self._previous()
        if previous is None:
            return None
        prev = previous[1]
        if depth >= C.ELLIPSIS_DEPTH:
            return prev, prev
        resolved = self._previous_resolved()
        res = resolved[1] if resolved is not None else None
        return prev, (prev if res is None or res.ambiguous else res.query)

    def _previous(self) -> tuple[int, str] | None:
        """The previous user question's turn and text ("By the way, ..." dropped), once."""
        if self._prev is False:
            idx = self._previous_question_index()
            text = without_preamble(self.history[idx].content.strip()) if idx is not None else ""
            self._prev = (idx, text) if idx is not None and text else None
        return self._prev

    def _previous_parts(self) -> tuple[list[Referent], Ellipsis | None]:
        """The previous question's referents and ellipsis, read once per run (the chained
        pronoun, the scope and the swapped-out subject all ask)."""
        if self._prev_parts is None:
            previous = self._previous()
            text = previous[1] if previous is not None else ""
            self._prev_parts = (find_referents(text), find_ellipsis(text)) if text else ([], None)
        return self._prev_parts

    def _previous_resolved(self) -> tuple[_Run, Resolution] | None:
        """The previous question resolved over the history before it (a sub-run), once per
        run: ellipses, chained pronouns and "they both" all read it."""
        if self._prev_res is False:
            previous = self._previous()
            self._prev_res = None
            if previous is not None:
                sub = self._sub_run(previous[0])
                sub.salience = self.salience
                self._prev_res = (sub, sub.resolve(previous[1], depth=self._depth + 1))
        return self._prev_res

    def _last_own_subject(self) -> int:
        """The turn of the previous question when it named its own subject ("ok thanks.
        what routers does cloud connect support?"), else -1: scope comes from it, not from
        the pass asked about before."""
        previous = self._previous()
        if previous is None:
            return -1
        idx, text = previous
        refs, ellipsis = self._previous_parts()
        if refs or ellipsis is not None:
            return -1
        verdict = gate(text, self.history[:idx], salience=self.salience, headings=self.headings)
        return -1 if verdict.needs_resolution else idx

    def _swapped_out(self) -> set[str]:
        """Stems of what the previous question's ellipsis swapped out: "is that the same for
        Cloud Connect?" after a question on Status Page left Status Page behind, and the
        next "what does it cost?" must not bind it or carry it as scope."""
        previous = self._previous()
        if previous is None or self._previous_parts()[1] is None:
            return set()  # no ellipsis, nothing swapped: and no sub-run on the hot path
        resolved = self._previous_resolved()
        if resolved is None or resolved[1].ambiguous:
            return set()
        res = resolved[1]
        said = {stem(w) for v in res.bindings.values() for w in content_words(v)}
        return said - {stem(w) for w in content_words(res.query)}

    def _previous_question_index(self) -> int | None:
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

    def _carry(
        self,
        message: str,
        cands: list[Candidate],
        *,
        key: str,
        verdict: GateResult | None = None,
    ) -> Resolution:
        """Too little signal: append the salient phrases of the user's recent and first
        turns (design.md: phrases carry better than single high-IDF terms), unless the
        learned selector sees nothing in the history a person would carry (a new
        subject in few words: "Is privacy protected?")."""
        if key == "topic" and self._selector_vetoes(message, verdict):
            return Resolution(query=message)
        user = [c for c in cands if c.role in ("user", "summary")]
        picked: list[Candidate] = []
        if user:
            last_turn = max(c.turn for c in user)
            picked.append(max((c for c in user if c.turn == last_turn), key=lambda c: c.score))
            # then the best phrase of any other user turn (often the first: the topic)
            for c in user:
                if len(picked) >= C.CARRY_PHRASES:
                    break
                if not set(c.stems) & {s for p in picked for s in p.stems}:
                    picked.append(c)
        elif cands:
            picked.append(cands[0])
        picked = [c for c in picked if c.score >= C.MIN_ANTECEDENT]
        if not picked:
            return Resolution(query=message)
        texts = [self._surface(c.phrase) for c in picked]
        query = append_phrases(message, [(c.phrase, t) for c, t in zip(picked, texts, strict=True)])
        return Resolution(query=query, bindings={key: ", ".join(texts)})

    def _selector_vetoes(self, message: str, verdict: GateResult | None) -> bool:
        """The selector's best history phrase is below C.SELECTOR_VETO: carry nothing."""
        model = default_model()
        if model is None or C.SELECTOR_VETO <= 0 or self.context.term_stats is None:
            return False  # trained on an index's IDF: without one its features mean little
        if verdict is None:
            verdict = gate(message, self.history, salience=self.salience, headings=self.headings)
        scored = selector_candidates(message, self.history, self.salience, verdict)
        best = max((model.probability(s.features) for s in scored), default=0.0)
        return best < C.SELECTOR_VETO

    # --- clarification chain -----------------------------------------------------------

    def _clarification_reply(self, message: str, depth: int) -> Resolution | None:
        """ "enterprise" after "Do you mean Standard or Enterprise escalation?" resolves the
        question that got the clarification, with the chosen alternative. So does "the
        regular one" after an answer that asks which of two permits the user means."""
        h = self.history
        if len(h) < 2 or h[-1].role != "assistant":
            return None
        if len(content_words(message)) > C.CLARIFY_REPLY_WORDS:
            return None
        options = _offered_choice(h[-1].content)
        if not options:
            return None
        chosen = _chosen_option(message, options)
        if chosen is None:
            return None
        orig = max((i for i, t in enumerate(h[:-1]) if t.role == "user"), default=None)
        if orig is None:
            return None
        question = h[orig].content.strip()
        if not find_referents(question) and find_ellipsis(question) is None:
            # "How do I apply?" has nothing to bind the choice to: it qualifies the question
            chosen_phrase = Phrase(chosen, tuple(stem(w) for w in content_words(chosen)))
            return Resolution(
                query=append_phrases(question, [(chosen_phrase, chosen)]),
                bindings={message.strip(" .?!"): chosen},
            )
        sub = self._sub_run(orig)
        res = sub.resolve(question, depth=depth + 1, prefer=chosen)
        return None if res.ambiguous else res

    def _is_name(self, phrase: Phrase) -> bool:
        """Every word capitalised somewhere in the conversation ("doctor strange" typed by
        the user, "Doctor Strange" in the answer; "macOS" inside): a name a person pronoun
        can bind."""
        words = self._surface(phrase).split()
        return bool(words) and all(is_name(w) or not w[:1].isalpha() for w in words)

    def _surface(self, phrase: Phrase) -> str:
        return surface_form(phrase.text, self._casing_texts)


_ASKS_TO_CHOOSE = lexicon.pattern("asks_to_choose")
"""An answer that asks the user to choose ("If you tell me which type of permit ...")."""


def _offered_choice(answer: str) -> list[str] | None:
    """The alternatives an answer asks the user to choose between: our own "Do you mean X
    or Y?", or two phrases of one head in an answer that asks which one is meant."""
    options = parse_clarification(answer)
    if options or not _ASKS_TO_CHOOSE.search(answer):
        return options
    pair = same_head_pair(phrases(strip_citations(answer)))
    return [pair[0].text, pair[1].text] if pair is not None else None


def _chosen_option(reply: str, options: list[str]) -> str | None:
    """The option a short reply picks by one of its own words ("enterprise"); "the regular
    one", naming none of them, is that kind of the options' shared head ("regular
    Instruction Permit")."""
    named = _named_options(reply, options)
    if named:
        return named[0] if len(named) == 1 else None
    one = next((r for r in find_referents(reply) if r.kind == ReferentKind.ONE), None)
    shared = set.intersection(*(set(map(stem, content_words(o))) for o in options))
    if one is None or not one.modifier or stem(one.modifier) in shared:
        return None
    tail = _shared_tail(options)
    return f"{one.modifier} {tail}" if tail else None


def _named_options(reply: str, options: list[str]) -> list[str]:
    """The options whose own words (not those all options share) the reply says."""
    said = {stem(w) for w in content_words(reply)}
    words = [set(map(stem, content_words(o))) for o in options]
    shared = set.intersection(*words)
    return [o for o, ws in zip(options, words, strict=True) if (ws - shared) & said]


def _shared_tail(options: list[str]) -> str:
    """The words every option ends with: "Instruction Permit" of "California Instruction
    Permit" and "California Motorcycle Instruction Permit"."""
    split = [o.split() for o in options]
    n = 0
    while all(len(s) > n for s in split) and len({s[-1 - n].lower() for s in split}) == 1:
        n += 1
    return " ".join(split[0][len(split[0]) - n :]) if n else ""


def _mention(text: str, item: Phrase) -> int:
    """Where lower-cased `text` first names `item` as a whole word, else -1."""
    m = re.search(rf"\b{re.escape(item.text.lower())}\b", text)
    return m.start() if m else -1


def _object_of_same_clause(message: str, ref: Referent, strong: int) -> bool:
    """A pronoun right after a verb, in the clause of the name before it, is that verb's
    object: never the clause's own subject ("Did NASA fund it?", "does the Basic plan
    include it?"). A possessive may be ("Does the Lite plan keep its data?")."""
    if strong > ref.start or _CLAUSE.search(message[strong : ref.start]):
        return False
    # only the word before matters: no re-tokenising the whole prefix for every pronoun
    before = tokenize(message[max(0, ref.start - _LOOKBACK_CHARS) : ref.start])
    if not before:
        return False
    verb = before[-1]
    return verb.text.islower() and verb.low not in FUNCTION_WORDS


_LOOKBACK_CHARS = 40
"""Enough text before a pronoun to hold the word before it."""

_CHAINED_KINDS = (ReferentKind.PRONOUN, ReferentKind.POSSESSIVE)
"""Pronouns that keep the previous question's topic when the previous question had one."""


_BOTH = lexicon.pattern("both")
"""Right after the pronoun: "do they both ...", "compare them both"."""
_JOINS = lexicon.pattern("joins")
"""Two alternatives as one phrase: "Static secret or Dynamic secrets"."""
_BETWEEN = lexicon.pattern("between")


def _ends_in_predicate(phrase: Phrase) -> bool:
    """ "Sydney available", "Lite pricing plans available": a name or noun, then what was
    said of it."""
    words = phrase.text.split()
    return len(words) > 1 and len(phrase.stems) == len(words) and words[-1].lower() in PREDICATES


def _support(answer: str, pos: int, item: Phrase, asked: set[str]) -> int:
    """How many words of the question the answer's sentence naming `item` at `pos` repeats,
    besides the item's own."""
    start = max(answer.rfind(". ", 0, pos) + 1, 0)
    end = answer.find(". ", pos)
    sentence = answer[start : end if end >= 0 else len(answer)]
    said = {stem(w) for w in content_words(sentence)} - set(item.stems)
    return len(said & asked)


def _chain_source(ref: Referent) -> bool:
    """A referent of the previous question whose antecedent a pronoun keeps: a pronoun, or
    a bare "that one" ("how much is that one?" bound to Enterprise, then "does it include
    escalation?"); "the Cisco one" names its own subject (an ellipsis)."""
    return ref.kind in _CHAINED_KINDS or (ref.kind == ReferentKind.ONE and not ref.modifier)


def _varied(question: str) -> str | None:
    """The phrase a follow-up put in place ("Enterprise" in "and for Enterprise?")."""
    previous = find_ellipsis(question)
    if previous is None or previous.kind is EllipsisKind.MORE:
        return None
    toks = tokenize(previous.fragment)
    if previous.kind is EllipsisKind.MODIFIER and toks:
        toks = toks[1:]  # "for Enterprise": the preposition stays
    if not toks:
        return None
    return previous.fragment[toks[0].start : toks[-1].end]


def _readable(
    history: list[Turn],
    window: int,
    term_stats: TermStatsLookup | None = None,
    prepared: Set[int] = frozenset(),
) -> tuple[list[Turn], list[int]]:
    """The history with citation marks stripped, the user's typos fixed (as the turn fixed
    them for its own search: "climage" would otherwise be the rarest, most salient word of
    the conversation) and clarification replies read as their option, on the turns the
    resolver reads; and those turns' indices: the first exchange and the last
    max(READ_TURNS, 2 x (window + 2)) turns (candidates, selector, ellipsis chain). A long
    session costs no more per turn."""
    tail = max(C.READ_TURNS, 2 * (window + 2))
    read = sorted({*range(min(2, len(history))), *range(max(0, len(history) - tail), len(history))})
    out = list(history)
    for i in read:
        if i in prepared:
            continue
        if "[" in out[i].content:
            out[i] = Turn(out[i].role, strip_citations(out[i].content))
        if out[i].role == "user" and term_stats is not None:
            fixed, _ = correct_spelling(out[i].content, term_stats)
            if fixed != out[i].content:
                out[i] = Turn("user", fixed)
    return _chosen_options(out, read), read


def _chosen_options(history: list[Turn], read: list[int]) -> list[Turn]:
    """A reply to a clarifying question ("enterprise" after "Do you mean Standard or
    Enterprise escalation?") reads as the option it chose ("Enterprise escalation"): the
    subject later pronouns point at."""
    out = history
    for i in read:
        if i == 0 or out[i].role != "user" or out[i - 1].role != "assistant":
            continue
        options = parse_clarification(out[i - 1].content)
        if not options or len(content_words(out[i].content)) > C.CLARIFY_REPLY_WORDS:
            continue
        chosen = _named_options(out[i].content, options)
        if len(chosen) == 1:
            out[i] = Turn("user", chosen[0])
    return out


_QUANTITY_WORDS = lexicon.words("quantity_words")
_UNIT = lexicon.pattern("unit")
"""A unit after a number ("10 Gbit/s", "30 minutes"): with it, a measure, no thing."""


def _can_be_pointed_at(c: Candidate) -> bool:
    """A number or date alone ("324-337 AD", "thousands") is no thing "it" names, nor is a
    lone lower-case word of the assistant's wording ("purple"): the user's subject is."""
    words = c.phrase.text.split()
    dated = any(ch.isdigit() for ch in c.phrase.text)
    if all(
        any(ch.isdigit() for ch in w)
        or (dated and w.lower().rstrip(".,") in MONTHS)  # "1 January 2026": a date
        or (w.isupper() and len(w) <= 2)
        or w.lower() in _QUANTITY_WORDS
        or (i > 0 and _UNIT.match(w.lower()) is not None and words[i - 1][:1].isdigit())
        for i, w in enumerate(words)
    ):
        return False
    return not (c.role == "assistant" and len(words) == 1 and words[0][:1].islower())
