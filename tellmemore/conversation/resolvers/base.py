"""The Resolver protocol and registry: turn a follow-up into a standalone query.

Every resolver keeps the Resolution contract (seed 003): a query for retrieval,
human-readable bindings {referent: antecedent}, ambiguity with a clarifying
question, and an honest record of whether a model was called. All resolvers are
kept because the evaluation compares them side by side.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from tellmemore.conversation.headings import HeadingsLookup
from tellmemore.types import Resolution, TermStats, Turn

if TYPE_CHECKING:
    from tellmemore.config import ConversationSettings

TermStatsLookup = Callable[[Iterable[str]], TermStats]
"""Document frequencies from the index the query will be searched in."""


@dataclass(frozen=True)
class ResolveContext:
    """What a resolver may read besides the message and the history."""

    term_stats: TermStatsLookup | None = None
    headings: HeadingsLookup | None = None
    """The index's headings: a message naming one ("the pro plan") has a subject of its own."""
    summary: str = ""
    """Rolling summary of turns older than the window (may be empty)."""
    window: int = 3
    """Recent exchanges the resolver reads verbatim."""
    disabled_passes: frozenset[str] = frozenset()
    """Passes of the embedded resolver to skip ("ordinal", "carry", ...): an ablation, so a
    benchmark can measure what each pass adds on a held-out domain. Empty in normal use."""
    ask_coordinated: bool = False
    """`conversation.ask_coordinated`: ask which of the last question's conjuncts a
    follow-up means (`conversation.coordination`)."""
    name_by_heading: bool = True
    """`conversation.name_by_heading`: the last answer's heading beside an antecedent it
    names (`conversation.named`)."""
    passage_fit: Callable[[Sequence[str]], Sequence[float]] | None = None
    """How well each text matches its best passage of the index (the cosine of its first
    dense hit): binding reads it to choose among a pronoun's likeliest antecedents
    (`passes.fit`). None: the salience alone decides (a caller with no index)."""
    binding_gate: bool = True
    """`conversation.binding_gate`: keep a referent's binding only when the documents
    confirm it (`conversation.gating`; needs `passage_fit`)."""
    typed_floor: float | None = None
    """A cosine at which the message as typed already finds its passage in this index
    (`answer.calibration.Calibration.typed_floor`): the binding gate then withholds a
    referent's binding, whose words the conversation's phrasings still search. None: no
    calibration (the gate's confirmation rule alone)."""
    learned_antecedent: bool = False
    """`conversation.learned_antecedent`: the passage fit's choice among a pronoun's
    likeliest antecedents made by the learned chooser (`conversation.chooser`)."""
    deadline: float | None = None
    """The `time.monotonic()` instant by which model calls must end (the turn's share of
    llm.deadline_s); None: each call has its own llm.deadline_s."""

    @classmethod
    def of(cls, settings: ConversationSettings, **read: Any) -> ResolveContext:
        """The context `settings` configure, with what the caller reads (`term_stats`,
        `headings`, ...): the turn and `tellmemore eval` build it here, so a new
        conversation setting reaches both at once."""
        return cls(
            window=settings.window,
            ask_coordinated=settings.ask_coordinated,
            name_by_heading=settings.name_by_heading,
            binding_gate=settings.binding_gate,
            learned_antecedent=settings.learned_antecedent,
            disabled_passes=frozenset(settings.disabled_passes),
            **read,
        )


@runtime_checkable
class Resolver(Protocol):
    name: ClassVar[str]

    def resolve(self, message: str, history: Sequence[Turn], context: ResolveContext) -> Resolution:
        """A standalone query for `message` given the conversation so far."""
        ...
