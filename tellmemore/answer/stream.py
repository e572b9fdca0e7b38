"""An answer that streams or completes: one object for the CLI, the service and eval.

Iterate it for events (`resolution`, `citations`, `delta`, `done`) or call
`result()` for the final Answer. The trace is recorded by the turn pipeline
before `done` is produced, so a consumer that stops early still leaves a
complete trace behind only if the turn finished.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tellmemore.types import Answer, Citation, Decision, Resolution


@dataclass(frozen=True)
class ResolutionEvent:
    decision: Decision
    gate: str
    resolution: Resolution | None
    name: str = "resolution"

    def to_dict(self) -> dict[str, Any]:
        res = self.resolution
        return {
            "decision": self.decision.value,
            "gate": self.gate,
            "standalone_query": res.query if res else None,
            "bindings": dict(res.bindings) if res else {},
            "ambiguous": res.ambiguous if res else False,
            "clarification": res.clarification if res else None,
            "clarification_options": list(res.candidates) if res and res.ambiguous else [],
            "resolver": res.resolver if res else None,
        }


@dataclass(frozen=True)
class CitationsEvent:
    citations: tuple[Citation, ...]
    name: str = "citations"

    def to_dict(self) -> dict[str, Any]:
        return {"citations": [c.to_dict() for c in self.citations]}


@dataclass(frozen=True)
class DeltaEvent:
    text: str
    name: str = "delta"

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text}


@dataclass(frozen=True)
class DoneEvent:
    answer: Answer
    name: str = "done"

    def to_dict(self) -> dict[str, Any]:
        return self.answer.to_dict()


Event = ResolutionEvent | CitationsEvent | DeltaEvent | DoneEvent


class AnswerStream:
    """Wraps the event generator of one turn.

    >>> stream = session.stream("does that one cover weekends?")  # doctest: +SKIP
    >>> for event in stream: print(event.name)                    # doctest: +SKIP
    >>> stream.result().answer                                    # doctest: +SKIP
    """

    def __init__(self, events: Iterator[Event]) -> None:
        self._events = events
        self._answer: Answer | None = None

    def __iter__(self) -> Iterator[Event]:
        for event in self._events:
            if isinstance(event, DoneEvent):
                self._answer = event.answer
            yield event

    def result(self) -> Answer:
        """Run the turn to the end (if not yet) and return its Answer."""
        for _ in self:
            pass
        if self._answer is None:
            raise RuntimeError("the turn ended without an answer")
        return self._answer

    def text(self) -> str:
        return self.result().answer
