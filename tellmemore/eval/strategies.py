"""Named strategies: how a turn's search query is produced, and how it is searched.

Two kinds:
- resolver strategies (`raw`, `concat`, `embedded`, `llm`) use the conversation
  package's resolvers, the source of truth, and run as a tellmemore turn runs
  them (`turn.py`): the gate decides whether to resolve, the resolver rewrites,
  and the phrasings of `conversation.phrasings.search_phrasings` (shared with
  turn.py) are searched and fused: the resolved query, the message as typed when
  it differs, and on a follow-up lower-weight context phrasings, never shown (the
  message + the user's last and first turns; the last user turns + the message when the
  gate resolved; the message + the start of the last reply when a referent was bound).
  An ambiguous resolution asks the user
  back and retrieves nothing, so it scores 0 here as it would answer nothing;
- reference strategies, for evaluation only, search one phrasing and skip the
  gate: `oracle` (the human-written rewrite) and `all_user` (every user turn
  glued to the message, the "glue the conversation" baseline).

`raw` is the message alone, whatever the gate says.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tellmemore.conversation.phrasings import Phrasings, search_phrasings
from tellmemore.conversation.resolvers import get_resolver
from tellmemore.conversation.resolvers.base import ResolveContext, Resolver
from tellmemore.errors import ConfigError
from tellmemore.eval.datasets import EvalTurn
from tellmemore.types import Resolution, Turn

if TYPE_CHECKING:
    from tellmemore.llm import LLMClient

STRATEGIES = ("raw", "concat", "all_user", "embedded", "llm", "oracle")
"""Every strategy name, in report order."""
RESOLVER_STRATEGIES = ("raw", "concat", "embedded", "llm")
REFERENCE_STRATEGIES = ("all_user", "oracle")
_GATED = ("concat", "embedded", "llm")


@dataclass(frozen=True)
class Strategy:
    """One way of turning a turn into searched phrasings.

    `gated`: the gate runs first and a message it deems self-contained is
    searched as typed. `fuse_message`: the message as typed is searched
    alongside the resolved query (the turn runner's policy). `fingerprint`:
    set when resolutions are expensive (a model call) and worth caching
    between runs; it changes when the code or the model does.
    """

    name: str
    resolve: Callable[[EvalTurn, ResolveContext], Resolution]
    gated: bool = False
    fuse_message: bool = False
    fingerprint: str | None = None

    def phrasings(
        self,
        resolution: Resolution,
        message: str,
        history: Sequence[Turn] = (),
        context: ResolveContext | None = None,
        searched: str | None = None,
    ) -> Phrasings:
        """The phrasings and their fusion weights (none: nothing is retrieved); resolver
        strategies search what a turn searches (`conversation.phrasings.search_phrasings`,
        shared with turn.py). `searched`: the message with its typos fixed, if done."""
        if resolution.ambiguous and resolution.clarification:
            return Phrasings()
        if self.fuse_message:
            ctx = context or ResolveContext()
            return search_phrasings(
                message, resolution, history, ctx.term_stats, window=ctx.window, searched=searched
            )
        return Phrasings((resolution.query,), (1.0,))


def parse_strategies(value: str | Sequence[str]) -> tuple[str, ...]:
    """Strategy names from "raw,concat" or a list; unknown names raise `ConfigError`."""
    items = value.split(",") if isinstance(value, str) else list(value)
    names = [n.strip().lower() for n in items if n.strip()]
    unknown = [n for n in names if n not in STRATEGIES]
    if unknown:
        raise ConfigError(
            f"unknown strategy {unknown[0]!r} in --strategies; valid strategies: "
            f"{', '.join(STRATEGIES)}"
        )
    if not names:
        raise ConfigError(f"--strategies is empty; valid strategies: {', '.join(STRATEGIES)}")
    return tuple(dict.fromkeys(names))


def build_strategies(
    names: Sequence[str], *, llm: LLMClient | None = None, llm_model: str = ""
) -> tuple[list[Strategy], dict[str, str]]:
    """The runnable strategies among `names`, and why the others cannot run.

    `llm` runs only when an endpoint is configured; without one it is reported
    as not run, with the setting to change.
    """
    runnable: list[Strategy] = []
    unavailable: dict[str, str] = {}
    for name in parse_strategies(names):
        if name == "oracle":
            runnable.append(Strategy("oracle", _oracle))
        elif name == "all_user":
            runnable.append(Strategy("all_user", _all_user))
        elif name == "llm" and llm is None:
            unavailable[name] = (
                "no LLM endpoint configured; set llm.base_url (TELLMEMORE_LLM__BASE_URL)"
            )
        else:
            resolver = _resolver(name, llm)
            fingerprint = None
            if name == "llm":
                fingerprint = _llm_fingerprint(resolver, llm_model)
            runnable.append(
                Strategy(
                    name,
                    _with_resolver(resolver),
                    gated=name in _GATED,
                    fuse_message=name != "raw",
                    fingerprint=fingerprint,
                )
            )
    return runnable, unavailable


def _with_resolver(resolver: Resolver) -> Callable[[EvalTurn, ResolveContext], Resolution]:
    def resolve(turn: EvalTurn, context: ResolveContext) -> Resolution:
        return resolver.resolve(turn.message, turn.history, context)

    return resolve


def _oracle(turn: EvalTurn, context: ResolveContext) -> Resolution:
    return Resolution(query=turn.rewrite, resolver="oracle")


def _all_user(turn: EvalTurn, context: ResolveContext) -> Resolution:
    start = time.perf_counter()
    users = [t.content for t in turn.history if t.role == "user" and t.content.strip()]
    return Resolution(
        query="\n".join([*users, turn.message]),
        resolver="all_user",
        latency_ms=(time.perf_counter() - start) * 1000.0,
    )


def _resolver(name: str, llm: LLMClient | None) -> Resolver:
    if name == "llm":
        return get_resolver("llm", llm=llm, fallback=get_resolver("embedded"))
    return get_resolver(name)


def _llm_fingerprint(resolver: Resolver, model: str) -> str:
    import inspect

    try:
        source = inspect.getsource(type(resolver))
    except (OSError, TypeError):
        source = type(resolver).__qualname__
    return hashlib.sha256(f"{model}\n{source}".encode()).hexdigest()
