"""What a chunker change moves: the documents whose blocks and chunks differ between an
earlier revision's chunker and this checkout's, on the bundled and benchmark documents.

Written for the switch of the block parse from line patterns to markdown-it-py (issue 21,
item 5). The earlier chunker is read from git (`--base`, default the last commit with the
hand parser) and imported next to the current one, so the comparison needs no copy of
old code. PostHog is held out: counts only, no document is shown.

    .venv/bin/python bench/markdown_parity.py --out bench/results/markdown_parity.md
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tellmemore.ingest import chunking  # noqa: E402
from tellmemore.ingest.loaders.base import Document  # noqa: E402
from tellmemore.ingest.loaders.markdown import split_front_matter  # noqa: E402

HAND_PARSER = "76a30f9"
"""The last commit whose chunker parsed Markdown by line patterns."""

MARKDOWN = {
    "sample docs": ROOT / "tellmemore/data/sample",
    "Clef handbook": ROOT / "bench/data/clef_handbook",
    "TTS handbook": ROOT / "bench/data/tts_handbook",
    "PostHog handbook (held out: counts only)": ROOT / "bench/data/posthog_handbook",
}
MTRAG = ("clapnq", "cloud", "govt")


def chunker_at(rev: str) -> ModuleType:
    """The chunking module as it was at `rev`, imported under another name."""
    source = subprocess.run(
        ["git", "show", f"{rev}:tellmemore/ingest/chunking.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    spec = importlib.util.spec_from_loader(f"chunking_{rev}", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    exec(compile(source, f"{rev}:chunking.py", "exec"), module.__dict__)
    return module


def markdown_docs(root: Path) -> Iterator[Document]:
    for path in sorted(root.rglob("*.md")):
        meta, body = split_front_matter(path.read_text(encoding="utf-8"))
        name = str(path.relative_to(root))
        yield Document(
            doc_id=name, text=body, title=meta.get("title", name), source=name, format="md"
        )


def mtrag_docs(data: Path, domain: str, limit: int) -> Iterator[Document]:
    with (data / domain / "corpus.jsonl").open(encoding="utf-8") as f:
        for line in itertools.islice(f, limit):
            row = json.loads(line)
            if row.get("text", "").strip():
                pid = str(row.get("_id") or row.get("id"))
                yield Document(
                    doc_id=pid,
                    text=row["text"],
                    title=row.get("title") or pid,
                    source=pid,
                    format="md",
                )


def blocks(module: ModuleType, doc: Document) -> list[tuple[object, ...]]:
    return [
        (s.path, tuple((b.kind, b.text) for b in s.blocks))
        for s in module.parse_sections(doc.text, doc.title)
    ]


def compare(
    old: ModuleType, docs: list[Document], count: chunking.CountTokens, tokens: int
) -> dict[str, int]:
    """Documents whose blocks differ, whose chunk ids differ, and chunks to re-embed
    (ids new or with other text) out of all chunks the new chunker cuts."""
    row = {"documents": len(docs), "blocks differ": 0, "ids differ": 0, "chunks": 0, "re-embed": 0}
    for doc in docs:
        if blocks(old, doc) != blocks(chunking, doc):
            row["blocks differ"] += 1
        before = {
            c.id: c.text for c in old.chunk_document(doc, max_tokens=tokens, count_tokens=count)
        }
        after = {
            c.id: c.text
            for c in chunking.chunk_document(doc, max_tokens=tokens, count_tokens=count)
        }
        row["ids differ"] += set(before) != set(after)
        row["chunks"] += len(after)
        row["re-embed"] += sum(before.get(i) != text for i, text in after.items())
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default=HAND_PARSER, help="revision of the earlier chunker")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared/bench/mtrag")
    parser.add_argument("--limit", type=int, default=20000, help="passages read per MTRAG domain")
    parser.add_argument("--tokens", type=int, default=192, help="chunk size (the k=5 default)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    from tellmemore.config import Settings
    from tellmemore.index.embedders import load_embedder

    count = load_embedder(Settings().embedder).count_tokens
    old = chunker_at(args.base)
    rows: dict[str, dict[str, int]] = {}
    for name, root in MARKDOWN.items():
        rows[name] = compare(old, list(markdown_docs(root)), count, args.tokens)
        print(name, rows[name], flush=True)
    for domain in MTRAG:
        docs = list(mtrag_docs(args.data, domain, args.limit))
        rows[f"MTRAG {domain}"] = compare(old, docs, count, args.tokens)
        print(domain, rows[f"MTRAG {domain}"], flush=True)

    head = ["set", "documents", "blocks differ", "ids differ", "chunks", "re-embed"]
    lines = [
        f"# Chunker at {args.base} (hand parser) vs this checkout (markdown-it-py), "
        f"{args.tokens}-token chunks",
        "",
        "```",
        f".venv/bin/python bench/markdown_parity.py --base {args.base} --out <this file>",
        "```",
        "",
        "| " + " | ".join(head) + " |",
        "| " + " | ".join("---" for _ in head) + " |",
    ]
    lines += [
        "| " + " | ".join([n, *(str(r[h]) for h in head[1:])]) + " |" for n, r in rows.items()
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
