"""The term statistics of an eval index, without its vectors: for fitting on a domain whose
dense index is not built.

    .venv/bin/python bench/term_stats_index.py ../shared/bench/mtrag/clapnq --cache /tmp/ts

The selector's and the scorer's features read only the index's term statistics (chunk
document frequencies from FTS5) and the conversation; fitting on a domain does not need its
vectors. This builds the index exactly as `tellmemore eval` does (same records, same
chunker sized by the real MiniLM tokenizer, same FTS5 table, same cache key), but stores a
constant unit vector for every chunk instead of encoding it: minutes instead of an hour.
Such an index answers term statistics exactly like the real one and is NEVER searched for
a quality figure: `bench/loo_eval.py` evaluates only on indexes with real vectors (it reads
`meta.json`'s "vectors" field; this script writes "vectors": "none" there).
Keep it out of the shared eval cache (use its own --cache directory).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tellmemore.config import Settings  # noqa: E402
from tellmemore.eval.corpus import ensure_index  # noqa: E402
from tellmemore.eval.datasets import load_dataset  # noqa: E402
from tellmemore.index.base import Embedder, Vector  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402


class NoVectors:
    """The real embedder's name, window and tokenizer (so chunks are cut identically); one
    constant unit vector per text instead of an encoding."""

    def __init__(self, real: Embedder) -> None:
        self.real = real
        self.name = real.name
        self.dimension = real.dimension
        self.max_tokens = real.max_tokens
        self.batch_size = real.batch_size
        self._unit = np.zeros(real.dimension, dtype=np.float32)
        self._unit[0] = 1.0

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        return np.tile(self._unit, (len(texts), 1))

    def embed_query(self, text: str) -> Vector:
        return self._unit.copy()

    def count_tokens(self, text: str) -> int:
        return self.real.count_tokens(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="+", type=Path)
    ap.add_argument("--cache", type=Path, required=True)
    args = ap.parse_args()
    if args.cache.resolve() == Path("/work/cache/bench").resolve():
        sys.exit("use a cache of its own: the shared eval cache holds real indexes only")
    settings = Settings()
    fake = NoVectors(load_embedder(settings.embedder))
    for path in args.datasets:
        ds = load_dataset(path, skip_invalid=True)
        index, info = ensure_index(ds, embedder=fake, settings=settings, cache_dir=args.cache)  # type: ignore[arg-type]
        index.close()
        meta_path = info.path.parent / "meta.json"
        meta = json.loads(meta_path.read_text())
        meta["vectors"] = "none"
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")
        print(f"{ds.name}: {info.chunks} chunks, {info.seconds:.0f} s, {info.path}")


if __name__ == "__main__":
    main()
