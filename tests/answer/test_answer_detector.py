"""The sentence-level answer detector (`answer.answer_detector`) and the opt-in abstain
model that reads it (`retrieval.abstain_model = "answer_detector"`)."""

from __future__ import annotations

import numpy as np
import pytest

from tellmemore.answer import answer_detector, judge
from tellmemore.answer.answer_detector import FEATURE, SCALARS, pair_features
from tellmemore.answer.calibration import Calibration
from tellmemore.answer.judge import NAMED_MODELS, TurnEvidence, named_model, scored_abstain
from tellmemore.answer.scorer import Scorer
from tellmemore.testing.conformance import make_chunk
from tellmemore.types import Hit, Resolution

PAIRS = [
    (
        "How long are backups kept?",
        "Backups of your projects are kept for 30 days.",
        "Restoring a project from a backup replaces its current files.",
    ),
    (
        "Which languages does support speak?",
        "Our support team answers tickets in English, German and French.",
        "Support tickets are opened from the help menu.",
    ),
    (
        "How much does the Pro plan cost?",
        "The Pro plan costs $20 a month.",
        "The Pro plan includes unlimited projects.",
    ),
]


def _hit(cid: str, text: str) -> Hit:
    return Hit(make_chunk(cid, text), 0.5, 1, bm25=2.0, dense=0.5)


def test_pair_features_are_the_vector_pair_and_the_scalars() -> None:
    q = np.array([1.0, 0.0, 0.0])
    s = np.array([[0.6, 0.8, 0.0], [0.0, 0.0, 2.0]])
    x = pair_features("how long are backups kept?", q, ["kept for 30 days", "other words"], s)
    assert x.shape == (2, 3 + 3 + len(SCALARS))
    assert np.allclose(x[0, :3], [0.6, 0.0, 0.0])  # q * s
    assert np.allclose(x[1, 3:6], [1.0, 0.0, 1.0])  # |q - s|, s normalised first
    assert x[0, 6] == pytest.approx(0.6)  # the cosine
    assert x[0, 8] == 1.0 and x[1, 8] == 0.0  # "how long": only the first states a duration


def test_the_shipped_detector_prefers_the_sentence_that_answers(minilm) -> None:  # type: ignore[no-untyped-def]
    for question, answers, topical in PAIRS:
        yes = answer_detector.best_logit(question, [_hit("1", answers)], minilm.embed_documents)
        no = answer_detector.best_logit(question, [_hit("2", topical)], minilm.embed_documents)
        assert yes > no, question


def test_nothing_to_read_is_the_floor() -> None:
    assert answer_detector.best_logit("how long?", [], None) == answer_detector.FLOOR
    assert answer_detector.best_logit("", [_hit("1", "Kept for 30 days.")], None) == (
        answer_detector.FLOOR
    )


def test_the_turn_reads_the_top_passages_sentences_once_each() -> None:
    hits = [_hit(str(i), f"Sentence {i} here. Shared line.") for i in range(7)]
    texts = answer_detector.turn_sentences([hits[0], hits[0], *hits[1:]])
    assert texts == [
        "Sentence 0 here.",
        "Shared line.",
        *[f"Sentence {i} here." for i in range(1, 5)],
    ]


def test_the_shipped_model_is_named_and_reads_the_detector() -> None:
    assert NAMED_MODELS["answer_detector"] == "abstain_detector_model"
    model = named_model("answer_detector")
    assert FEATURE in model.features
    assert len(answer_detector.shipped().weights) == 2 * 384 + len(SCALARS)


def _evidence(text: str, embed) -> TurnEvidence:  # type: ignore[no-untyped-def]
    q = "How long are backups kept?"
    hits = [_hit("1", text)]
    return TurnEvidence(
        message=q,
        history=[],
        resolution=Resolution(query=q),
        hits=hits,
        per_query={q: hits},
        asked=[q],
        term_stats=None,
        calibration=Calibration(1, 10, 0.5, 0.6, 0.2, 0.3),
        embed=embed,
    )


def test_the_detector_is_read_only_when_the_model_names_it(monkeypatch, minilm) -> None:  # type: ignore[no-untyped-def]
    calls: list[str] = []

    def fake(question, hits, embed, detector=None):  # type: ignore[no-untyped-def]
        calls.append(question)
        return -5.0

    monkeypatch.setattr(answer_detector, "best_logit", fake)
    ev = _evidence("Backups of your projects are kept for 30 days.", minilm.embed_documents)
    scored_abstain(ev, named_model("gold_removal"))
    assert calls == []
    # a model on the detector alone: a low logit abstains, so the fake's -5 decides
    only = Scorer("abstain", (FEATURE,), (-1.0,), 0.0, (0.0,), (1.0,), 0.5)
    assert scored_abstain(ev, only)
    assert calls == ["How long are backups kept?"]


def test_the_model_abstains_more_readily_when_no_sentence_answers(minilm) -> None:  # type: ignore[no-untyped-def]
    model = named_model("answer_detector")
    embed = minilm.embed_documents

    def probability(text: str) -> float:
        ev = _evidence(text, embed)
        own = judge.evidence_hits(ev.hits, ev.per_query, ev.asked)
        a = judge._abstain_features(ev, own)
        a[FEATURE] = answer_detector.best_logit(ev.asked[0], own, embed)
        return model.probability(a)

    answers = probability("Backups of your projects are kept for 30 days.")
    topical = probability("Restoring a project from a backup replaces its current files.")
    assert topical > answers


def test_another_embedder_s_vectors_are_refused_by_name() -> None:
    def embed(texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 8), dtype=np.float32)

    with pytest.raises(ValueError, match="384-dimensional"):
        answer_detector.best_logit("how long?", [_hit("1", "Kept for 30 days.")], embed)


def test_the_own_probes_carry_the_feature(minilm) -> None:  # type: ignore[no-untyped-def]
    from tellmemore.answer.own_threshold import probe_features

    hits = [_hit("1", "Backups of your projects are kept for 30 days.")]
    rows = probe_features(
        lambda probe: (hits, {probe: hits}),
        ["backup retention"],
        None,
        Calibration(1, 10, 0.5, 0.6, 0.2, 0.3),
        minilm.embed_documents,
    )
    assert FEATURE in rows[0]
    model = named_model("answer_detector")
    assert 0.0 <= model.probability(rows[0]) <= 1.0
