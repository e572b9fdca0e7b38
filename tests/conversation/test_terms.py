"""Term-level carry (conversation/terms.py): candidates, their features, the pick, the file,
and the opt-in step of the embedded resolver."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tellmemore.conversation import constants as C
from tellmemore.conversation.binding import Salience
from tellmemore.conversation.gate import gate
from tellmemore.conversation.realize import append_words
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.conversation.selector import FEATURES, SelectorModel
from tellmemore.conversation.terms import TERM_FEATURES, pick, term_candidates, term_model
from tellmemore.types import Resolution

from .histories import A, U, corpus_stats

HISTORY = [
    U("How does FMLA leave work for new parents?"),
    A("FMLA leave gives eligible employees up to 12 weeks of unpaid leave."),
]


def _model(threshold: float = 0.5, **weights: float) -> SelectorModel:
    return SelectorModel(
        weights=tuple(weights.get(f, 0.0) for f in TERM_FEATURES),
        bias=weights.get("bias", 0.0),
        mean=(0.0,) * len(TERM_FEATURES),
        scale=(1.0,) * len(TERM_FEATURES),
        threshold=threshold,
        max_phrases=2,
        names=TERM_FEATURES,
    )


@pytest.fixture
def term_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def write(model: SelectorModel) -> Path:
        path = tmp_path / "terms.json"
        path.write_text(json.dumps(model.to_json()))
        monkeypatch.setenv("TELLMEMORE_TERM_WEIGHTS", str(path))
        term_model.cache_clear()
        return path

    yield write
    monkeypatch.delenv("TELLMEMORE_TERM_WEIGHTS", raising=False)
    term_model.cache_clear()


def _candidates(message: str, query: str | None = None):
    salience = Salience(corpus_stats())
    verdict = gate(message, HISTORY, salience=salience)
    return term_candidates(message, query or message, HISTORY, salience, verdict)


def test_candidates_are_history_words_the_query_lacks() -> None:
    found = {t.stem: t for t in _candidates("How do I apply?")}
    assert {"fmla", "parent"} <= set(found)
    assert all(len(t.features) == len(TERM_FEATURES) for t in found.values())
    first = TERM_FEATURES.index("in_first_user")
    assert found["parent"].features[first] == 1.0
    assert found["week"].features[first] == 0.0  # said only in the answer
    # a word the resolved query carries already is no candidate
    assert "fmla" not in {t.stem for t in _candidates("How do I apply?", "How do I apply FMLA?")}


def test_pick_keeps_the_threshold_the_limit_and_the_history_order() -> None:
    found = _candidates("How do I apply?")
    model = _model(threshold=0.6, bias=-2.0, in_first_user=3.0, idf=2.0)
    picked = pick(found, model)
    assert 0 < len(picked) <= 2
    assert all(model.probability(t.features) >= 0.6 for t in picked)
    assert [t.order for t in picked] == sorted(t.order for t in picked)
    assert pick(found, _model(threshold=0.99)) == []


def test_append_words_keeps_the_question_mark_last() -> None:
    assert append_words("How do I apply?", ["FMLA", "leave"]) == "How do I apply (FMLA leave)?"
    assert append_words("How do I apply?", []) == "How do I apply?"
    # one parenthesis: the carried phrases' own, not a second after it
    got = append_words("tell me more in July (full amount)", ["budget", "learning"])
    assert got == "tell me more in July (full amount, budget learning)"


def test_term_weights_are_checked_against_their_features(term_file) -> None:
    path = term_file(_model())
    data = json.loads(path.read_text())
    assert data["features"] == list(TERM_FEATURES)
    with pytest.raises(ValueError):
        SelectorModel.from_json(data)  # the phrase selector's features differ
    assert term_model() == SelectorModel.from_json(data, TERM_FEATURES)
    assert SelectorModel.from_json(_model().to_json() | {"features": list(FEATURES)}) is not None


def test_the_resolver_appends_picked_words_only_when_switched_on(
    term_file, monkeypatch: pytest.MonkeyPatch
) -> None:
    term_file(_model(threshold=0.5, bias=-2.0, in_last_answer=3.0))  # the carry takes the user's
    ctx = ResolveContext(term_stats=corpus_stats())
    message = "How do I apply?"
    before = EmbeddedResolver().resolve(message, HISTORY, ctx)
    assert "terms" not in before.passes  # off by default
    monkeypatch.setattr(C, "TERM_CARRY", True)
    after = EmbeddedResolver().resolve(message, HISTORY, ctx)
    assert "terms" in after.passes
    assert after.query.endswith(")?") and after.query != before.query
    assert after.bindings == before.bindings  # words carried are no referent's binding
    # without the index's statistics the features mean nothing: unchanged
    assert "terms" not in EmbeddedResolver().resolve(message, HISTORY, ResolveContext()).passes


def test_an_ambiguous_resolution_gets_no_words(term_file) -> None:
    from tellmemore.conversation.terms import with_terms

    term_file(_model(threshold=0.01, bias=5.0))
    asked = Resolution(query="which one?", ambiguous=True, clarification="Which one?")
    ctx = ResolveContext(term_stats=corpus_stats())
    assert with_terms("which one?", asked, HISTORY, ctx) is asked
