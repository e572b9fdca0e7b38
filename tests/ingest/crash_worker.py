"""Subprocess body of the crash test: ingest a folder, slowly enough to be killed mid-run.

    python crash_worker.py PROJECT_DIR CORPUS_DIR [--sync] [--sleep S] [--write-batch N]

Prints "started" once imports are done (the parent starts its kill timer
then) and "done" at the end. The embedder is FakeEmbedder (deterministic
vectors, so a recovered index can be compared byte for byte with a clean one)
with a sleep per call standing in for the model's encode time.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tellmemore.index.sqlite import SQLiteIndex
from tellmemore.ingest.pipeline import ingest
from tellmemore.state.db import StateDB
from tellmemore.testing.fakes import FakeEmbedder

CHUNK_TOKENS = 64


class SlowFakeEmbedder(FakeEmbedder):
    def __init__(self, sleep: float) -> None:
        super().__init__()
        self.sleep = sleep

    def embed_documents(self, texts: Sequence[str]):  # type: ignore[no-untyped-def]
        time.sleep(self.sleep)
        return super().embed_documents(texts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("project", type=Path)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--sync", action="store_true")
    parser.add_argument("--sleep", type=float, default=0.0)
    parser.add_argument("--write-batch", type=int, default=16)
    args = parser.parse_args()
    embedder = SlowFakeEmbedder(args.sleep)
    index = SQLiteIndex(args.project / "index.db", dimension=embedder.dimension)
    state = StateDB(args.project / "state.db")
    print("started", flush=True)
    ingest(
        [args.corpus],
        index=index,
        embedder=embedder,
        state=state,
        chunk_tokens=CHUNK_TOKENS,
        sync=args.sync,
        write_batch=args.write_batch,
    )
    index.close()
    state.close()
    print("done", flush=True)


if __name__ == "__main__":
    sys.exit(main())
