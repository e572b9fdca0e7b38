"""Keep what the phrase rules read of every benchmark turn, once, to study them offline.

    .venv/bin/python bench/phrase_dump.py --cache /work/cache/bench --out /tmp/phrase_dump.json

Per turn (MTRAG's answerable follow-ups and the same turns with a foreign question, as
bench/focus_coverage.py runs them; MTRAG-UN's labelled last turns from the kept hits;
the licences; a handbook's conversations turn by turn): the question's own phrasings,
its top passages (title, section, header, text, cosine), the floor's two signals, and
the document frequency in the index of every word of the question. bench/phrase_coverage.py
reads the dump.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import focus_coverage as fc  # noqa: E402
from handbook_trial import CONVERSATIONS, CORPUS, NOT_DOCUMENTS  # noqa: E402

from tellmemore.answer.abstain import evidence_hits, lexical_coverage  # noqa: E402
from tellmemore.assistant import Assistant  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation.resolvers import EmbeddedResolver  # noqa: E402
from tellmemore.conversation.text import content_words  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402
from tellmemore.types import Hit, Turn  # noqa: E402

HITS = 5


def dump_case(
    question_hits: list[Hit], asked: list[str], per_query: dict, index: Any, embed: Any
) -> dict[str, Any]:
    """What a phrase rule reads of one turn."""
    own = evidence_hits(question_hits, per_query, asked)
    question = next((q for q in asked if q.strip()), "")
    words = sorted({w for q in asked for w in content_words(q)})
    stats = index.term_stats(words) if words else None
    return {
        "question": question,
        "asked": list(asked),
        "cos": fc.best_dense(own),
        "coverage": lexical_coverage(asked, per_query, index.term_stats),
        "n_chunks": stats.n_chunks if stats is not None else 0,
        "df": {w: stats.df.get(w, 0) for w in words} if stats is not None else {},
        "hits": [
            {
                "title": h.chunk.title,
                "section": list(h.chunk.section),
                "header": h.chunk.header,
                "text": h.chunk.text,
                "dense": h.dense,
                "doc": h.chunk.doc_id,
            }
            for h in own[:HITS]
        ],
    }


def collect_handbook(corpus: Path, conversations: Path, settings: Settings, name: str) -> list:  # type: ignore[type-arg]
    tmp = Path(tempfile.mkdtemp(prefix="tellmemore-phrase-"))
    docs = tmp / "docs"
    shutil.copytree(corpus, docs, ignore=lambda _d, names: set(names) & set(NOT_DOCUMENTS))
    assistant = Assistant.open(tmp / "project", settings=settings)
    rows: list[dict[str, Any]] = []
    try:
        assistant.ingest([docs])
        index, retriever = assistant.index, assistant.retriever
        resolver = EmbeddedResolver()
        for line in conversations.read_text().splitlines():
            if not line.strip():
                continue
            conv = json.loads(line)
            history: list[Turn] = []
            for i, turn in enumerate(conv["turns"]):
                message = turn["message"]
                got = fc.run_turn(
                    index, retriever, resolver, settings, message, history,
                    retriever.embedder.embed_documents,
                )  # fmt: skip
                if got is not None:
                    rows.append(
                        {
                            "set": name,
                            "domain": name,
                            "kind": turn["answerability"],
                            "message": message,
                            "conversation": conv["id"],
                            "turn": i,
                            "history": [t.content for t in history],
                            **got,
                        }
                    )
                reply = assistant.ask(message, history=history)
                history += [Turn("user", message), Turn("assistant", reply.answer)]
    finally:
        assistant.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{name}: {len(rows)} turns", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mtrag", type=Path, default=fc.MTRAG)
    parser.add_argument("--mtrag-un", type=Path, default=fc.MTRAG_UN)
    parser.add_argument("--kept", type=Path, default=fc.KEPT)
    parser.add_argument("--docs", type=Path, default=fc.DOCS)
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    parser.add_argument("--handbook", type=Path, default=CORPUS)
    parser.add_argument("--conversations", type=Path, default=CONVERSATIONS)
    parser.add_argument("--handbook-name", default="clef")
    parser.add_argument("--only", default="", help="comma list of: un, licences, handbook, mtrag")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    settings = Settings()
    fc.case = dump_case  # the collectors of bench/focus_coverage.py keep what this reads
    only = set(filter(None, args.only.split(","))) or {"un", "licences", "handbook", "mtrag"}
    t0 = time.perf_counter()
    rows: list[dict[str, Any]] = []
    if "handbook" in only:
        rows += collect_handbook(args.handbook, args.conversations, settings, args.handbook_name)
    if "licences" in only:
        rows += fc.collect_licences(args.docs, settings)
        rows += fc.collect_sample(settings)
    embedder = load_embedder(settings.embedder)
    if "un" in only:
        rows += fc.collect_un(args.kept, args.mtrag_un, args.cache, settings, embedder)
    if "mtrag" in only:
        rows += fc.collect_mtrag(args.mtrag, args.cache, settings, embedder)
    args.out.write_text(
        json.dumps({"seconds": round(time.perf_counter() - t0, 1), "rows": rows}) + "\n"
    )
    print(f"wrote {args.out}: {len(rows)} rows")


if __name__ == "__main__":
    main()
