"""The features of the answer / ask back / abstain decision on every labelled MTRAG-UN turn.

    .venv/bin/python bench/behaviour_features.py --cache /work/cache/bench

Each labelled last turn of `mtrag-un/<domain>/behaviour.jsonl` is run as a tellmemore turn
runs it (retrieve or not, typos fixed, gate + embedded resolver, the searched phrasings
fused, then `TurnRunner._judge`), and the features `answer.judge` reads are written with
the turn's label to bench/results/behaviour_features.json. `scripts/fit_behaviour.py`
fits the scorers on one domain and reports them on the other (bench/results/behaviour.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tellmemore.answer import clarify  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation.decide import decide  # noqa: E402
from tellmemore.conversation.phrasings import search_phrasings  # noqa: E402
from tellmemore.conversation.resolvers import EmbeddedResolver  # noqa: E402
from tellmemore.conversation.spelling import correct_spelling  # noqa: E402
from tellmemore.eval.behaviour import load_behaviour  # noqa: E402
from tellmemore.eval.corpus import ensure_index  # noqa: E402
from tellmemore.eval.datasets import load_dataset  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402
from tellmemore.index.sqlite import SQLiteIndex  # noqa: E402
from tellmemore.retrieval import Retriever  # noqa: E402
from tellmemore.state.conversations import ConversationStore  # noqa: E402
from tellmemore.state.db import StateDB  # noqa: E402
from tellmemore.turn import TurnRequest, TurnRunner  # noqa: E402
from tellmemore.types import Decision  # noqa: E402

DATA = ROOT.parent / "shared" / "bench" / "mtrag-un"
OUT = ROOT / "bench" / "results" / "behaviour_features.json"
DOMAINS = ("clapnq", "cloud")


def corpus_dir(folder: Path) -> Path:
    """The dataset directory whose corpus `folder` uses: itself, or the one its
    corpus.jsonl names (MTRAG-UN's holds the relative path of MTRAG's)."""
    corpus = folder / "corpus.jsonl"
    head = corpus.read_text(encoding="utf-8")[:500].strip()
    if head and not head.startswith("{"):
        return (folder / head).resolve().parent
    return folder


@contextmanager
def product_runner(index, embedder, settings: Settings) -> Iterator[tuple[Retriever, TurnRunner]]:  # type: ignore[no-untyped-def]
    """A retriever and a `TurnRunner` over `index` as the product builds them (embedded
    resolver, a throwaway state.db); `index` is closed on exit. Shared by the benches that
    replay labelled turns (gold_removal.py, turn_answers.py)."""
    with tempfile.TemporaryDirectory() as tmp:
        state = StateDB(Path(tmp) / "state.db")
        try:
            retriever = Retriever(index, embedder, settings.retrieval)
            yield (
                retriever,
                TurnRunner(
                    settings=settings,
                    retriever=retriever,
                    resolver=EmbeddedResolver(),
                    store=ConversationStore(state),
                ),
            )
        finally:
            state.close()
            index.close()


def run_to_search(  # type: ignore[no-untyped-def]
    message: str, history: list, runner: TurnRunner, index, settings: Settings
) -> tuple[str, tuple | None]:
    """A turn as the product runs it, up to its search: ("", (request, resolution,
    phrasings)), or (path, None) when it stops before searching ("no retrieval", "resolver
    asked back"). Shared by the benches that replay labelled turns (also gold_removal.py)."""
    if decide(message, history).decision is not Decision.RETRIEVE:
        return "no retrieval", None
    req = TurnRequest(message=message, history=history)
    searched, _ = correct_spelling(message, index.term_stats)
    resolution, _ = runner._resolve(searched, history, req)
    if resolution.ambiguous and resolution.clarification:
        return "resolver asked back", None
    phrasings = search_phrasings(
        message,
        resolution,
        history,
        index.term_stats,
        window=settings.conversation.window,
        searched=searched,
    )
    return "", (req, resolution, phrasings)


def rows_for(  # type: ignore[no-untyped-def]
    domain: str, data: Path, cache: Path, settings: Settings, embedder, index_path: Path | None
) -> list[dict]:
    if index_path is not None:  # an index built elsewhere (development runs)
        index = SQLiteIndex(index_path, dimension=embedder.dimension, embedder=embedder.name)
    else:
        # mtrag-un/<domain>/corpus.jsonl names the MTRAG corpus it reuses
        dataset = load_dataset(corpus_dir(data / domain), skip_invalid=True)
        index, _ = ensure_index(dataset, embedder=embedder, settings=settings, cache_dir=cache)
    out: list[dict] = []
    with product_runner(index, embedder, settings) as (retriever, runner):
        for turn in load_behaviour(data / domain):
            history = list(turn.history)
            row = {
                "domain": domain,
                "task_id": turn.task_id,
                "label": turn.label,
                "message": turn.message,
                "first_turn": not history,
                "path": "judged",
            }
            stopped, ran = run_to_search(turn.message, history, runner, index, settings)
            if ran is None:
                out.append({**row, "path": stopped})
                continue
            req, resolution, phrasings = ran
            result = retriever.search(phrasings.queries, weights=phrasings.weights)
            if not result.hits:
                out.append({**row, "path": "nothing retrieved"})
                continue
            verdict = runner._judge(
                turn.message, history, resolution, result, phrasings.evidence(), req
            )
            options = clarify.options(turn.message, history, result.hits)
            asks_back = clarify.ask_back(turn.message, history, resolution, result.hits)
            out.append(
                {
                    **row,
                    "features": dict(verdict.features),
                    "options": options,
                    "asks_back": asks_back is not None,
                    "query": resolution.query,
                    "retrieved": retrieved(resolution, result, phrasings.evidence()),
                }
            )
    return out


def _scores(hits: list) -> list[list]:  # type: ignore[type-arg]
    return [[h.chunk.id, h.score, h.bm25, h.dense] for h in hits]


def retrieved(resolution, result, asked) -> dict:  # type: ignore[no-untyped-def]
    """What the judge read, by chunk id and scores (`bench/behaviour_replay.py` rebuilds
    the hits from the index and reads the features again without searching)."""
    return {
        "bindings": dict(resolution.bindings),
        "asked": list(asked),
        "hits": _scores(result.hits),
        "per_query": {q: _scores(hs) for q, hs in result.per_query.items()},
    }


def dump(payload: dict) -> str:  # type: ignore[type-arg]
    """One row a line: the file is large (the kept hits), its diffs stay readable."""
    head = {k: v for k, v in payload.items() if k != "rows"}
    rows = ",\n".join(json.dumps(r, ensure_ascii=False) for r in payload["rows"])
    return json.dumps(head, ensure_ascii=False)[:-1] + ', "rows": [\n' + rows + "\n]}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--domains", default=",".join(DOMAINS))
    parser.add_argument("--index", type=Path, help="open this index.db (one domain) instead")
    parser.add_argument(
        "--ask-coordinated", action="store_true", help="conversation.ask_coordinated on (opt-in)"
    )
    args = parser.parse_args()
    conversation = {"ask_coordinated": True} if args.ask_coordinated else {}
    # the decision measured
    settings = Settings(retrieval={"abstention": "judged"}, conversation=conversation)
    embedder = load_embedder(settings.embedder)
    t0 = time.perf_counter()
    rows = []
    for d in [d.strip() for d in args.domains.split(",") if d.strip()]:
        rows += rows_for(d, args.data, args.cache, settings, embedder, args.index)
        print(f"{d}: {sum(r['domain'] == d for r in rows)} turns", flush=True)
    payload = {"seconds": round(time.perf_counter() - t0, 1), "rows": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dump(payload))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
