"""Errors raised by tellmemore.

One base class, a shallow tree; context is carried as attributes, and each
message says what failed, the value, and the fix. The CLI and the service
translate these in one place each.

    TellMeMoreError
    ├── ConfigError            a setting is invalid or missing
    ├── MissingDependencyError an optional extra is not installed
    ├── InputError             a message, file or record the caller gave is unusable
    │   └── LoaderError        one source file cannot be loaded (ingestion skips it)
    ├── IndexError_            the index cannot be opened, read or written
    ├── EmbeddingError         the embedder failed after its retries
    ├── LLMError               the LLM endpoint failed (callers degrade, never crash)
    ├── NotFoundError          unknown session, trace or document
    └── DatasetError           an evaluation dataset is malformed
"""

from __future__ import annotations


class TellMeMoreError(Exception):
    """Base of every error tellmemore raises on purpose."""


class ConfigError(TellMeMoreError):
    """A setting is invalid: the message names the setting, the value and the valid ones."""


class MissingDependencyError(TellMeMoreError):
    """An optional dependency is missing; the message names the extra to install."""

    def __init__(self, package: str, extra: str) -> None:
        self.package = package
        self.extra = extra
        super().__init__(
            f"{package} is not installed; install it with: pip install 'tellmemore[{extra}]'"
        )


class InputError(TellMeMoreError):
    """Input from the caller is unusable (empty message, message too long, bad JSON)."""


class LoaderError(InputError):
    """One source file cannot be loaded; ingestion reports it and goes on."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class IndexError_(TellMeMoreError):  # the underscore avoids shadowing the builtin
    """The index cannot be opened, read or written."""


class EmbeddingError(TellMeMoreError):
    """The embedder failed after its bounded retries."""

    def __init__(self, message: str, *, doc_id: str | None = None) -> None:
        self.doc_id = doc_id
        super().__init__(message if doc_id is None else f"{message} (document {doc_id!r})")


class LLMError(TellMeMoreError):
    """The LLM endpoint failed: timeout, rate limit, server error or malformed output."""

    def __init__(self, message: str, *, kind: str = "error") -> None:
        self.kind = kind
        super().__init__(message)


class NotFoundError(TellMeMoreError):
    """An unknown session, trace or document id."""

    def __init__(self, what: str, key: str) -> None:
        self.what = what
        self.key = key
        super().__init__(f"unknown {what}: {key!r}")


class DatasetError(TellMeMoreError):
    """An evaluation dataset is malformed; the message names file, line and value."""

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {reason}")
