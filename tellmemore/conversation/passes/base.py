"""The contract every pass keeps, and what passes read of the message (computed once)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, get_args

from tellmemore.conversation.binding import Candidate, Phrase
from tellmemore.conversation.gate import GateResult
from tellmemore.conversation.referents import Ellipsis, Referent
from tellmemore.types import PassName, Resolution

if TYPE_CHECKING:
    from tellmemore.conversation.passes.state import RunState

PASS_NAMES: tuple[str, ...] = get_args(PassName)
"""Every pass name `Resolution.passes` may hold (design.md, the second shape)."""


@dataclass
class Follow:
    """A follow-up as the passes see it: its referents, ellipsis, complaint and gate verdict
    read once; the antecedent candidates and list items filled in when a pass needs them."""

    message: str
    depth: int
    prefer: str | None
    refs: list[Referent]
    ellipsis: Ellipsis | None
    complaint: str | None
    verdict: GateResult | None = None
    cands: list[Candidate] = field(default_factory=list)
    items: list[Phrase] = field(default_factory=list)
    list_turn: int = -1


class Pass(Protocol):
    """One kind of follow-up: when it applies, and the resolution it proposes (None: it
    declines, the next pass is tried)."""

    NAME: str

    def applies(self, st: RunState, m: Follow) -> bool: ...

    def run(self, st: RunState, m: Follow) -> Resolution | None: ...
