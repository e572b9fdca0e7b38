"""`python -m tellmemore.index.prepare`: ready the local model's encoders on this machine.

Run by `scripts/setup.sh`: exports the model to ONNX once (the query path)
and measures fp32 against bf16 bulk encoding on this CPU, so that neither
costs the first `tellmemore ask` or `ingest` anything. It never fails the
setup: when the export cannot be made, it says so, and queries are then
encoded with torch.
"""

from __future__ import annotations

import sys
import time


def main() -> int:
    from tellmemore.config import Settings
    from tellmemore.errors import TellMeMoreError
    from tellmemore.index.embedders import SentenceTransformerEmbedder, load_embedder

    settings = Settings.load()
    if settings.embedder.provider != "sentence-transformers":
        print(f"embedder provider {settings.embedder.provider}: nothing to prepare")
        return 0
    try:
        embedder = load_embedder(settings.embedder)
    except TellMeMoreError as exc:
        print(f"cannot prepare the embedder: {exc}", file=sys.stderr)
        return 0
    assert isinstance(embedder, SentenceTransformerEmbedder)
    start = time.perf_counter()
    embedder.embed_query("prepare the query path")
    query = embedder.describe()["query"]
    if query["backend"] == "onnx":
        print(
            f"query path: ONNX Runtime {query['precision']} ({time.perf_counter() - start:.1f} s)"
        )
    else:
        print(
            f"query path: torch, because the ONNX export failed ({query.get('reason', '')}); "
            "queries work, a cold `tellmemore ask` is ~4 s slower"
        )
    start = time.perf_counter()
    embedder.embed_documents(["prepare the bulk path"])
    bulk = embedder.describe()["bulk"]
    print(
        f"bulk path: {bulk['backend']} {bulk['precision']} ({bulk.get('reason', '')}; "
        f"{time.perf_counter() - start:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
