"""The same handbook as Word files, as web pages and as Markdown: does each answer as well?

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/format_parity.py \
        [--corpus clef tts posthog] [--format docx html]

Handbooks and policies often live in Word or on an intranet. The .docx loader
(`ingest.loaders.docx`) and the HTML loader read a document into the Markdown-like text the
chunker reads. This bench writes each bundled Markdown handbook as Word files (headings as
Heading 1-6, list items as Word list paragraphs at their depth, pipe tables as Word tables,
bold and links as runs; python-docx, the dev extra) or as HTML pages (markdown-it's
rendering, the title in `<title>`), with the conversations' gold documents renamed, and runs
the default-mode trial (`bench/handbook_trial.py`) on each. A loader that keeps what the
Markdown says gives the same answers; one that loses sections, lists, tables or links shows
up as turns lost. Results: bench/results/format_parity.md.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from handbook_corpora import CORPORA  # noqa: E402

NOT_DOCUMENTS = ("README.md", "LICENSE.md")
MODE = "floor (default)"
_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)


Run = tuple[str, bool, str]
"""Text, bold, and the address of the link it is the text of ("" outside links)."""


def _inline(token: Any) -> list[Run]:
    """The runs of an inline token: bold and links kept, images and other markup dropped."""
    runs: list[Run] = []
    bold, href = 0, ""
    for child in token.children or []:
        if child.type == "strong_open":
            bold += 1
        elif child.type == "strong_close":
            bold -= 1
        elif child.type == "link_open":
            href = str(child.attrs.get("href", ""))
        elif child.type == "link_close":
            href = ""
        elif child.type in ("text", "code_inline"):
            runs.append((child.content, bold > 0, href))
        elif child.type in ("softbreak", "hardbreak"):
            runs.append((" ", False, ""))
    return runs


def _paragraph(document: Any, runs: list[Run], style: str | None = None) -> Any:
    """A paragraph of `runs`; a link's runs go inside a Word hyperlink to its address."""
    from xml.sax.saxutils import escape

    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.oxml import parse_xml

    p = document.add_paragraph(style=style)
    for text, bold, href in runs:
        if not href:
            p.add_run(text).bold = bold
            continue
        rid = document.part.relate_to(href, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
        rpr = "<w:rPr><w:b/></w:rPr>" if bold else ""
        p._p.append(
            parse_xml(
                f'<w:hyperlink {_W} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/'
                f'relationships" r:id="{rid}"><w:r>{rpr}<w:t xml:space="preserve">{escape(text)}'
                "</w:t></w:r></w:hyperlink>"
            )
        )
    return p


def _list_numbering(document: Any) -> dict[str, int]:
    """Two Word list definitions (bullets, decimals; nine levels each, indented as Word
    indents them) added to the document's numbering part: {"bullet": numId, "ordered": numId}.
    python-docx's template lists have one level only, so a nested item would come out flat."""
    from docx.oxml import parse_xml
    from docx.oxml.ns import qn

    numbering = document.part.numbering_part.element
    abstract = max(
        (int(a.get(qn("w:abstractNumId"))) for a in numbering.findall(qn("w:abstractNum"))),
        default=0,
    )
    nums = max((int(n.get(qn("w:numId"))) for n in numbering.findall(qn("w:num"))), default=0)
    out = {}
    for k, (kind, fmt) in enumerate((("bullet", "bullet"), ("ordered", "decimal"))):
        levels = "".join(
            f'<w:lvl w:ilvl="{i}"><w:start w:val="1"/><w:numFmt w:val="{fmt}"/>'
            f'<w:lvlText w:val="{"•" if fmt == "bullet" else f"%{i + 1}."}"/>'
            f'<w:pPr><w:ind w:left="{720 * (i + 1)}" w:hanging="360"/></w:pPr></w:lvl>'
            for i in range(9)
        )
        aid, nid = abstract + 1 + k, nums + 1 + k
        numbering.insert(
            k, parse_xml(f'<w:abstractNum {_W} w:abstractNumId="{aid}">{levels}</w:abstractNum>')
        )
        numbering.append(
            parse_xml(f'<w:num {_W} w:numId="{nid}"><w:abstractNumId w:val="{aid}"/></w:num>')
        )
        out[kind] = nid
    return out


def _numbered(paragraph: Any, num_id: int, level: int) -> None:
    from docx.oxml import parse_xml

    paragraph._p.get_or_add_pPr().append(
        parse_xml(f'<w:numPr {_W}><w:ilvl w:val="{level}"/><w:numId w:val="{num_id}"/></w:numPr>')
    )


def _html_block(document: Any, html: str) -> None:
    """An HTML block of the Markdown (Clef's holiday table): its tables as Word tables, the
    rest of its text as paragraphs."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for table in soup.find_all("table"):
        rows = [
            [" ".join(cell.get_text(" ").split()) for cell in tr.find_all(["td", "th"])]
            for tr in table.find_all("tr")
        ]
        rows = [r for r in rows if r]
        if rows:
            grid = document.add_table(rows=len(rows), cols=max(len(r) for r in rows))
            for row, cells in zip(grid.rows, rows, strict=True):
                for cell, text in zip(row.cells, cells, strict=False):
                    cell.text = text
        table.decompose()
    rest = " ".join(soup.get_text(" ").split())
    if rest:
        document.add_paragraph(rest)


def markdown_to_docx(markdown: str, target: Path) -> None:
    """Write `markdown` as a Word document at `target`."""
    import docx
    from markdown_it import MarkdownIt

    document = docx.Document()
    numbering = _list_numbering(document)
    front = _FRONT_MATTER.match(markdown)
    title = re.search(r"^title:\s*[\"']?(.+?)[\"']?\s*$", front.group(), re.M) if front else None
    if title:  # how a Word document carries its title: a core property and a Title paragraph
        document.core_properties.title = title.group(1)
        document.add_paragraph(title.group(1), style="Title")
    tokens = MarkdownIt("commonmark").enable("table").parse(_FRONT_MATTER.sub("", markdown))
    lists: list[str] = []  # "bullet" / "ordered", innermost last
    table: list[list[list[Run]]] | None = None
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "heading_open":
            level = int(t.tag[1])
            document.add_heading("".join(text for text, _, _ in _inline(tokens[i + 1])), level)
            i += 2
        elif t.type in ("bullet_list_open", "ordered_list_open"):
            lists.append("bullet" if t.type == "bullet_list_open" else "ordered")
        elif t.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif t.type == "table_open":
            table = []
        elif t.type == "tr_open" and table is not None:
            table.append([])
        elif t.type == "inline" and table is not None:
            table[-1].append(_inline(t))
        elif t.type == "table_close" and table:
            width = max(len(row) for row in table)
            grid = document.add_table(rows=len(table), cols=width)
            for row, cells in zip(grid.rows, table, strict=True):
                for cell, runs in zip(row.cells, cells, strict=False):
                    cell.text = "".join(text for text, _, _ in runs)
            table = None
        elif t.type == "inline" and table is None:
            p = _paragraph(document, _inline(t), "List Paragraph" if lists else None)
            if lists:  # a Word list item at its depth, as Word writes one
                _numbered(p, numbering[lists[-1]], min(len(lists) - 1, 8))
        elif t.type in ("fence", "code_block"):
            for line in t.content.rstrip("\n").split("\n"):
                document.add_paragraph(line)
        elif t.type == "html_block":
            _html_block(document, t.content)
        i += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    document.save(str(target))


def markdown_to_html(markdown: str, target: Path) -> None:
    """Write `markdown` as a web page at `target` (its front-matter title as `<title>`)."""
    from html import escape

    from markdown_it import MarkdownIt

    front = _FRONT_MATTER.match(markdown)
    title = re.search(r"^title:\s*[\"']?(.+?)[\"']?\s*$", front.group(), re.M) if front else None
    body = (
        MarkdownIt("commonmark", {"html": True})
        .enable("table")
        .render(_FRONT_MATTER.sub("", markdown))
    )
    head = f"<title>{escape(title.group(1))}</title>" if title else ""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"<html><head>{head}</head><body>{body}</body></html>", encoding="utf-8")


def markdown_to_pdf(markdown: str, target: Path) -> None:
    """Write `markdown` as a PDF at `target`: the web page printed by headless Chromium (as a
    browser's "Save as PDF" would; no header or footer), so headings are set in larger type
    and the PDF's own outline lists them, as in a handbook exported from a word processor."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("--format pdf needs Chromium (apt-get install -y chromium)")
    page = target.with_suffix(".html")
    markdown_to_html(markdown, page)
    subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-pdf-header-footer",
            "--generate-pdf-document-outline",
            f"--print-to-pdf={target}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    page.unlink()


WRITERS = {"docx": markdown_to_docx, "html": markdown_to_html, "pdf": markdown_to_pdf}


def written_corpus(name: str, fmt: str, work: Path) -> tuple[Path, Path]:
    """The corpus `name` written as `fmt` files under `work`, and its conversations with
    the gold documents renamed; both beside each other as handbook_trial.py expects."""
    corpus = CORPORA[name]
    root = work / f"{name}_{fmt}"
    for source in sorted(corpus.root.rglob("*.md")):
        if source.name in NOT_DOCUMENTS:
            continue
        relative = source.relative_to(corpus.root).with_suffix(f".{fmt}")
        WRITERS[fmt](source.read_text(encoding="utf-8"), root / relative)
    conversations = work / f"{name}_{fmt}_conversations.jsonl"
    with conversations.open("w", encoding="utf-8") as out:
        for line in corpus.conversations.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.write(re.sub(r"\.md\b", f".{fmt}", line) + "\n")
    return root, conversations


def trial(corpus: str, conversations: Path | None, out: Path) -> dict[str, Any]:
    command = [
        sys.executable,
        str(ROOT / "bench" / "handbook_trial.py"),
        "--corpus",
        corpus,
        "--modes",
        MODE,
        "--out",
        str(out),
    ]
    if conversations is not None:
        command += ["--conversations", str(conversations)]
    subprocess.run(command, check=True, cwd=ROOT, capture_output=True)
    result: dict[str, Any] = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    return result


def summary(result: dict[str, Any]) -> dict[str, Any]:
    rows = [r for r in result["rows"] if r["mode"] == MODE]
    answerable = [r for r in rows if r["label"] == "ANSWERABLE"]
    return {
        "chunks": result.get("chunks"),
        "right": sum(r["category"] is None for r in answerable),
        "answerable": len(answerable),
        "categories": Counter(r["category"] for r in rows if r["category"]),
        "by_turn": {(r["conversation"], r["turn"]): r["category"] for r in rows},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", nargs="+", default=["clef", "tts", "posthog"], choices=CORPORA)
    ap.add_argument("--format", nargs="+", default=["docx", "html"], choices=WRITERS)
    ap.add_argument("--work", type=Path, help="where the written corpora and trials go (kept)")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="format-parity-"))
    work.mkdir(parents=True, exist_ok=True)
    lines = [
        "| corpus | format | chunks: Markdown / format | ANSWERABLE fully right: Markdown | "
        "format | turns whose category differs | failures by category (Markdown -> format) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name in args.corpus:
        markdown = summary(trial(name, None, work / f"trial_{name}_md"))
        for fmt in args.format:
            root, conversations = written_corpus(name, fmt, work)
            other = summary(trial(str(root), conversations, work / f"trial_{name}_{fmt}"))
            differ = sum(
                markdown["by_turn"][k] != other["by_turn"].get(k) for k in markdown["by_turn"]
            )
            kinds = sorted(set(markdown["categories"]) | set(other["categories"]))
            moved = ", ".join(
                f"{k} {markdown['categories'][k]} -> {other['categories'][k]}" for k in kinds
            )
            lines.append(
                f"| {name} | {fmt} | {markdown['chunks']} / {other['chunks']} | "
                f"{markdown['right']}/{markdown['answerable']} | "
                f"{other['right']}/{other['answerable']} | {differ} | {moved} |"
            )
    print("\n".join(lines))
    print(f"\n(work folder: {work})", file=sys.stderr)


if __name__ == "__main__":
    main()
