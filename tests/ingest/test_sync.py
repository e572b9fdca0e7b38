"""--sync: renamed and deleted documents leave no orphan; nothing outside the roots is touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import Project, copy_sample


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path / "project")


def test_rename_and_delete_leave_exactly_the_chunks_of_a_clean_ingest(
    project: Project, tmp_path: Path
) -> None:
    corpus = copy_sample(tmp_path / "corpus")
    project.run(corpus)
    (corpus / "cloud-connect" / "sla.md").rename(corpus / "cloud-connect" / "service-levels.md")
    (corpus / "status-page" / "overview.md").unlink()
    (corpus / "bike-rental").rename(corpus / "bikes")

    report = project.run(corpus, sync=True)
    assert report.docs_deleted == 3  # sla.md, status-page/overview.md, bike-rental/policy.md
    assert report.docs_added == 2  # service-levels.md, bikes/policy.md

    clean = Project(tmp_path / "clean")
    clean.run(corpus)
    assert project.snapshot() == clean.snapshot()  # same ids, hashes and vectors: no orphan
    assert project.document_chunk_ids() == set(project.snapshot())
    docs = {r["doc_id"] for r in project.state_rows("SELECT doc_id FROM documents")}
    assert "cloud-connect/sla.md" not in docs and "cloud-connect/service-levels.md" in docs


def test_without_sync_deleted_documents_stay(project: Project, tmp_path: Path) -> None:
    corpus = copy_sample(tmp_path / "corpus")
    first = project.run(corpus)
    (corpus / "status-page" / "overview.md").unlink()
    report = project.run(corpus)
    assert report.docs_deleted == 0
    assert len(project.snapshot()) == first.chunks_added


def test_sync_only_touches_documents_under_the_given_roots(
    project: Project, tmp_path: Path
) -> None:
    a = tmp_path / "a"
    b = tmp_path / "b"
    for folder in (a, b):
        folder.mkdir()
        (folder / f"{folder.name}1.md").write_text(f"# {folder.name} one\n\nText one.\n")
        (folder / f"{folder.name}2.md").write_text(f"# {folder.name} two\n\nText two.\n")
    project.run(a, b)
    (b / "b2.md").unlink()
    (a / "a2.md").unlink()
    report = project.run(a, sync=True)
    assert report.docs_deleted == 1
    docs = {d for d, *_ in project.snapshot().values()}
    assert docs == {"a1.md", "b1.md", "b2.md"}


def test_a_file_that_fails_to_load_is_not_deleted_by_sync(project: Project, tmp_path: Path) -> None:
    corpus = copy_sample(tmp_path / "corpus")
    first = project.run(corpus)
    (corpus / "cloud-connect" / "escalation.md").write_bytes(b"\x00\x00 corrupted by a bad disk")
    report = project.run(corpus, sync=True)
    assert [Path(s.path).name for s in report.skipped] == ["escalation.md"]
    assert report.docs_deleted == 0
    assert len(project.snapshot()) == first.chunks_added


def test_sync_of_a_jsonl_corpus(project: Project, tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    rows = [
        {"id": f"r{i}", "title": f"Record {i}", "text": f"Text of record {i}."} for i in range(5)
    ]
    records.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    project.run(records)
    records.write_text("\n".join(json.dumps(r) for r in rows[:3]) + "\n")
    report = project.run(records, sync=True)
    assert report.docs_deleted == 2
    assert {d for d, *_ in project.snapshot().values()} == {"r0", "r1", "r2"}
    # A damaged line protects the whole file from deletions until it is fixed.
    records.write_text(json.dumps(rows[0]) + "\n{broken\n")
    report = project.run(records, sync=True)
    assert report.docs_deleted == 0 and len(report.skipped) == 1
    assert {d for d, *_ in project.snapshot().values()} == {"r0", "r1", "r2"}


def test_deleting_the_whole_folder_with_sync_empties_it(project: Project, tmp_path: Path) -> None:
    corpus = copy_sample(tmp_path / "corpus")
    project.run(corpus)
    sub = corpus / "status-page"
    for f in sub.iterdir():
        f.unlink()
    report = project.run(corpus, sync=True)
    assert report.docs_deleted == 2
    assert not any(d.startswith("status-page/") for d, *_ in project.snapshot().values())
