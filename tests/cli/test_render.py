"""The terminal view of an Answer: its sources with pages, and what fell back."""

from __future__ import annotations

from rich.console import Console

from tellmemore.cli.render import print_answer
from tellmemore.types import Answer, Citation


def _printed(answer: Answer) -> str:
    console = Console(record=True, width=200)
    print_answer(console, answer)
    return console.export_text()


def test_a_pdf_source_shows_its_pages() -> None:
    cited = (
        Citation(id="a", doc="r.pdf", title="Routers", pages=(2,)),
        Citation(id="b", doc="h.pdf", title="Handbook", pages=(4, 5)),
        Citation(id="c", doc="p.md", title="Pricing"),
    )
    out = _printed(Answer(trace_id="t", answer="Skip 7.3 [1].", message="m", citations=cited))
    assert "[1] Routers, p. 2" in out
    assert "[2] Handbook, pp. 4-5" in out
    assert "[3] Pricing\n" in out


def test_a_failed_llm_is_said_below_the_answer() -> None:
    answer = Answer(
        trace_id="t",
        answer="Quoted [1].",
        message="m",
        degraded=("resolve:timeout", "generate:rate_limit"),
    )
    out = _printed(answer)
    assert "! The LLM could not resolve the follow-up (timeout); the rules resolved it." in out
    assert "! The LLM could not answer (rate limit); this answer is quoted from the sources." in out
    assert "!" not in _printed(Answer(trace_id="t", answer="Fine [1].", message="m"))


def test_document_text_is_printed_as_written_not_as_markup() -> None:
    """A chunk holding "[/mnt/data]" crashed the CLI (a closing tag of Rich markup), and
    "[bold]" would have vanished."""
    text = "Mount the volume at [/mnt/data] and set [bold] in the config [1]."
    out = _printed(
        Answer(
            trace_id="t",
            answer=text,
            message="m",
            standalone_query="where is [/mnt/data] mounted?",
            citations=(Citation(id="a", doc="v.md", title="Volumes [/mnt/data]"),),
        )
    )
    assert text in out
    assert "Searching for: where is [/mnt/data] mounted?" in out
    assert "[1] Volumes [/mnt/data]" in out


def test_markdown_links_keep_their_text() -> None:
    answer = "You're [required](https://hr.test/rules) to answer within [2 days](#deadlines) [1]."
    out = _printed(Answer(trace_id="t", answer=answer, message="m"))
    assert "You're required (https://hr.test/rules) to answer within 2 days [1]." in out
