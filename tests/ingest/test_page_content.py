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


@pytest.mark.parametrize("theme", ["mkdocs-material", "sphinx-furo", "sphinx-rtd", "docusaurus"])
def test_a_generated_doc_page_reads_as_its_markdown(theme: str, tmp_path: Path) -> None:
    [markdown] = load_path(_source_markdown(tmp_path))
    [page] = load_path(SITES / theme / "leave.html")
    assert page.title == markdown.title == "Parental Leave"
    assert page.text == markdown.text
    for chrome in ("¶", "Skip to content", "Payroll", "On this page", "View page source"):
        assert chrome not in page.text


def _page(body: str, title: str = "Docs site") -> str:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


def test_cells_rows_and_items_without_end_tags_close_as_a_browser_closes_them(
    tmp_path: Path,
) -> None:
    """HTML lets a page leave out these end tags (minifiers do), in a page or in a table
    written inside Markdown."""
    text, _ = html_to_markdown(
        _page(
            "<main><h1>Leave</h1><ul><li>Apply<li>Tell your manager</ul>"
            "<table><tr><th>Parent<th>Weeks<tr><td>Birth parent<td>16</table></main>"
        )
    )
    assert text == (
        "# Leave\n\n- Apply\n- Tell your manager\n\n"
        "| Parent | Weeks |\n| --- | --- |\n| Birth parent | 16 |"
    )
    page = tmp_path / "weeks.md"
    page.write_text("# Weeks\n\n<table><tr><th>Parent<th>Weeks<tr><td>Other<td>12</table>\n")
    [doc] = load_path(page)
    assert "| Other | 12 |" in doc.text


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


def test_a_highlighted_code_block_keeps_its_lines() -> None:
    """Docusaurus's Prism draws each line of a fenced block as a <div> ending in <br>."""
    text, _ = html_to_markdown(
        _page(
            "<main><h1>Sign</h1><pre><code>"
            '<div class="token-line"><span>Date: ____</span><br></div>'
            '<div class="token-line"><span>Name: ____</span><br></div>'
            "</code></pre></main>"
        )
    )
    assert text == "# Sign\n\n```\nDate: ____\nName: ____\n```"
