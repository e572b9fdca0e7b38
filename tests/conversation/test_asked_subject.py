"""Which "I" a group of people replaces in the previous question ("does it apply to
contractors?" after "I joined 2 months ago, do I qualify?")."""

from __future__ import annotations

import pytest

from tellmemore.conversation.realize.substitute import _asked_subject


@pytest.mark.parametrize(
    ("base", "asked_at"),
    [
        ("how many days of annual leave do I get?", 33),  # the only asker
        ("I joined 2 months ago, do I qualify?", 26),  # the one the auxiliary asks about
        ("we moved last year, can I still claim?", 24),
    ],
)
def test_the_asker_after_an_auxiliary_is_the_asked_subject(base: str, asked_at: int) -> None:
    found = _asked_subject(base)
    assert found is not None and found.start() == asked_at


@pytest.mark.parametrize(
    "base",
    [
        "I moved to Spain and we want to know the tax rules",  # neither is asked about
        "can I claim it if we move and do I need a receipt?",  # two are: which is unclear
        "what is the notice period?",  # no asker at all
    ],
)
def test_no_single_asked_subject_means_no_asker_to_replace(base: str) -> None:
    assert _asked_subject(base) is None
