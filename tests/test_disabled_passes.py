"""`conversation.disabled_passes` reaches the resolver of a real turn (bundled sample
documents, real MiniLM, real SQLite): the pronoun pass switched off leaves "it" as typed,
the other passes still run, and a misspelt pass name is refused with the valid names."""

from __future__ import annotations

import shutil

import pytest
from pydantic import ValidationError

from tellmemore.config import Settings
from tellmemore.conversation.passes.base import PASS_NAMES


def _follow_up(template, tmp_path, minilm, disabled: list[str]):  # type: ignore[no-untyped-def]
    from tellmemore.assistant import Assistant

    target = tmp_path / ("project-" + ("-".join(disabled) or "all"))
    shutil.copytree(template, target)
    settings = Settings(project_dir=target, conversation={"disabled_passes": disabled})
    assistant = Assistant(settings, embedder=minilm)
    try:
        chat = assistant.session()
        chat.ask("How much is the Pro plan?")
        return chat.ask("how many sites does it include?")
    finally:
        assistant.close()


def test_switching_off_the_pronoun_pass_leaves_it_unbound(
    _sample_project_template,
    tmp_path,
    minilm,  # type: ignore[no-untyped-def]
) -> None:
    every = _follow_up(_sample_project_template, tmp_path, minilm, [])
    assert "it" in every.bindings and "pro" in every.bindings["it"].lower()
    without = _follow_up(_sample_project_template, tmp_path, minilm, ["pronoun"])
    assert "it" not in without.bindings


def test_switching_off_another_pass_keeps_the_pronoun_binding(
    _sample_project_template,
    tmp_path,
    minilm,  # type: ignore[no-untyped-def]
) -> None:
    kept = _follow_up(_sample_project_template, tmp_path, minilm, ["ordinal", "carry"])
    assert "pro" in kept.bindings.get("it", "").lower()


def test_a_misspelt_pass_is_refused_naming_the_valid_ones() -> None:
    with pytest.raises(ValidationError) as err:
        Settings(conversation={"disabled_passes": ["pronouns"]})
    assert all(name in str(err.value) for name in PASS_NAMES)


def test_the_setting_lists_every_pass() -> None:
    assert Settings(conversation={"disabled_passes": list(PASS_NAMES)}).conversation.disabled_passes
