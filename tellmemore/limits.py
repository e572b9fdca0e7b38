"""What one turn may read from its history, and the stable codes of a degraded stage.

The message is capped at `conversation.max_message_chars`; history is read under caps of
its own, so the cost of a turn is bounded whatever a client sends:

- `conversation.max_history_turns` (default 100): only the newest turns are read;
- `conversation.max_history_item_chars` (default 8,000, the message's own cap): a longer
  turn is read up to there;
- `conversation.max_history_chars` (default 48,000): newest first, turns are read until
  this total is reached.

Before the caps a 1.9 MB history item cost 23 s of CPU, and 700 "what about X?" turns
recursed the resolver past Python's limit. The caps apply in the turn itself, so every
path (the HTTP API, `/v1/chat` history or a stored session, the CLI's `--history` file,
the library) gets them; the edges also refuse a history list longer than
`MAX_HISTORY_INPUT_TURNS` before parsing it into turns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from tellmemore.types import Turn

MAX_HISTORY_INPUT_TURNS = 1000
"""A history longer than this is refused at the edges (HTTP 422, CLI error)."""

_CODE = re.compile(r"[a-z][a-z_]{0,30}")
KNOWN_CODES = frozenset(
    {
        "timeout",
        "rate_limit",
        "server",
        "connection",
        "auth",
        "bad_request",
        "not_found",
        "config",
        "malformed",
        "empty",
        "answered",
        "dropped",
        "stream_cut",
        "uncited",
        "error",
    }
)


def cap_history(
    turns: Sequence[Turn], *, max_turns: int, max_item_chars: int, max_chars: int
) -> list[Turn]:
    """The newest turns, each cut to `max_item_chars`, until `max_chars` in total."""
    kept: list[Turn] = []
    total = 0
    for turn in reversed(turns[-max_turns:] if max_turns else ()):
        room = min(max_item_chars, max_chars - total)
        if room <= 0:
            break
        content = turn.content if len(turn.content) <= room else turn.content[:room]
        if content is not turn.content:  # a cut answer keeps its list items: they are data
            turn = replace(turn, content=content, resolution=None)
        kept.append(turn)
        total += len(content)
    kept.reverse()
    return kept


def degraded_code(reason: str | None) -> str:
    """A stable code for why a stage fell back: its leading kind when it is a known one
    ("timeout: read timed out" -> "timeout"), else "error". Exception text stays in the log."""
    head = (reason or "").split(":", 1)[0].strip()
    return head if _CODE.fullmatch(head) and head in KNOWN_CODES else "error"
