"""Does the assistant abstain and ask back when it should? Measured on labelled turns.

A dataset directory may hold `behaviour.jsonl` (the MTRAG-UN format): one labelled turn
per line with `task_id`, `turn`, `history`, `message` and `answerability` (ANSWERABLE,
PARTIAL, UNANSWERABLE or UNDERSPECIFIED; a one-element list or a string). Each turn is run
as a real turn (`TurnRunner`, no LLM: the extractive answerer) on the dataset's index, and
the report gives, by label, how often the turn abstained and how often it asked back, and
the precision and recall of abstaining on UNANSWERABLE and of asking back on
UNDERSPECIFIED turns.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tellmemore.answer.own_gates import GateRow
from tellmemore.errors import DatasetError
from tellmemore.eval.datasets import _field, _iter_json_lines, _parse_history
from tellmemore.types import Turn

BEHAVIOUR_FILE = "behaviour.jsonl"
LABELS = ("ANSWERABLE", "PARTIAL", "UNANSWERABLE", "UNDERSPECIFIED")
ABSTAIN_ON = "UNANSWERABLE"
ASK_ON = "UNDERSPECIFIED"


@dataclass(frozen=True)
class BehaviourTurn:
    task_id: str
    turn: int
    history: tuple[Turn, ...]
    message: str
    label: str
    line: int


@dataclass(frozen=True)
class BehaviourResult:
    turn: BehaviourTurn
    abstained: bool
    asked_back: bool
    reply: str
    floor: str = ""
    """Which learned gate decides the turn (`TurnRequest.floor`): the rows
    `--fit-gates` fits them on."""
    signals: Mapping[str, float] = field(default_factory=dict)
    """What the learned gates read of the turn (`answer.turn_signals`); empty without hits."""

    def gate_row(self) -> GateRow:
        return GateRow(self.turn.label, self.floor, self.signals)


def has_behaviour(path: str | Path) -> bool:
    return (Path(path) / BEHAVIOUR_FILE).is_file()


def load_behaviour(path: str | Path) -> list[BehaviourTurn]:
    """The labelled turns of `path/behaviour.jsonl`; a bad line is a `DatasetError`
    naming the file, the line and the value."""
    file = Path(path) / BEHAVIOUR_FILE
    out: list[BehaviourTurn] = []
    for lineno, record in _iter_json_lines(file):
        task_id = _field(file, lineno, record, "task_id", str)
        turn = _field(file, lineno, record, "turn", int)
        message = _field(file, lineno, record, "message", str)
        if not message.strip():
            raise DatasetError(str(file), lineno, f"empty message in task {task_id!r}")
        raw = record.get("answerability")
        label = raw[0] if isinstance(raw, list) and len(raw) == 1 else raw
        if label not in LABELS:
            raise DatasetError(
                str(file),
                lineno,
                f"field 'answerability' must be one of {', '.join(LABELS)} (or a one-element "
                f"list of one), got {raw!r}",
            )
        history = _parse_history(file, lineno, record)
        out.append(BehaviourTurn(task_id, turn, tuple(history), message, label, lineno))
    return out


Ask = Callable[[BehaviourTurn], BehaviourResult]
"""Runs one turn."""


def run_behaviour(turns: Sequence[BehaviourTurn], ask: Ask) -> list[BehaviourResult]:
    return [ask(t) for t in turns]


@contextmanager
def turn_runner_ask(index: Any, embedder: Any, settings: Any) -> Iterator[Ask]:
    """An `Ask` that runs real turns (embedded resolver, extractive answers) on `index`,
    each with its recorded history, traces kept in a temporary state database."""
    from tellmemore.conversation.resolvers import get_resolver
    from tellmemore.retrieval import Retriever
    from tellmemore.state.conversations import ConversationStore
    from tellmemore.state.db import StateDB
    from tellmemore.turn import TurnRequest, TurnRunner

    with tempfile.TemporaryDirectory() as tmp:
        state = StateDB(Path(tmp) / "state.db")
        try:
            runner = TurnRunner(
                settings=settings,
                retriever=Retriever(index, embedder, settings.retrieval),
                resolver=get_resolver("embedded"),
                store=ConversationStore(state),
            )

            def ask(t: BehaviourTurn) -> BehaviourResult:
                from tellmemore.answer.stream import DoneEvent

                answer = None
                req = TurnRequest(message=t.message, history=t.history, keep_signals=True)
                for event in runner.run(req):
                    if isinstance(event, DoneEvent):
                        answer = event.answer
                if answer is None:  # pragma: no cover - every turn ends with one
                    raise RuntimeError(f"turn {t.task_id!r} ended without an answer")
                asked = answer.clarification is not None
                signals = dict(req.signals or {})
                return BehaviourResult(
                    t, answer.abstained, asked, answer.answer, req.floor, signals
                )

            yield ask
        finally:
            state.close()


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def summarise(results: Sequence[BehaviourResult]) -> dict[str, Any]:
    """By label: turns, abstained, asked back (counts and shares); and the precision and
    recall of abstaining (on UNANSWERABLE) and asking back (on UNDERSPECIFIED)."""
    by_label: dict[str, Any] = {}
    counts = Counter(r.turn.label for r in results)
    for label in LABELS:
        rs = [r for r in results if r.turn.label == label]
        ab = sum(r.abstained for r in rs)
        asked = sum(r.asked_back for r in rs)
        by_label[label] = {
            "turns": counts.get(label, 0),
            "abstained": ab,
            "asked_back": asked,
            "abstain_rate": _ratio(ab, len(rs)),
            "ask_rate": _ratio(asked, len(rs)),
        }

    def pr(flag: str, label: str) -> dict[str, Any]:
        acted = [r for r in results if getattr(r, flag)]
        hit = sum(r.turn.label == label for r in acted)
        return {
            "label": label,
            "acted": len(acted),
            "precision": _ratio(hit, len(acted)),
            "recall": _ratio(hit, counts.get(label, 0)),
        }

    answerable = [r for r in results if r.turn.label in ("ANSWERABLE", "PARTIAL")]
    others = [r for r in results if r.turn.label != ASK_ON]
    return {
        "turns": len(results),
        "by_label": by_label,
        "abstain": {
            **pr("abstained", ABSTAIN_ON),
            "false_rate": _ratio(sum(r.abstained for r in answerable), len(answerable)),
        },
        "ask_back": {
            **pr("asked_back", ASK_ON),
            "false_rate": _ratio(sum(r.asked_back for r in others), len(others)),
        },
    }
