"""The candidate scorer: one feature vector for binding and carry, a learned order over the
antecedent candidates, the hand-set salience as fallback, and its training labels."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from tellmemore.conversation import scorer as S
from tellmemore.conversation.binding import Salience, collect_candidates
from tellmemore.conversation.gate import gate
from tellmemore.conversation.selector import FEATURES, SelectorModel, candidates

from .histories import A, U, corpus_stats

ROOT = Path(__file__).resolve().parents[2]
HISTORY = [
    U("What does the monthly pass cost?"),
    A("The monthly pass costs 30 dollars and covers every city bike in Lisbon."),
]


def _model(**weights: float) -> SelectorModel:
    return SelectorModel(
        weights=tuple(weights.get(f, 0.0) for f in FEATURES),
        bias=weights.get("bias", 0.0),
        mean=(0.0,) * len(FEATURES),
        scale=(1.0,) * len(FEATURES),
        threshold=0.5,
    )


def _scored(message: str) -> tuple[list[S.Scored], list]:
    salience = Salience(corpus_stats())
    verdict = gate(message, HISTORY, salience=salience)
    return S.features(message, HISTORY, salience, verdict), collect_candidates(
        HISTORY, salience, window=3
    )


def test_binding_and_the_selector_share_one_feature_vector() -> None:
    salience = Salience(corpus_stats())
    message = "is it valid on weekends?"
    verdict = gate(message, HISTORY, salience=salience)
    assert S.FEATURES == FEATURES
    shared = S.features(message, HISTORY, salience, verdict)
    alone = candidates(message, HISTORY, salience, verdict)
    assert [(s.phrase.text, s.features) for s in shared] == [
        (s.phrase.text, s.features) for s in alone
    ]


def test_without_a_scorer_the_hand_set_order_stands() -> None:
    scored, cands = _scored("is it valid on weekends?")
    ranked = S.rank_candidates(cands, scored, None)
    assert [c for c, _ in ranked] == cands
    assert all(p is None for _, p in ranked)


def test_the_learned_order_can_overturn_the_hand_set_one() -> None:
    """The hand-set salience puts the user's "monthly pass" first; a model against the
    user's last turn puts it last."""
    scored, cands = _scored("is it valid on weekends?")
    assert cands[0].text == "monthly pass"
    user_first = S.rank_candidates(cands, scored, S.Scorer(_model(in_last_user=5.0)))
    answer_first = S.rank_candidates(cands, scored, S.Scorer(_model(in_last_user=-5.0)))
    assert user_first[0][0].text == "monthly pass"
    assert answer_first[-1][0].text == "monthly pass"
    assert answer_first[0][0].role == "assistant"
    probs = [p for _, p in answer_first if p is not None]
    assert probs == sorted(probs, reverse=True)


def test_the_scorer_file_names_its_labels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "scorer.json"
    path.write_text(json.dumps(S.Scorer(_model(bias=1.0), "rewrite+gold").to_json()))
    monkeypatch.setenv("TELLMEMORE_SCORER_WEIGHTS", str(path))
    S.default_scorer.cache_clear()
    try:
        loaded = S.default_scorer()
        assert loaded is not None and loaded.labels == "rewrite+gold"
        path.write_text(json.dumps({**_model().to_json(), "labels": "guesses"}))
        S.default_scorer.cache_clear()
        with pytest.raises(ValueError, match="guesses"):
            S.default_scorer()
    finally:
        monkeypatch.delenv("TELLMEMORE_SCORER_WEIGHTS")
        S.default_scorer.cache_clear()


def _training_module():
    spec = importlib.util.spec_from_file_location(
        "train_scorer", ROOT / "scripts" / "train_scorer.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_distant_labels_train_the_same_direction_as_rewrites() -> None:
    """Gold-passage labels that agree with the rewrite labels on an informative feature
    give a model that orders the candidates the same way."""
    train = _training_module()
    rng = np.random.default_rng(3)
    feature = FEATURES.index("in_first_user")
    rows = []
    for _ in range(40):
        x = rng.random((6, len(FEATURES)))
        y = (x[:, feature] > 0.6).astype(float)
        noisy = np.where(rng.random(6) < 0.1, 1 - y, y)  # distant labels are noisier
        rows.append(train.Rows(x, y, noisy, [("a",)] * 6, y, [], True))
    rewrite = train.fit([(rows, "rewrite")])
    gold = train.fit([(rows, "gold")])
    assert int(np.argmax(rewrite.weights)) == int(np.argmax(gold.weights)) == feature
    assert train.auc(rows, gold) > 0.9
