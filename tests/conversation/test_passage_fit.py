"""A pronoun's antecedent chosen by what the documents answer (`conversation.passes.fit`):
real SQLite index, real MiniLM, the resolver and a whole turn."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.retrieval import passage_fit
from tellmemore.types import Turn

POLICY = """# Background check policy

Every new hire completes a background check before their start date. The offer is
contingent on the result.

## How far back the checks go

Criminal and employment background checks look back seven years.

## Who runs the checks

Background checks are run by an outside screening company, Checkr, never by your manager.
"""

EQUIPMENT = """# Equipment

New hires receive a laptop and the necessary pieces of hardware on their first day.
Return every piece when you leave.
"""

REPLY = (
    "Yes. Checkr collects the necessary pieces of information to run your background check,"
    " and the offer is contingent on the result."
)
HISTORY = [Turn("user", "Will I need to pass a background check?"), Turn("assistant", REPLY)]


def policy_assistant(tmp_path: Path, minilm, settings: Settings | None = None) -> Assistant:  # type: ignore[no-untyped-def]
    """The two policy pages ingested into a fresh project with `settings`."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "background-checks.md").write_text(POLICY, encoding="utf-8")
    (docs / "equipment.md").write_text(EQUIPMENT, encoding="utf-8")
    assistant = Assistant.open(
        tmp_path / "project", settings=settings or Settings(), embedder=minilm
    )
    assistant.ingest([docs])
    return assistant


@pytest.fixture
def policy_project(tmp_path: Path, minilm) -> Assistant:  # type: ignore[no-untyped-def]
    return policy_assistant(tmp_path, minilm)


def test_the_fit_scores_a_question_by_its_best_passage(policy_project: Assistant) -> None:
    retriever = policy_project.retriever
    fit = passage_fit(retriever.index, retriever.embedder.embed_documents)
    near, far = fit(["who runs the background checks?", "what is the capital of Peru?"])
    assert far < 0.3 < 0.6 < near <= 1.0


def test_an_empty_index_fits_nothing(tmp_path: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    assistant = Assistant.open(tmp_path / "empty", settings=Settings(), embedder=minilm)
    retriever = assistant.retriever
    assert passage_fit(retriever.index, retriever.embedder.embed_documents)(["anything?"]) == [0.0]


def test_the_antecedent_that_makes_an_answerable_question_wins(
    policy_project: Assistant,
) -> None:
    retriever = policy_project.retriever
    index = retriever.index

    def resolve(
        fit: Callable[[Sequence[str]], list[float]] | None,
    ) -> tuple[dict[str, str], bool]:
        context = ResolveContext(term_stats=index.term_stats, passage_fit=fit)
        resolution = EmbeddedResolver().resolve("how far back do they go?", HISTORY, context)
        assert resolution.passes[0] == "pronoun"
        return dict(resolution.bindings), "fit" in resolution.passes

    # salience alone prefers the answer's rarer phrase ...
    assert resolve(None) == ({"they": "necessary pieces"}, False)
    # ... which no passage answers a question about; the user's subject does, and the
    # resolution records that the documents chose it
    fit = passage_fit(index, retriever.embedder.embed_documents)
    assert resolve(fit) == ({"they": "background check"}, True)


@pytest.mark.parametrize("on", [True, False])
def test_a_turn_reads_the_setting(tmp_path: Path, minilm, on: bool) -> None:  # type: ignore[no-untyped-def]
    """The binder's choice, so the binding gate (which withholds it here: the message as typed
    already finds the policy, `test_binding_gate.py`) is off."""
    settings = Settings.model_validate(
        {"conversation": {"antecedent_fit": on, "binding_gate": False}}
    )
    assistant = policy_assistant(tmp_path, minilm, settings)
    answer = assistant.ask("how far back do they go?", history=HISTORY)
    assert ("background check" in answer.bindings.get("they", "")) is on


def test_a_candidate_that_repeats_the_message_is_not_chosen_by_its_fit(
    sample_assistant_with,  # type: ignore[no-untyped-def]
) -> None:
    """ "plan code CC-PRO-2026" in the place of "its" makes "what is plan code CC-PRO-2026's
    plan code?", which matches the passage holding the answer better than any question: the
    subject the user asked about stays the antecedent. (The binding gate is off here: it
    judges the chosen binding afterwards, `test_binding_gate.py`.)"""
    assistant = sample_assistant_with(conversation={"binding_gate": False})
    session = assistant.session()
    session.ask("How much is the Pro plan?")
    answer = session.ask("what is its plan code?")
    assert answer.bindings == {"its": "Pro plan"}
    passes = assistant.trace(answer.trace_id)["resolution"]["passes"]
    assert "pronoun" in passes and "fit" not in passes
