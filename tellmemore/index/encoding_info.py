"""How an index's vectors were encoded, kept in the index's metadata.

After an ingest that embedded something, the embedder's `describe()` (model,
bulk and query runtimes, precision, the measurement that chose it) and the
ingest's own rate are stored under `META_KEY`; `tellmemore index stats`
shows them. The model name itself is checked when the index opens (an index
built with one model is never searched with another); the runtime and the
precision are not, since they change vectors by less than a cosine of 1e-4.
"""

from __future__ import annotations

import json
import time
from typing import Any

META_KEY = "encoding"


def record(index: Any, embedder: Any, *, chunks: int, seconds: float) -> None:
    """Store what encoded the last `chunks` vectors, when both sides support it."""
    describe = getattr(embedder, "describe", None)
    set_meta = getattr(index, "set_meta", None)
    if describe is None or set_meta is None or chunks <= 0:
        return
    info = dict(describe())
    info["last_ingest"] = {
        "chunks": chunks,
        "seconds": round(seconds, 2),
        "chunks_per_s": round(chunks / seconds, 1) if seconds > 0 else None,
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    set_meta(META_KEY, json.dumps(info, sort_keys=True))


def stored(index: Any) -> dict[str, Any]:
    """The recorded encoding, or {} for an index written before it was recorded."""
    get_meta = getattr(index, "get_meta", None)
    raw = get_meta(META_KEY) if get_meta is not None else None
    try:
        info = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return info if isinstance(info, dict) else {}


def _runtime(part: dict[str, Any]) -> str:
    text = f"{part.get('backend', '?')} {part.get('precision', '?')}"
    rates = part.get("chunks_per_s") or {}
    if rates:
        figures = ", ".join(f"{k} {v:g}" for k, v in rates.items())
        text += f" (probe: {figures} chunks per CPU-second)"
    if part.get("reason"):
        text += f"; {part['reason']}"
    return text


def stats_lines(info: dict[str, Any]) -> dict[str, str]:
    """Flat, readable lines for `index stats`."""
    if not info:
        return {}
    out: dict[str, str] = {}
    if isinstance(info.get("bulk"), dict):
        out["bulk_encoding"] = _runtime(info["bulk"])
    if isinstance(info.get("query"), dict):
        out["query_encoding"] = _runtime(info["query"])
    last = info.get("last_ingest")
    if isinstance(last, dict) and last.get("chunks"):
        out["last_ingest"] = (
            f"{last['chunks']} chunks in {last.get('seconds')} s "
            f"({last.get('chunks_per_s')} chunks/s) at {last.get('at')}"
        )
    return out
