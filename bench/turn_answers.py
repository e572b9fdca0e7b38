"""End to end: each follow-up run as the product runs it, its offline answer scored against
the reference reply.

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/turn_answers.py \
        --cache /work/cache/bench_md --out bench/results/turn_answers

`extractive_answers.py` hands the answer the gold passages and `extractive_retrieved.py`
searches the human rewrite: neither sees what the conversation layer and the phrasing fusion
do to the answer. Here every MTRAG follow-up (the message as typed, the conversation's real
history; reference = the assistant's reply that followed) and every MTRAG-UN ANSWERABLE or
PARTIAL last turn (reference = `target`) goes through `TurnRunner.run` with the default
settings: gate, resolver, phrasings, hybrid search, abstention, ask-back and the extractive
answer. The answer's text, without its citation markers, is scored on content words
(`answer.overlap.score_text`). A turn that abstains or asks back scores 0 and is counted, so
a change that answers less cannot look better. Per-turn F1 is stored: compare two trees with
`bench/paired_f1.py A.json B.json --gap answer`. Nothing here is fitted.

`--set SECTION.KEY=VALUE` (repeatable) runs an opt-in on top of the defaults
(`--set retrieval.quote_headed=true`), `--const NAME=VALUE` a `conversation.constants`
switch (`--const TERM_CARRY=true`); `bench/turn_answers_table.py` compares such runs with
the defaults' (bench/results/turn_answers.md).
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from behaviour_features import corpus_dir, product_runner  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from tellmemore.answer import scoring  # noqa: E402
from tellmemore.answer.overlap import score_text  # noqa: E402
from tellmemore.answer.stream import DoneEvent  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation import constants as C  # noqa: E402
from tellmemore.eval.corpus import ensure_index  # noqa: E402
from tellmemore.eval.datasets import Dataset, load_dataset  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402
from tellmemore.turn import TurnRequest, TurnRunner  # noqa: E402
from tellmemore.types import Answer, Turn  # noqa: E402

DATA = ROOT.parent / "shared" / "bench"
OUT = ROOT / "bench" / "results" / "turn_answers"
DOMAINS = ("clapnq", "cloud", "govt")
UN_DOMAINS = ("clapnq", "cloud")
UN_LABELS = ("ANSWERABLE", "PARTIAL")
_MARKER = re.compile(r"\s?\[\d{1,3}\]")


@dataclass(frozen=True)
class Case:
    group: str
    task_id: str
    message: str
    history: tuple[Turn, ...]
    reference: str


def _history(raw: list[dict]) -> tuple[Turn, ...]:
    return tuple(Turn(role=h["role"], content=h["content"]) for h in raw)


def mtrag_cases(dataset: Dataset, domain: str) -> Iterator[Case]:
    """MTRAG's follow-ups as `load_dataset` validated them, each with the assistant's reply
    that followed it (the last history item of the conversation's next turn)."""
    reply = {
        (t.conversation_id, t.turn - 1): t.history[-1].content
        for t in dataset.turns
        if t.history and t.history[-1].role == "assistant"
    }
    for t in dataset.turns:
        ref = reply.get((t.conversation_id, t.turn))
        if ref and t.history:
            yield Case(domain, t.task_id, t.message, tuple(t.history), ref)


def un_cases(data: Path, domain: str) -> Iterator[Case]:
    """MTRAG-UN's answerable and partial last turns, with `target` as the reference."""
    with (data / "mtrag-un" / domain / "behaviour.jsonl").open(encoding="utf-8") as f:
        for t in map(json.loads, f):
            label = next((x for x in UN_LABELS if x in t["answerability"]), None)
            if label and t.get("target"):
                yield Case(
                    f"un-{domain}/{label}",
                    t["task_id"],
                    t["message"],
                    _history(t.get("history") or []),
                    t["target"].strip(),
                )


def _value(text: str) -> object:
    """A `--set` value: JSON when it parses (true, 0.5, null, "x"), else the string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _pair(item: str) -> tuple[str, object]:
    key, sep, raw = item.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"expected NAME=VALUE, got {item!r}")
    return key.strip(), _value(raw.strip())


def settings_with(items: list[str]) -> Settings:
    """Default Settings with each `SECTION.KEY=VALUE` of `items` applied (validated, so a
    wrong type fails as it would in tellmemore.toml); an unknown section or key fails."""
    sections: dict[str, dict[str, object]] = {}
    base = Settings()
    for item in items:
        key, value = _pair(item)
        section, dot, name = key.partition(".")
        field = getattr(base, section, None) if dot else None
        if not isinstance(field, BaseModel) or name not in type(field).model_fields:
            raise ValueError(f"unknown setting {key!r} (expected SECTION.KEY of Settings)")
        sections.setdefault(section, {})[name] = value
    updates = {
        s: type(getattr(base, s)).model_validate({**getattr(base, s).model_dump(), **values})
        for s, values in sections.items()
    }
    return base.model_copy(update=updates)


def apply_constants(items: list[str]) -> dict[str, object]:
    """Set each `NAME=VALUE` of `items` on `conversation.constants` (opt-in steps kept as
    constants, e.g. TERM_CARRY=true), or `module.NAME=VALUE` on a module under `tellmemore.`
    (`retrieval.MULTI_QUERY_QPP=2`); an unknown name fails. Returns what was set."""
    done: dict[str, object] = {}
    for item in items:
        name, value = _pair(item)
        module_name, _, const = name.rpartition(".")
        module = importlib.import_module(f"tellmemore.{module_name}") if module_name else C
        if not const.isupper() or not hasattr(module, const):
            raise ValueError(f"unknown constant {name!r} (of tellmemore.conversation.constants)")
        setattr(module, const, value)
        done[name] = value
    return done


def use_weights(path: Path) -> None:
    """Answer with the sentence scorer in `path` (a `sentence_weights.json` fitted by
    `bench/extractive_fit_retrieved.py --write --weights-out`) instead of the shipped one."""
    scorer = scoring.Scorer.from_json(path.read_text(encoding="utf-8"))
    scoring.shipped = lambda: scorer  # type: ignore[assignment]


def run_turn(runner: TurnRunner, case: Case) -> Answer:
    done = [
        e
        for e in runner.run(TurnRequest(message=case.message, history=case.history))
        if isinstance(e, DoneEvent)
    ]
    return done[-1].answer


def answer_text(answer: Answer) -> str:
    """What the user reads, without the citation markers (they are not words)."""
    return _MARKER.sub("", answer.answer).strip()


def run_domain(dataset: Dataset, cases: list[Case], cache: Path, settings: Settings) -> list[dict]:
    embedder = load_embedder(settings.embedder)
    index, _ = ensure_index(dataset, embedder=embedder, settings=settings, cache_dir=cache)
    rows: list[dict] = []
    with product_runner(index, embedder, settings) as (_, runner):
        for case in cases:
            a = run_turn(runner, case)
            asked = a.clarification is not None
            text = "" if a.abstained or asked else answer_text(a)
            recall, f1 = score_text(text, case.reference) if text else (0.0, 0.0)
            rows.append(
                {
                    "group": case.group,
                    "task_id": case.task_id,
                    "abstained": a.abstained,
                    "asked": asked,
                    "query": a.standalone_query,
                    "words": len(text.split()),
                    "recall": round(recall, 4),
                    "f1": round(f1, 4),
                }
            )
    return rows


def summarise(rows: list[dict]) -> dict:
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["group"], []).append(r)
    out: dict = {}
    for name, rs in groups.items():
        n = len(rs)
        out[name] = {
            "answer": {
                "n": n,
                "recall": round(sum(r["recall"] for r in rs) / n, 4),
                "f1": round(sum(r["f1"] for r in rs) / n, 4),
                "words": round(sum(r["words"] for r in rs) / n, 1),
                "abstained": sum(r["abstained"] for r in rs),
                "asked": sum(r["asked"] for r in rs),
                "per_turn_f1": [r["f1"] for r in rs],  # for bench/paired_f1.py --gap answer
                "task_ids": [r["task_id"] for r in rs],
            }
        }
    return out


def markdown(summary: dict, command: str, seconds: float) -> str:
    lines = [
        "# Offline answers end to end, follow-ups as the product runs them",
        "",
        f"`{command}` ({seconds / 60:.0f} min). See the module docstring for what is run.",
        "",
        "| set | turns | recall | F1 | words | abstained | asked back |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, g in summary.items():
        a = g["answer"]
        lines.append(
            f"| {name} | {a['n']} | {a['recall']:.4f} | {a['f1']:.4f} | {a['words']} | "
            f"{a['abstained']} | {a['asked']} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--every", type=int, default=1, help="every n-th turn only")
    parser.add_argument("--domains", nargs="*", default=list(DOMAINS))
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SECTION.KEY=VALUE",
        help="override a Settings field (repeatable); VALUE is read as JSON, else a string",
    )
    parser.add_argument(
        "--const",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a conversation.constants value (repeatable), e.g. TERM_CARRY=true",
    )
    parser.add_argument(
        "--weights",
        type=Path,
        help="answer with this sentence scorer (a sentence_weights.json) instead of the shipped",
    )
    args = parser.parse_args()
    if args.weights:
        use_weights(args.weights)
    try:
        settings = settings_with(args.set)
        apply_constants(args.const)
    except ValueError as e:
        parser.error(str(e))
    started = time.perf_counter()
    rows: list[dict] = []
    for domain in args.domains:
        dataset = load_dataset(corpus_dir(args.data / "mtrag" / domain), skip_invalid=True)
        cases = list(mtrag_cases(dataset, domain))
        if domain in UN_DOMAINS:
            cases += list(un_cases(args.data, domain))
        rows += run_domain(dataset, cases[:: args.every], args.cache, settings)
        print(f"{domain}: {len(rows)} turns so far", file=sys.stderr)
    summary = summarise(rows)
    seconds = time.perf_counter() - started
    command = "bench/turn_answers.py " + " ".join(sys.argv[1:])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(
        json.dumps(
            {
                "command": command,
                "set": args.set,
                "const": args.const,
                "weights": str(args.weights) if args.weights else None,
                "groups": summary,
                "rows": rows,
            },
            indent=1,
        )
    )
    args.out.with_suffix(".md").write_text(markdown(summary, command, seconds))
    print(markdown(summary, command, seconds))


if __name__ == "__main__":
    main()
