"""Bulk encoding on torch (sentence-transformers), in fp32 or bf16, and the short
measurement that picks between them on this CPU.

bf16 runs the model's matrix products on the CPU's bf16 units (AMX or
AVX-512 BF16): about 3x fp32 on 2 cores, at a cosine of 0.9999 to the fp32
vectors. The output is cast back to float32 and normalised there, since a
norm taken in bf16 is off by ~1e-3. Where those units are missing, torch
emulates bf16 and fp32 is faster, so bf16 is only tried on such CPUs, and kept
only when the measurement finds it faster and as close as `MIN_COSINE`.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from tellmemore.index.cpu import CpuInfo
from tellmemore.index.model_files import ModelFiles
from tellmemore.index.vectors_math import normalise

log = logging.getLogger(__name__)

MIN_COSINE = 0.999
"""bf16 vectors must agree with fp32 ones at least this closely on the probe texts."""

PROBE_TEXTS = 32
CHOICE_VERSION = 1


class TorchEncoder:
    """A sentence-transformers model on CPU in fp32 or bf16; float32 unit vectors out."""

    backend = "torch"

    def __init__(self, files: ModelFiles, *, precision: str = "fp32", device: str = "cpu") -> None:
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(files.path), device=device, local_files_only=True)
        self.precision = "fp32"
        self.set_precision(precision)

    def set_precision(self, precision: str) -> None:
        import torch

        if precision not in ("fp32", "bf16"):
            raise ValueError(f"torch encodes in fp32 or bf16, not {precision!r}")
        self.model.to(torch.bfloat16 if precision == "bf16" else torch.float32)
        self.precision = precision

    def encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        vectors = self.model.encode(
            list(texts),
            batch_size=batch_size,
            convert_to_tensor=True,
            normalize_embeddings=False,
            show_progress_bar=False,
        )
        return normalise(vectors.float().cpu().numpy())


@dataclass
class PrecisionChoice:
    """What bulk encoding runs in, why, and the figures behind it."""

    precision: str
    reason: str
    chunks_per_s: dict[str, float] = field(default_factory=dict)
    """Probe texts per second of process CPU time, per precision."""
    min_cosine: float | None = None
    cpu: str = ""
    bf16_flags: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def probe_texts(n: int = PROBE_TEXTS) -> list[str]:
    """Chunk-sized texts (~150 words) cut from the bundled sample corpus."""
    from tellmemore.ingest.sample import sample_corpus_path

    words: list[str] = []
    for path in sorted(Path(sample_corpus_path()).rglob("*")):
        if path.is_file() and path.suffix in (".md", ".txt", ".html"):
            words.extend(path.read_text(encoding="utf-8", errors="replace").split())
    if not words:  # pragma: no cover - the sample corpus ships with the package
        words = ["a", "chunk", "about", "weekend", "support"]
    texts = []
    for i in range(n):
        start = (i * 97) % max(1, len(words) - 150)
        texts.append(" ".join(words[start : start + 150]))
    return texts


def _rate(encoder: TorchEncoder, texts: list[str], batch_size: int) -> tuple[float, np.ndarray]:
    """Texts per second of process CPU time: other jobs on a shared machine slow the wall
    clock of both precisions unevenly, but hardly the CPU time each one needs."""
    encoder.encode(texts[:batch_size], batch_size)  # warm up this precision's kernels
    start = time.process_time()
    vectors = encoder.encode(texts, batch_size)
    return len(texts) / max(time.process_time() - start, 1e-6), vectors


def measure_precision(encoder: TorchEncoder, cpu: CpuInfo, batch_size: int = 16) -> PrecisionChoice:
    """Time fp32 and bf16 on the probe texts; bf16 wins when faster and close enough."""
    texts = probe_texts()
    encoder.set_precision("fp32")
    fp32_rate, fp32 = _rate(encoder, texts, batch_size)
    encoder.set_precision("bf16")
    bf16_rate, bf16 = _rate(encoder, texts, batch_size)
    cosine = float(np.min(np.sum(fp32 * bf16, axis=1)))
    rates = {"fp32": round(fp32_rate, 1), "bf16": round(bf16_rate, 1)}
    flags = list(cpu.bf16_flags)
    if bf16_rate > fp32_rate * 1.1 and cosine >= MIN_COSINE:
        precision = "bf16"
        speedup = bf16_rate / fp32_rate
        reason = f"measured on this CPU ({', '.join(flags)}): bf16 {speedup:.1f}x fp32"
    else:
        precision = "fp32"
        reason = (
            f"measured on this CPU ({', '.join(flags)}): bf16 {bf16_rate / fp32_rate:.2f}x fp32, "
            f"min cosine {cosine:.5f}; kept fp32"
        )
    encoder.set_precision(precision)
    return PrecisionChoice(precision, reason, rates, round(cosine, 6), cpu.model, flags)


def choose_precision(
    encoder: TorchEncoder, files: ModelFiles, cpu: CpuInfo, cache_dir: Path
) -> PrecisionChoice:
    """fp32 on a CPU without bf16 units; else the measured choice, kept per machine in
    `cache_dir` (keyed by CPU, torch version and model) so it is made once."""
    if not cpu.has_fast_bf16:
        encoder.set_precision("fp32")
        return PrecisionChoice("fp32", "this CPU has neither AMX nor AVX-512 BF16", cpu=cpu.model)
    key = {
        "version": CHOICE_VERSION,
        "cpu": cpu.model,
        "flags": list(cpu.bf16_flags),
        "torch": metadata.version("torch"),
        "model": f"{files.name}:{files.fingerprint}",
    }
    path = cache_dir / "precision.json"
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored.get("key") == key:
            choice = PrecisionChoice(**stored["choice"])
            encoder.set_precision(choice.precision)
            return choice
    except (OSError, ValueError, TypeError, KeyError):
        pass
    log.info("measuring fp32 vs bf16 encoding on this CPU (once)")
    choice = measure_precision(encoder, cpu)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{time.monotonic_ns()}.tmp")
        tmp.write_text(json.dumps({"key": key, "choice": choice.to_dict()}), encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:  # a read-only cache: measure again next time
        log.warning("cannot keep the precision choice in %s: %s", path, exc)
    return choice
