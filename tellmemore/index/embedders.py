"""Embedders: local sentence-transformers models (default, offline) and OpenAI-compatible
endpoints.

Both implement the `Embedder` protocol of `index.base`: float32 vectors,
L2-normalised, so a dot product is a cosine similarity.

`SentenceTransformerEmbedder` never touches a model hub (see `model_files`)
and picks the fastest measured runtime per job: bulk encoding (ingest, eval)
on torch in bf16 where the CPU has bf16 units and a short measurement agrees,
else fp32 (`torch_encoder`); a query on ONNX Runtime + `tokenizers` from an
export made once (`onnx_export`, `onnx_encoder`), so a CLI call that asks one
question never imports torch. Every runtime is loaded on first use: name,
dimension and token counts come from the model's files. `OpenAIEmbedder`
retries with differentiated backoff (a rate limit waits out its window, other
errors back off briefly, both bounded) and raises `EmbeddingError` when the
retries are spent.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from tellmemore.config import EmbedderSettings
from tellmemore.errors import ConfigError, EmbeddingError, MissingDependencyError
from tellmemore.index.base import Embedder, Vector
from tellmemore.index.model_files import DEFAULT_MODEL, ModelFiles
from tellmemore.index.vectors_math import normalise
from tellmemore.retries import RATE_LIMIT, Failure, GaveUp, RetryPolicy, call_with_retries
from tellmemore.retry_after import retry_after_seconds

log = logging.getLogger(__name__)

__all__ = ["DEFAULT_MODEL", "OpenAIEmbedder", "SentenceTransformerEmbedder", "load_embedder"]

_normalise = normalise  # the name the OpenAI embedder has always used

PRECISIONS = ("auto", "fp32", "bf16", "int8")
BACKENDS = ("auto", "torch", "onnx")


class _Encoder(Protocol):
    backend: str
    precision: str

    def encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray: ...


class SentenceTransformerEmbedder:
    """A local sentence-transformers model on CPU, each job on its fastest runtime.

    Example:
        >>> emb = SentenceTransformerEmbedder()  # bundled all-MiniLM-L6-v2
        >>> emb.embed_query("weekend support").shape
        (384,)

    `precision` (auto, fp32, bf16, int8) and `backend` (auto, torch, onnx) are
    the `embedder.precision` / `embedder.backend` settings. `describe()` tells
    what runs and why, with the measured figures; the index keeps it. Torch
    threads are as the process configured them. `count_tokens` uses the
    model's fast tokenizer without special tokens and without truncation,
    cached, so a chunker can call it for every sentence.
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        batch_size: int = 32,
        device: str = "cpu",
        precision: str = "auto",
        backend: str = "auto",
        cache_dir: Path | None = None,
    ) -> None:
        if batch_size < 1:
            raise ConfigError(f"embedder batch_size must be >= 1, got {batch_size}")
        if precision not in PRECISIONS or backend not in BACKENDS:
            raise ConfigError(
                f"embedder precision={precision!r} backend={backend!r}; valid precisions: "
                f"{', '.join(PRECISIONS)}; backends: {', '.join(BACKENDS)}"
            )
        EmbedderSettings(precision=precision, backend=backend)  # type: ignore[arg-type]
        self.files = ModelFiles.open(model)
        self.name = self.files.name
        self.dimension = self.files.dimension
        self.max_tokens = self.files.max_tokens
        self.batch_size = batch_size
        self.device = device
        self.precision = precision
        self.backend = backend
        self.cache_dir = cache_dir if cache_dir is not None else EmbedderSettings().cache_path
        self._lock = threading.RLock()
        self._torch: Any = None
        self._bulk: _Encoder | None = None
        self._query: _Encoder | None = None
        self._counter: Callable[[str], int] | None = None
        self.bulk_info: dict[str, Any] = {}
        self.query_info: dict[str, Any] = {}

    # -- tokens -----------------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        if self._counter is None:
            self._counter = self.files.token_counter()
        return self._counter(text)

    # -- encoding ---------------------------------------------------------------------

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        if len(texts) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self.bulk_encoder().encode(list(texts), self.batch_size)

    def embed_query(self, text: str) -> Vector:
        return np.ascontiguousarray(self.query_encoder().encode([text], 1)[0])

    def embed_queries(self, texts: Sequence[str]) -> Vector:
        """Many queries at once on the query runtime (an evaluation's cached query vectors
        are then the vectors a user's question gets)."""
        if len(texts) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self.query_encoder().encode(list(texts), self.batch_size)

    def bulk_encoder(self) -> _Encoder:
        """The bulk runtime, chosen (and measured, once per machine) on first use."""
        with self._lock:
            if self._bulk is None:
                self._bulk = self._make_bulk()
            return self._bulk

    def query_encoder(self) -> _Encoder:
        """The query runtime: ONNX unless the settings say torch or no export can be had."""
        with self._lock:
            if self._query is None:
                self._query = self._make_query()
            return self._query

    def _torch_encoder(self, precision: str) -> Any:
        from tellmemore.index.torch_encoder import TorchEncoder

        if self._torch is None:
            self._torch = TorchEncoder(self.files, precision=precision, device=self.device)
        return self._torch

    def _onnx_encoder(self, precision: str) -> _Encoder:
        from tellmemore.index.onnx_encoder import OnnxEncoder
        from tellmemore.index.onnx_export import ensure_export

        path = ensure_export(self.files, self.cache_dir, precision)
        return OnnxEncoder(path, self.files, precision=precision)

    def _make_bulk(self) -> _Encoder:
        if self.backend == "onnx" or self.precision == "int8":
            precision = "int8" if self.precision == "int8" else "fp32"
            encoder = self._onnx_encoder(precision)
            self.bulk_info = {"backend": "onnx", "precision": precision, "reason": "settings"}
            return encoder
        if self.precision in ("fp32", "bf16"):
            encoder = self._torch_encoder(self.precision)
            encoder.set_precision(self.precision)
            self.bulk_info = {"backend": "torch", "precision": self.precision, "reason": "settings"}
            return encoder  # type: ignore[no-any-return]
        from tellmemore.index.cpu import cpu_info
        from tellmemore.index.torch_encoder import choose_precision

        encoder = self._torch_encoder("fp32")
        choice = choose_precision(encoder, self.files, cpu_info(), self.cache_dir)
        self.bulk_info = {"backend": "torch", **choice.to_dict()}
        return encoder  # type: ignore[no-any-return]

    def _make_query(self) -> _Encoder:
        if self.backend == "torch":
            encoder = self._torch if self._torch is not None else self._torch_encoder("fp32")
            self.query_info = {"backend": "torch", "precision": encoder.precision}
            return encoder  # type: ignore[no-any-return]
        precision = "int8" if self.precision == "int8" else "fp32"
        try:
            encoder = self._onnx_encoder(precision)
        except (EmbeddingError, ImportError, OSError) as exc:
            if self.backend == "onnx":
                raise EmbeddingError(f"the ONNX query path is unavailable: {exc}") from exc
            log.warning("queries are encoded with torch: %s", exc)
            fallback = self._torch if self._torch is not None else self._torch_encoder("fp32")
            self.query_info = {
                "backend": "torch",
                "precision": fallback.precision,
                "reason": f"no ONNX export: {exc}",
            }
            return fallback  # type: ignore[no-any-return]
        self.query_info = {"backend": "onnx", "precision": precision}
        return encoder

    def describe(self) -> dict[str, Any]:
        """The model and the runtimes chosen so far, with the figures behind the choice."""
        out: dict[str, Any] = {"model": self.name, "dimension": self.dimension}
        if self.bulk_info:
            out["bulk"] = dict(self.bulk_info)
        if self.query_info:
            out["query"] = dict(self.query_info)
        elif self.backend == "torch":
            out["query"] = {"backend": "torch", "precision": "fp32", "reason": "settings"}
        else:
            from tellmemore.index.onnx_export import find_export

            precision = "int8" if self.precision == "int8" else "fp32"
            ready = find_export(self.files, self.cache_dir, precision) is not None
            out["query"] = {
                "backend": "onnx",
                "precision": precision,
                "reason": "export ready" if ready else "exported on the first query",
            }
        return out

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self.name!r}, dimension={self.dimension})"


# Known output sizes, so that opening an index does not need a network call.
_OPENAI_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}

_NOT_RETRYABLE = {400, 401, 403, 404, 422}


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint.

    Example:
        >>> emb = OpenAIEmbedder("http://localhost:11434/v1", "none", "nomic-embed-text",
        ...                      dimension=768)

    Retry policy: the project's one (`tellmemore.retries`, shared with the LLM client; the
    SDK's own retries are off): a 429 waits the server's Retry-After when given, else
    `rate_limit_wait_s`, and fails at once when that is above `max_retry_after_s`; a 5xx,
    timeout or connection error backs off `error_backoff_s * 2**attempt`;
    400/401/403/404/422 fail at once.
    After `max_retries` retries the call raises `EmbeddingError`.
    `dimension=None` uses the known size of OpenAI's models, else asks the
    endpoint once on first use.
    """

    max_tokens = 8191

    def __init__(
        self,
        base_url: str | None,
        api_key: str | None,
        model: str,
        *,
        batch_size: int = 64,
        max_retries: int = 5,
        rate_limit_wait_s: float = 60.0,
        error_backoff_s: float = 3.0,
        dimension: int | None = None,
        max_retry_after_s: float = 300.0,
        timeout_s: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        try:
            import openai
        except ImportError:
            raise MissingDependencyError("openai", "llm") from None
        if batch_size < 1:
            raise ConfigError(f"embedder batch_size must be >= 1, got {batch_size}")
        self._openai = openai
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "none", max_retries=0, timeout=timeout_s
        )
        self.name = model
        self.model = model
        self.batch_size = batch_size
        self.max_retries = max_retries
        self.rate_limit_wait_s = rate_limit_wait_s
        self.error_backoff_s = error_backoff_s
        self.max_retry_after_s = max_retry_after_s
        self._sleep = sleep
        self._dimension = dimension or _OPENAI_DIMENSIONS.get(model)

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self._embed_batch(["dimension probe"]).shape[1])
        return self._dimension

    @dimension.setter
    def dimension(self, value: int) -> None:
        self._dimension = value

    def count_tokens(self, text: str) -> int:
        """An estimate (4 characters a token): the remote tokenizer is unknown here."""
        return max(1, (len(text) + 3) // 4) if text else 0

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        if len(texts) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts = [
            self._embed_batch(list(texts[i : i + self.batch_size]))
            for i in range(0, len(texts), self.batch_size)
        ]
        return np.ascontiguousarray(np.vstack(parts), dtype=np.float32)

    def embed_query(self, text: str) -> Vector:
        return np.ascontiguousarray(self._embed_batch([text])[0], dtype=np.float32)

    def _embed_batch(self, texts: list[str]) -> Vector:
        # Empty strings are rejected by some servers; a space embeds as "nothing".
        inputs = [t if t.strip() else " " for t in texts]
        openai = self._openai

        def classify(exc: BaseException) -> Failure | None:
            if isinstance(exc, openai.APIStatusError):
                if exc.status_code == 429:
                    return Failure(RATE_LIMIT, retry_after_seconds(exc.response.headers))
                return Failure("fatal" if exc.status_code in _NOT_RETRYABLE else "transient")
            if isinstance(exc, openai.APIConnectionError):  # timeouts included
                return Failure("transient")
            return None

        policy = RetryPolicy(
            max_retries=self.max_retries,
            backoff_s=self.error_backoff_s,
            max_retry_after_s=self.max_retry_after_s,
            rate_limit_wait_s=self.rate_limit_wait_s,
        )
        try:
            response = call_with_retries(
                lambda: self._client.embeddings.create(
                    model=self.model, input=inputs, encoding_format="float"
                ),
                policy,
                classify,
                sleep=self._sleep,
                on_retry=lambda n, wait, _: log.warning("embedding retry %d in %.1fs", n, wait),
            )
        except GaveUp as gave_up:
            exc = gave_up.error
            what = f"HTTP {exc.status_code} " if isinstance(exc, openai.APIStatusError) else ""
            detail = exc.message if isinstance(exc, openai.APIStatusError) else str(exc)
            too_long = gave_up.why == "retry_after_too_long"
            waited = " (Retry-After above embedder max_retry_after_s)" if too_long else ""
            raise EmbeddingError(
                f"embedding {len(texts)} texts with {self.model!r} failed: {what}"
                f"after {gave_up.attempts} attempts{waited}: {detail}"
            ) from exc
        data = sorted(response.data, key=lambda d: d.index)
        if len(data) != len(texts):
            raise EmbeddingError(
                f"{self.model!r} returned {len(data)} vectors for {len(texts)} texts"
            )
        vectors = np.asarray([d.embedding for d in data], dtype=np.float32)
        if self._dimension is not None and vectors.shape[1] != self._dimension:
            raise EmbeddingError(
                f"{self.model!r} returned vectors of dimension {vectors.shape[1]}, expected "
                f"{self._dimension}; set embedder dimension to match the model"
            )
        return _normalise(vectors)

    def __repr__(self) -> str:
        return f"OpenAIEmbedder({self.model!r})"


def load_embedder(settings: EmbedderSettings) -> Embedder:
    """The embedder the settings name (`provider` + `model`)."""
    if settings.provider == "openai":
        return OpenAIEmbedder(
            settings.base_url,
            settings.api_key,
            settings.model,
            batch_size=settings.batch_size,
            max_retries=settings.max_retries,
            rate_limit_wait_s=settings.rate_limit_wait_s,
            error_backoff_s=settings.error_backoff_s,
        )
    if settings.provider == "sentence-transformers":
        return SentenceTransformerEmbedder(
            settings.model,
            batch_size=settings.batch_size,
            precision=settings.precision,
            backend=settings.backend,
            cache_dir=settings.cache_path,
        )
    raise ConfigError(  # pragma: no cover - pydantic validates the literal
        f"embedder.provider={settings.provider!r}; valid: sentence-transformers, openai"
    )
