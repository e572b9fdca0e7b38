"""End to end on a tiny dataset: real ingestion, real SQLite index, FakeEmbedder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tellmemore.config import Settings
from tellmemore.eval.report import build_details, build_report, score, write_report
from tellmemore.eval.runner import EvalOptions, EvalRun, run_eval
from tellmemore.testing.fakes import FakeEmbedder
from tellmemore.types import SearchMode

TINY = Path(__file__).parents[1] / "data" / "eval" / "tiny"
STRATEGIES = ("raw", "concat", "all_user", "oracle")
RESULT_KEYS = {
    "dataset",
    "strategy",
    "retriever",
    "slice",
    "n",
    "measures",
    "binding",
    "gate_skip_share",
    "latency_ms",
}
MEASURES = {"R@5", "R@10", "nDCG@5", "nDCG@10", "RR@10"}
LATENCY = {"resolve_p50", "resolve_p95", "retrieve_p50", "retrieve_p95"}


def _run(cache: Path, embedder: FakeEmbedder, **kw: object) -> EvalRun:
    options = EvalOptions(strategies=STRATEGIES, cache_dir=cache, **kw)  # type: ignore[arg-type]
    return run_eval([TINY], settings=Settings.load(), options=options, embedder=embedder)


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def test_report_json_has_the_fixed_shape(cache: Path, tmp_path: Path) -> None:
    run = _run(cache, FakeEmbedder())
    report, paths = write_report(run, tmp_path / "out", command="tellmemore eval tiny")
    assert set(report) == {"results", "turns"}
    assert json.loads(paths["json"].read_text()) == report
    combos = {(r["strategy"], r["retriever"], r["slice"]) for r in report["results"]}
    assert combos == {
        (s, m, sl)
        for s in STRATEGIES
        for m in ("bm25", "dense", "hybrid")
        for sl in ("all", "followup")
    }
    for row in report["results"]:
        assert set(row) == RESULT_KEYS
        assert row["dataset"] == "tiny"
        assert set(row["measures"]) == MEASURES
        assert set(row["binding"]) == {"recall", "over_binding"}
        assert set(row["latency_ms"]) == LATENCY
        assert row["n"] == (6 if row["slice"] == "all" else 4)
        assert all(0.0 <= v <= 1.0 for v in row["measures"].values())
    assert len(report["turns"]) == 6 * len(STRATEGIES)
    row = report["turns"][0]
    for key in ("query", "queries", "bindings", "binding", "gold", "retrievers"):
        assert key in row
    assert set(row["retrievers"]) == {"bm25", "dense", "hybrid"}
    assert set(row["retrievers"]["bm25"]) == {"gold_ranks", "measures", "retrieve_ms"}
    assert paths["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = paths["markdown"].read_text()
    assert "## tiny" in md and "fu nDCG@5" in md and "topic-switch" in md


def test_follow_up_slice_is_the_mean_over_turns_after_the_first(cache: Path) -> None:
    report = build_report(_run(cache, FakeEmbedder()))
    for row in report["results"]:
        turns = [
            t["retrievers"][row["retriever"]]
            for t in report["turns"]
            if t["strategy"] == row["strategy"] and (row["slice"] == "all" or t["turn"] > 1)
        ]
        assert len(turns) == row["n"]
        for m in MEASURES:
            expected = sum(t["measures"][m] for t in turns) / len(turns)
            assert row["measures"][m] == pytest.approx(expected, abs=1e-4)


def test_a_gold_never_retrieved_scores_zero_and_is_counted(cache: Path) -> None:
    # p10 ("Theft insurance comes with the annual membership.") shares no word with any
    # query of turn c2<::>3, so BM25 never retrieves it, whatever the strategy.
    report = build_report(_run(cache, FakeEmbedder(), retrievers=(SearchMode.BM25,)))
    rows = [t for t in report["turns"] if t["task_id"] == "c2<::>3"]
    assert len(rows) == len(STRATEGIES)
    for t in rows:
        assert t["retrievers"]["bm25"]["gold_ranks"] == {"p10": None}
        assert set(t["retrievers"]["bm25"]["measures"].values()) == {0.0}
    oracle = next(
        r for r in report["results"] if r["strategy"] == "oracle" and r["slice"] == "followup"
    )
    assert oracle["n"] == 4
    assert oracle["measures"]["R@10"] <= 0.75


def test_binding_and_topic_switch_probes_per_strategy(cache: Path) -> None:
    run = _run(cache, FakeEmbedder(), retrievers=(SearchMode.BM25,))
    report = build_report(run)
    fu = {r["strategy"]: r for r in report["results"] if r["slice"] == "followup"}
    assert fu["oracle"]["binding"] == {"recall": 1.0, "over_binding": 0.0}
    assert fu["raw"]["binding"] == {"recall": 0.0, "over_binding": 0.0}
    assert fu["all_user"]["binding"]["over_binding"] > 0
    probes = {p["strategy"]: p for p in build_details(run)["topic_switch"]}
    # c1<::>3 switches to shop hours: the human carries nothing forward.
    assert probes["oracle"]["n"] == 1
    assert probes["oracle"]["over_binding"] == 0.0
    assert probes["raw"]["over_binding"] == 0.0
    assert probes["all_user"]["over_binding"] == 1.0


def test_second_run_embeds_and_searches_nothing(cache: Path) -> None:
    first = FakeEmbedder()
    run1 = _run(cache, first)
    assert first.texts_embedded > 0
    assert run1.runs[0].index.reused is False
    again = FakeEmbedder()
    run2 = _run(cache, again)
    assert again.calls == 0
    assert run2.runs[0].index.reused is True
    assert run2.runs[0].searches == 0
    assert run2.runs[0].searches_cached == run1.runs[0].searches
    m1 = [r["measures"] for r in build_report(run1)["results"]]
    m2 = [r["measures"] for r in build_report(run2)["results"]]
    assert m1 == m2


def test_another_chunker_re_chunks_the_index_and_searches_again(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run1 = _run(cache, FakeEmbedder())
    monkeypatch.setattr("tellmemore.ingest.chunking.CHUNKER_VERSION", "test-next")
    again = FakeEmbedder()
    run2 = _run(cache, again)
    # the same chunks keep their vectors, but the rankings of the old chunks are not reused
    assert run2.runs[0].index.reused is False and again.texts_embedded == 0
    assert run2.runs[0].searches_cached == 0
    assert run2.runs[0].searches == run1.runs[0].searches


def test_an_interrupted_run_resumes_from_the_rows_written(cache: Path) -> None:
    run1 = _run(cache, FakeEmbedder())
    (rankings,) = (cache / "runs").glob("*-rankings.jsonl")
    lines = rankings.read_text().splitlines()
    kept = len(lines) // 2
    rankings.write_text("\n".join(lines[:kept]) + "\n" + lines[kept][:20])  # torn last line
    run2 = _run(cache, FakeEmbedder())
    assert run2.runs[0].searches == len(lines) - kept
    assert run2.runs[0].searches_cached == kept
    assert [r["measures"] for r in build_report(run2)["results"]] == [
        r["measures"] for r in build_report(run1)["results"]
    ]


def test_skipped_turns_are_counted_in_the_details(cache: Path, tmp_path: Path) -> None:
    data = tmp_path / "data" / "tiny"
    shutil.copytree(TINY, data)
    conv = data / "conversations.jsonl"
    lines = conv.read_text().splitlines()
    record = json.loads(lines[4])
    record["gold"] = ["p404"]
    lines[4] = json.dumps(record)
    conv.write_text("\n".join(lines) + "\n")
    options = EvalOptions(
        strategies=("raw",), retrievers=(SearchMode.BM25,), cache_dir=cache, skip_invalid=True
    )
    run = run_eval([data], settings=Settings.load(), options=options, embedder=FakeEmbedder())
    details = build_details(run, score(run))
    (ds,) = details["datasets"]
    assert ds["turns"] == 5
    assert ds["skipped_turns"] == {"gold id missing from the corpus": 1}
    assert ds["skipped"][0]["line"] == 5


def test_an_index_built_by_another_chunker_version_is_chunked_again(cache: Path) -> None:
    """Another chunker re-chunks every document into the same index: the chunks it cuts
    the same keep their vectors (the pipeline's upsert by id), so nothing is re-embedded
    here, and the meta records the chunker now used."""
    _run(cache, FakeEmbedder(), retrievers=(SearchMode.BM25,))
    (meta,) = (cache / "index").glob("*/meta.json")
    data = json.loads(meta.read_text())
    chunks = data["chunks"]
    data["chunker_version"] = "0"
    meta.write_text(json.dumps(data))
    again = FakeEmbedder()
    run = _run(cache, again, retrievers=(SearchMode.BM25,))
    assert run.runs[0].index.reused is False
    assert again.texts_embedded == 0
    rebuilt = json.loads(meta.read_text())
    assert rebuilt["chunker_version"] != "0"
    assert rebuilt["chunks"] == chunks


def test_an_index_built_by_another_schema_is_rebuilt(cache: Path) -> None:
    _run(cache, FakeEmbedder(), retrievers=(SearchMode.BM25,))
    (meta,) = (cache / "index").glob("*/meta.json")
    data = json.loads(meta.read_text())
    data["schema_version"] = "0"
    meta.write_text(json.dumps(data))
    again = FakeEmbedder()
    run = _run(cache, again, retrievers=(SearchMode.BM25,))
    assert run.runs[0].index.reused is False
    assert again.texts_embedded >= 10


def test_llm_strategy_runs_with_an_endpoint_and_its_resolutions_are_cached(cache: Path) -> None:
    from tellmemore.eval.datasets import load_dataset
    from tellmemore.llm import LLMClient
    from tellmemore.testing.scripted_llm import Reply, ScriptedLLMServer

    followups = [t for t in load_dataset(TINY).turns if t.followup]
    options = EvalOptions(strategies=("llm",), retrievers=(SearchMode.BM25,), cache_dir=cache)
    with ScriptedLLMServer() as server:
        server.enqueue(
            *(
                Reply.json(
                    {"query": t.rewrite, "resolved": {"it": "the subject"}, "ambiguous": False}
                )
                for t in followups
            )
        )
        settings = Settings.load(llm={"base_url": server.base_url, "timeout_s": 2.0})
        reports = []
        for _ in range(2):
            with LLMClient(settings.llm) as client:
                run = run_eval(
                    [TINY], settings=settings, options=options, embedder=FakeEmbedder(), llm=client
                )
            reports.append(build_report(run))
        assert len(server.requests) == len(followups)  # the second run called no model
    assert [r["measures"] for r in reports[0]["results"]] == [
        r["measures"] for r in reports[1]["results"]
    ]
    row = next(t for t in reports[0]["turns"] if t["task_id"] == "c1<::>2")
    assert row["query"] == "Can I get a refund for the monthly pass?"
    assert row["gate"] == "resolve"
    assert row["bindings"] == {"it": "the subject"}
    assert row["binding"]["recall"] == 1.0
