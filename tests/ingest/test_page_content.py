"""A published documentation page reads as the Markdown it was built from: the main landmark
is read, the theme's chrome (site tree, search, breadcrumbs, "On this page", heading
permalinks, "Skip to content") is not, and the title is the page's own heading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tellmemore.ingest.loaders import load_path
from tellmemore.ingest.loaders.html import html_to_markdown

SITES = Path(__file__).resolve().parents[1] / "data" / "ingest" / "sites"


def _source_markdown(tmp_path: Path) -> Path:
    """The Markdown the fixture sites were built from (quoted in their README)."""
    readme = (SITES / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```markdown\n(.*?)```", readme, re.S)
    assert match is not None
    path = tmp_path / "leave.md"
    path.write_text(match.group(1), encoding="utf-8")
    return path


@pytest.mark.parametrize("theme", ["mkdocs-material", "sphinx-furo", "sphinx-rtd"])
def test_a_generated_doc_page_reads_as_its_markdown(theme: str, tmp_path: Path) -> None:
    [markdown] = load_path(_source_markdown(tmp_path))
    [page] = load_path(SITES / theme / "leave.html")
    assert page.title == markdown.title == "Parental Leave"
    assert page.text == markdown.text
    for chrome in ("¶", "Skip to content", "Payroll", "On this page", "View page source"):
        assert chrome not in page.text


def _page(body: str, title: str = "Docs site") -> str:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


def test_docusaurus_shaped_page_keeps_its_article_header_and_drops_its_contents() -> None:
    text, info = html_to_markdown(
        _page(
            '<nav class="navbar"><a href="/">Acme</a></nav>'
            '<aside class="sidebar"><ul><li><a href="/docs/pay">Payroll</a></li>'
            '<li><a href="/docs/leave">Leave</a></li></ul></aside>'
            "<main><div class='row'><div class='col'><article>"
            '<nav aria-label="Breadcrumbs"><a href="/">Home</a></nav>'
            '<header><h1>Leave<a href="#leave" class="hash-link">\u200b</a></h1></header>'
            "<p>Leave is paid.</p>"
            '<h2 id="apply">Apply<a href="#apply" class="hash-link">#</a></h2>'
            "<p>Use the portal.</p></article>"
            '<nav class="pagination-nav" aria-label="Docs pages"><a href="/docs/pay">Next</a></nav>'
            "</div><div class='col col--3'><ul class='table-of-contents'>"
            '<li><a href="#leave">Leave</a></li><li><a href="#apply">Apply</a></li></ul>'
            "</div></div></main>"
            "<footer>Copyright Acme</footer>",
            title="Leave | Acme Docs",
        )
    )
    assert info["title"] == "Leave"
    assert text == "# Leave\n\nLeave is paid.\n\n## Apply\n\nUse the portal."


def test_content_that_only_looks_like_chrome_is_kept() -> None:
    """Inside the main landmark: a note in an aside, a heading whose link says words, and a
    list of same-page links that also say something are content."""
    text, _ = html_to_markdown(
        _page(
            "<main><h1>Setup</h1>"
            "<aside><p>Note: admin rights are needed.</p></aside>"
            '<h2><a href="#install">Install</a></h2>'
            '<ul><li><a href="#install">Install</a>: copy the files</li>'
            '<li><a href="#run">Run</a>: start it</li></ul>'
            "</main>"
        )
    )
    assert "Note: admin rights are needed." in text
    assert "## Install" in text
    assert "- Install: copy the files" in text


def test_a_page_without_a_main_landmark_drops_only_its_banner_and_roles() -> None:
    text, info = html_to_markdown(
        _page(
            "<header><a href='/'>Acme</a> Products Pricing</header>"
            '<div role="search"><input> Search the docs</div>'
            "<article><header><h1>Refunds</h1></header><p>Refunds take 5 days.</p></article>"
            "<p>Questions? Write to us.</p>",
            title="Refunds - Acme",
        )
    )
    assert info["title"] == "Refunds - Acme"  # no main landmark: the page's <title>
    assert text == "# Refunds\n\nRefunds take 5 days.\n\nQuestions? Write to us."


def test_the_innermost_main_landmark_is_read() -> None:
    text, _ = html_to_markdown(
        _page(
            "<main><div class='sidebar'><p>Site tree: Leave, Pay</p></div>"
            "<div role='main'><h1>Pay</h1><p>Paid monthly.</p></div></main>"
        )
    )
    assert text == "# Pay\n\nPaid monthly."
