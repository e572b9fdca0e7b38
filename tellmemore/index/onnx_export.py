"""Export a local sentence-transformers model to ONNX once, offline, and find the export.

The graph holds the whole sentence-transformers pipeline after the tokenizer:
transformer, pooling (mean over the attention mask, or CLS) and L2
normalisation, so the query path needs only `tokenizers` + `onnxruntime` and
gives the vectors of the torch path (cosine >= 0.9999). The export is made
from the packaged weights with torch's exporter (`scripts/setup.sh` runs it;
a query path that finds none makes it on first use), written atomically, and
kept under the cache directory keyed by the model's fingerprint, the
onnxruntime version and `EXPORT_VERSION`. `int8` adds a dynamically quantised
copy (weights per channel, MatMul only; it costs quality: min cosine ~0.99).
"""

from __future__ import annotations

import inspect
import logging
import os
import re
import time
import warnings
from importlib import metadata
from pathlib import Path
from typing import Any

from tellmemore.errors import EmbeddingError
from tellmemore.index.model_files import ModelFiles

log = logging.getLogger(__name__)

EXPORT_VERSION = 2
"""2: int8 quantises the MatMul weights per channel (min cosine to fp32 0.989 instead of
0.917 per tensor on the probe texts)."""
OPSET = 17
OUTPUT = "sentence_embedding"


def runtime_version() -> str | None:
    """The installed onnxruntime version, read without importing it (None: not installed)."""
    try:
        return metadata.version("onnxruntime")
    except metadata.PackageNotFoundError:
        return None


def export_dir(files: ModelFiles, cache_dir: Path) -> Path:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", files.name).strip("-") or "model"
    key = f"{slug}-{files.fingerprint}-ort{runtime_version()}-x{EXPORT_VERSION}"
    return cache_dir / "onnx" / key


def export_path(files: ModelFiles, cache_dir: Path, precision: str = "fp32") -> Path:
    name = "model-int8.onnx" if precision == "int8" else "model.onnx"
    return export_dir(files, cache_dir) / name


def find_export(files: ModelFiles, cache_dir: Path, precision: str = "fp32") -> Path | None:
    """The export for this model, runtime and precision if it was made, else None."""
    if runtime_version() is None:
        return None
    path = export_path(files, cache_dir, precision)
    return path if path.is_file() else None


def ensure_export(files: ModelFiles, cache_dir: Path, precision: str = "fp32") -> Path:
    """The export, made now when missing (a few seconds; needs torch and onnx).

    Raises `EmbeddingError` saying why when it cannot be made.
    """
    if precision not in ("fp32", "int8"):
        raise EmbeddingError(f"ONNX exports are fp32 or int8, not {precision!r}")
    if runtime_version() is None:
        raise EmbeddingError("onnxruntime is not installed; pip install onnxruntime")
    found = find_export(files, cache_dir, precision)
    if found is not None:
        return found
    fp32 = export_path(files, cache_dir, "fp32")
    if not fp32.is_file():
        _export(files, fp32)
    if precision == "fp32":
        return fp32
    int8 = export_path(files, cache_dir, "int8")
    _quantize(fp32, int8)
    return int8


def _tmp(path: Path) -> Path:
    return path.with_name(f".{path.stem}.{os.getpid()}.{time.monotonic_ns()}.onnx")


def _export(files: ModelFiles, target: Path) -> None:
    if files.pooling not in ("mean", "cls"):
        raise EmbeddingError(
            f"model {files.name!r} pools with a mode the ONNX path does not reproduce; "
            'use embedder.backend = "torch"'
        )
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise EmbeddingError(f"exporting to ONNX needs torch and transformers: {exc}") from exc
    start = time.perf_counter()
    target.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = AutoModel.from_pretrained(
            str(files.path), local_files_only=True, attn_implementation="eager"
        ).eval()
    takes_types = "token_type_ids" in inspect.signature(model.forward).parameters
    wrapper = _Pooled(model, files.pooling, takes_types)
    names = ["input_ids", "attention_mask"] + (["token_type_ids"] if takes_types else [])
    example = tuple(torch.ones(2, 8, dtype=torch.long) for _ in names)
    axes: dict[str, Any] = {n: {0: "batch", 1: "tokens"} for n in names}
    axes[OUTPUT] = {0: "batch"}
    tmp = _tmp(target)
    try:
        with torch.inference_mode(), warnings.catch_warnings():
            # The exporter warns about its own deprecation and about traced Python branches
            # (the model's fixed control flow); neither changes the graph for dynamic axes.
            warnings.simplefilter("ignore")
            torch.onnx.export(
                wrapper,
                example,
                str(tmp),
                input_names=names,
                output_names=[OUTPUT],
                dynamic_axes=axes,
                opset_version=OPSET,
                dynamo=False,
            )
        tmp.replace(target)
    except Exception as exc:  # the exporter raises many kinds; all mean "no export"
        raise EmbeddingError(f"exporting {files.name!r} to ONNX failed: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    log.info("exported %s to %s in %.1fs", files.name, target, time.perf_counter() - start)


def _quantize(source: Path, target: Path) -> None:
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise EmbeddingError(f"int8 quantization needs onnxruntime and onnx: {exc}") from exc
    tmp = _tmp(target)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            quantize_dynamic(
                str(source),
                str(tmp),
                weight_type=QuantType.QInt8,
                per_channel=True,
                op_types_to_quantize=["MatMul"],
            )
        tmp.replace(target)
    except Exception as exc:
        raise EmbeddingError(f"quantizing {source} to int8 failed: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)


def _pooled_module(model: Any, pooling: str, takes_types: bool) -> Any:
    import torch

    class Pooled(torch.nn.Module):
        """Transformer + pooling + normalisation, as sentence-transformers computes them."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, *rest: Any) -> Any:
            extra = {"token_type_ids": rest[0]} if takes_types else {}
            hidden = self.model(
                input_ids=input_ids, attention_mask=attention_mask, **extra
            ).last_hidden_state
            if pooling == "cls":
                pooled = hidden[:, 0]
            else:
                mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / torch.clamp(mask.sum(1), min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    return Pooled()


_Pooled = _pooled_module
