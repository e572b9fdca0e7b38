"""The learned history-phrase selector: its features, its choice, its file, its training,
and its veto on topic carries in the embedded resolver."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from tellmemore.conversation.binding import Salience
from tellmemore.conversation.gate import gate
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.conversation.selector import (
    FEATURES,
    SelectorModel,
    candidates,
    default_model,
    select,
)

from .histories import MONTHLY_PASS, A, U, corpus_stats

ROOT = Path(__file__).resolve().parents[2]


def _model(**weights: float) -> SelectorModel:
    """A model that looks only at the named features (unit scale, zero mean)."""
    return SelectorModel(
        weights=tuple(weights.get(f, 0.0) for f in FEATURES),
        bias=weights.get("bias", 0.0),
        mean=(0.0,) * len(FEATURES),
        scale=(1.0,) * len(FEATURES),
        threshold=0.5,
    )


@pytest.fixture
def weights_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Point TELLMEMORE_SELECTOR_WEIGHTS at a model written by the test."""

    def write(model: SelectorModel | dict) -> Path:
        path = tmp_path / "selector.json"
        data = model.to_json() if isinstance(model, SelectorModel) else model
        path.write_text(json.dumps(data))
        monkeypatch.setenv("TELLMEMORE_SELECTOR_WEIGHTS", str(path))
        default_model.cache_clear()
        return path

    yield write
    monkeypatch.delenv("TELLMEMORE_SELECTOR_WEIGHTS", raising=False)
    default_model.cache_clear()


def test_the_shipped_model_loads_with_the_current_features() -> None:
    model = default_model()
    assert model is not None
    assert len(model.weights) == len(FEATURES) == len(model.mean) == len(model.scale)
    assert 0.0 < model.threshold < 1.0
    assert all(s > 0 for s in model.scale)


def test_candidates_are_history_phrases_the_message_lacks() -> None:
    history = [
        U("What does the monthly pass cost?"),
        A("The monthly pass costs 30 dollars and covers every city bike in Lisbon."),
    ]
    salience = Salience(corpus_stats())
    message = "Does the monthly pass include e-bikes?"
    scored = candidates(message, history, salience, gate(message, history, salience=salience))
    texts = {s.phrase.text.lower() for s in scored}
    assert "monthly pass" not in texts  # the message names it already
    assert any("city bike" in t for t in texts)  # the answer's wording is a candidate
    assert all(len(s.features) == len(FEATURES) for s in scored)
    last_answer = FEATURES.index("in_last_answer")
    assert all(s.features[last_answer] == 1.0 for s in scored if "city bike" in s.phrase.text)


def test_select_keeps_probable_phrases_without_repeating_words() -> None:
    history = [U("tell me about the monthly pass and the city bikes"), A("The monthly pass.")]
    salience = Salience(corpus_stats())
    message = "prices?"
    scored = candidates(message, history, salience, gate(message, history, salience=salience))
    picked = select(scored, _model(in_last_user=4.0, bias=-2.0))
    assert picked, "phrases of the last user turn have p = sigmoid(2) > 0.5"
    assert len(picked) <= 2
    words = [w for s in picked for w in s.phrase.stems]
    assert len(words) == len(set(words))
    assert all(s.probability >= 0.5 for s in picked)
    assert select(scored, _model(bias=-5.0)) == []


def test_a_model_trained_on_other_features_is_refused(weights_file) -> None:
    data = _model().to_json()
    data["features"] = ["idf_max"]
    weights_file(data)
    with pytest.raises(ValueError, match="retrain"):
        default_model()


def test_a_missing_override_file_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TELLMEMORE_SELECTOR_WEIGHTS", "/nonexistent/selector.json")
    default_model.cache_clear()
    try:
        with pytest.raises(FileNotFoundError):
            default_model()
    finally:
        monkeypatch.delenv("TELLMEMORE_SELECTOR_WEIGHTS")
        default_model.cache_clear()


@pytest.mark.parametrize(("bias", "carried"), [(-30.0, False), (30.0, True)])
def test_the_selector_vetoes_a_topic_carry(weights_file, bias: float, carried: bool) -> None:
    """ "weekends?" has too little signal: the topic is carried unless the selector sees
    nothing a person would carry."""
    weights_file(_model(bias=bias))
    res = EmbeddedResolver().resolve(
        "weekends?", MONTHLY_PASS, ResolveContext(term_stats=corpus_stats())
    )
    assert ("monthly pass" in res.query.lower()) is carried, res
    assert bool(res.bindings) is carried


def test_the_veto_never_blocks_an_explicit_tell_me_more(weights_file) -> None:
    weights_file(_model(bias=-30.0))
    res = EmbeddedResolver().resolve(
        "tell me more", MONTHLY_PASS, ResolveContext(term_stats=corpus_stats())
    )
    assert "monthly pass" in res.query.lower()


def _training_module():
    spec = importlib.util.spec_from_file_location(
        "train_selector", ROOT / "scripts" / "train_selector.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_training_finds_the_informative_feature() -> None:
    train = _training_module()
    rng = np.random.default_rng(7)
    rows = []
    informative = FEATURES.index("in_last_user")
    for _ in range(60):
        x = rng.random((8, len(FEATURES)))
        y = (x[:, informative] > 0.7).astype(float)
        rows.append(train.TurnRows("d", "t", x, y, [set()] * 8, set(), set()))
    w, _bias, _mean, _scale = train.fit(rows, l2=1.0)
    assert int(np.argmax(w)) == informative
    assert w[informative] > 3 * np.abs(np.delete(w, informative)).max()


def test_training_measures_binding_as_the_eval_does() -> None:
    train = _training_module()
    x = np.zeros((2, len(FEATURES)))
    x[0, FEATURES.index("in_last_user")] = 1.0
    carry = train.TurnRows(
        "d", "a", x, np.array([1.0, 0.0]), [{"pass"}, {"bike"}], {"pass", "price"}, {"pass"}
    )
    probe = train.TurnRows("d", "b", x, np.array([0.0, 0.0]), [{"shop"}, {"bike"}], set(), set())
    got = train.measure([carry, probe], _model(in_last_user=10.0, bias=-5.0))
    # each turn carries its first candidate: "pass" (expected) and "shop" (a probe)
    assert got["recall"] == pytest.approx(0.5)
    assert got["over_binding"] == pytest.approx(0.5)
    assert got["probe_over_binding"] == pytest.approx(1.0)
    assert got["probes"] == 1


def test_the_frontier_reports_what_the_binding_target_asks_of_the_selector() -> None:
    """Turn AUC, recall within the probe budget, and the two oracle bounds, on two turns
    the human carried into and one probe, where the model ranks the probe highest."""
    train = _training_module()
    feature = FEATURES.index("in_last_user")

    def turn(task: str, score: float, new: list[set[str]], labels: list[float], expected):
        x = np.zeros((len(new), len(FEATURES)))
        x[:, feature] = score
        return train.TurnRows("d", task, x, np.array(labels), new, expected, set(expected))

    rows = [
        turn("a", 0.6, [{"pass"}], [1.0], {"pass"}),
        turn("b", 0.2, [{"bike"}], [0.0], {"price"}),  # the human took "price" elsewhere
        turn("probe", 0.9, [{"shop"}], [0.0], set()),
    ]
    got = train.frontier(rows, _model(in_last_user=10.0, bias=-5.0))
    assert got["turn_auc"] == pytest.approx(0.0)  # the probe outranks both carried turns
    assert got["recall_at_probe_05"] == pytest.approx(0.0)  # only "shop" fits the budget
    assert got["top_recall"] == pytest.approx(0.5)
    assert got["probe_at_top_recall"] == pytest.approx(1.0)
    assert got["perfect_turns"] == pytest.approx(0.5)  # "pass" yes, "bike" is no "price"
    assert got["perfect_phrases"] == pytest.approx(0.5)


def test_only_the_first_and_latest_user_turns_offer_candidates() -> None:
    """A long session costs no more than a short one: turns in between are not read."""
    history = []
    for i in range(12):
        history += [U(f"what about the district{i} station?"), A("It opens at 7.")]
    salience = Salience(corpus_stats())
    scored = candidates("weekends?", history, salience, gate("weekends?", history))
    read = {
        s.phrase.text.split()[0].removeprefix("district")
        for s in scored
        if "district" in s.phrase.text
    }
    assert read == {"0", "8", "9", "10", "11"}
