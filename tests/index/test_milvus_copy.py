"""`tellmemore index copy`: SQLite <-> milvus-lite, no re-embedding, resumable (`-m milvus`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from tellmemore.cli.index_copy import copy_command
from tellmemore.config import Settings
from tellmemore.errors import ConfigError
from tellmemore.index.base import Index, SearchRequest
from tellmemore.index.copy import copy_index, export_batches, open_source, open_target
from tellmemore.index.milvus import MilvusIndex
from tellmemore.index.sqlite import SQLiteIndex
from tellmemore.testing.fakes import FakeEmbedder
from tellmemore.types import Chunk, SearchMode

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

pytestmark = pytest.mark.milvus

N = 40


def chunks(n: int = N, *, edit: int | None = None) -> list[Chunk]:
    out = []
    for i in range(n):
        text = f"Note {i} on topic{i % 5}: weekend support rule {i}."
        if i == edit:
            text += " Changed."
        out.append(
            Chunk(
                id=f"c{i:03d}",
                doc_id=f"d{i // 4}",
                text=text,
                title="Manual",
                section=("Part", str(i % 3)),
                tenant="acme" if i % 2 else "globex",
                content_hash=f"h{i}-{edit == i}",
                metadata={"n": i},
            )
        )
    return out


@pytest.fixture
def source(project_dir: Path) -> SQLiteIndex:
    emb = FakeEmbedder()
    index = SQLiteIndex(project_dir / "index.db", dimension=emb.dimension, embedder=emb.name)
    items = chunks()
    index.upsert(items, emb.embed_documents([c.text for c in items]))
    index.close()
    return index


def lite_uri(project_dir: Path) -> str:
    return f"milvus-lite:{project_dir / 'lite.db'}"


def vectors(index: Index) -> dict[str, np.ndarray]:
    return {c.id: v for batch in export_batches(index, 7) for c, v in batch}


def test_copy_moves_chunks_and_vectors_without_embedding(
    project_dir: Path, source: SQLiteIndex
) -> None:
    settings = Settings.load(project_dir)
    src = open_source(settings)
    dst = open_target(settings, lite_uri(project_dir), src)
    try:
        assert isinstance(dst, MilvusIndex)
        assert (dst.dimension, dst.embedder_name) == (64, "fake-hashing-64")
        seen: list[tuple[int, int]] = []
        report = copy_index(src, dst, batch_size=16, progress=lambda d, t: seen.append((d, t)))
        assert (report.total, report.copied, report.skipped) == (N, N, 0)
        assert seen == [(0, N), (16, N), (32, N), (N, N)]
        assert dst.ids() == src.ids()
        assert dst.get(["c007"]) == src.get(["c007"])  # every field round-trips
        want, got = vectors(src), vectors(dst)
        assert list(got) == sorted(want)  # exported in id order
        for cid, vec in want.items():
            np.testing.assert_allclose(got[cid], vec, atol=1e-6)
        assert dst.term_stats(["topic3", "weekend", "notes"]) == src.term_stats(
            ["topic3", "weekend", "notes"]
        )
        q = FakeEmbedder().embed_query("topic3 rule 13")
        for mode in SearchMode:
            request = SearchRequest("topic3 rule 13", q, k=3, mode=mode)
            assert dst.search(request)[0].chunk.id == src.search(request)[0].chunk.id == "c013"
    finally:
        src.close()
        dst.close()


def test_interrupted_copy_resumes_and_then_sends_only_changes(
    project_dir: Path, source: SQLiteIndex
) -> None:
    settings = Settings.load(project_dir)
    src = open_source(settings)
    dst = open_target(settings, lite_uri(project_dir), src)

    def stop_after_two_batches(done: int, total: int) -> None:
        if done >= 20:
            raise KeyboardInterrupt

    try:
        with pytest.raises(KeyboardInterrupt):
            copy_index(src, dst, batch_size=10, progress=stop_after_two_batches)
        assert sorted(dst.ids()) == [f"c{i:03d}" for i in range(20)]  # the first batches, in order
        resumed = copy_index(src, dst, batch_size=10)
        assert (resumed.copied, resumed.skipped) == (20, 20)
        assert dst.ids() == src.ids()

        emb = FakeEmbedder()
        changed = chunks(edit=3)[3]
        src.upsert([changed], emb.embed_documents([changed.text]))
        src.delete(["c039"])
        again = copy_index(src, dst, batch_size=10, prune=True)
        assert (again.copied, again.skipped, again.pruned) == (1, N - 2, 1)
        assert dst.ids() == src.ids()
        assert dst.get(["c003"])[0].text.endswith("Changed.")
    finally:
        src.close()
        dst.close()


def test_switch_back_from_milvus_to_sqlite(project_dir: Path, source: SQLiteIndex) -> None:
    settings = Settings.load(project_dir)
    src = open_source(settings)
    lite = open_target(settings, lite_uri(project_dir), src)
    copy_index(src, lite)
    src.close()
    lite.close()
    milvus_settings = Settings.load(project_dir, index={"uri": lite_uri(project_dir)})
    back_src = open_source(milvus_settings)
    back = open_target(milvus_settings, str(project_dir / "back.db"), back_src)
    try:
        assert isinstance(back, SQLiteIndex)
        report = copy_index(back_src, back)
        assert (report.copied, report.total) == (N, N)
        assert back.embedder_name == "fake-hashing-64"
        original = SQLiteIndex(project_dir / "index.db", dimension=64)
        assert back.ids() == original.ids()
        assert back.get(["c011", "c012"]) == original.get(["c011", "c012"])
        for cid, vec in vectors(original).items():
            np.testing.assert_allclose(vectors(back)[cid], vec, atol=1e-6)
        original.close()
    finally:
        back_src.close()
        back.close()


def test_copy_onto_itself_is_refused(project_dir: Path, source: SQLiteIndex) -> None:
    settings = Settings.load(project_dir)
    src = open_source(settings)
    try:
        for uri in (str(project_dir / "index.db"), f"sqlite:{project_dir / 'index.db'}"):
            with pytest.raises(ConfigError, match="is the source index itself"):
                open_target(settings, uri, src)
    finally:
        src.close()


def cli() -> typer.Typer:
    app = typer.Typer()
    app.command("copy")(copy_command)

    @app.callback()
    def main() -> None:
        """tellmemore index."""

    return app


def test_cli_copy_json_and_rerun(project_dir: Path, source: SQLiteIndex) -> None:
    runner = CliRunner()
    args = ["copy", "--project", str(project_dir), "--to", lite_uri(project_dir), "--json"]
    first = runner.invoke(cli(), args)
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert (report["total"], report["copied"], report["skipped"]) == (N, N, 0)
    assert report["target"] == lite_uri(project_dir)
    second = runner.invoke(cli(), args)
    assert json.loads(second.stdout)["skipped"] == N


def test_cli_copy_prints_how_to_switch(project_dir: Path, source: SQLiteIndex) -> None:
    target = lite_uri(project_dir)
    result = CliRunner().invoke(cli(), ["copy", "-p", str(project_dir), "--to", target])
    assert result.exit_code == 0, result.output
    assert f"Copied {N} chunks" in result.stdout
    assert "TELLMEMORE_INDEX__URI=" in result.stdout


def test_cli_without_an_index_fails_with_the_fix(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli(), ["copy", "-p", str(tmp_path), "--to", "x.db"])
    assert result.exit_code != 0
    assert "ingest documents first" in str(result.exception)
