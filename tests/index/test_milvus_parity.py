"""SQLite vs milvus-lite on the sample corpus with the real MiniLM: the same behaviour.

The sample index is copied (vectors included) to milvus-lite, then both
engines answer the same searches and the same conversation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tellmemore.assistant import Assistant
from tellmemore.index.base import SearchRequest
from tellmemore.index.copy import copy_index, open_source, open_target
from tellmemore.types import SearchMode

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

pytestmark = [pytest.mark.milvus, pytest.mark.model]

QUERIES = (
    "What does the monthly pass cost?",
    "shop opening hours public holidays",
    "escalation enterprise tier weekend",
    "ERR-4032",
    "router models supported",
    "refund policy for cancelled rentals",
    "status page incident SLA credits",
    "how do I onboard a new site",
    "billing invoice due date",
    "what is the uptime guarantee",
)
REQUESTS = (
    (SearchMode.BM25, "convex"),
    (SearchMode.DENSE, "convex"),
    (SearchMode.HYBRID, "convex"),
    (SearchMode.HYBRID, "rrf"),
)


@pytest.fixture
def both(sample_assistant: Assistant, minilm):  # type: ignore[no-untyped-def]
    settings = sample_assistant.settings
    uri = f"milvus-lite:{Path(settings.project_dir) / 'lite.db'}"
    source = open_source(settings)
    target = open_target(settings, uri, source)
    copy_index(source, target)
    source.close()
    target.close()
    milvus = Assistant(
        settings.model_copy(update={"index": settings.index.model_copy(update={"uri": uri})}),
        embedder=minilm,
    )
    yield sample_assistant, milvus
    milvus.close()


def test_same_rankings_up_to_near_ties(both, minilm) -> None:  # type: ignore[no-untyped-def]
    """BM25 and dense agree on the top hit; hybrid only up to near-ties.

    The engines' BM25 IDF formulas differ (FTS5: log((N-n+.5)/(n+.5)); Milvus:
    log(1+(N-n+.5)/(n+.5))), so two hybrid candidates within a few hundredths
    can swap: each engine's top hybrid hit must be in the other's top two.
    """
    sqlite, milvus = both
    assert milvus.index.engine == "milvus"
    for query in QUERIES:
        vector = minilm.embed_query(query)
        for mode, fusion in REQUESTS:
            request = SearchRequest(query, vector, k=5, mode=mode, fusion=fusion)
            a = [h.chunk.id for h in sqlite.index.search(request)]
            b = [h.chunk.id for h in milvus.index.search(request)]
            context = (query, mode, fusion, a, b)
            if mode is SearchMode.DENSE:
                assert a == b, context
            elif mode is SearchMode.BM25:
                assert a[:1] == b[:1], context
            else:
                assert a[0] in b[:2] and b[0] in a[:2], context
                assert len(set(a) & set(b)) >= 4, context


def test_same_term_statistics(both) -> None:  # type: ignore[no-untyped-def]
    sqlite, milvus = both
    words = sorted({w.strip("?").lower() for q in QUERIES for w in q.split()})
    assert milvus.index.term_stats(words) == sqlite.index.term_stats(words)


def test_same_conversation(both) -> None:  # type: ignore[no-untyped-def]
    answers = []
    for assistant in both:
        chat = assistant.session()
        first = chat.ask("What are the shop opening hours?")
        follow = chat.ask("and on public holidays?")
        answers.append(
            [
                (a.standalone_query, a.answer, [c.id for c in a.citations[:1]])
                for a in (first, follow)
            ]
        )
    assert answers[0] == answers[1]
    assert "10:00 to 16:00" in answers[1][1][1]


def test_same_abstentions(both) -> None:  # type: ignore[no-untyped-def]
    """The two abstention signals read each engine's own hits and term statistics."""
    flags = []
    for assistant in both:
        chat = assistant.session()
        chat.ask("What are the shop opening hours?")
        elsewhere = chat.ask("what is the capital of France?")  # low cosine, no words held
        covered = assistant.session().ask("what changed in version 3.4?")  # low cosine, words
        flags.append((elsewhere.abstained, covered.abstained))
    assert flags == [(True, False), (True, False)]
