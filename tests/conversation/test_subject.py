"""A short message less specific than the conversation's subject needs it (issue 20,
cause B: "how much notice?" after sabbaticals names no subject of its own, though its one
word is rare in a small corpus)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tellmemore.conversation import constants as C
from tellmemore.conversation.gate import gate
from tellmemore.conversation.phrasings import search_phrasings
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.conversation.selector import FEATURES, SelectorModel, default_model

from .histories import A, U, corpus_stats

SUBJECT = "less specific than the subject"

FILLER = [f"employees receive paid holidays and a laptop, item {i}" for i in range(16)]
CORPUS = [
    "Sabbatical: after five years you may take a paid sabbatical of four weeks.",
    "Give two weeks notice before you resign.",
    "Managers need notice of planned time off.",
    "A pension plan matches what you put in.",
    *FILLER,
]
"""20 chunks: "notice" is in 2 (distinctive for the gate), "sabbatical" and "pension" in 1."""
HISTORY = [
    U("do we get sabbaticals?"),
    A("A sabbatical lasts four weeks, after five years at the company."),
]


@pytest.fixture
def selector(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A selector that gives every history phrase probability sigmoid(bias)."""

    def use(bias: float) -> None:
        model = SelectorModel(
            weights=(0.0,) * len(FEATURES),
            bias=bias,
            mean=(0.0,) * len(FEATURES),
            scale=(1.0,) * len(FEATURES),
            threshold=0.5,
        )
        path = tmp_path / "selector.json"
        path.write_text(json.dumps(model.to_json()))
        monkeypatch.setenv("TELLMEMORE_SELECTOR_WEIGHTS", str(path))
        default_model.cache_clear()

    yield use
    monkeypatch.delenv("TELLMEMORE_SELECTOR_WEIGHTS", raising=False)
    default_model.cache_clear()


def test_a_plainer_word_than_the_subject_needs_the_subject(selector) -> None:
    selector(30.0)
    verdict = gate("how much notice?", HISTORY, corpus_stats(CORPUS))
    assert (verdict.needs_resolution, verdict.reason) == (True, "less specific than the subject")
    res = EmbeddedResolver().resolve(
        "how much notice?", HISTORY, ResolveContext(term_stats=corpus_stats(CORPUS))
    )
    assert "sabbatical" in res.query.lower(), res
    assert res.bindings == {"how much notice": "sabbaticals"}  # shown: "Answering about"
    assert res.passes == ("carry", "subject")


def test_a_subject_as_specific_as_the_old_one_is_its_own(selector) -> None:
    """ "what about pensions" names a new subject as rare as the one it leaves."""
    selector(30.0)
    verdict = gate("is there a pension?", HISTORY, corpus_stats(CORPUS))
    assert (verdict.needs_resolution, verdict.reason) == (False, "self-contained")


def test_nothing_a_person_would_carry_leaves_it_as_typed(selector) -> None:
    selector(-30.0)  # the selector's veto: no history phrase is probable
    verdict = gate("how much notice?", HISTORY, corpus_stats(CORPUS))
    assert (verdict.needs_resolution, verdict.reason) == (False, "self-contained")


def test_without_an_index_or_switched_off_nothing_changes(
    selector, monkeypatch: pytest.MonkeyPatch
) -> None:
    selector(30.0)
    assert gate("how much notice?", HISTORY).reason != "less specific than the subject"
    monkeypatch.setattr(C, "SUBJECT_MARGIN", -1.0)
    verdict = gate("how much notice?", HISTORY, corpus_stats(CORPUS))
    assert verdict.reason == "self-contained"


def test_it_ships_switched_on(selector) -> None:
    selector(30.0)
    assert C.SUBJECT_MARGIN == 0.0
    assert gate("how much notice?", HISTORY, corpus_stats(CORPUS)).reason == SUBJECT


def test_a_remark_keeps_its_own_subject(selector) -> None:
    """A remark says where the conversation goes; carrying the old subject into it is
    over-binding (MTRAG govt's "So, no game meat from now on!"). The same words asked
    need the subject."""
    selector(30.0)
    stats = corpus_stats(CORPUS)
    assert gate("so, no more notice from now on!", HISTORY, stats).reason == "self-contained"
    assert gate("so, no more notice from now on?", HISTORY, stats).reason == SUBJECT


def test_a_wide_margin_keeps_a_near_tie_as_typed(selector, monkeypatch: pytest.MonkeyPatch) -> None:
    selector(30.0)
    monkeypatch.setattr(C, "SUBJECT_MARGIN", 0.5)
    assert gate("how much notice?", HISTORY, corpus_stats(CORPUS)).reason == "self-contained"


def test_the_subject_carry_is_searched_without_the_bare_message(selector) -> None:
    """The message alone is what the gate found lacking: searched beside the carry it ranked
    every page on notice above the sabbatical's (Clef sabbatical.3)."""
    selector(30.0)
    stats = corpus_stats(CORPUS)
    res = EmbeddedResolver().resolve("how much notice?", HISTORY, ResolveContext(term_stats=stats))
    ph = search_phrasings("how much notice?", res, HISTORY, stats)
    assert ph.queries[0] == res.query and ph.weights[0] == 1.0
    assert "how much notice?" not in ph.queries
