"""Loaders: every format, front matter, and every kind of bad input reported, never a crash."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from tellmemore.errors import LoaderError
from tellmemore.ingest import sample_corpus_path
from tellmemore.ingest.loaders import load_file, load_path, load_sources, supported_extensions

from .pdfgen import make_pdf

DATA = Path(__file__).resolve().parents[1] / "data" / "ingest"


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_markdown_front_matter_sets_title_version_url_and_keeps_other_keys(tmp_path: Path) -> None:
    p = write(
        tmp_path / "a.md",
        '---\ntitle: "Escalation"\nversion: 2026.1\nurl: https://x.test/e\nowner: ops\n---\n'
        "# Something else\n\nBody.\n",
    )
    [doc] = load_path(p)
    assert (doc.title, doc.version, doc.url) == ("Escalation", "2026.1", "https://x.test/e")
    assert doc.metadata == {"owner": "ops"}
    assert doc.text.startswith("# Something else")
    assert doc.format == "markdown"
    assert doc.doc_id == "a.md"


def test_title_falls_back_to_first_h1_outside_code_then_to_stem(tmp_path: Path) -> None:
    p = write(tmp_path / "guide.md", "```\n# not a title\n```\n\n# Real title\n\ntext\n")
    assert load_path(p)[0].title == "Real title"
    p2 = write(tmp_path / "release-notes.txt", "just some text\n")
    [doc] = load_path(p2)
    assert (doc.title, doc.format) == ("release-notes", "text")


def test_a_title_heading_is_read_without_its_emphasis_and_link_marks(tmp_path: Path) -> None:
    """ "# **Leaving the company**" titled its citations and answer groups with the
    asterisks; the heading is the title, not also a section of its own."""
    from tellmemore.ingest.chunking import chunk_document

    p = write(tmp_path / "leaving.md", "# **Leaving the company**\n\nGive two weeks' notice.\n")
    [doc] = load_path(p)
    assert doc.title == "Leaving the company"
    [chunk] = chunk_document(doc, max_tokens=192, count_tokens=lambda t: len(t.split()))
    assert chunk.title == "Leaving the company" and chunk.section == ()
    page = write(tmp_path / "page.html", "<body><h1><em>Parental</em> leave</h1><p>16 weeks.</p>")
    assert load_path(page)[0].title == "Parental leave"


def test_doc_ids_are_posix_paths_relative_to_the_root(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "sub" / "b.md", "# B\n\nb\n")
    write(tmp_path / "docs" / "a.md", "# A\n\na\n")
    write(tmp_path / "docs" / ".hidden.md", "# H\n\nh\n")
    write(tmp_path / "docs" / ".git" / "c.md", "# C\n\nc\n")
    result = load_sources([tmp_path / "docs"])
    assert [d.doc_id for d in result.documents] == ["a.md", "sub/b.md"]
    assert result.skipped == ()
    assert all(Path(d.source).is_absolute() for d in result.documents)


def test_html_drops_chrome_and_keeps_headings_lists_and_tables() -> None:
    [doc] = load_path(sample_corpus_path() / "cloud-connect" / "billing-faq.html")
    assert doc.title == "Cloud Connect billing FAQ"
    assert doc.version == "2026.1"
    assert doc.url == "https://docs.asterlabs.example/cloud-connect/billing-faq"
    text = doc.text
    for gone in ("analytics", "console.log", "Docs home", "font-family", "All rights reserved"):
        assert gone not in text
    assert "## Which payment methods are accepted?" in text
    assert "- SEPA direct debit, for accounts with an EU billing address" in text
    assert "| Germany | 19% VAT | USt. |" in text
    assert "| --- | --- | --- |" in text
    # Source line breaks inside a paragraph are not paragraph breaks.
    assert "most often. For anything else, write to" in text


def test_html_table_without_column_labels_is_read_as_rows(
    tmp_path: Path,
) -> None:
    """One reading of tables for every format: data rows without column labels become one
    item per row, so "New Year's Day | January 1" is never taken for column labels; a first
    row that labels figures below it stays the header of a pipe table."""
    p = write(
        tmp_path / "days.html",
        "<h2>Holidays</h2><table><tr><td>New Year's Day</td><td>January 1</td></tr>"
        "<tr><td>Labor Day</td><td>First Monday in September</td></tr></table>"
        "<h2>Levels</h2><table><tr><td>Level</td><td>Salary</td></tr>"
        "<tr><td>Junior</td><td>$90,000</td></tr></table>",
    )
    text = load_path(p)[0].text
    assert "- New Year's Day: January 1\n- Labor Day: First Monday in September" in text
    assert "| Level | Salary |\n| --- | --- |\n| Junior | $90,000 |" in text


def test_html_links_and_emphasis_read_as_markdown_writes_them(tmp_path: Path) -> None:
    """The same page in Markdown keeps "[time off](url)" and "**20 days**"; a page reads the
    same. A link within the page, or one whose text is its address, keeps its text only, and
    a heading is its plain words."""
    p = write(
        tmp_path / "leave.html",
        "<h2><strong>Annual</strong> leave</h2><p>Everyone gets <strong>20 days</strong>; see "
        '<a href="/handbook/time-off">time off</a>, <a href="#rules">the rules</a> or write to '
        '<a href="mailto:hr@x.example">hr@x.example</a>. It is <em>not</em> paid out.</p>',
    )
    text = load_path(p)[0].text
    assert "## Annual leave" in text
    assert (
        "Everyone gets **20 days**; see [time off](/handbook/time-off), the rules or write to "
        "hr@x.example. It is *not* paid out." in text
    )


def test_html_links_that_name_nothing_keep_their_text_only(tmp_path: Path) -> None:
    """A script, a data payload (a megabyte of base64 would land in a chunk) or an address
    too long to name a subject is no link the text keeps."""
    payload = "data:image/png;base64," + "A" * 5_000
    p = write(
        tmp_path / "odd.html",
        f'<p>Open <a href="javascript:alert(1)">the form</a>, <a href="{payload}">the chart</a> '
        f'and <a href="https://x.example/{"a" * 400}">the long one</a>.</p>',
    )
    text = load_path(p)[0].text
    assert "Open the form, the chart and the long one." in text
    assert "javascript" not in text and "base64" not in text


def test_html_ordered_and_nested_lists(tmp_path: Path) -> None:
    p = write(
        tmp_path / "steps.html",
        "<h2>Steps</h2><ol><li>First<ul><li>detail</li></ul></li><li>Second</li></ol>"
        "<p>line one<br>line two</p>",
    )
    [doc] = load_path(p)
    assert "1. First\n  - detail\n2. Second" in doc.text
    assert "line one\nline two" in doc.text
    assert doc.title == "steps"


def test_pdf_text_and_title(tmp_path: Path) -> None:
    p = write(tmp_path / "card.pdf", make_pdf([["Helmets are free."], ["Page two."]], title="Card"))
    [doc] = load_path(p)
    assert doc.title == "Card"
    assert "Helmets are free." in doc.text and "Page two." in doc.text
    assert doc.metadata == {"pages": 2}
    assert doc.page_starts == ((0, 1), (doc.text.index("Page two."), 2))


def test_pdf_page_starts_skip_empty_pages_but_keep_their_numbers(tmp_path: Path) -> None:
    p = write(tmp_path / "gap.pdf", make_pdf([["First page."], [], ["Third page."]]))
    [doc] = load_path(p)
    assert [n for _, n in doc.page_starts] == [1, 3]
    assert doc.text[doc.page_starts[1][0] :].startswith("Third page.")


def test_sample_pdf_loads() -> None:
    [doc] = load_path(sample_corpus_path() / "cloud-connect" / "supported-routers.pdf")
    assert doc.title == "Cloud Connect supported routers"
    assert "Norrland NR-500: firmware 7.2 or later." in doc.text


@pytest.mark.parametrize(
    "content",
    [
        b"%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage garbage",
        make_pdf([["x"]])[:120],
    ],
)
def test_broken_pdf_is_a_loader_error(
    tmp_path: Path, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    p = write(tmp_path / "broken.pdf", content)
    with caplog.at_level(logging.WARNING), pytest.raises(LoaderError, match="cannot read PDF"):
        load_path(p)
    # pypdf's own "EOF marker not found" would print to stderr, into the ingest report
    assert not [r for r in caplog.records if r.name.startswith("pypdf")]


def test_not_a_pdf_and_encrypted_pdf(tmp_path: Path) -> None:
    with pytest.raises(LoaderError, match="cannot read PDF: no %PDF header"):
        load_path(write(tmp_path / "fake.pdf", b"hello, I am text"))
    pypdf = pytest.importorskip("pypdf")
    writer = pypdf.PdfWriter(
        clone_from=pypdf.PdfReader(write(tmp_path / "o.pdf", make_pdf([["x"]])))
    )
    writer.encrypt(user_password="secret", algorithm="RC4-128")
    with (tmp_path / "locked.pdf").open("wb") as fh:
        writer.write(fh)
    with pytest.raises(LoaderError, match="cannot read PDF: encrypted"):
        load_path(tmp_path / "locked.pdf")


def test_pdf_without_text_layer(tmp_path: Path) -> None:
    with pytest.raises(LoaderError, match="no text layer"):
        load_path(write(tmp_path / "scan.pdf", make_pdf([[]])))


def test_jsonl_bad_lines_are_reported_with_file_and_line_and_the_rest_loads() -> None:
    result = load_file(DATA / "records.jsonl")
    assert [d.doc_id for d in result.documents] == ["faq-1", "faq-2", "4", "faq-1"]
    first = result.documents[0]
    assert (first.title, first.url, first.version) == ("Refunds", "https://example.test/faq-1", "3")
    assert first.metadata == {"acl": ["staff"]}
    assert result.documents[2].title == "4"
    where = {s.path.rsplit(":", 1)[1]: s.reason for s in result.skipped}
    assert set(where) == {"3", "5", "6"}
    assert "invalid JSON" in where["3"]
    assert "expected a JSON object" in where["5"]
    assert "missing or empty 'text'" in where["6"]
    # Duplicate ids are caught when loading sources (first one wins).
    dup = load_sources([DATA / "records.jsonl"])
    assert [d.doc_id for d in dup.documents] == ["faq-1", "faq-2", "4"]
    assert any("duplicate document id 'faq-1'" in s.reason for s in dup.skipped)


def test_jsonl_record_size_limit(tmp_path: Path) -> None:
    p = write(
        tmp_path / "r.jsonl",
        '{"id": "a", "text": "short"}\n{"id": "b", "text": "' + "x" * 500 + '"}\n',
    )
    result = load_file(p, max_bytes=200)
    assert [d.doc_id for d in result.documents] == ["a"]
    assert "record too large" in result.skipped[0].reason


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("empty.md", b"", "empty file"),
        ("blank.txt", b"\n  \n\t\n", "empty file"),
        ("only-front-matter.md", b"---\ntitle: x\n---\n\n", "no text after the front matter"),
        ("binary.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
        ("latin1.txt", "caf\xe9 cr\xe8me br\xfbl\xe9e".encode("latin-1") * 3, "not UTF-8 text"),
        ("image.png", b"\x89PNG", "unsupported file type .png"),
        ("empty.jsonl", b"\n\n", "empty file"),
        ("empty.html", b"<html><body><script>x()</script></body></html>", "no text"),
    ],
)
def test_bad_files_raise_loader_errors_with_reasons(
    tmp_path: Path, name: str, content: bytes, reason: str
) -> None:
    p = write(tmp_path / name, content)
    with pytest.raises(LoaderError, match=reason) as info:
        load_path(p)
    assert info.value.path == p.as_posix()


def test_invalid_utf8_is_replaced_and_flagged_when_rare(tmp_path: Path) -> None:
    body = "# Caf\xe9 menu\n\n".encode("latin-1") + b"Plain ASCII text follows. " * 20
    [doc] = load_path(write(tmp_path / "menu.md", body))
    assert doc.metadata["encoding_errors"] == 1
    assert doc.title == "Caf\ufffd menu"


def test_utf8_bom_is_not_content(tmp_path: Path) -> None:
    [doc] = load_path(write(tmp_path / "bom.md", "\ufeff---\ntitle: T\n---\nbody\n"))
    assert doc.title == "T"
    assert "encoding_errors" not in doc.metadata


def test_huge_file_is_skipped_with_the_limit_in_the_reason(tmp_path: Path) -> None:
    p = write(tmp_path / "big.md", "word " * 1000)
    with pytest.raises(LoaderError, match=r"file too large: 5,000 bytes > limit 1,000 bytes"):
        load_path(p, max_bytes=1000)


def test_unreadable_files(tmp_path: Path) -> None:
    (tmp_path / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    with pytest.raises(LoaderError, match="does not exist"):
        load_path(tmp_path / "dangling.md")
    (tmp_path / "folder.md").mkdir()
    with pytest.raises(LoaderError, match="is a directory"):
        load_path(tmp_path / "folder.md")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_permission_denied(tmp_path: Path) -> None:
    p = write(tmp_path / "secret.md", "# S\n\ns\n")
    p.chmod(0)
    with pytest.raises(LoaderError, match="permission denied"):
        load_path(p)


def test_load_sources_reports_every_bad_file_and_loads_the_rest(tmp_path: Path) -> None:
    write(tmp_path / "ok.md", "# OK\n\nfine\n")
    write(tmp_path / "empty.md", b"")
    write(tmp_path / "bin.txt", b"\x00\x01\x02")
    write(tmp_path / "pic.jpg", b"\xff\xd8")
    write(tmp_path / "broken.pdf", b"%PDF-1.7 nothing else")
    result = load_sources([tmp_path, tmp_path / "missing-folder"])
    assert [d.doc_id for d in result.documents] == ["ok.md"]
    reasons = {Path(s.path).name: s.reason for s in result.skipped}
    assert set(reasons) == {"empty.md", "bin.txt", "pic.jpg", "broken.pdf", "missing-folder"}


def test_sample_corpus_loads_cleanly() -> None:
    result = load_sources([sample_corpus_path()])
    assert result.skipped == ()
    formats = sorted(d.format for d in result.documents)
    assert formats.count("markdown") >= 8 and "html" in formats and "pdf" in formats
    for doc in result.documents:
        assert doc.title and doc.text.strip()
        if doc.format == "markdown":
            assert doc.version and doc.url.startswith("https://"), doc.doc_id


def test_registry_lists_the_supported_extensions() -> None:
    assert {".md", ".txt", ".html", ".pdf", ".jsonl"} <= set(supported_extensions())


def test_plain_text_heading_lines_become_the_title_and_sections(tmp_path: Path) -> None:
    """A helper's parental-leave.txt had the title "parental-leave" (the file stem) and its
    first line "Parental Leave Policy" was quoted as an answer sentence."""
    p = write(
        tmp_path / "parental-leave.txt",
        "Parental Leave Policy\n\nEmployees\n\nEmployees get 20 weeks of paid leave.\n\n"
        "Contractors\n\nContractors are not entitled to paid leave. They may pause.\n",
    )
    [doc] = load_path(p)
    assert doc.title == "Parental Leave Policy"
    assert "## Employees\n\nEmployees get 20 weeks" in doc.text
    assert "## Contractors\n\nContractors are not" in doc.text


@pytest.mark.parametrize(
    "text",
    [
        "Just one paragraph.\nWith a second line.\n",
        "Short line\n",  # nothing after it: no heading
        "# Already Markdown\n\nBody text here.\n",
        "---\ntitle: Given\n---\nFirst line\n\nBody.\n",
        "- a list item\n\nA sentence follows.\n",
    ],
)
def test_plain_text_without_heading_lines_is_read_as_written(tmp_path: Path, text: str) -> None:
    [doc] = load_path(write(tmp_path / "n.txt", text))
    assert "## " not in doc.text
    assert doc.text.count("# ") == text.count("# ")


def test_plain_text_title_block_names_the_document_and_fills_version_and_url(
    tmp_path: Path,
) -> None:
    """Debian's GPL-3 opens with its name over a version line; its first heading-like line
    after that, "Preamble", used to be the title, so a clarifying question offered
    "Preamble (GPL-3)" and "Preamble (GPL-2)", and Apache's version line was quoted as
    an answer sentence."""
    p = write(
        tmp_path / "GPL-3.txt",
        "                    GNU GENERAL PUBLIC LICENSE\n"
        "                       Version 3, 29 June 2007\n"
        "                 https://www.gnu.org/licenses/\n\n"
        " Copyright (C) 2007 Free Software Foundation, Inc.\n"
        " Everyone is permitted to copy this document.\n\n"
        "                            Preamble\n\n"
        "  The GNU General Public License is a free, copyleft license.\n",
    )
    [doc] = load_path(p)
    assert doc.title == "GNU GENERAL PUBLIC LICENSE Version 3"
    assert doc.version == "Version 3, 29 June 2007"
    assert doc.url == "https://www.gnu.org/licenses/"
    assert "## Preamble" in doc.text
    assert "29 June 2007" not in doc.text and "gnu.org/licenses" not in doc.text


def test_plain_text_underlined_headings_are_headings(tmp_path: Path) -> None:
    """MPL-2.0 underlines its headings (setext); its title was "2.1. Grants"."""
    p = write(
        tmp_path / "MPL-2.0.txt",
        "Mozilla Public License Version 2.0\n==================================\n\n"
        "1. Definitions\n--------------\n\n"
        '1.1. "Contributor"\n    means each individual that contributes.\n',
    )
    [doc] = load_path(p)
    assert doc.title == "Mozilla Public License Version 2.0"
    assert "## 1. Definitions" in doc.text and "---" not in doc.text


def test_an_opening_paragraph_of_sentences_is_not_a_title_block(tmp_path: Path) -> None:
    p = write(
        tmp_path / "bsd.txt",
        "Copyright (c) The Regents of the University of California.\nAll rights reserved.\n\n"
        "Redistribution and use in source and binary forms are permitted.\n",
    )
    [doc] = load_path(p)
    assert doc.title == "bsd" and doc.version == ""


def test_plain_text_box_of_asterisks_is_read_as_its_text(tmp_path: Path) -> None:
    """MPL-2.0 draws its warranty disclaimer in a box of asterisks; its sentences were
    quoted as "- essential part of this License. No use of any Covered Software is *"."""
    border = "*" * 40
    p = write(
        tmp_path / "mpl.txt",
        "Mozilla Public License\n\nSome terms apply here.\n\n"
        f"{border}\n*                                      *\n"
        "*  6. Disclaimer of Warranty           *\n"
        "*  -------------------------           *\n"
        "*                                      *\n"
        "*  Covered Software is provided as is, *\n"
        "*  without warranty of any kind.       *\n"
        f"{border}\n\nAfter the box.\n",
    )
    [doc] = load_path(p)
    assert "## 6. Disclaimer of Warranty" in doc.text
    assert "Covered Software is provided as is,\nwithout warranty of any kind.\n" in doc.text
    assert "*" not in doc.text


def test_lines_of_asterisks_without_a_framed_box_are_kept(tmp_path: Path) -> None:
    text = "Title Here\n\n" + "*" * 20 + "\nA note with a * in it.\n" + "*" * 20 + "\n"
    [doc] = load_path(write(tmp_path / "stars.txt", text))
    assert doc.text.count("*" * 20) == 2 and "A note with a * in it." in doc.text


HOLIDAYS = "".join(
    f"  <tr>\n    <td>{day}</td>\n    <td>{date}</td>\n  </tr>\n"
    for day, date in [("New Year's Day", "January 1"), ("Labor Day", "First Monday in September")]
    + [(f"Holiday {n}", f"March {n}") for n in range(2, 30)]
)


def test_html_tables_in_markdown_become_rows_no_chunk_cuts(tmp_path: Path) -> None:
    """Clef's handbook writes its holiday table in HTML: read raw, a chunk ended in the
    middle of a cell ("First Monday in" | "September"). A headerless table is one list
    item per row; a first row of labels above figures stays a table with its header."""
    from tellmemore.ingest.chunking import chunk_document

    salary = (
        "<table><tr><td>Years</td><td>Technical</td></tr>"
        "<tr><td>More than 5</td><td>$120k</td></tr></table>"
    )
    code = "```\n<table><tr><td>kept</td></tr></table>\n```\n"
    p = write(tmp_path / "h.md", f"# Holidays\n\n<table>\n{HOLIDAYS}</table>\n\n{salary}\n\n{code}")
    [doc] = load_path(p)
    assert "- Labor Day: First Monday in September\n" in doc.text
    assert "| Years | Technical |\n| --- | --- |\n| More than 5 | $120k |" in doc.text
    assert "<table><tr><td>kept</td></tr></table>" in doc.text  # code is code
    chunks = chunk_document(doc, max_tokens=60, count_tokens=lambda t: len(t.split()))
    assert len(chunks) > 2
    rows = [line for c in chunks for line in c.text.splitlines() if line.startswith("- ")]
    assert "- Labor Day: First Monday in September" in rows
    assert all(": " in row for row in rows)  # every row whole: its day and its date


def test_mdx_pages_load_as_markdown_without_their_module_lines(tmp_path: Path) -> None:
    """Docusaurus, Nextra and Mintlify sites write their pages in MDX: Markdown with ES
    module lines and JSX components. An .mdx file was refused as an unsupported format.
    Its import/export statements (one line or several) are code and are dropped; the
    components stay as written, like inline HTML; prose that merely starts a wrapped line
    with "import" and code in fences are kept."""
    body = (
        "---\ntitle: Billing FAQ\n---\n"
        "import Price from '@site/src/components/Price'\n"
        "import {\n  Tabs,\n  TabItem,\n} from '@theme/Tabs'\n"
        "export const meta = { sidebar: true }\n\n"
        "# Billing FAQ\n\n"
        'The Pro plan costs <Price price="25" /> a month. You can\n'
        "import your usage report from the dashboard.\n\n"
        '```js\nimport x from "y"\n```\n'
    )
    assert ".mdx" in supported_extensions()
    [doc] = load_path(write(tmp_path / "billing.mdx", body))
    assert doc.title == "Billing FAQ" and doc.format == "markdown"
    for gone in ("@site", "TabItem", "@theme", "export const"):
        assert gone not in doc.text
    assert 'The Pro plan costs <Price price="25" /> a month. You can\nimport your usage' in doc.text
    assert '```js\nimport x from "y"\n```' in doc.text
