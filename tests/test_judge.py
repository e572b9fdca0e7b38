"""Answer, ask back or abstain (issue 22): the features, the calibration, the scorer, and
fusion that does not turn weak dense hits into signal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tellmemore.answer import answer_types, answerability, calibration, clarify
from tellmemore.answer.calibration import NOTE_KEY, Calibration, Calibrator
from tellmemore.answer.judge import Action, TurnEvidence, judge
from tellmemore.answer.scorer import Scorer, fit, load_scorer
from tellmemore.conversation.realize.clarify import parse_clarification
from tellmemore.index import fusion
from tellmemore.index.sqlite import SQLiteIndex
from tellmemore.testing.conformance import make_chunk
from tellmemore.testing.fakes import FakeEmbedder
from tellmemore.types import Chunk, Hit, Resolution, Turn

from .conversation.histories import corpus_stats

CAL = Calibration(
    generation=1, chunks=10, own_p25=0.5, own_p50=0.6, foreign_p50=0.2, foreign_p90=0.3
)
BENEFITS = [
    "Health reimbursement: the company refunds 80% of prescription costs.",
    "Coworking stipend: up to 150 EUR a month for a coworking desk.",
    "Dental insurance covers two check-ups a year.",
]


def hit(text: str, dense: float, rank: int = 1, **fields: object) -> Hit:
    return Hit(chunk=make_chunk(str(rank), text, **fields), score=dense, rank=rank, dense=dense)


def test_a_rare_bm25_match_is_not_outranked_by_uniformly_weak_dense_hits() -> None:
    """ "who's my buddy?": the chunks holding "buddy" have a strong BM25 score; every dense
    hit sits at 0.14-0.20, noise in this index. Min-max made that noise reach 1.0."""
    bm25 = [("buddy", 6.3), ("onboarding", 1.0), ("noise-1", 0.9)]
    dense = [("noise-1", 0.20), ("noise-2", 0.18), ("noise-3", 0.16), ("buddy", 0.14)]
    plain = fusion.convex(bm25, dense, 0.35)
    floored = fusion.convex(bm25, dense, 0.35, dense_floor=0.3)
    assert plain[0][0] == "noise-1"  # the failure the floor fixes
    assert floored[0][0] == "buddy"
    strong = [("a", 0.8), ("b", 0.5)]  # above the floor: min-max as before
    assert fusion.convex([], strong, 0.35, dense_floor=0.3) == fusion.convex([], strong, 0.35)


def test_the_fusion_floor_applies_only_where_own_probes_clear_the_noise() -> None:
    """An encyclopedia's everyday questions score as high as its own (MTRAG clapnq: foreign
    p90 0.66, own median 0.62): a floor there would scale its typical good match down as
    noise. A handbook's own probes clear the foreign ones by far: the floor applies."""
    wiki = Calibration(
        generation=1, chunks=9, own_p25=0.51, own_p50=0.62, foreign_p50=0.43, foreign_p90=0.66
    )
    handbook = Calibration(
        generation=1, chunks=9, own_p25=0.5, own_p50=0.7, foreign_p50=0.2, foreign_p90=0.3
    )
    near = Calibration(  # own median less than FLOOR_SPAN above the foreign p90
        generation=1, chunks=9, own_p25=0.3, own_p50=0.35, foreign_p50=0.2, foreign_p90=0.3
    )
    assert wiki.fusion_floor is None
    assert near.fusion_floor is None
    assert handbook.fusion_floor == handbook.weak_dense == 0.3
    bm25 = [("rare-word", 6.3)]
    weak = [("noise", 0.25), ("rare-word", 0.20)]  # under the handbook's noise level
    plain = fusion.convex(bm25, weak, 0.35)
    assert fusion.convex(bm25, weak, 0.35, dense_floor=wiki.fusion_floor) == plain
    assert plain[0][0] == "noise"
    assert fusion.convex(bm25, weak, 0.35, dense_floor=handbook.fusion_floor)[0][0] == "rare-word"


def test_the_typed_floor_sits_between_noise_and_the_own_median() -> None:
    """A handbook's floor is part of the way from what unrelated questions reach to what its
    own probes reach; an encyclopedia whose everyday questions score as high as its own
    (MTRAG clapnq) puts it above its noise, so a typed follow-up rarely clears it there."""
    handbook = Calibration(
        generation=1, chunks=9, own_p25=0.5, own_p50=0.7, foreign_p50=0.2, foreign_p90=0.3
    )
    wiki = Calibration(
        generation=1, chunks=9, own_p25=0.51, own_p50=0.62, foreign_p50=0.43, foreign_p90=0.66
    )
    assert handbook.typed_floor == pytest.approx(0.3 + calibration.TYPED_SHARE * 0.4)
    assert 0.3 < handbook.typed_floor < 0.7
    assert wiki.typed_floor == pytest.approx(0.66 + calibration.TYPED_SHARE * calibration.MIN_SPAN)


def test_the_calibration_is_stored_in_the_index_and_refreshed_when_it_changes(
    tmp_path: Path,
) -> None:
    emb = FakeEmbedder()
    index = SQLiteIndex(tmp_path / "index.db", dimension=emb.dimension)
    chunks = [
        make_chunk(str(i), t, title="Benefits", section=(t.split(":")[0],))
        for i, t in enumerate(BENEFITS)
    ]
    index.upsert(chunks, emb.embed_documents([c.text for c in chunks]))
    calls = emb.calls
    first = Calibrator(index, emb).get()
    probing = emb.calls - calls
    assert first.generation == index.generation
    assert first.own_p50 > first.foreign_p90  # its own words are closer than foreign ones
    stored = Calibration.from_json(index.get_meta(NOTE_KEY) or "")
    assert stored == first
    # another process opening the index reads the note instead of probing again
    reopened = SQLiteIndex(tmp_path / "index.db", dimension=emb.dimension)
    assert Calibrator(reopened, emb).get() == first
    assert emb.calls == calls + probing  # no probe embedded again
    extra = make_chunk("9", "Bike leasing: a bike through salary conversion.", title="Bikes")
    reopened.upsert([extra], emb.embed_documents([extra.text]))
    again = Calibrator(reopened, emb).get()
    assert again.generation == reopened.generation != first.generation
    assert again.chunks == 4
    reopened.close()
    index.close()


def test_a_small_index_is_probed_whole_so_one_new_chunk_moves_no_other_probe(
    tmp_path: Path,
) -> None:
    """48 probes drawn at random, seeded by the chunk count, made one chunk more in a
    211-chunk handbook redraw them all (own median 0.598 -> 0.648, and its abstentions
    with it). A handbook-sized index is probed whole: every leaf heading, one fragment of
    every chunk, each chosen by the chunk's own id."""
    emb = FakeEmbedder()
    index = SQLiteIndex(tmp_path / "index.db", dimension=emb.dimension)
    long_texts = [
        f"Policy {i}: employees may request this benefit in writing from their manager, "
        f"who answers within {i + 2} working days and records the decision for payroll."
        for i in range(30)
    ]
    chunks = [
        make_chunk(str(i), t, title="Handbook", section=(f"Policy {i}",))
        for i, t in enumerate(long_texts)
    ]
    index.upsert(chunks, emb.embed_documents([c.text for c in chunks]))
    before = calibration.own_probes(index)
    assert len(before) == 60  # 30 headings + 30 fragments: all of them
    extra = make_chunk("x", "Bike leasing: a bike through salary conversion, paid monthly.")
    index.upsert([extra], emb.embed_documents([extra.text]))
    after = calibration.own_probes(index)
    assert set(before) < set(after)
    assert len(after) - len(before) <= 2  # its heading and its fragment, nothing else
    index.close()


def test_the_gap_names_the_rare_word_no_passage_holds() -> None:
    """A gym membership is not a health reimbursement, however close the vectors are."""
    stats = corpus_stats(BENEFITS)
    hits = [hit(t, 0.45, i + 1) for i, t in enumerate(BENEFITS)]
    q = "do we get a gym membership reimbursement?"
    gap = answerability.gap([q], hits, stats(["gym", "membership", "reimburs"]))
    assert gap.words[:2] in (("gym", "membership"), ("membership", "gym"))
    assert gap.rarity == pytest.approx(1.0)
    covered = answerability.gap(["what is the coworking stipend?"], hits, None)
    assert covered.words == () and covered.rarity == 0.0


def test_a_question_for_a_number_needs_a_number_in_the_evidence() -> None:
    q = "how many days of parental leave do we get?"
    prose = [hit("Parental leave is granted to every employee who asks HR.", 0.6)]
    counted = [hit("Parental leave lasts 20 days, paid in full.", 0.6)]
    f = answerability.features([q], prose, {q: prose}, corpus_stats(BENEFITS), CAL)
    g = answerability.features([q], counted, {q: counted}, corpus_stats(BENEFITS), CAL)
    assert f["type_missing"] == 1.0 and g["type_missing"] == 0.0
    assert f["cos"] == pytest.approx(1.0)  # 0.6 is this index's own median


def test_the_abstention_names_what_is_near_and_what_is_missing() -> None:
    hits = [
        hit(BENEFITS[1], 0.45, 1, title="Handbook", section=("Coworking stipend",)),
        hit(BENEFITS[0], 0.44, 2, title="Handbook", section=("Health reimbursement",)),
    ]
    text = answerability.abstention(["what about a phone stipend?"], hits, None)
    assert text.startswith(
        "I found Coworking stipend and Health reimbursement in the documents, "
        "but nothing about phone."
    )
    assert "Try asking about one of those" in text
    mongolia = answerability.abstention(["What is the capital of Mongolia?"], hits, None)
    assert "but nothing about capital of Mongolia." in mongolia
    # what is missing reads as a phrase, not as the rest of the question's clause
    probation = answerability.abstention(["How long is the probation period?"], hits, None)
    assert "but nothing about probation period." in probation


def test_the_abstention_names_only_a_thing_as_missing() -> None:
    """A verb or an adverb the passages happen not to use is no subject the documents lack:
    "nothing about keeps" becomes "nothing that answers this"; a missing noun is named."""
    hits = [
        hit(BENEFITS[1], 0.30, 1, title="Handbook", section=("Coworking stipend",)),
        hit(BENEFITS[0], 0.29, 2, title="Handbook", section=("Health reimbursement",)),
    ]
    for question in (
        "Who keeps the coworking stipend?",
        "what do I have to agree to afterwards?",
    ):
        text = answerability.abstention([question], hits, None)
        assert "but nothing that answers this." in text, question
    named = answerability.abstention(["Does the stipend cover a treadmill?"], hits, None)
    assert "but nothing about treadmill." in named


COUNTIES = ["Alameda County", "Ventura County", "Tuolumne County"]


def _county_hits() -> list[Hit]:
    return [
        hit(f"{c} has a median household income of {60 + i} thousand dollars.", 0.5, i + 1,
            title=c)
        for i, c in enumerate(COUNTIES)
    ]  # fmt: skip


def test_several_unnamed_subjects_are_offered_and_the_reply_path_reads_them_back() -> None:
    q = "How wealthy is this county of California?"
    hits = _county_hits()
    f = clarify.features(q, [], Resolution(query=q), hits, 0.9)
    assert f["subjects"] == 3 and f["unnamed"] == 1.0 and f["top_unnamed"] == 1.0
    assert f["referent"] == 1.0  # "this county", bound to nothing
    options = clarify.options(q, [], hits)
    assert options == COUNTIES
    assert parse_clarification(clarify.question(options)) == COUNTIES


def test_a_subject_the_conversation_names_is_not_offered() -> None:
    q = "How wealthy is it?"
    history = [Turn("user", "tell me about Ventura County"), Turn("assistant", "It is ...")]
    f = clarify.features(q, history, Resolution(query=q), _county_hits(), 0.9)
    assert f["unnamed"] == pytest.approx(2 / 3)
    assert clarify.options(q, history, _county_hits()) == ["Alameda County", "Tuolumne County"]


def _always(name: str, features: tuple[str, ...]) -> Scorer:
    n = len(features)
    return Scorer(name, features, (0.0,) * n, 10.0, (0.0,) * n, (1.0,) * n, 0.5)


def _never(name: str, features: tuple[str, ...]) -> Scorer:
    n = len(features)
    return Scorer(name, features, (0.0,) * n, -10.0, (0.0,) * n, (1.0,) * n, 0.5)


def _evidence(history: list[Turn], **kw: object) -> TurnEvidence:
    q = "How wealthy is this county of California?"
    hits = _county_hits()
    return TurnEvidence(
        message=q,
        history=history,
        resolution=Resolution(query=q),
        hits=hits,
        per_query={q: hits},
        asked=[q],
        term_stats=None,
        calibration=CAL,
        **kw,  # type: ignore[arg-type]
    )


def test_the_judge_asks_back_once_and_never_on_a_corrected_search() -> None:
    ask = _always("clarify", clarify.FEATURES)
    rule = judge(
        _evidence([]),
        abstain_model=_never("abstain", answerability.FEATURES),
        clarify_model=_never("clarify", clarify.FEATURES),
    )  # "this county" with three counties on top: the rule asks, whatever the scorer says
    assert rule.action is Action.CLARIFY and rule.text.startswith("Which county?")
    too_far = judge(
        _evidence([]),
        abstain_model=_always("abstain", answerability.FEATURES),
        clarify_model=_never("clarify", clarify.FEATURES),
    )  # evidence too far to answer is too far to offer its subjects
    assert too_far.action is Action.ABSTAIN
    keep = _never("abstain", answerability.FEATURES)
    v = judge(_evidence([]), abstain_model=keep, clarify_model=ask)
    assert v.action is Action.CLARIFY and v.options == tuple(COUNTIES)
    history = [Turn("user", "how wealthy?"), Turn("assistant", v.text)]
    again = judge(_evidence(history), abstain_model=keep, clarify_model=ask)
    assert again.action is Action.ANSWER  # the last answer asked already
    forced = judge(_evidence([], may_clarify=False), abstain_model=keep, clarify_model=ask)
    assert forced.action is Action.ANSWER
    out = judge(
        _evidence([], may_clarify=False),
        abstain_model=_always("abstain", answerability.FEATURES),
        clarify_model=_never("clarify", clarify.FEATURES),
    )
    assert out.action is Action.ABSTAIN and out.text.startswith("I found")
    assert set(out.features) >= {f"abstain.{f}" for f in answerability.FEATURES}


def test_nothing_retrieved_abstains() -> None:
    ev = _evidence([])
    empty = TurnEvidence(**{**ev.__dict__, "hits": [], "per_query": {}})
    assert judge(empty).action is Action.ABSTAIN


def test_the_fitted_threshold_bounds_the_false_rate_on_the_fitting_data() -> None:
    xs = [[i / 100] for i in range(100)]
    ys = [i >= 70 for i in range(100)]
    ys[10] = ys[20] = ys[35] = True  # noise
    model = fit("m", ("x",), xs, ys, max_positive_rate=0.05)
    false = sum(model.decide({"x": x[0]}) for x, y in zip(xs, ys, strict=True) if not y)
    assert false <= 0.05 * sum(not y for y in ys)
    assert model.decide({"x": 0.95}) and not model.decide({"x": 0.05})
    assert Scorer.from_json(json.loads(json.dumps(model.to_json()))).decide({"x": 0.95})


def test_subjects_are_sections_when_the_passages_share_one_title() -> None:
    hits = [
        Hit(Chunk(id=f"c{i}", doc_id="hb", text=t, title="Handbook", section=(s,)), 1.0, i + 1)
        for i, (s, t) in enumerate([("Health", "a"), ("Dental", "b"), ("Health", "c")])
    ]
    assert [s.name for s in clarify.subjects(hits)] == ["Health", "Dental"]


def test_the_retriever_fuses_against_the_index_s_noise_level(tmp_path: Path) -> None:
    from tellmemore.config import RetrievalSettings
    from tellmemore.retrieval import Retriever

    emb = FakeEmbedder()
    index = SQLiteIndex(tmp_path / "index.db", dimension=emb.dimension)
    chunks = [make_chunk(str(i), t) for i, t in enumerate(BENEFITS)]
    index.upsert(chunks, emb.embed_documents([c.text for c in chunks]))
    seen: list[float | None] = []
    search = index.search

    def spy(request):  # type: ignore[no-untyped-def]
        if request.text.startswith("dental"):  # not the calibration's own probes
            seen.append(request.dense_floor)
        return search(request)

    index.search = spy  # type: ignore[method-assign]
    Retriever(index, emb, RetrievalSettings(calibrated_fusion=True)).search(["dental check-ups"])
    floor = Calibrator(index, emb).get().fusion_floor
    Retriever(index, emb, RetrievalSettings(calibrated_fusion=False)).search(["dental"])
    Retriever(index, emb, RetrievalSettings(mode="bm25")).search(["dental"])
    assert seen == [floor, None, None]
    index.close()


def test_a_sentence_that_says_what_is_asked_is_sharper_than_its_passage() -> None:
    """The passage matches the topic; one of its sentences matches the question."""
    emb = FakeEmbedder()
    passage = (
        "The protests lasted three weeks in the capital. Crowds filled the main square. "
        "Police arrested 42 people during the protests."
    )
    hits = [Hit(make_chunk("p", passage), 0.4, 1, dense=0.4)]
    q = "how many people were arrested during the protests?"
    got = answerability.sentence_match([q], hits, emb.embed_documents, CAL, 0.4)
    other = answerability.sentence_match(
        ["which hotels are close to the square?"], hits, emb.embed_documents, CAL, 0.4
    )
    assert got["sentence_gain"] > other["sentence_gain"]
    assert got["sentence_cos"] > other["sentence_cos"]
    assert answerability.sentence_match([q], hits, None, CAL, 0.4) == {
        "sentence_cos": 0.0,
        "sentence_gain": 0.0,
    }


def test_the_shipped_models_read_the_features_the_judge_computes() -> None:
    assert load_scorer("abstain_model").features == answerability.FEATURES
    assert load_scorer("clarify_model").features == clarify.FEATURES
    with pytest.raises(ValueError, match="needs features"):
        load_scorer("abstain_model").probability({"cos": 0.1})


def _chunk_hit(i: int, doc_id: str, title: str, section: tuple[str, ...] = ()) -> Hit:
    chunk = Chunk(id=f"c{i}", doc_id=doc_id, text="text", title=title, section=section)
    return Hit(chunk, 1.0, i + 1)


def test_sections_of_two_handbooks_of_one_title_are_told_apart() -> None:
    """Two documents titled "Handbook" (2023, 2024), each with a health policy: two
    subjects, not one "Health"."""
    hits = [
        _chunk_hit(0, "hr/handbook-2023.md", "Handbook", ("Health",)),
        _chunk_hit(1, "hr/handbook-2024.md", "Handbook", ("Health",)),
        _chunk_hit(2, "hr/handbook-2024.md", "Handbook", ("Dental",)),
    ]
    assert [s.name for s in clarify.subjects(hits)] == [
        "Health (handbook-2023)",
        "Health (handbook-2024)",
        "Dental",
    ]


def test_distinct_documents_of_one_title_are_told_apart_by_their_path() -> None:
    hits = [
        _chunk_hit(0, "alameda/parks.md", "Parks"),
        _chunk_hit(1, "ventura/parks.md", "Parks"),
        _chunk_hit(2, "alameda/parks.md", "Parks"),
    ]
    names = [s.name for s in clarify.subjects(hits)]
    assert names == ["Parks (alameda)", "Parks (ventura)"]
    options = clarify.options("Which parks does this county run?", [], hits)
    assert parse_clarification(clarify.question(options)) == names


def test_subjects_of_several_titles_are_the_titles() -> None:
    hits = [
        _chunk_hit(0, "a.md", "Alameda County", ("Economy",)),
        _chunk_hit(1, "a.md", "Alameda County", ("Parks",)),
        _chunk_hit(2, "v.md", "Ventura County", ("Economy",)),
    ]
    assert [s.name for s in clarify.subjects(hits)] == ["Alameda County", "Ventura County"]


def test_passages_of_one_article_with_opaque_ids_are_one_subject() -> None:
    hits = [_chunk_hit(i, f"8220862{i}_0-734", "Bonnie Parker") for i in range(3)]
    assert [s.name for s in clarify.subjects(hits)] == ["Bonnie Parker"]


def test_untitled_passages_with_opaque_ids_offer_nothing_to_choose() -> None:
    """MTRAG's cloud passages have no title: "Do you mean ibmcld_04178-7-2164?" is no
    question to ask, nor "I found ibmcld_..." an abstention to give."""
    ids = [f"ibmcld_0417{i}-7-2164" for i in range(3)]
    hits = [_chunk_hit(i, d, "") for i, d in enumerate(ids)]
    hits += [_chunk_hit(i + 3, d, d) for i, d in enumerate(ids)]  # titled by their id
    assert clarify.subjects(hits) == []
    assert clarify.options("How can we enhance its performance?", [], hits) == []
    text = answerability.abstention(["How can we enhance its performance?"], hits)
    assert "ibmcld" not in text


def test_the_best_sentence_must_hold_the_rare_words_together() -> None:
    """ "Is Cloud Shell free?" over a passage naming Cloud Shell in one sentence and
    "free" of another thing in the next: the passage holds the words, no sentence does."""
    q = "is the cloud shell workspace free?"
    stats = corpus_stats([*BENEFITS, "Cloud Shell gives a workspace.", "Storage is free."])
    apart = [hit("Cloud Shell gives you a workspace in the browser. Storage is free.", 0.6)]
    together = [hit("The Cloud Shell workspace is free for every account.", 0.6)]
    held_apart, _ = answerability.best_sentence([q], apart, stats)
    held_together, _ = answerability.best_sentence([q], together, stats)
    assert held_together == pytest.approx(1.0)
    assert held_apart < held_together
    assert answerability.rare_held([q], apart, stats) == pytest.approx(1.0)  # the passage does


def test_the_best_sentence_must_state_the_asked_kind_of_value() -> None:
    q = "how many days of parental leave do we get?"
    kind = answer_types.asked_type(q)
    stats = corpus_stats(BENEFITS)
    prose = [hit("Parental leave is granted on request. Sick days are 12 a year.", 0.6)]
    counted = [hit("Parental leave lasts 20 days, paid in full.", 0.6)]
    assert answerability.best_sentence([q], prose, stats, kind)[1] == 1.0
    assert answerability.best_sentence([q], counted, stats, kind)[1] == 0.0
    assert answerability.best_sentence([q], prose, stats, None)[1] == 0.0  # no value asked


def test_the_margin_and_the_bm25_score_are_read_off_the_top_hits() -> None:
    q = "what is the coworking stipend?"
    hits = [
        Hit(make_chunk(str(i), t), 0.5, i + 1, bm25=b, dense=d)
        for i, (t, b, d) in enumerate(
            zip(
                BENEFITS * 2,
                [7.5, None, 2.0, 1.0, None, 0.5],
                [0.7, 0.5, 0.45, 0.4, 0.3, 0.2],
                strict=True,
            )
        )
    ]
    f = answerability.features([q], hits, {q: hits}, corpus_stats(BENEFITS), CAL)
    assert f["dense_margin"] == pytest.approx(0.7 - 0.3)  # the best minus the fifth
    assert f["bm25_top"] == pytest.approx(7.5)
    none = answerability.features([q], hits[1:2], {q: hits[1:2]}, None, CAL)
    assert none["bm25_top"] == 0.0 and none["dense_margin"] == 0.0


def test_the_abstention_quotes_two_subjects_whose_names_hold_an_and() -> None:
    """ "Exercise Prices and 409a Valuations and Salary and Equity Compensation" reads as
    four things; quoted, as two. Names without an "and" stay bare."""
    hits = [
        hit(BENEFITS[1], 0.30, 1, title="Equity", section=("Exercise Prices and Valuations",)),
        hit(BENEFITS[0], 0.29, 2, title="Pay", section=("Salary and Equity",)),
    ]
    text = answerability.abstention(["what's the strike price?"], hits, None)
    assert text.startswith("I found “Exercise Prices and Valuations” and “Salary and Equity” in")
    plain = [
        hit(BENEFITS[1], 0.30, 1, title="Handbook", section=("Coworking stipend",)),
        hit(BENEFITS[0], 0.29, 2, title="Handbook", section=("Health reimbursement",)),
    ]
    assert answerability.abstention(["what's the strike price?"], plain, None).startswith(
        "I found Coworking stipend and Health reimbursement in"
    )
