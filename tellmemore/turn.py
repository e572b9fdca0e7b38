"""One turn, end to end: decide -> gate -> resolve -> retrieve -> answer -> trace.

The standalone query feeds retrieval only; generation always sees the real
message and the real history. Every turn, whatever path it takes (small talk,
clarification, abstention, degraded LLM), ends with one Answer and one trace.
"""

from __future__ import annotations

import functools
import logging
import re
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from tellmemore.analysis import mood
from tellmemore.answer import (
    abstain,
    abstain_gate,
    abstain_override,
    answerability,
    ask_gate,
    citations,
    clarify,
    edits,
    extractive,
    focus,
    generate,
    own_threshold,
    phrase,
    quote,
    stated,
    turn_signals,
)
from tellmemore.answer.judge import (
    Action,
    TurnEvidence,
    Verdict,
    judge,
    named_model,
    scored_abstain,
)
from tellmemore.answer.own_gates import own_gate
from tellmemore.answer.stream import (
    CitationsEvent,
    DeltaEvent,
    DoneEvent,
    Event,
    ResolutionEvent,
)
from tellmemore.config import Settings
from tellmemore.conversation.decide import decide, small_talk_kind
from tellmemore.conversation.gate import gate
from tellmemore.conversation.headings import headings_of
from tellmemore.conversation.phrasings import Phrasings, search_phrasings
from tellmemore.conversation.preamble import without_preamble
from tellmemore.conversation.prepare import prepare_answer
from tellmemore.conversation.resolvers.base import ResolveContext, Resolver
from tellmemore.conversation.spelling import correct_spelling
from tellmemore.errors import InputError, LLMError
from tellmemore.index.vector_cache import cached
from tellmemore.limits import cap_history, degraded_code
from tellmemore.retrieval import RetrievalResult, Retriever, index_reads
from tellmemore.state.conversations import ConversationStore, new_id
from tellmemore.types import (
    Answer,
    Citation,
    Decision,
    Hit,
    LatencyMs,
    Resolution,
    SearchFilter,
    Trace,
    Turn,
)

if TYPE_CHECKING:
    from tellmemore.conversation.binding import TermStatsLookup
    from tellmemore.conversation.headings import HeadingsLookup
    from tellmemore.index.base import Index
    from tellmemore.llm import LLMClient

logger = logging.getLogger(__name__)

REWRITE_PROMPT = (
    "Rewrite your previous answer as the user asks. "
    "Keep every fact, code, number and citation marker such as [1]."
)
"""For "make that shorter": the last answer's sources are kept, so are its markers."""
REWRITE_PROMPT_UNSOURCED = (
    "Rewrite your previous answer as the user asks. "
    "Keep every fact, code and number; leave out citation markers such as [1]."
)
"""The same without sources to keep (a stateless caller, or an answer that cited none)."""

SMALL_TALK_REPLIES = {
    "thanks": "You're welcome! Ask me anything else about the documents.",
    "bye": "Goodbye!",
    "hello": "Hello! Ask me a question about the documents and I'll answer with sources.",
    "ok": "Ask me anything else about the documents.",
}
CUT_NOTICE = "\n\n[The generated answer was cut off. From the sources:] "
"""Joins a generated answer whose stream broke to the extractive answer that completes it."""
_MARKER = re.compile(r" ?\[(\d{1,3})\]")


@dataclass
class TurnRequest:
    message: str
    history: Sequence[Turn]
    session_id: str | None = None
    tenant: str = ""
    summary: str = ""
    forced_query: str | None = None
    parent_trace_id: str | None = None
    degraded: list[str] = field(default_factory=list)
    deadline: float | None = None
    """`time.monotonic()` instant by which the turn's LLM calls end; None: llm.deadline_s
    from the start of `run`."""
    decided_by: str = ""
    """What decided to abstain, or to answer against the floor (`Trace.decided_by`)."""
    signals: dict[str, float] | None = None
    """The turn's `answer.turn_signals`, read once for every learned gate that asks."""
    keep_signals: bool = False
    """Read `signals` on every floor-mode turn with hits, and note in `floor` which learned
    gate decides it: the rows `tellmemore eval --fit-gates` fits the gates on."""
    floor: str = ""
    """With `keep_signals`: "answer" when the floor answered (the ask and abstain gates
    decide such turns), "abstain" when its cosine floor abstained (the override gate's), ""
    when a rule abstained or asked back (no learned gate decides)."""


class TurnRunner:
    """Runs turns against one retriever, resolver and store. Shared by every session."""

    def __init__(
        self,
        *,
        settings: Settings,
        retriever: Retriever,
        resolver: Resolver,
        store: ConversationStore,
        llm: LLMClient | None = None,
    ) -> None:
        self.settings = settings
        self.retriever = retriever
        self.resolver = resolver
        self.store = store
        self.llm = llm

    def validate(self, message: str) -> str:
        return validate_message(message, limit=self.settings.conversation.max_message_chars)

    def run(self, req: TurnRequest) -> Iterator[Event]:
        message = self.validate(req.message)
        t_start = time.perf_counter()
        if req.deadline is None:
            req.deadline = time.monotonic() + self.settings.llm.deadline_s
        trace_id = new_id()
        conv = self.settings.conversation
        history = cap_history(
            req.history,
            max_turns=conv.max_history_turns,
            max_item_chars=conv.max_history_item_chars,
            max_chars=conv.max_history_chars,
        )

        decided = decide(message, history)
        if decided.decision is not Decision.RETRIEVE and req.forced_query is None:
            yield ResolutionEvent(decided.decision, "skipped: no retrieval", None)
            # "make that shorter" rewrites the last answer: its sources stay its sources
            cited = self._last_citations(decided.decision, req)
            text, model = self._no_retrieval_reply(decided.decision, message, history, req, cited)
            # "[n]" markers the last answer's citations cannot back would point at nothing
            text = keep_valid_markers(text, len(cited))
            cited = cited[: _max_marker(text, len(cited))]  # as a generated answer's
            if cited:
                yield CitationsEvent(cited)
            yield DeltaEvent(text)
            answer = Answer(
                trace_id=trace_id,
                answer=text,
                message=message,
                citations=cited,
                decision=decided.decision,
                model=model,
                latency_ms=LatencyMs(total=_ms(t_start)),
                session_id=req.session_id,
            )
            yield self._finish(req, answer, decided.decision, decided.reason, None, [])
            return

        t_resolve = time.perf_counter()
        # Typos are fixed for the search only; search_phrasings adds the message as typed.
        # A clarification reply searches its forced query: nothing to fix.
        searched = message
        term_stats = scoped_term_stats(self.retriever.index, req.tenant)
        if req.forced_query is None:
            searched, _ = correct_spelling(message, term_stats)
        resolution, gate_reason = self._resolve(searched, history, req)
        resolve_ms = _ms(t_resolve)
        yield ResolutionEvent(Decision.RETRIEVE, gate_reason, resolution)

        if resolution.ambiguous and resolution.clarification:
            latency = LatencyMs(total=_ms(t_start), resolve=resolve_ms)
            req.decided_by = "resolver"  # the referent fits several antecedents
            yield from self._ask_back(
                req,
                trace_id,
                message,
                resolution,
                gate_reason,
                [],
                text=resolution.clarification,
                options=tuple(resolution.candidates),
                latency=latency,
            )
            return

        t_retrieve = time.perf_counter()
        phrasings = (
            search_phrasings(
                message,
                resolution,
                history,
                term_stats,
                window=self.settings.conversation.window,
                searched=searched,
            )
            if req.forced_query is None
            else Phrasings((resolution.query,), (1.0,))
        )
        more_of = self._more_of(message, req)
        result = self.retriever.search(
            phrasings.queries,
            weights=phrasings.weights,
            filter=SearchFilter(tenant=req.tenant or None, doc_ids=more_of or None),
        )
        if more_of and not result.hits:  # the sources were removed since: search them all
            more_of = ()
            result = self.retriever.search(
                phrasings.queries,
                weights=phrasings.weights,
                filter=SearchFilter(tenant=req.tenant or None),
            )
        hits = result.hits
        retrieve_ms = _ms(t_retrieve)
        about = answering_about(resolution)

        t_answer = time.perf_counter()
        text, model = "", "extractive"
        cited = ()
        items: tuple[str, ...] = ()
        asked = phrasings.evidence()
        verdict = (
            Verdict(Action.ANSWER)  # more of what was just answered: nothing to judge
            if more_of
            else self._judge(message, history, resolution, result, asked, req)
        )
        if not more_of:
            verdict = self._second_look(verdict, message, history, resolution, hits, asked, req)
        if verdict.action is Action.ABSTAIN and not req.decided_by:
            req.decided_by = self._abstained_by(verdict)
        if verdict.action is Action.CLARIFY:
            req.decided_by = req.decided_by or self._abstained_by(verdict)
            latency = LatencyMs(total=_ms(t_start), resolve=resolve_ms, retrieve=retrieve_ms)
            yield from self._ask_back(
                req,
                trace_id,
                message,
                resolution,
                gate_reason,
                hits,
                text=verdict.text,
                options=verdict.options,
                latency=latency,
            )
            return
        abstained = verdict.action is Action.ABSTAIN
        if not abstained:
            streamed: list[str] = []
            if self.llm is not None:
                try:
                    text, cited, abstained = yield from self._generate(
                        message, history, hits, streamed, req.deadline
                    )
                    if abstained:
                        req.decided_by = "llm"
                    model = self.settings.llm.model
                    if text and not cited:
                        req.degraded.append("generate:uncited")
                except LLMError as exc:
                    logger.warning("LLM answer failed, quoting the sources instead: %s", exc)
                    req.degraded.append(f"generate:{exc.kind}")
                    text = ""
            if not text and not abstained and streamed:
                # The stream broke after text was shown: keep it, say so, and complete it
                # with the extract, numbered like the sources the shown text already cites.
                extract = self._extract(resolution.query, hits, by_rank=True, fast=True).text
                text = "".join(streamed) + CUT_NOTICE + extract
                cited = tuple(citations.citation(h) for h in hits[: _max_marker(text, len(hits))])
                yield CitationsEvent(cited)
                yield DeltaEvent(CUT_NOTICE + extract)
            elif not text and not abstained:
                shown = edits.shown_sentences(history) if edits.asks_for_more(message) else ()
                # past the turn's deadline (an LLM that timed out), no sentence embedding:
                # the hand-set ranking answers at once
                late = req.deadline is not None and time.monotonic() >= req.deadline
                quoted = self._extract(resolution.query, hits, shown=shown, fast=late)
                text, cited, items = quoted.text, quoted.citations, quoted.items
                if not text and shown:
                    text = edits.NOTHING_MORE
                yield CitationsEvent(cited)
                yield DeltaEvent(text)
        if abstained:
            text = verdict.text or answerability.abstention(asked, hits)
            yield DeltaEvent(text)
        answer = Answer(
            trace_id=trace_id,
            answer=text,
            message=message,
            citations=cited,
            abstained=abstained,
            standalone_query=resolution.query,
            bindings=dict(resolution.bindings),
            answering_about=about,
            items=items,
            model=model,
            latency_ms=LatencyMs(
                total=_ms(t_start),
                resolve=resolve_ms,
                retrieve=retrieve_ms,
                answer=_ms(t_answer),
            ),
            session_id=req.session_id,
        )
        yield self._finish(req, answer, Decision.RETRIEVE, gate_reason, resolution, hits)

    # -- stages -------------------------------------------------------------------------

    def _judge(
        self,
        message: str,
        history: list[Turn],
        resolution: Resolution,
        result: RetrievalResult,
        asked: Sequence[str],
        req: TurnRequest,
    ) -> Verdict:
        """Answer, ask back (the message describes a kind of thing, the passages are
        about several such subjects and nothing picks one: `answer.clarify.ask_back`) or
        abstain (`answer.judge`); `retrieval.abstention = "floor"` keeps the global
        cosine floor for abstaining."""
        index = self.retriever.index
        # "nothing about X" answers a question: a remark ("So, no game meat from now on!")
        # asks nothing, so neither rule reads it (`analysis.mood.asks`)
        lost = (
            self._missing_focus(result, asked, req) or self._unstated_phrase(result, asked)
            if mood.asks(message)
            else None
        )
        if lost is not None:
            return Verdict(
                Action.ABSTAIN, answerability.abstention(asked, result.hits, lacking=lost)
            )
        if self.settings.retrieval.abstention == "floor":
            own = abstain.evidence_hits(result.hits, result.per_query, asked)
            floor = abstain.should_abstain(
                own,
                min_dense_score=self.settings.retrieval.min_dense_score,
                coverage=lambda: abstain.lexical_coverage(
                    asked, result.per_query, scoped_term_stats(index, req.tenant)
                ),
                min_coverage=self.settings.retrieval.min_lexical_coverage,
            )
            scored = self.settings.retrieval.abstain_model and self._scored(
                self._evidence(message, history, resolution, result, asked, req)
            )
            if floor or scored:
                # too far to answer: too far to offer its subjects as well
                return Verdict(
                    Action.ABSTAIN,
                    answerability.abstention(asked, result.hits),
                    by_floor=not scored,
                )
            unstated = self._unstated_value(own, asked, req)
            if unstated is not None:
                return Verdict(
                    Action.ABSTAIN, answerability.abstention(asked, result.hits, lacking=unstated)
                )
            may_ask = req.forced_query is None and self.settings.retrieval.ask_back
            asked_back = (
                clarify.ask_back(
                    message,
                    history,
                    resolution,
                    result.hits,
                    read_text=self.settings.retrieval.ask_from_text,
                )
                if may_ask
                else None
            )
            if asked_back is None and may_ask and self.settings.retrieval.learned_ask:
                values = self._signals(message, history, resolution, result.hits, req)
                fitted = own_gate(self.settings.retrieval.gate_models, "ask")
                asked_back = ask_gate.ask(message, history, result.hits, values, fitted)
                req.decided_by = "learned_ask" if asked_back is not None else ""
            if asked_back is not None:
                return Verdict(Action.CLARIFY, asked_back[0], asked_back[1])
            return Verdict(Action.ANSWER)
        return judge(self._evidence(message, history, resolution, result, asked, req))

    def _abstained_by(self, verdict: Verdict) -> str:
        """`Trace.decided_by` of an abstention, or a clarifying question, that the rules and
        floors decided."""
        if verdict.by_floor:
            return "floor"
        return "judged" if self.settings.retrieval.abstention == "judged" else "rule"

    def _second_look(
        self,
        verdict: Verdict,
        message: str,
        history: list[Turn],
        resolution: Resolution,
        hits: Sequence[Hit],
        asked: Sequence[str],
        req: TurnRequest,
    ) -> Verdict:
        """The floor mode's verdict re-sorted by the learned gates: the floor's own abstention
        is answered when `retrieval.learned_answer`'s gate reads the turn as answerable
        (`answer.abstain_override`), an answer withheld when `retrieval.learned_abstain`'s
        reads it as one the documents do not answer (`answer.abstain_gate`)."""
        retrieval = self.settings.retrieval
        if retrieval.abstention != "floor" or not hits:
            return verdict

        def values() -> dict[str, float]:
            return self._signals(message, history, resolution, hits, req)

        if req.keep_signals:
            values()
            req.floor = _gate_population(verdict, req.decided_by)

        own = retrieval.gate_models
        answers = retrieval.learned_answer and verdict.by_floor
        if answers and abstain_override.answers(values(), own_gate(own, "override")):
            req.decided_by = "learned_answer"
            return Verdict(Action.ANSWER)
        withholds = retrieval.learned_abstain and verdict.action is Action.ANSWER
        if withholds and abstain_gate.abstains(values(), own_gate(own, "abstain")):
            req.decided_by = "learned_abstain"
            return Verdict(Action.ABSTAIN, answerability.abstention(asked, hits))
        return verdict

    def _signals(
        self,
        message: str,
        history: list[Turn],
        resolution: Resolution,
        hits: Sequence[Hit],
        req: TurnRequest,
    ) -> dict[str, float]:
        """What the learned gates read of this turn (`answer.turn_signals`), computed once
        per turn: the ask gate and the abstain gate both read an answered turn's hits."""
        if req.signals is None:
            calibration = self.retriever.calibrator.get()
            req.signals = turn_signals.of_turn(message, history, resolution, hits, calibration)
        return req.signals

    def _evidence(
        self,
        message: str,
        history: list[Turn],
        resolution: Resolution,
        result: RetrievalResult,
        asked: Sequence[str],
        req: TurnRequest,
    ) -> TurnEvidence:
        return TurnEvidence(
            message=message,
            history=history,
            resolution=resolution,
            hits=result.hits,
            per_query=result.per_query,
            asked=asked,
            term_stats=scoped_term_stats(self.retriever.index, req.tenant),
            calibration=self.retriever.calibrator.get(),
            may_clarify=req.forced_query is None and self.settings.retrieval.ask_back,
            read_text=self.settings.retrieval.ask_from_text,
            embed=self._turn_embed(),
            min_value_share=self.settings.retrieval.min_value_share,
            value_min_near=self.settings.retrieval.value_min_near,
        )

    def _scored(self, ev: TurnEvidence) -> bool:
        """The opt-in abstain scorer of the floor mode (`retrieval.abstain_model`, set)."""
        model = named_model(self.settings.retrieval.abstain_model)
        q = self.settings.retrieval.abstain_quantile
        threshold = (
            own_threshold.for_retriever(self.retriever).threshold(model, q) if q > 0 else None
        )
        return scored_abstain(ev, model, threshold)

    def _unstated_value(
        self, own: Sequence[Hit], asked: Sequence[str], req: TurnRequest
    ) -> str | None:
        """What the question asks for that no sentence about it states ("the number it
        asks for"); None when one does or the question asks for no value (`answer.stated`)."""
        least = self.settings.retrieval.min_value_share
        question = next((q for q in asked if q.strip()), "")
        if least <= 0.0 or not question or not own:
            return None
        found = stated.value_share(
            question,
            own,
            scoped_term_stats(self.retriever.index, req.tenant),
            self._turn_embed(),
            min_near=self.settings.retrieval.value_min_near,
            enough=least,
        )
        return stated.lacking(found) if found.share < least else None

    def _missing_focus(
        self, result: RetrievalResult, asked: Sequence[str], req: TurnRequest
    ) -> str | None:
        """What the question asks about that the documents do not hold, as the question
        names it ("phone stipend"); None when they hold all of it (`answer.focus`)."""
        s = self.settings.retrieval
        question = next((q for q in asked if q.strip()), "")
        if not s.focus or not question or not result.hits:
            return None
        own = abstain.evidence_hits(result.hits, result.per_query, asked)
        if max((h.dense for h in own if h.dense is not None), default=0.0) >= s.focus_max_cos:
            return None  # a close passage: a word it lacks is likelier another wording
        lost = focus.missing(
            question,
            own,
            scoped_term_stats(self.retriever.index, req.tenant),
            self._turn_embed(),
            max_share=s.focus_max_share,
            min_near=s.focus_min_near,
        )
        return focus.naming(question, lost) if lost else None

    def _unstated_phrase(self, result: RetrievalResult, asked: Sequence[str]) -> str | None:
        """The kind the question names that the passages holding its head noun never say
        ("annual bonus" over the referral bonus); None when off or stated (`answer.phrase`)."""
        s, question = self.settings.retrieval, next((q for q in asked if q.strip()), "")
        if not s.phrase or not question or not result.hits:
            return None
        own = abstain.evidence_hits(result.hits, result.per_query, asked)
        embed = self._turn_embed()
        return phrase.lacking(
            question,
            own,
            embed,
            min_near=s.phrase_min_near,
            max_cos=s.phrase_max_cos,
            kinds_only=s.phrase_kinds_only,
        )

    def _resolve(
        self, message: str, history: list[Turn], req: TurnRequest
    ) -> tuple[Resolution, str]:
        """`message` has its typos fixed already."""
        if req.forced_query is not None:
            query = self.validate(req.forced_query)
            return Resolution(query=query, resolver="user-corrected"), "corrected by the user"
        # the gate reads what is asked: "wow, that sounds great. what about X?" is an ellipsis
        asked = without_preamble(message)
        index = self.retriever.index
        term_stats = scoped_term_stats(index, req.tenant)
        headings = scoped_headings(index, req.tenant)
        gated = gate(asked, history, term_stats, headings=headings_of(headings))
        if not gated.needs_resolution:
            return Resolution(query=asked, resolver="none"), gated.reason
        context = ResolveContext.of(
            self.settings.conversation,
            term_stats=term_stats,
            headings=headings,
            summary=req.summary,
            deadline=req.deadline,
            **self._index_reads(req),
        )
        resolution = self.resolver.resolve(message, history, context)
        if resolution.degraded:
            # a stable code for the client and the trace; the text is for the log only
            code = degraded_code(resolution.degraded)
            logger.warning("resolver degraded (%s): %s", code, resolution.degraded[:500])
            req.degraded.append(f"resolve:{code}")
            resolution = replace(resolution, degraded=code)
        return resolution, gated.reason

    def _extract(
        self,
        query: str,
        hits: list[Hit],
        *,
        by_rank: bool = False,
        shown: Sequence[str] = (),
        fast: bool = False,
    ) -> quote.Quoted:
        """Quoted sentences numbered by first citation, or (`by_rank`) by hit rank; none of
        the sentences in `shown` (what "tell me more" has seen already). `fast` ranks
        without embedding the sentences."""
        extracts = extractive.best_sentences(
            query,
            hits,
            embed=None if fast else self._turn_embed(),
            exclude=shown,
            outline=self._outline,
            **extractive.selection_of(self.settings.retrieval),
        )
        return quote.quote(extracts, hits, by_rank=by_rank)

    def _outline(self, hit: Hit) -> list[tuple[str, ...]]:
        """The section paths of `hit`'s document, in stored (ingest) order: the headings
        a list question's kinds are read from (`lists.kind_headings`)."""
        index = self.retriever.index
        get = getattr(index, "get", None)
        if get is None:
            return []
        chunks = get(list(index.ids(hit.chunk.doc_id)))
        return [tuple(c.section) for c in chunks if c.tenant == hit.chunk.tenant]

    def _generate(
        self,
        message: str,
        history: list[Turn],
        hits: list[Hit],
        streamed: list[str],
        deadline: float | None,
    ) -> Generator[Event, None, tuple[str, tuple[Citation, ...], bool]]:
        """Stream the model's answer; `streamed` collects the text already shown."""
        if self.llm is None:
            raise RuntimeError("_generate needs an LLM client")
        sources = hits[: self.settings.retrieval.k]
        messages = generate.build_messages(
            message, history, sources, window=self.settings.conversation.window
        )
        yield CitationsEvent(tuple(citations.citation(h) for h in sources))
        pieces: list[str] = []
        for piece in self.llm.stream_text(messages, deadline=deadline):
            pieces.append(piece)
            if generate.ABSTAIN_MARKER not in "".join(pieces):
                streamed.append(piece)
                yield DeltaEvent(piece)
        text = "".join(pieces).strip()
        if generate.is_abstention(text):
            return "", (), True
        # "[n]" in the text is source n: keep the numbering the model was given.
        cited = tuple(citations.citation(h) for h in sources[: _max_marker(text, len(sources))])
        return keep_valid_markers(text, len(sources)), cited, False

    def _more_of(self, message: str, req: TurnRequest) -> tuple[str, ...]:
        """For "tell me more" in a stored session, the document the last answer quoted
        first (its best source: the topic; the others are often asides a stray word
        found): more of the same topic is more of that source. Searched as the resolver
        phrased it, the request drifted to whatever words the previous question carried
        ("tell me more in July (full amount)") and then abstained. () otherwise: a
        stateless caller's history has no sources, a new question searches everything."""
        if req.session_id is None or req.forced_query is not None:
            return ()
        if not edits.asks_for_more(message):
            return ()
        cited = self.store.last_answer_citations(req.session_id)
        return (cited[0].doc,) if cited and cited[0].doc else ()

    def _last_citations(self, decision: Decision, req: TurnRequest) -> tuple[Citation, ...]:
        if decision is not Decision.ABOUT_LAST_ANSWER or req.session_id is None:
            return ()  # a stateless caller keeps its own history, without sources
        return self.store.last_answer_citations(req.session_id)

    def _no_retrieval_reply(
        self,
        decision: Decision,
        message: str,
        history: list[Turn],
        req: TurnRequest,
        cited: tuple[Citation, ...] = (),
    ) -> tuple[str, str]:
        """(reply, the model that wrote it): small talk, or the last answer rewritten."""
        if decision is Decision.SMALL_TALK:
            return SMALL_TALK_REPLIES[small_talk_kind(message)], "rules"
        last = next((t.content for t in reversed(history) if t.role == "assistant"), "")
        if self.llm is not None and last:
            try:
                rewritten = self.llm.complete_text(
                    [
                        {
                            "role": "system",
                            "content": REWRITE_PROMPT if cited else REWRITE_PROMPT_UNSOURCED,
                        },
                        *({"role": t.role, "content": t.content} for t in history[-4:]),
                        {"role": "user", "content": message},
                    ],
                    deadline=req.deadline,
                )
                return rewritten, self.settings.llm.model
            except LLMError as exc:
                logger.warning("LLM rewrite failed, shortening by rule instead: %s", exc)
                req.degraded.append(f"rewrite:{exc.kind}")
        if not last:
            return "There is no previous answer to change yet.", "rules"
        return self._shorter(last, history), "rules"

    def _shorter(self, last: str, history: list[Turn]) -> str:
        """The last answer's best one or two sentences for the question it answered."""
        question = next(
            (
                t.content
                for i, t in reversed(list(enumerate(history)))
                if t.role == "user"
                and decide(t.content, history[:i]).decision is not Decision.ABOUT_LAST_ANSWER
            ),
            "",
        )  # the question of "make that shorter" twice is the one before both
        return edits.shorter(last, question, self._turn_embed())

    def _index_reads(self, req: TurnRequest) -> dict[str, Any]:
        """What the resolver reads from the tenant's passages (`retrieval.index_reads`): how well
        a rewritten question matches them, by which binding chooses a pronoun's antecedent
        (`conversation.passes.fit`), and the index's typed floor (`conversation.gating`)."""
        return index_reads(
            self.settings.conversation,
            self.retriever.index,
            self._turn_embed(),
            self.retriever.calibrator.get(),
            SearchFilter(tenant=req.tenant or None),
        )

    def _turn_embed(self) -> Callable[[Sequence[str]], Any] | None:
        """How a turn embeds the sentences and words it reads: on the query runtime when
        the embedder has one (`embed_queries`: ONNX, already warm from the search; a turn's
        few dozen texts must not load the bulk runtime, torch, which costs a user's first
        such turn 4-5 s and the process about 300 MB), else `embed_documents`; each text's
        vector kept for the turns after (`index.vector_cache`)."""
        embedder = getattr(self.retriever, "embedder", None)
        if embedder is None:
            return None
        embed: Callable[[Sequence[str]], Any] = (
            getattr(embedder, "embed_queries", None) or embedder.embed_documents
        )
        return cached(embed)  # the next turn reads the same passages

    def _ask_back(
        self,
        req: TurnRequest,
        trace_id: str,
        message: str,
        resolution: Resolution,
        gate_reason: str,
        hits: Sequence[Hit],
        *,
        text: str,
        options: tuple[str, ...],
        latency: LatencyMs,
    ) -> Iterator[Event]:
        """A clarifying question as the whole answer: from the resolver (an ambiguous
        referent) or from the documents (several subjects fit), sent and traced alike."""
        answer = Answer(
            trace_id=trace_id,
            answer=text,
            message=message,
            standalone_query=resolution.query,
            bindings=dict(resolution.bindings),
            clarification=text,
            clarification_options=options,
            model="rules",
            latency_ms=latency,
            session_id=req.session_id,
        )
        yield DeltaEvent(text)
        yield self._finish(req, answer, Decision.RETRIEVE, gate_reason, resolution, hits)

    def _finish(
        self,
        req: TurnRequest,
        answer: Answer,
        decision: Decision,
        gate_reason: str,
        resolution: Resolution | None,
        hits: Sequence[Hit],
    ) -> DoneEvent:
        answer = replace(answer, degraded=tuple(req.degraded))
        trace = Trace(
            trace_id=answer.trace_id,
            session_id=req.session_id,
            message=answer.message,
            decision=decision,
            gate=gate_reason,
            resolution=resolution,
            hits=tuple(hits),
            answer=answer,
            degraded=tuple(req.degraded),
            parent_trace_id=req.parent_trace_id,
            tenant=req.tenant,
            decided_by=req.decided_by,
        )
        self.store.record_turn(trace, tenant=req.tenant)
        prepare_answer(answer.answer)  # analysed now, while the user reads it: not next turn
        return DoneEvent(answer)


def scoped_term_stats(index: Index, tenant: str) -> TermStatsLookup:
    """The index's term statistics as a tenant's turn may read them: its own chunks only.
    The default tenant "" searches every tenant's documents, so it reads them all."""
    if not tenant:
        return index.term_stats
    return functools.partial(index.term_stats, tenant=tenant)


def scoped_headings(index: Index, tenant: str) -> HeadingsLookup:
    """The index's headings as a tenant's turn may read them (see `scoped_term_stats`)."""
    if not tenant:
        return index.headings
    return functools.partial(index.headings, tenant=tenant)


def valid_unicode(text: str) -> str:
    """`text` with lone surrogates replaced by U+FFFD. JSON's "\\ud800" and a command-line
    byte that is not UTF-8 ("caf\\xe9") arrive as lone surrogates, which the tokenizer,
    SQLite and the UTF-8 encoders of HTTP and the terminal all refuse."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def validate_message(message: str, *, limit: int) -> str:
    """The message stripped (and made valid Unicode), or an InputError that says what is
    wrong and the limit."""
    text = valid_unicode(message).strip() if isinstance(message, str) else ""
    if not text:
        raise InputError("the message is empty; type a question")
    if len(text) > limit:
        raise InputError(
            f"the message is {len(text)} characters long; the limit is {limit} "
            "(conversation.max_message_chars)"
        )
    return text


def answering_about(resolution: Resolution) -> str | None:
    """The "Answering about: ..." line: the antecedents the follow-up was bound to."""
    if not resolution.bindings:
        return None
    seen: list[str] = []
    for antecedent in resolution.bindings.values():
        if antecedent not in seen:
            seen.append(antecedent)
    return ", ".join(seen)


def keep_valid_markers(text: str, n_citations: int) -> str:
    """`text` without the "[n]" markers that point past its `n_citations` citations."""
    return _MARKER.sub(lambda m: m.group(0) if 1 <= int(m.group(1)) <= n_citations else "", text)


def _max_marker(text: str, n_sources: int) -> int:
    """The highest valid source number cited in `text` (0: none)."""
    return max(generate.cited_numbers(text, n_sources), default=0)


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)


def _gate_population(verdict: Verdict, decided_by: str) -> str:
    """Which learned gate decides a turn with this floor-mode verdict (`TurnRequest.floor`):
    the floor's answers, and the learned ask's own questions (the floor answered them), are
    the ask and abstain gates' turns; the cosine floor's abstentions are the override's."""
    if verdict.action is Action.ANSWER or decided_by == "learned_ask":
        return "answer"
    return "abstain" if verdict.action is Action.ABSTAIN and verdict.by_floor else ""
