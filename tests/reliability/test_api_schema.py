"""schemathesis against the service's own OpenAPI document: for every operation, generated
valid and invalid requests never get a 5xx, and every response matches the schema (status
code documented, body valid against the documented model, declared content type).

The app is the real `create_app` over a copy of the sample project with the FakeEmbedder
(retrieval, turns, traces and state.db all real, only the embedding is fast), called in
process through ASGI. schemathesis' pytest integration does not run on pytest 9 (its
subtests use a removed pytest attribute), so each operation's case strategies (positive
and negative generation) are driven with hypothesis directly. The number of examples per
operation is bounded so the run stays under a minute on 2 loaded cores; `-m slow` runs
ten times more.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode, checks

from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.service import create_app
from tellmemore.testing.fakes import FakeEmbedder

CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
]
OPERATIONS = [
    "GET /healthz",
    "GET /v1/models",
    "GET /v1/models/{model}",
    "GET /v1/sessions/{session_id}",
    "GET /v1/traces/{trace_id}",
    "POST /v1/chat",
    "POST /v1/chat/completions",
    "POST /v1/chat/{trace_id}/correct",
    "POST /v1/feedback",
]
FAST_EXAMPLES = 30
SLOW_EXAMPLES = 300


@pytest.fixture(scope="module")
def api_schema(
    fake_sample_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[schemathesis.BaseSchema]:
    project = tmp_path_factory.mktemp("schema") / "project"
    shutil.copytree(fake_sample_template, project)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TELLMEMORE_CONFIG", str(project.parent / "no-such.toml"))
        config = Settings.load(project)
    assistant = Assistant(config, embedder=FakeEmbedder())
    app = create_app(config, assistant=assistant)
    yield schemathesis.openapi.from_asgi("/openapi.json", app)
    assistant.close()


def fuzz(api_schema: schemathesis.BaseSchema, label: str, examples: int) -> None:
    operation = api_schema.find_operation_by_label(label)
    assert operation is not None, f"{label} is not in the OpenAPI document"
    cases = st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),
    )

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(case=cases)
    def run(case: schemathesis.Case) -> None:
        case.call_and_validate(checks=CHECKS)

    run()


def test_every_operation_is_fuzzed(api_schema: schemathesis.BaseSchema) -> None:
    labels = sorted(result.ok().label for result in api_schema.get_all_operations())
    assert labels == OPERATIONS, "a new operation: add it to OPERATIONS"


@pytest.mark.parametrize("label", OPERATIONS)
def test_no_5xx_and_every_response_matches_the_schema(
    api_schema: schemathesis.BaseSchema, label: str
) -> None:
    fuzz(api_schema, label, FAST_EXAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize("label", OPERATIONS)
def test_many_requests_against_the_schema(api_schema: schemathesis.BaseSchema, label: str) -> None:
    fuzz(api_schema, label, SLOW_EXAMPLES)
