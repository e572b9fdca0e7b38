"""Settings: defaults < tellmemore.toml < TELLMEMORE_* environment < explicit arguments."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from tellmemore.config import Settings
from tellmemore.types import SearchMode


def test_precedence_toml_env_explicit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toml = tmp_path / "tellmemore.toml"
    toml.write_text('[retrieval]\nk = 7\nmode = "bm25"\n\n[conversation]\nwindow = 2\n')
    monkeypatch.setenv("TELLMEMORE_CONFIG", str(toml))
    assert Settings.load().retrieval.k == 7
    assert Settings.load().retrieval.mode is SearchMode.BM25
    monkeypatch.setenv("TELLMEMORE_RETRIEVAL__K", "9")
    settings = Settings.load()
    assert settings.retrieval.k == 9
    assert settings.conversation.window == 2, "env overrides one key, not the whole section"
    assert Settings.load(project_dir=tmp_path / "p").project_dir == tmp_path / "p"


def test_index_uri_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TELLMEMORE_INDEX_URI", "milvus://127.0.0.1:19530")
    assert Settings.load().index.uri == "milvus://127.0.0.1:19530"


def test_invalid_values_name_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TELLMEMORE_RETRIEVAL__MODE", "fuzzy")
    with pytest.raises(ValidationError, match="bm25, dense, hybrid"):
        Settings.load()


def test_unknown_keys_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toml = tmp_path / "tellmemore.toml"
    toml.write_text("[retrieval]\ntop_k = 3\n")
    monkeypatch.setenv("TELLMEMORE_CONFIG", str(toml))
    with pytest.raises(ValidationError, match="top_k"):
        Settings.load()


def test_a_removed_setting_says_it_was_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`retrieval.sentence_vectors` (opt-in, removed in session 26): a configuration that
    still sets it, on or off, in the file or the environment, is told it was removed and
    why, not only that the key is unknown; the CLI prints it as one line
    (`cli.config_error`)."""
    toml = tmp_path / "tellmemore.toml"
    toml.write_text("[retrieval]\nsentence_vectors = true\n")
    monkeypatch.setenv("TELLMEMORE_CONFIG", str(toml))
    with pytest.raises(ValidationError, match="sentence_vectors was removed in session 26"):
        Settings.load()
    monkeypatch.delenv("TELLMEMORE_CONFIG")
    monkeypatch.setenv("TELLMEMORE_RETRIEVAL__SENTENCE_VECTORS", "false")
    with pytest.raises(ValidationError, match=r"extractive_vectors\.md"):
        Settings.load()
    monkeypatch.delenv("TELLMEMORE_RETRIEVAL__SENTENCE_VECTORS")
    assert not hasattr(Settings.load().retrieval, "sentence_vectors")
