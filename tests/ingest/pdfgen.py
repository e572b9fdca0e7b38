"""A tiny PDF writer for fixtures: text pages in Helvetica (and Helvetica-Bold), nothing else.

pypdf reads PDFs but cannot lay out text, so the fixtures (and the sample
corpus PDF) are written by hand: one content stream per page, a `/Title` in
the document information, a correct xref table. Regenerate the sample with
`python tests/ingest/pdfgen.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[list[str]], *, title: str = "") -> bytes:
    """A valid PDF whose page i shows the lines pages[i] (ASCII text)."""
    contents = []
    for lines in pages:
        ops = ["BT", "/F1 11 Tf", "14 TL", "72 740 Td"]
        for line in lines:
            ops.append(f"({_escape(line)}) Tj T*")
        ops.append("ET")
        contents.append("\n".join(ops))
    return _document(contents, title=title)


def _document(contents: list[str], *, title: str, bold: bool = False) -> bytes:
    """The PDF around one content stream per page: catalog, pages, Helvetica (F1) and, with
    `bold`, Helvetica-Bold (F2), the pages, the document information, the xref table."""
    objects: list[bytes] = []
    n_pages = len(contents)
    # 1: catalog, 2: pages, 3: font, (4: bold font), then (page, content) pairs, then info.
    first = 5 if bold else 4
    kids = " ".join(f"{first + 2 * i} 0 R" for i in range(n_pages))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    if bold:
        objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>")
    fonts = "/F1 3 0 R /F2 4 0 R" if bold else "/F1 3 0 R"
    for i, content in enumerate(contents):
        content_ref = first + 1 + 2 * i
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << {fonts} >> >> /Contents {content_ref} 0 R >>".encode()
        )
        stream = content.encode("latin-1")
        objects.append(
            b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream"
        )
    info_ref = len(objects) + 1
    objects.append(f"<< /Title ({_escape(title)}) /Producer (tellmemore tests) >>".encode())
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {info_ref} 0 R >>\n"
        f"startxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)


@dataclass(frozen=True)
class Styled:
    """One line of a styled page: its text, type size, weight, indent from the left margin
    and the space above its baseline (points; a wrapped line's is 1.2 x the size)."""

    text: str
    size: float = 11.0
    bold: bool = False
    indent: float = 0.0
    above: float | None = None
    columns: tuple[tuple[float, str], ...] = ()
    """(indent, text) of more runs on the same baseline: a table row's other cells."""


def make_styled_pdf(pages: list[list[Styled]], *, title: str = "") -> bytes:
    """A valid PDF whose page i shows the lines pages[i], each placed, sized and weighted as
    it says (Helvetica and Helvetica-Bold): what a word processor's export looks like to a
    reader of the text layer."""
    contents = []
    for lines in pages:
        ops = ["BT"]
        y = 760.0
        for line in lines:
            y -= line.above if line.above is not None else 1.2 * line.size
            font = "/F2" if line.bold else "/F1"
            ops += [f"{font} {line.size} Tf", f"1 0 0 1 {72 + line.indent} {y} Tm"]
            ops.append(f"({_escape(line.text)}) Tj")
            for indent, text in line.columns:  # each cell its own text object, as exported
                ops += ["ET", "BT", f"{font} {line.size} Tf"]
                ops += [f"1 0 0 1 {72 + indent} {y} Tm", f"({_escape(text)}) Tj"]
        ops.append("ET")
        contents.append("\n".join(ops))
    return _document(contents, title=title, bold=True)


SAMPLE_TITLE = "Cloud Connect supported routers"
SAMPLE_PAGES = [
    [
        "Cloud Connect supported routers",
        "",
        "Cloud Connect works with any router that supports IPsec IKEv2 with",
        "AES-256-GCM. The models below are tested by Aster Labs and have a",
        "ready-made configuration download in the console.",
        "",
        "Norrland NR-500: firmware 7.2 or later.",
        "Norrland NR-900: firmware 7.4 or later; needed for 10 Gbit/s sites.",
        "Kestrel Edge K3: firmware 2.8 or later.",
        "Kestrel Edge K7: firmware 3.1 or later.",
        "",
        "Routers not on this list can still connect with the generic IKEv2",
        "configuration, but Standard tier support cannot help configure them.",
        "Enterprise tier support helps with any router model.",
    ],
    [
        "Firmware notes",
        "",
        "Firmware 7.3 of the Norrland NR-500 drops tunnels every 24 hours.",
        "Skip 7.3 and install 7.3.1 or later. This issue is tracked as CC-E312.",
        "The Kestrel Edge K3 needs DPD (dead peer detection) set to 30 seconds.",
    ],
]


if __name__ == "__main__":
    target = (
        Path(__file__).resolve().parents[2]
        / "tellmemore/data/sample/cloud-connect/supported-routers.pdf"
    )
    target.write_bytes(make_pdf(SAMPLE_PAGES, title=SAMPLE_TITLE))
    print(f"wrote {target}")
