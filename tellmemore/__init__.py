"""tellmemore: conversational RAG whose retrieval survives follow-up turns.

The public names load on first use (PEP 562), so that `tellmemore --help`,
`tellmemore index stats` or `tellmemore feedback` pay only for what they
run: `from tellmemore import Assistant` works as before.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tellmemore.answer.stream import AnswerStream
    from tellmemore.assistant import Assistant, Session
    from tellmemore.config import Settings
    from tellmemore.errors import (
        ConfigError,
        DatasetError,
        EmbeddingError,
        InputError,
        LLMError,
        LoaderError,
        MissingDependencyError,
        NotFoundError,
        TellMeMoreError,
    )
    from tellmemore.types import (
        Answer,
        Chunk,
        Citation,
        Decision,
        Hit,
        IngestReport,
        Resolution,
        SearchFilter,
        SearchMode,
        Trace,
        Turn,
    )

__version__ = "0.1.0"

_WHERE = {
    "AnswerStream": "tellmemore.answer.stream",
    "Assistant": "tellmemore.assistant",
    "Session": "tellmemore.assistant",
    "Settings": "tellmemore.config",
    **dict.fromkeys(
        (
            "ConfigError",
            "DatasetError",
            "EmbeddingError",
            "InputError",
            "LLMError",
            "LoaderError",
            "MissingDependencyError",
            "NotFoundError",
            "TellMeMoreError",
        ),
        "tellmemore.errors",
    ),
    **dict.fromkeys(
        (
            "Answer",
            "Chunk",
            "Citation",
            "Decision",
            "Hit",
            "IngestReport",
            "Resolution",
            "SearchFilter",
            "SearchMode",
            "Trace",
            "Turn",
        ),
        "tellmemore.types",
    ),
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'tellmemore' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "Answer",
    "AnswerStream",
    "Assistant",
    "Chunk",
    "Citation",
    "ConfigError",
    "DatasetError",
    "Decision",
    "EmbeddingError",
    "Hit",
    "IngestReport",
    "InputError",
    "LLMError",
    "LoaderError",
    "MissingDependencyError",
    "NotFoundError",
    "Resolution",
    "SearchFilter",
    "SearchMode",
    "Session",
    "Settings",
    "TellMeMoreError",
    "Trace",
    "Turn",
    "__version__",
]
