"""The Milvus collection of a tellmemore index: its schema, its rows, its filter expressions.

| field | type | why |
| --- | --- | --- |
| `id` | VARCHAR primary key | the stable chunk id; upsert replaces by it |
| `tenant` | VARCHAR, partition key | one tenant's search touches only its partitions |
| `doc_id` | VARCHAR, INVERTED index | reconciliation lists a document's chunks |
| `title`, `version`, `url`, `content_hash` | VARCHAR | citations, skip-unchanged |
| `section`, `metadata` | JSON | the section path and free metadata, round-tripped |
| `text` | VARCHAR | the chunk as written, returned by search |
| `lexical` | VARCHAR, analyzer `standard` | header + text Porter-stemmed, input of BM25 |
| `sparse` | SPARSE_FLOAT_VECTOR, BM25 k1=1.2 b=0.75 | output of `Function(FunctionType.BM25)` |
| `dense` | FLOAT_VECTOR(dim), HNSW M=16, COSINE | unit vectors from the embedder |

Why `lexical` holds stems computed by the client: milvus-lite 3.x has only
the `standard` (regex `\\w+`) and `jieba` tokenizers, no stemming filter, and a
server's `english` analyzer stems with Snowball, not FTS5's Porter. Stemming
with the SQLite index's own tokenizer (`index.terms.Stemmer`) and letting the
`standard` analyzer split on the spaces gives BM25 the same tokens on SQLite,
milvus-lite and a server, and keeps `term_stats` consistent with what BM25
matches. The BM25 function and its sparse index still run inside Milvus.

Filter values are escaped by `quote` (backslash, double quote, line breaks),
never interpolated raw: pymilvus's own `ids=` helpers and its query iterator
do not escape string primary keys (an id with a quote breaks them), so this
backend builds every expression itself.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tellmemore.errors import IndexError_, InputError
from tellmemore.index.base import Vector
from tellmemore.types import Chunk, SearchFilter

SCHEMA_VERSION = "1"
LIMITS = {
    "id": 512,
    "doc_id": 1_024,
    "tenant": 256,
    "title": 2_048,
    "version": 256,
    "url": 4_096,
    "content_hash": 256,
    "text": 65_535,
    "lexical": 65_535,
}
FIELDS = (
    "id",
    "doc_id",
    "tenant",
    "title",
    "section",
    "text",
    "version",
    "url",
    "content_hash",
    "metadata",
)
HNSW = {"M": 16, "efConstruction": 200}
# SQLite FTS5's bm25() constants (Milvus defaults to k1=1.5), so both engines weigh
# term frequency and length alike.
BM25_PARAMS = {"bm25_k1": 1.2, "bm25_b": 0.75}


# -- filter expressions -----------------------------------------------------------------


def quote(value: str) -> str:
    """A Milvus filter string literal for any text: backslash, quotes and line breaks escaped."""
    escaped = (
        value.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\t", "\\t")
    )
    return f'"{escaped}"'


def in_list(field: str, values: Sequence[str]) -> str:
    return f"{field} in [{', '.join(quote(v) for v in values)}]"


_NO_FILTER = SearchFilter()


def filter_expr(
    flt: SearchFilter = _NO_FILTER, *, doc_id: str | None = None, tenant: str | None = None
) -> str:
    """The boolean expression of a search filter (and/or one document or tenant); "" = all."""
    parts = []
    tenant = flt.tenant if tenant is None else tenant
    if tenant is not None:
        parts.append(f"tenant == {quote(tenant)}")
    if doc_id is not None:
        parts.append(f"doc_id == {quote(doc_id)}")
    if flt.doc_ids is not None:
        parts.append(in_list("doc_id", flt.doc_ids))
    return " and ".join(f"({p})" for p in parts)


def and_(*exprs: str) -> str:
    return " and ".join(f"({e})" for e in exprs if e)


# -- the collection ---------------------------------------------------------------------


def schema_and_indexes(
    pm: Any, client: Any, dimension: int, embedder: str | None, *, lite: bool
) -> Any:
    """(schema, index params) of a new collection for vectors of `dimension`.

    pymilvus sends index params as top-level keys, the server's format;
    milvus-lite 3.2 reads them only from a nested `params` JSON, so for lite
    the BM25 constants go nested (otherwise lite silently keeps k1=1.5).
    """
    dt = pm.DataType
    description = json.dumps({"tellmemore": SCHEMA_VERSION, "embedder": embedder or ""})
    schema = pm.MilvusClient.create_schema(
        auto_id=False, enable_dynamic_field=False, description=description
    )
    schema.add_field("id", dt.VARCHAR, is_primary=True, max_length=LIMITS["id"])
    schema.add_field("tenant", dt.VARCHAR, max_length=LIMITS["tenant"], is_partition_key=True)
    for name in ("doc_id", "title", "version", "url", "content_hash", "text"):
        schema.add_field(name, dt.VARCHAR, max_length=LIMITS[name])
    schema.add_field("section", dt.JSON)
    schema.add_field("metadata", dt.JSON)
    schema.add_field(
        "lexical",
        dt.VARCHAR,
        max_length=LIMITS["lexical"],
        enable_analyzer=True,
        analyzer_params={"tokenizer": "standard"},
    )
    schema.add_field("sparse", dt.SPARSE_FLOAT_VECTOR)
    schema.add_field("dense", dt.FLOAT_VECTOR, dim=dimension)
    schema.add_function(
        pm.Function(
            name="lexical_bm25",
            function_type=pm.FunctionType.BM25,
            input_field_names=["lexical"],
            output_field_names=["sparse"],
        )
    )
    params = client.prepare_index_params()
    params.add_index("dense", index_type="HNSW", metric_type="COSINE", params=HNSW)
    params.add_index(
        "sparse",
        index_type="SPARSE_INVERTED_INDEX",
        metric_type="BM25",
        params={"params": BM25_PARAMS} if lite else BM25_PARAMS,
    )
    params.add_index("doc_id", index_type="INVERTED")
    return schema, params


def stored_dimension(info: dict[str, Any], collection: str) -> int:
    """The dense dimension of an existing collection; an error if it is not a tellmemore one."""
    fields = {f["name"]: f for f in info.get("fields", [])}
    missing = {*FIELDS, "lexical", "sparse", "dense"} - fields.keys()
    if missing:
        raise IndexError_(
            f"Milvus collection {collection!r} exists but is not a tellmemore index "
            f"(missing fields {sorted(missing)}); choose another collection (index.collection) "
            "or drop it"
        )
    return int(fields["dense"].get("params", {}).get("dim", 0))


def stored_embedder(info: dict[str, Any]) -> str:
    """The embedder recorded in the collection description (servers keep it; lite drops it)."""
    try:
        value = json.loads(info.get("description") or "{}")
    except ValueError:
        return ""
    return str(value.get("embedder", "")) if isinstance(value, dict) else ""


# -- rows -------------------------------------------------------------------------------


def to_row(chunk: Chunk, lexical: str, vector: Vector) -> dict[str, Any]:
    """The entity of one chunk; a field over Milvus's length limit is an `InputError`."""
    row: dict[str, Any] = {
        "id": chunk.id,
        "doc_id": chunk.doc_id,
        "tenant": chunk.tenant,
        "title": chunk.title,
        "section": list(chunk.section),
        "text": chunk.text,
        "version": chunk.version,
        "url": chunk.url,
        "content_hash": chunk.content_hash,
        "metadata": json.loads(json.dumps(dict(chunk.metadata), default=str)),
        "lexical": lexical,
        "dense": vector.tolist(),
    }
    for name, limit in LIMITS.items():
        size = len(row[name].encode("utf-8"))
        if size > limit:
            raise InputError(
                f"chunk {chunk.id!r}: field {name} is {size} bytes, Milvus's limit for it here "
                f"is {limit}; split the document into smaller chunks (chunking.max_tokens)"
            )
    return row


def to_chunk(entity: dict[str, Any]) -> Chunk:
    return Chunk(
        id=entity["id"],
        doc_id=entity["doc_id"],
        text=entity["text"],
        title=entity["title"],
        section=tuple(entity.get("section") or ()),
        version=entity["version"],
        url=entity["url"],
        tenant=entity["tenant"],
        content_hash=entity["content_hash"],
        metadata=dict(entity.get("metadata") or {}),
    )
