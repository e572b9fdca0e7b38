"""The learned antecedent chooser (`conversation.chooser`): its features, its bundled weights,
and the resolver reading it through `ResolveContext.learned_antecedent` (real SQLite index,
real MiniLM)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tellmemore.conversation import chooser
from tellmemore.conversation.binding import Candidate
from tellmemore.conversation.phrases import Phrase
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.retrieval import passage_fit

from .test_passage_fit import HISTORY, policy_assistant


def candidate(text: str, score: float, turn: int, role: str, mentions: int = 1) -> Candidate:
    return Candidate(Phrase(text, tuple(text.split())), score, turn, role, mentions)


def test_each_row_describes_a_candidate_against_the_best_of_its_decision() -> None:
    head = [
        (candidate("necessary pieces", 2.0, 1, "assistant"), 2.0),
        (candidate("background check", 1.5, 0, "user", mentions=3), 1.5),
    ]
    x = chooser.features(head, [0.41, 0.72], n_turns=2)
    col = {name: i for i, name in enumerate(chooser.FEATURES)}
    assert x.shape == (2, len(chooser.FEATURES))
    assert x[:, col["salience_gap"]].tolist() == [0.0, -0.5]
    assert x[:, col["fit_gap"]] == pytest.approx([-0.31, 0.0])
    assert x[:, col["salience_rank"]].tolist() == [0.0, 1.0]
    assert x[:, col["user"]].tolist() == [0.0, 1.0]
    assert x[:, col["turns_back"]].tolist() == [1.0, 2.0]
    assert x[:, col["words"]].tolist() == [2.0, 2.0]
    assert x[:, col["mentions"]] == pytest.approx([math.log(2), math.log(4)])


def test_the_best_row_is_the_highest_standardised_score() -> None:
    model = chooser.Chooser(weights=(0.0, 2.0), mean=(0.0, 1.0), scale=(1.0, 0.5))
    assert model.best(np.array([[9.0, 1.0], [0.0, 1.5], [5.0, 0.5]])) == 1


def test_the_bundled_weights_read_the_fit_and_who_said_it() -> None:
    """Fitted on the handbooks' labelled bindings: a candidate whose question fits the
    documents better, or that the user said, is likelier the one meant."""
    model = chooser.shipped()
    assert model is not None and len(model.weights) == len(chooser.FEATURES)
    weight = dict(zip(chooser.FEATURES, model.weights, strict=True))
    assert weight["fit_gap"] > 0 and weight["user"] > 0


@pytest.fixture
def policy_index(tmp_path: Path, minilm):  # type: ignore[no-untyped-def]
    assistant = policy_assistant(tmp_path, minilm)
    yield assistant.retriever
    assistant.close()


def _resolve(retriever, learned: bool) -> dict[str, str]:  # type: ignore[no-untyped-def]
    context = ResolveContext(
        term_stats=retriever.index.term_stats,
        passage_fit=passage_fit(retriever.index, retriever.embedder.embed_documents),
        learned_antecedent=learned,
    )
    resolution = EmbeddedResolver().resolve("how far back do they go?", HISTORY, context)
    return dict(resolution.bindings)


def test_the_learned_chooser_binds_what_the_documents_answer(policy_index) -> None:  # type: ignore[no-untyped-def]
    assert _resolve(policy_index, learned=True) == {"they": "background check"}


def test_the_setting_routes_the_choice_through_the_model(
    policy_index,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A model that prefers the worst fit picks the phrase no passage answers: the choice is
    the model's, not the hand-set rule's (which picks "background check" here)."""
    worst_fit = chooser.Chooser(
        weights=tuple(-1.0 if f == "fit_gap" else 0.0 for f in chooser.FEATURES),
        mean=(0.0,) * len(chooser.FEATURES),
        scale=(1.0,) * len(chooser.FEATURES),
    )
    monkeypatch.setattr(chooser, "shipped", lambda: worst_fit)
    assert _resolve(policy_index, learned=True) == {"they": "necessary pieces"}
    assert _resolve(policy_index, learned=False) == {"they": "background check"}
