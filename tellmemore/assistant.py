"""The facade: one object to ingest documents, search them, and hold conversations.

>>> from tellmemore import Assistant                                   # doctest: +SKIP
>>> assistant = Assistant.open(".tellmemore")                          # doctest: +SKIP
>>> assistant.ingest(["docs/"])                                        # doctest: +SKIP
>>> chat = assistant.session()                                         # doctest: +SKIP
>>> chat.ask("what escalation options do we have on cloud connect").answer  # doctest: +SKIP
>>> chat.ask("does the enterprise one cover weekends?").answering_about     # doctest: +SKIP
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tellmemore.config import Settings
from tellmemore.errors import InputError
from tellmemore.index.base import Embedder, Index
from tellmemore.limits import MAX_HISTORY_INPUT_TURNS
from tellmemore.state.conversations import ConversationStore
from tellmemore.state.db import StateDB
from tellmemore.types import Answer, Hit, IngestReport, SearchFilter, SearchMode, Turn

if TYPE_CHECKING:  # the turn machinery loads on the first turn: `index stats` skips it
    from tellmemore.answer.stream import AnswerStream
    from tellmemore.llm import LLMClient
    from tellmemore.retrieval import Retriever
    from tellmemore.turn import TurnRunner


class Assistant:
    """Owns the project directory: the index, the embedder, state.db and the turn runner.

    Heavy parts (the embedding model, the index) open lazily on first use, so
    `tellmemore index stats` or a feedback call never loads a model.
    """

    def __init__(self, settings: Settings, *, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self._embedder = embedder
        settings.project_dir.mkdir(parents=True, exist_ok=True)

    @classmethod
    def open(
        cls,
        project_dir: str | Path | None = None,
        *,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
    ) -> Assistant:
        """Open (or create) a project directory."""
        if settings is None:
            settings = Settings.load(project_dir)
        elif project_dir is not None:
            settings = settings.model_copy(update={"project_dir": Path(project_dir)})
        return cls(settings, embedder=embedder)

    # -- parts ------------------------------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from tellmemore.index.embedders import load_embedder

            self._embedder = load_embedder(self.settings.embedder)
        return self._embedder

    @cached_property
    def index(self) -> Index:
        from tellmemore.index import open_index

        embedder = self.embedder
        return open_index(self.settings, dimension=embedder.dimension, embedder=embedder.name)

    @cached_property
    def state(self) -> StateDB:
        return StateDB(self.settings.state_path)

    @cached_property
    def conversations(self) -> ConversationStore:
        return ConversationStore(self.state)

    @cached_property
    def retriever(self) -> Retriever:
        from tellmemore.retrieval import Retriever

        return Retriever(self.index, self.embedder, self.settings.retrieval)

    @cached_property
    def llm(self) -> LLMClient | None:
        if not self.settings.llm_enabled:
            return None
        from tellmemore.llm import LLMClient

        return LLMClient(self.settings.llm)

    @cached_property
    def runner(self) -> TurnRunner:
        from tellmemore.conversation.resolvers import get_resolver
        from tellmemore.turn import TurnRunner

        fallback = get_resolver("embedded")
        name = self.settings.conversation.resolver
        if name == "llm" and self.llm is None:
            resolver = fallback
        else:
            resolver = get_resolver(name, llm=self.llm, fallback=fallback)
        return TurnRunner(
            settings=self.settings,
            retriever=self.retriever,
            resolver=resolver,
            store=self.conversations,
            llm=self.llm,
        )

    # -- documents --------------------------------------------------------------------------

    def ingest(
        self,
        sources: Sequence[str | Path],
        *,
        tenant: str = "",
        sync: bool = False,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> IngestReport:
        """Load, chunk, embed and index files or folders; idempotent and resumable."""
        from tellmemore.ingest.chunking import default_chunk_tokens
        from tellmemore.ingest.pipeline import ingest

        chunk_tokens = self.settings.chunking.max_tokens or default_chunk_tokens(
            self.settings.retrieval.k, self.embedder.max_tokens
        )
        report = ingest(
            sources,
            index=self.index,
            embedder=self.embedder,
            state=self.state,
            chunk_tokens=chunk_tokens,
            overlap_sentences=self.settings.chunking.overlap_sentences,
            tenant=tenant,
            sync=sync,
            progress=progress,
            max_text_chars=self.settings.ingest.max_text_chars,
            follow_symlinks=self.settings.ingest.follow_symlinks,
        )
        from tellmemore.index import encoding_info

        encoding_info.record(
            self.index, self.embedder, chunks=report.chunks_embedded, seconds=report.seconds
        )
        # what scores mean in the changed index, probed now rather than on the next turn
        self.retriever.calibrator.get()
        r = self.settings.retrieval
        if r.abstain_model and r.abstain_quantile > 0:
            from tellmemore.answer import own_threshold

            own_threshold.for_retriever(
                self.retriever
            ).rows()  # the scorer's threshold, this index's
        return report

    def search(
        self,
        query: str,
        *,
        k: int | None = None,
        mode: SearchMode | str | None = None,
        tenant: str | None = None,
    ) -> list[Hit]:
        """Ranked chunks for one query (no conversation)."""
        from tellmemore.turn import valid_unicode

        query = valid_unicode(query or "")
        if not query.strip():
            raise InputError("the query is empty")
        if isinstance(mode, str):
            mode = SearchMode.from_str(mode)
        return self.retriever.search([query], k=k, mode=mode, filter=SearchFilter(tenant)).hits

    def stats(self) -> dict[str, Any]:
        from tellmemore.index import encoding_info

        index_path = self.settings.index_path
        files = [index_path, Path(f"{index_path}-wal"), Path(f"{index_path}-shm")]
        size = sum(p.stat().st_size for p in files if p.exists())
        docs = self.state.query("SELECT COUNT(*) AS n FROM documents")[0]["n"]
        return {
            "project_dir": str(self.settings.project_dir),
            "engine": getattr(self.index, "engine", type(self.index).__name__),
            "index_uri": self.settings.index.uri or str(index_path),
            "chunks": self.index.count(),
            "documents": docs,
            "size_bytes": size,
            "embedder": self.embedder.name,
            "dimension": self.embedder.dimension,
            **encoding_info.stats_lines(encoding_info.stored(self.index)),
            "traces": self.conversations.count_traces(),
        }

    # -- conversations ----------------------------------------------------------------------

    def session(self, session_id: str | None = None, *, tenant: str = "") -> Session:
        """A stored conversation (created when new)."""
        sid = self.conversations.ensure_session(session_id, tenant=tenant)
        return Session(self, sid, tenant=tenant)

    def ask(self, message: str, *, history: Sequence[Mapping[str, str] | Turn] = ()) -> Answer:
        """One stateless turn: the caller keeps the history."""
        return Session(self, None).ask(message, history=history)

    def correct(self, trace_id: str, standalone_query: str, *, tenant: str = "") -> Answer:
        """Re-answer a turn with the query the user corrected; both traces are kept, linked."""
        original = self.conversations.trace(trace_id)
        session_id = original.get("session_id")
        history: list[Turn] = []
        if session_id:
            turns = self.conversations.history(session_id)
            history = _history_before(turns, original["message"])
        from tellmemore.answer.stream import AnswerStream
        from tellmemore.turn import TurnRequest

        req = TurnRequest(
            message=original["message"],
            history=history,
            session_id=session_id,
            tenant=tenant,
            forced_query=standalone_query,
            parent_trace_id=trace_id,
        )
        return AnswerStream(self.runner.run(req)).result()

    def feedback(self, trace_id: str, rating: str, reason: str | None = None) -> int:
        return self.conversations.add_feedback(trace_id, rating, reason)

    def trace(self, trace_id: str, *, tenant: str | None = None) -> dict[str, Any]:
        """A stored trace; with `tenant`, NotFoundError unless it is that tenant's."""
        return self.conversations.trace(trace_id, tenant=tenant)

    def close(self) -> None:
        if "index" in self.__dict__:
            self.index.close()
        if "state" in self.__dict__:
            self.state.close()


class Session:
    """One conversation. `ask` answers; `stream` yields events as the turn runs."""

    def __init__(self, assistant: Assistant, session_id: str | None, *, tenant: str = "") -> None:
        self.assistant = assistant
        self.id = session_id
        self.tenant = tenant

    @property
    def history(self) -> list[Turn]:
        if self.id is None:
            return []
        return self.assistant.conversations.history(self.id)

    def stream(
        self, message: str, *, history: Sequence[Mapping[str, str] | Turn] | None = None
    ) -> AnswerStream:
        from tellmemore.answer.stream import AnswerStream
        from tellmemore.turn import TurnRequest, validate_message

        message = validate_message(
            message, limit=self.assistant.settings.conversation.max_message_chars
        )
        turns = parse_history(history) if history is not None else self.history
        # One LLM budget for the whole turn: summary refresh, resolver and generator.
        deadline = time.monotonic() + self.assistant.settings.llm.deadline_s
        summary, why = self._refreshed_summary(turns, deadline)
        req = TurnRequest(
            message=message,
            history=turns,
            session_id=self.id,
            tenant=self.tenant,
            summary=summary,
            deadline=deadline,
            degraded=[f"summary:{why}"] if why else [],
        )
        return AnswerStream(self.assistant.runner.run(req))

    def ask(
        self, message: str, *, history: Sequence[Mapping[str, str] | Turn] | None = None
    ) -> Answer:
        return self.stream(message, history=history).result()

    def _refreshed_summary(
        self, turns: list[Turn], deadline: float | None = None
    ) -> tuple[str, str | None]:
        """The rolling summary of turns older than the window, refreshed every few turns,
        and why the LLM could not write it (None: it did, or was not asked)."""
        from tellmemore.conversation.history import RollingSummary
        from tellmemore.turn import scoped_term_stats

        if self.id is None:
            return "", None
        store = self.assistant.conversations
        summary, upto = store.summary(self.id)
        conv = self.assistant.settings.conversation
        rolling = RollingSummary(
            window=conv.window,
            summary_every=conv.summary_every,
            llm=self.assistant.llm,
            term_stats=scoped_term_stats(self.assistant.index, self.tenant),
            deadline=deadline,
        )
        if rolling.due(turns, upto):
            summary, upto = rolling.update(turns, summary, upto)
            store.set_summary(self.id, summary, upto)
        return summary, rolling.degraded


def parse_history(history: Sequence[Mapping[str, str] | Turn] | str | Path) -> list[Turn]:
    """History from a list of {role, content} (or a JSON file of one), validated."""
    if isinstance(history, str | Path):
        path = Path(history)
        try:
            history = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"cannot read history file {path}: {exc}") from exc
        if not isinstance(history, list):
            raise InputError(f"{path}: expected a JSON list of {{role, content}} turns")
    if len(history) > MAX_HISTORY_INPUT_TURNS:
        raise InputError(
            f"the history has {len(history):,} turns; at most {MAX_HISTORY_INPUT_TURNS} are "
            "accepted (a turn reads only the newest conversation.max_history_turns)"
        )
    from tellmemore.turn import valid_unicode

    turns: list[Turn] = []
    for i, item in enumerate(history):
        if isinstance(item, Turn):
            turns.append(item)
            continue
        if not isinstance(item, Mapping):
            raise InputError(f"history[{i}]: expected an object with role and content")
        role, content = item.get("role"), item.get("content")
        if role not in ("user", "assistant") or not isinstance(content, str):
            raise InputError(
                f"history[{i}]: role must be 'user' or 'assistant' and content a string, "
                f"got role={role!r}"
            )
        turns.append(Turn(role=role, content=valid_unicode(content)))
    return turns


def _history_before(turns: list[Turn], message: str) -> list[Turn]:
    for i in range(len(turns) - 1, -1, -1):
        if turns[i].role == "user" and turns[i].content == message:
            return turns[:i]
    return turns
