"""tellmemore: conversational RAG whose retrieval survives follow-up turns."""

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
