"""The public surface of tellmemore.ingest: sorted `__all__`, every name importable."""

from __future__ import annotations

import tellmemore.ingest
import tellmemore.ingest.loaders


def test_all_is_sorted_and_importable() -> None:
    for module in (tellmemore.ingest, tellmemore.ingest.loaders):
        assert module.__all__ == sorted(module.__all__), module.__name__
        for name in module.__all__:
            assert hasattr(module, name), (module.__name__, name)


def test_sample_corpus_path_is_a_folder_of_documents() -> None:
    path = tellmemore.ingest.sample_corpus_path()
    assert path.is_dir()
    assert len(list(path.rglob("*.md"))) >= 8
