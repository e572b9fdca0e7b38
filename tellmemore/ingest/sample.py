"""Where the bundled sample corpus lives (package data, written for this project)."""

from __future__ import annotations

from pathlib import Path


def sample_corpus_path() -> Path:
    """The folder of the bundled sample docs: Cloud Connect, Status Page, a bike-rental policy.

    It is used by the demo, the README and the tests; pass it to `ingest`.
    """
    return Path(__file__).resolve().parent.parent / "data" / "sample"
