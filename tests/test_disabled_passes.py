"""`conversation.disabled_passes` reaches the resolver of a real turn (bundled sample
documents, real MiniLM, real SQLite): the pronoun pass switched off leaves "it" as typed,
the other passes still run, and a misspelt pass name is refused with the valid names."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tellmemore.config import Settings
from tellmemore.conversation.passes.base import PASS_NAMES


def _follow_up(open_copy, disabled: list[str]):  # type: ignore[no-untyped-def]
    """ "it" after a question about the Pro plan, with `disabled` passes off. The binder's
    own choice, so the binding gate (which withholds it on the small sample: the message as
    typed finds the plan table) is off."""
    chat = open_copy(conversation={"disabled_passes": disabled, "binding_gate": False}).session()
    chat.ask("How much is the Pro plan?")
    return chat.ask("how many sites does it include?")


def test_switching_off_the_pronoun_pass_leaves_it_unbound(sample_assistant_with) -> None:  # type: ignore[no-untyped-def]
    every = _follow_up(sample_assistant_with, [])
    assert "it" in every.bindings and "pro" in every.bindings["it"].lower()
    without = _follow_up(sample_assistant_with, ["pronoun"])
    assert "it" not in without.bindings


def test_switching_off_another_pass_keeps_the_pronoun_binding(sample_assistant_with) -> None:  # type: ignore[no-untyped-def]
    kept = _follow_up(sample_assistant_with, ["ordinal", "carry"])
    assert "pro" in kept.bindings.get("it", "").lower()


def test_a_misspelt_pass_is_refused_naming_the_valid_ones() -> None:
    with pytest.raises(ValidationError) as err:
        Settings(conversation={"disabled_passes": ["pronouns"]})
    assert all(name in str(err.value) for name in PASS_NAMES)


def test_every_pass_the_resolver_names_can_be_switched_off() -> None:
    """Each pass module's NAME (what `Resolution.passes` reports) is a name the setting
    accepts, and the setting knows no name that no pass has."""
    import importlib
    import pkgutil

    import tellmemore.conversation.passes as package

    names = set()
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if isinstance(getattr(module, "NAME", None), str):
            names.add(module.NAME)
    assert names == set(PASS_NAMES)
    chosen = sorted(names)
    assert Settings(conversation={"disabled_passes": chosen}).conversation.disabled_passes == chosen


def test_the_resolve_context_carries_the_conversation_settings() -> None:
    """The turn and `tellmemore eval` build their context by `ResolveContext.of`: the
    conversation settings arrive there, next to what the caller reads."""
    from tellmemore.conversation.resolvers.base import ResolveContext

    conversation = Settings(
        conversation={"window": 5, "ask_coordinated": True, "disabled_passes": ["carry"]}
    ).conversation
    ctx = ResolveContext.of(conversation, summary="earlier turns")
    assert (ctx.window, ctx.ask_coordinated, ctx.summary) == (5, True, "earlier turns")
    assert ctx.disabled_passes == frozenset({"carry"})
