"""The records that cross the boundaries between parts.

Every part of tellmemore (ingestion, index, conversation, answer, service,
evaluation) talks to the others through these frozen dataclasses, never through
loose dicts, so a reader can learn the whole system's contracts from this file.
`to_dict()` gives the JSON shape used by the CLI (`--json`), the service and
the traces.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tellmemore.errors import InputError

API_VERSION = "1"

Role = Literal["user", "assistant"]


class UnknownModeError(InputError, ValueError):
    """An unknown search mode: an input error at the edges, a ValueError to pydantic."""


PassName = Literal["pronoun", "definite", "ordinal", "alternatives", "ellipsis", "repair", "carry"]
"""The embedded resolver's passes (`conversation.passes`), the names `Resolution.passes` and
`conversation.disabled_passes` use."""


class SearchMode(enum.StrEnum):
    """How the index ranks: lexical, semantic, or both fused."""

    BM25 = "bm25"
    DENSE = "dense"
    HYBRID = "hybrid"

    @classmethod
    def from_str(cls, value: str) -> SearchMode:
        try:
            return cls(value.strip().lower())
        except ValueError:
            valid = ", ".join(m.value for m in cls)
            raise UnknownModeError(f"unknown search mode {value!r}; valid modes: {valid}") from None


class Decision(enum.StrEnum):
    """The narrow retrieve / no-retrieve decision. Anything unrecognised retrieves."""

    RETRIEVE = "retrieve"
    SMALL_TALK = "small_talk"
    ABOUT_LAST_ANSWER = "about_last_answer"


def _as_dict(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        out[f.name] = _plain(value)
    return out


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _as_dict(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def header_line(title: str, section: Sequence[str]) -> str:
    """ "Title > Section > Subsection", the subject line of a chunk (also an index's
    headings, read from its rows)."""
    return " > ".join(p for p in (title, *section) if p)


@dataclass(frozen=True)
class Chunk:
    """One retrievable passage.

    `id` is stable: derived from doc id + section path + ordinal (see
    `ingest.ids`), so re-ingesting the same document upserts instead of
    duplicating. `text` starts with a header naming its subject
    ("Cloud Connect > Escalation > Enterprise tier") so a chunk retrieved alone
    still says what it is about. `content_hash` is kept apart from the id: it
    tells whether an unchanged chunk can skip embedding.
    """

    id: str
    doc_id: str
    text: str
    title: str = ""
    section: tuple[str, ...] = ()
    version: str = ""
    url: str = ""
    tenant: str = ""
    content_hash: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def header(self) -> str:
        """ "Title > Section > Subsection": the subject line of the chunk."""
        return header_line(self.title, self.section)

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True)
class SearchFilter:
    """Metadata filters applied inside the index, before ranking.

    `tenant=None` means no tenant restriction (single-tenant use); the service
    always sets it from the API key.
    """

    tenant: str | None = None
    doc_ids: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Hit:
    """A chunk returned by a search, with the scores that ranked it.

    `score` is the fused score used for ranking (higher is better);
    `bm25` and `dense` are the per-signal scores when the engine knows them
    (None when that signal did not retrieve the chunk).
    """

    chunk: Chunk
    score: float
    rank: int
    bm25: float | None = None
    dense: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True)
class TermStats:
    """Document frequencies of terms in the index, for salience (IDF)."""

    n_chunks: int
    df: Mapping[str, int]

    def idf(self, term: str) -> float:
        """BM25-style IDF, never negative; unseen terms get the maximum."""
        n = max(self.n_chunks, 1)
        d = self.df.get(term, 0)
        return math.log(1.0 + (n - d + 0.5) / (d + 0.5))


@dataclass(frozen=True)
class Turn:
    """One message of a conversation as the user or the assistant wrote it."""

    role: Role
    content: str
    resolution: Resolution | None = field(default=None, compare=False, repr=False)
    """For a user turn of a stored session: how it was resolved when it was asked (state.db).
    A later turn reads it instead of resolving the history again; None for stateless
    callers, whose history the resolver re-resolves (bounded) when it must."""
    items: tuple[str, ...] | None = field(default=None, compare=False, repr=False)
    """For an answer of a stored session: the list items it quoted (`Answer.items`, state.db),
    () when it quoted none; "the fourth one" reads them. None when unknown (a stateless
    caller's history, a turn stored before items were): the answer's text is read."""
    about: tuple[str, ...] | None = field(default=None, compare=False, repr=False)
    """For an answer: the section heading of the passage it cited first, what the answer
    was about in the documents' words (a stored session reads them from its traces, the
    OpenAI-compatible door from the references sent back). None when unknown."""

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class Resolution:
    """The rewrite contract (seed 003): a follow-up made standalone.

    `query` is what retrieval searches; generation never sees it.
    `bindings` maps each referent in the message to the antecedent it was
    bound to ("that one" -> "Enterprise escalation tier"); shown to the user
    as "Answering about: ...". `ambiguous` with a `clarification` means: ask,
    retrieve nothing. `unbound_referent` means the message points back but
    nothing bound, so the raw message is searched (the loud failure).
    """

    query: str
    bindings: Mapping[str, str] = field(default_factory=dict)
    ambiguous: bool = False
    clarification: str | None = None
    resolver: str = "raw"
    model_called: bool = False
    latency_ms: float = 0.0
    unbound_referent: bool = False
    degraded: str | None = None
    candidates: tuple[str, ...] = ()
    passes: tuple[str, ...] = ()
    """The passes of the embedded resolver that changed the query, in order: "pronoun",
    "definite", "ordinal", "alternatives", "ellipsis", "repair", "carry" (design.md, the
    conversation layer's second shape); () when nothing was resolved. "fit" follows a
    pronoun whose antecedent the documents chose over the most salient phrase
    (`conversation/passes/fit.py`)."""
    cues: tuple[str, ...] = ()
    """Keys of `bindings` that stand for the whole message, typed inside it: "that" in "and
    if I miss that?" bound to the previous question (an ellipsis rebuilt, a topic carried;
    conversation/passes/cue.py). No antecedent replaced them in the query."""
    withheld: Mapping[str, str] = field(default_factory=dict)
    """Bindings the resolver proposed and did not keep, because the documents did not
    confirm them (`conversation.binding_gate`): the message was searched as typed, with the
    conversation's own wording as evidence, and nothing is shown as "Answering about"."""

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Resolution:
        """The Resolution `to_dict` wrote (state.db); unknown keys are ignored, so an older
        row reads as what it holds."""
        return cls(
            query=str(data.get("query", "")),
            bindings={str(k): str(v) for k, v in dict(data.get("bindings") or {}).items()},
            ambiguous=bool(data.get("ambiguous", False)),
            clarification=data.get("clarification"),
            resolver=str(data.get("resolver", "raw")),
            model_called=bool(data.get("model_called", False)),
            latency_ms=float(data.get("latency_ms", 0.0)),
            unbound_referent=bool(data.get("unbound_referent", False)),
            degraded=data.get("degraded"),
            candidates=tuple(data.get("candidates") or ()),
            passes=tuple(data.get("passes") or ()),
            cues=tuple(data.get("cues") or ()),
            withheld={str(k): str(v) for k, v in dict(data.get("withheld") or {}).items()},
        )


@dataclass(frozen=True)
class Citation:
    """A source of an answer, precise enough to open and to check its version."""

    id: str
    doc: str
    title: str
    version: str = ""
    url: str = ""
    snippet: str = ""
    section: tuple[str, ...] = ()
    score: float = 0.0
    pages: tuple[int, ...] = ()
    """Pages of a paged source (PDF) the passage is on: (first,) or (first, last); ()
    for sources without pages."""
    flags: tuple[str, ...] = ()
    """What the passage tries on a model ("prompt_injection", "fake_role_turn",
    "forged_source_tag"; `tellmemore.injection`): read it as data, never as instructions."""

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True)
class LatencyMs:
    total: float = 0.0
    resolve: float = 0.0
    retrieve: float = 0.0
    answer: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True)
class Answer:
    """The structured answer of one turn (the `/v1` response shape of design.md)."""

    trace_id: str
    answer: str
    message: str
    decision: Decision = Decision.RETRIEVE
    citations: tuple[Citation, ...] = ()
    abstained: bool = False
    standalone_query: str | None = None
    bindings: Mapping[str, str] = field(default_factory=dict)
    answering_about: str | None = None
    clarification: str | None = None
    model: str = "extractive"
    latency_ms: LatencyMs = field(default_factory=LatencyMs)
    session_id: str | None = None
    api_version: str = API_VERSION
    clarification_options: tuple[str, ...] = ()
    """The alternatives a clarifying question offers, so a UI can show them as buttons."""
    degraded: tuple[str, ...] = ()
    """What fell back this turn, as "stage:kind": "generate:rate_limit" (the LLM failed and
    the answer is quoted from the sources), "generate:uncited" (the model cited no
    source), "resolve:timeout", "summary:...". Empty when everything worked."""
    items: tuple[str, ...] = ()
    """The list items or table rows a quoted answer holds, in order (two or more), so "the
    fourth one" reads the fourth item instead of parsing it back out of `answer`."""

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True)
class Trace:
    """Everything that happened in one turn, stored under one trace id."""

    trace_id: str
    session_id: str | None
    message: str
    decision: Decision
    gate: str
    resolution: Resolution | None
    hits: tuple[Hit, ...]
    answer: Answer
    degraded: tuple[str, ...] = ()
    parent_trace_id: str | None = None
    tenant: str = ""
    """The tenant the turn searched in: the service shows a trace only to its tenant."""
    decided_by: str = ""
    """What decided an abstention ("floor"; "rule": an opt-in rule or scorer; "judged";
    "learned_abstain"; "llm") or a clarifying question ("resolver": the referent fits
    several antecedents; "rule": a hand-written gate; "learned_ask"; "judged"), or
    "learned_answer" when the learned gate answered what the floor abstained on; "" for a
    turn answered as the floor would."""

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True)
class SkippedFile:
    path: str
    reason: str


@dataclass(frozen=True)
class IngestReport:
    """What one ingestion run did, per document and per chunk."""

    docs_added: int = 0
    docs_updated: int = 0
    docs_unchanged: int = 0
    docs_deleted: int = 0
    chunks_added: int = 0
    chunks_updated: int = 0
    chunks_unchanged: int = 0
    chunks_deleted: int = 0
    chunks_embedded: int = 0
    skipped: tuple[SkippedFile, ...] = ()
    flagged: tuple[str, ...] = ()
    seconds: float = 0.0
    warnings: tuple[str, ...] = ()
    """Loaded but imperfect, e.g. invalid UTF-8 replaced (the document is still indexed)."""

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)
