"""How much of a handbook's structure the PDF loader reads back from the PDFs printed from it.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/format_parity.py --format pdf --work W
    .venv/bin/python bench/pdf_structure.py --work W [--corpus clef tts posthog gitlab]

For every page printed by `bench/format_parity.py --format pdf` (kept in its --work folder
as W/<corpus>_pdf/), the headings and list items markdown-it finds in the loaded text are
matched by their words against those of the Markdown the page was printed from: recall
(the Markdown's found) and precision (the PDF's that are the Markdown's). Label-free, so it
can be read on held-out corpora: it looks at documents, never at conversations. Results:
bench/results/format_parity.md.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from handbook_corpora import CORPORA  # noqa: E402

from tellmemore.ingest.loaders import load_path  # noqa: E402

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
_MD = MarkdownIt("commonmark", {"html": True}).enable("table")


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^\w ]", " ", text.lower()).split())[:60]


def structure(text: str) -> tuple[list[str], list[str]]:
    """The headings and the list items' first lines of `text`, as words."""
    tokens = _MD.parse(_FRONT_MATTER.sub("", text))
    headings, items = [], []
    for i, t in enumerate(tokens):
        if t.type == "heading_open":
            headings.append(_words(tokens[i + 1].content))
        elif t.type == "list_item_open":
            first = next((u for u in tokens[i + 1 :] if u.type == "inline"), None)
            if first is not None:
                items.append(_words(first.content))
    return headings, items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, required=True, help="format_parity.py's --work folder")
    ap.add_argument("--corpus", nargs="+", default=list(CORPORA), choices=CORPORA)
    args = ap.parse_args()
    print("| corpus | headings found / precision | list items found / precision |")
    print("| --- | --- | --- |")
    for name in args.corpus:
        pdfs = args.work / f"{name}_pdf"
        counts = {"headings": [0, 0, 0], "items": [0, 0, 0]}  # matched, in PDF, in Markdown
        for pdf in sorted(pdfs.rglob("*.pdf")):
            source = CORPORA[name].root / pdf.relative_to(pdfs).with_suffix(".md")
            if not source.exists():
                continue
            [doc] = load_path(pdf)
            wanted = structure(source.read_text(encoding="utf-8"))
            found = structure(doc.text)
            for key, want, got in zip(counts, wanted, found, strict=True):
                counts[key][0] += len(set(want) & set(got))
                counts[key][1] += len(set(got))
                counts[key][2] += len(set(want))
        cells = [
            f"{m / max(n_md, 1):.0%} / {m / max(n_pdf, 1):.0%}"
            for m, n_pdf, n_md in counts.values()
        ]
        print(f"| {name} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
