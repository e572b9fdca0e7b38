"""Milvus uri parsing and filter expressions: pure functions, no pymilvus needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tellmemore.errors import ConfigError
from tellmemore.index.milvus_location import parse_uri
from tellmemore.index.milvus_schema import filter_expr, in_list, quote
from tellmemore.types import SearchFilter


def test_milvus_scheme_becomes_http(tmp_path: Path) -> None:
    where = parse_uri("milvus://db.internal:19530", project_dir=tmp_path, collection="docs")
    assert where.client_uri == "http://db.internal:19530"
    assert not where.is_lite
    assert where.terms_path == tmp_path / "milvus-db_internal_19530_docs.terms.sqlite"


@pytest.mark.parametrize("uri", ["http://localhost:19530", "https://in01-x.zillizcloud.com:443"])
def test_http_uris_are_kept(tmp_path: Path, uri: str) -> None:
    where = parse_uri(uri, project_dir=tmp_path, collection="c")
    assert where.client_uri == uri
    assert where.terms_path.parent == tmp_path


def test_lite_path_and_its_side_table(tmp_path: Path) -> None:
    where = parse_uri(f"milvus-lite:{tmp_path}/x/idx.db", project_dir=tmp_path, collection="c")
    assert where.is_lite
    assert where.client_uri == f"{tmp_path}/x/idx.db"
    assert where.terms_path == tmp_path / "x" / "idx.c.terms.sqlite"


def test_bare_lite_uses_the_project_dir(tmp_path: Path) -> None:
    where = parse_uri("milvus-lite:", project_dir=tmp_path, collection="c")
    assert where.lite_path == tmp_path / "milvus-lite.db"


def test_lite_path_must_end_with_db(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"must end with \.db.*milvus-lite:.*idx\.db"):
        parse_uri("milvus-lite:idx", project_dir=tmp_path, collection="c")


@pytest.mark.parametrize("uri", ["milvus://", "http://", "ftp://x"])
def test_bad_server_uris(tmp_path: Path, uri: str) -> None:
    with pytest.raises(ConfigError, match=r"index\.uri"):
        parse_uri(uri, project_dir=tmp_path, collection="c")


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        ("plain", '"plain"'),
        ('say "hi"', '"say \\"hi\\""'),
        ("back\\slash", '"back\\\\slash"'),
        ("two\nlines\r\tend", '"two\\nlines\\r\\tend"'),
        ("ünï 東京", '"ünï 東京"'),
        ("' or 1==1 or '", "\"' or 1==1 or '\""),
    ],
)
def test_quote_escapes(value: str, literal: str) -> None:
    assert quote(value) == literal


def test_filter_expressions() -> None:
    assert filter_expr() == ""
    assert filter_expr(SearchFilter(tenant="acme")) == '(tenant == "acme")'
    assert filter_expr(SearchFilter(tenant="a", doc_ids=("d1", 'd"2'))) == (
        '(tenant == "a") and (doc_id in ["d1", "d\\"2"])'
    )
    assert filter_expr(doc_id="d", tenant="") == '(tenant == "") and (doc_id == "d")'
    assert in_list("id", []) == "id in []"


@pytest.mark.parametrize(
    ("uri", "module"),
    [("milvus://localhost:19530", "pymilvus"), ("milvus-lite:x.db", "milvus_lite")],
)
def test_without_the_extra_the_error_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, uri: str, module: str
) -> None:
    import sys

    from tellmemore.config import Settings
    from tellmemore.errors import MissingDependencyError
    from tellmemore.index import open_index

    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    settings = Settings.load(tmp_path, index={"uri": uri})
    with pytest.raises(MissingDependencyError, match=r"pip install 'tellmemore\[milvus\]'"):
        open_index(settings, dimension=8)
