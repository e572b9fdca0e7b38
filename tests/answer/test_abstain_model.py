"""The opt-in abstain scorer of the floor mode (`retrieval.abstain_model`): a shipped model
by name or a user's model file, read on the turn's own evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tellmemore.answer import answerability
from tellmemore.answer.calibration import Calibration
from tellmemore.answer.judge import NAMED_MODELS, named_model
from tellmemore.answer.scorer import Scorer
from tellmemore.errors import ConfigError
from tellmemore.testing.conformance import make_chunk
from tellmemore.types import Hit

GUIDE = """# Product guide

## Backups

Backups of your projects are kept for 30 days. Restoring a project from a backup replaces
its current files.

## Support

Our support team answers tickets in English, German and French.
"""


def _model(path: Path, threshold: float) -> Path:
    """A scorer on the best cosine alone: threshold 0.0 abstains on every turn."""
    s = Scorer("abstain", ("raw_cos",), (-1.0,), 0.0, (0.0,), (1.0,), threshold)
    path.write_text(json.dumps(s.to_json()))
    return path


def _ask(tmp_path: Path, minilm, model: str) -> bool:  # type: ignore[no-untyped-def]
    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings

    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "guide.md").write_text(GUIDE)
    settings = Settings(project_dir=tmp_path / "project", retrieval={"abstain_model": model})
    assistant = Assistant(settings, embedder=minilm)
    try:
        assistant.ingest([docs])
        return assistant.ask("How long are backups kept?").abstained
    finally:
        assistant.close()


def test_a_model_file_that_abstains_makes_the_floor_mode_abstain(tmp_path, minilm) -> None:  # type: ignore[no-untyped-def]
    always = _model(tmp_path / "always.json", 0.0)
    assert _ask(tmp_path, minilm, str(always))


def test_off_by_default_and_a_model_that_does_not_abstain_answers(tmp_path, minilm) -> None:  # type: ignore[no-untyped-def]
    from tellmemore.config import Settings

    assert Settings().retrieval.abstain_model == ""
    assert not _ask(tmp_path, minilm, "")
    never = _model(tmp_path / "never.json", 1.01)
    assert not _ask(tmp_path, minilm, str(never))


def test_the_shipped_model_reads_features_the_answerability_computes() -> None:
    model = named_model("gold_removal")
    assert NAMED_MODELS["gold_removal"] == "abstain_gold_model"
    q = "how long are backups kept?"
    hits = [Hit(make_chunk("1", GUIDE), 0.5, 1, bm25=3.0, dense=0.6)]
    cal = Calibration(1, 10, 0.5, 0.6, 0.2, 0.3)
    feats = answerability.features([q], hits, {q: hits}, None, cal)
    assert set(model.features) <= set(feats)
    assert 0.0 <= model.probability(feats) <= 1.0


def test_an_unknown_model_is_named_in_the_error() -> None:
    """A user's error, not a bug: the CLI prints it as one line ("answer_detector" was
    removed in session 25; a configuration naming it lands here)."""
    with pytest.raises(ConfigError, match="no_such_model"):
        named_model("no_such_model")
    with pytest.raises(ConfigError, match="gold_removal"):
        named_model("answer_detector")
