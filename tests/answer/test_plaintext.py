"""Extractive answers quote Markdown sources as plain text."""

from __future__ import annotations

from pathlib import Path

from tellmemore.answer.plaintext import plain_text


def test_links_keep_their_text_and_marks_go() -> None:
    linked = "in addition to the [Holiday List](https://x.org/Holiday%20List.md), 15 days."
    assert plain_text(linked) == "in addition to the Holiday List, 15 days."
    assert plain_text("We do **not** offer a bank of _sick days_.") == (
        "We do not offer a bank of sick days."
    )
    assert plain_text("Run `pip install x` or see <https://x.org>.") == (
        "Run pip install x or see https://x.org."
    )
    assert (
        plain_text("<b>Note:</b> ![logo](a.png) apply [here](#apply).") == "Note: logo apply here."
    )


def test_links_to_site_generator_templates_keep_their_text() -> None:
    """Handbooks built with Jekyll link through Liquid tags, which CommonMark does not read
    as link targets (they hold spaces): the TTS handbook's answers showed them raw."""
    liquid = 'enroll in the [donated leave program]({% page "/travel-and-leave/vltp/" %}). [1]'
    assert plain_text(liquid) == "enroll in the donated leave program. [1]"
    assert plain_text("see [FMLA]({{ site.baseurl }}/fmla/) first") == "see FMLA first"
    tag = 'For help, go to {% slack_channel "training-conferences" %}.{% endif %} [1]'
    assert plain_text(tag) == "For help, go to training-conferences. [1]"
    assert plain_text("a {x} b") == "a {x} b"


def test_half_of_an_emphasis_cut_by_the_sentence_splitter_goes() -> None:
    """The TTS handbook emphasises two sentences at once; each quoted sentence kept one
    underscore, which showed in the answer."""
    assert plain_text("BEFORE YOU BEGIN: _did your dates change?") == (
        "BEFORE YOU BEGIN: did your dates change?"
    )
    assert plain_text("If yes, STOP, and amend it._ [1]") == "If yes, STOP, and amend it. [1]"
    assert plain_text("**Note that this applies.") == "Note that this applies."
    assert plain_text("Use `*args` and my_var_name, or 5 * 3.") == (
        "Use *args and my_var_name, or 5 * 3."
    )
    assert plain_text("a 5* hotel, footnote *2 applies") == "a 5* hotel, footnote *2 applies"


def test_text_without_markup_is_unchanged() -> None:
    for text in (
        "Use snake_case_name and 5 * 3 = 15 for a $5m cap.",
        "Plan: Pro; Price: $299.",
        "Starter (2 sites) costs less than Pro [1]",
    ):
        assert plain_text(text) == text


def test_an_answer_over_a_markdown_handbook_shows_no_markup(project_dir: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    """Real MiniLM, a real SQLite project: the quoted sentences lose their link syntax and
    emphasis, the citation keeps the document."""
    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings

    docs = project_dir / "docs"
    docs.mkdir()
    (docs / "leave.md").write_text(
        "# Vacation and Sick Leave\n\n"
        "In addition to the recognized [Holiday List](https://example.org/holidays.md), "
        "employees get **3 weeks (15 days)** of paid vacation every year.\n\n"
        "Employees also accrue 1 hour of _sick leave_ for every 30 hours of work.\n",
        encoding="utf-8",
    )
    assistant = Assistant(Settings(project_dir=project_dir), embedder=minilm)
    try:
        assistant.ingest([docs])
        answer = assistant.session().ask("How much paid vacation do I get?")
    finally:
        assistant.close()
    assert not answer.abstained
    assert "3 weeks (15 days)" in answer.answer
    assert "](" not in answer.answer and "**" not in answer.answer
    assert answer.citations and answer.citations[0].doc.endswith("leave.md")
