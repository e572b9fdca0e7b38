"""The abstain scorer's threshold on the index's own scale (`answer.own_threshold`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tellmemore.answer import own_threshold
from tellmemore.answer.judge import scored_abstain
from tellmemore.answer.own_threshold import NOTE_KEY, quantile_threshold
from tellmemore.answer.scorer import Scorer
from tellmemore.config import RetrievalSettings
from tellmemore.index.sqlite import SQLiteIndex
from tellmemore.retrieval import Retriever
from tellmemore.testing.conformance import make_chunk
from tellmemore.testing.fakes import FakeEmbedder

from .test_judge import BENEFITS, _evidence


def _by_raw_cos(threshold: float = 0.5) -> Scorer:
    """Abstains the more, the lower the best cosine."""
    return Scorer("abstain", ("raw_cos",), (-4.0,), 0.0, (0.5,), (0.1,), threshold)


def test_the_threshold_is_a_quantile_of_the_own_probes_probabilities() -> None:
    model = _by_raw_cos()
    rows = [{"raw_cos": c} for c in (0.9, 0.8, 0.7, 0.6, 0.5)]
    probs = sorted(model.probability(r) for r in rows)
    assert quantile_threshold(model, rows, 1.0) == pytest.approx(probs[-1])
    assert quantile_threshold(model, rows, 0.5) == pytest.approx(probs[2])
    assert quantile_threshold(model, [], 0.9) == model.threshold  # no probes: its own


def test_the_scorer_abstains_only_above_the_given_threshold() -> None:
    ev = _evidence([])
    model = Scorer("abstain", ("raw_cos",), (0.0,), 0.0, (0.0,), (1.0,), 0.4)  # p = 0.5
    assert scored_abstain(ev, model)
    assert not scored_abstain(ev, model, threshold=0.6)
    assert scored_abstain(ev, model, threshold=0.5)


def _index(tmp_path: Path, emb: FakeEmbedder) -> SQLiteIndex:
    index = SQLiteIndex(tmp_path / "index.db", dimension=emb.dimension)
    chunks = [
        make_chunk(str(i), t, title="Benefits", section=(t.split(":")[0],))
        for i, t in enumerate(BENEFITS)
    ]
    index.upsert(chunks, emb.embed_documents([c.text for c in chunks]))
    return index


def test_the_probes_are_read_once_per_index_change_and_stored_in_it(tmp_path: Path) -> None:
    emb = FakeEmbedder()
    index = _index(tmp_path, emb)
    retriever = Retriever(index, emb, RetrievalSettings())
    rows = own_threshold.for_retriever(retriever).rows()
    assert rows and all("raw_cos" in r and "sentence_rare" in r for r in rows)
    assert max(r["raw_cos"] for r in rows) > 0.5  # its own words find its own chunks
    assert index.get_meta(NOTE_KEY)
    calls = emb.calls
    reopened = SQLiteIndex(tmp_path / "index.db", dimension=emb.dimension)
    again = own_threshold.for_retriever(Retriever(reopened, emb, RetrievalSettings()))
    assert again.rows() == rows
    assert emb.calls == calls  # read from the note, nothing embedded
    extra = make_chunk("9", "Bike leasing: a bike through salary conversion.", title="Bikes")
    reopened.upsert([extra], emb.embed_documents([extra.text]))
    changed = again.rows()
    assert emb.calls > calls + 1  # probed again after the change
    assert len(changed) > len(rows)
    reopened.close()
    index.close()


def test_a_failed_probe_falls_back_to_the_model_s_threshold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    emb = FakeEmbedder()
    index = _index(tmp_path, emb)
    retriever = Retriever(index, emb, RetrievalSettings())

    def broken(*_: object, **__: object) -> list[dict[str, float]]:
        raise RuntimeError("no search")

    monkeypatch.setattr(own_threshold, "probe_features", broken)
    model = _by_raw_cos(0.7)
    assert own_threshold.for_retriever(retriever).threshold(model, 0.9) == 0.7
    assert index.get_meta(NOTE_KEY) is None
    index.close()


def test_probes_that_are_not_words_are_not_asked() -> None:
    """One MTRAG index's headings are passage ids: as probes they read as unanswerable and
    raised its threshold (cloud's own-probe median 0.86 vs clapnq's 0.55)."""
    keep = own_threshold.reads_as_words
    assert not keep("ibmcld_09336-1654-3741")
    assert not keep("err := svc.CreateAccountGroup(opts) if err != nil { panic(err) }")
    assert not keep("")
    assert keep("New Orleans Pelicans")
    assert keep("Urlaub (Ferien)")
    assert keep("enforce a policy so that only signed images can be")
