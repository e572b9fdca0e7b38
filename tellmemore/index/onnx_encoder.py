"""Encoding with ONNX Runtime + `tokenizers`: the query path, without torch.

Importing both costs ~0.1 s (sentence-transformers with torch: ~5 s), so a
CLI call that embeds one question starts fast. Texts are tokenised with the
model's own fast tokenizer (truncated at its window), padded per batch in
NumPy (the shared tokenizer is never mutated, so threads may share an
encoder), and the graph returns pooled, normalised vectors (`onnx_export`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from tellmemore.index.model_files import ModelFiles
from tellmemore.index.vectors_math import normalise


class OnnxEncoder:
    """An exported sentence-transformers model on ONNX Runtime (CPU)."""

    backend = "onnx"

    def __init__(
        self, path: Path, files: ModelFiles, *, precision: str = "fp32", threads: int = 0
    ) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads > 0:
            options.intra_op_num_threads = threads
        # Spinning threads would burn a core between queries of a mostly idle process.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.session.get_inputs()]
        self.tokenizer = files.tokenizer()
        self.dimension = files.dimension
        self.precision = precision
        self.path = path

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(list(texts))
        lengths = np.array([len(e.ids) for e in encodings])
        order = np.argsort(-lengths, kind="stable")  # similar lengths share a batch: less padding
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for rows in _batches(order, lengths, batch_size):
            width = int(lengths[rows].max())
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            types = np.zeros((len(rows), width), dtype=np.int64)
            for j, row in enumerate(rows):
                e = encodings[row]
                n = len(e.ids)
                ids[j, :n] = e.ids
                mask[j, :n] = e.attention_mask
                types[j, :n] = e.type_ids
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            (vectors,) = self.session.run(None, {name: feeds[name] for name in self.inputs})
            out[rows] = vectors
        return normalise(out)


def _batches(order: np.ndarray, lengths: np.ndarray, batch_size: int) -> list[np.ndarray]:
    """`order` (longest first) cut into batches of at most `batch_size` rows, a new batch
    starting where a text is shorter than half the batch's width: padded to the width it
    would cost more than twice its own length (a turn's 80-word reply phrasing made its four
    short phrasings cost six times as much)."""
    batches: list[np.ndarray] = []
    start = 0
    for i in range(1, len(order) + 1):
        if (
            i == len(order)
            or i - start >= batch_size
            or 2 * lengths[order[i]] < lengths[order[start]]
        ):
            batches.append(order[start:i])
            start = i
    return batches
