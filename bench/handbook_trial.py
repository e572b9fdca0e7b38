"""A real employee handbook, tried turn by turn as a new employee would.

    .venv/bin/python bench/handbook_trial.py [--corpus clef|tts|posthog|DIR]
        [--modes "floor (default)"]

Three handbooks are bundled, each with its labelled conversations: Clef's open-source employee
handbook (`--corpus clef`, the default: bench/data/clef_handbook, MIT), on which fixes have
since been fitted; the policy pages of the TTS Handbook (`--corpus tts`:
bench/data/tts_handbook, US public domain and CC0), to check that a change measured on Clef
generalises; and PostHog's handbook pages (`--corpus posthog`: bench/data/posthog_handbook,
MIT), held out from every fix. Each folder's README gives the source and what was left
out. Any other folder of documents works the same (`--corpus DIR`, its conversations in
DIR_conversations.jsonl or `--conversations FILE`). The conversations were written and
labelled against the documents before the system's output on them was seen. Every conversation
runs through one stored session (`Assistant.session().ask`, the path of the CLI chat and of
the HTTP service), so a follow-up resolves against the system's own earlier answers, as for
a user. It reports, per behaviour mode (the modes of bench/real_documents.py):

- per label: answered / asked back / abstained;
- for ANSWERABLE turns: a gold file among the first 3 citations, every `expect` string in the
  answer (case-insensitive), the labelled binding found in the standalone query or the
  bindings, and the answer edits ("make that shorter" is shorter, "tell me more" repeats no
  sentence already shown);
- every failure, put in one category, with the standalone query, bindings and reply head.

Results: bench/results/handbook_trial.{md,json} (Clef), tts_handbook_trial.{md,json} (TTS),
posthog_handbook_trial.{md,json} (PostHog), <DIR name>_trial.{md,json} otherwise, or `--out FILE`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import Stemmer

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from handbook_corpora import CORPORA, Corpus, corpus_for, shown  # noqa: E402
from real_documents import (  # noqa: E402
    ANSWERABLE,
    MODES,
    UNANSWERABLE,
    UNDERSPECIFIED,
    action,
    each_mode,
    index_facts,
    label_table,
)

from tellmemore.assistant import Assistant  # noqa: E402
from tellmemore.config import Settings  # noqa: E402

NOT_DOCUMENTS = ("README.md", "LICENSE.md")
"""Files of the corpus folder that say where it came from; they are not ingested."""


CORPUS = CORPORA["clef"].root
CONVERSATIONS = CORPORA["clef"].conversations
OUT = CORPORA["clef"].out
LABELS = (ANSWERABLE, UNDERSPECIFIED, UNANSWERABLE)

CATEGORIES = (
    "wrong binding",
    "wrong/missing retrieval",
    "right passage, wrong sentences",
    "false abstention",
    "missed abstention",
    "missed ask-back",
    "false ask-back",
    "answer edit",
    "display",
)
MARKUP = re.compile(r"<(?:/?t[rdh]|/?table)>|\]\(|\*\*|(?<![\w/])_\w[^_]*_(?!\w)")
"""Markdown or HTML the reader should not see in a plain answer: table tags, link syntax,
bold markers, underscore emphasis."""
STEM = Stemmer.Stemmer("english")
STOP = frozenset(["a", "an", "and", "do", "not", "of", "or", "the", "to"])
_FUNCTION_WORDS = """is are was be does did can could will would should i we you my our it
that this they them what how who when where which if for in on at with about there"""
FUNCTION = frozenset(STEM.stemWords(_FUNCTION_WORDS.split()))
"""Words a standalone query may rephrase away ("does it apply" -> "how much ... if")."""


def load(path: Path = CONVERSATIONS) -> list[dict[str, Any]]:
    """The labelled conversations, one JSON object a line."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def copy_corpus(target: Path, source: Path = CORPUS) -> Path:
    """The handbook's documents without the folder's own README and LICENSE."""
    shutil.copytree(source, target, ignore=lambda _dir, names: set(names) & set(NOT_DOCUMENTS))
    return target


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _tokens(text: str) -> set[str]:
    words = [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP]
    return set(STEM.stemWords(words))


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [_squash(p) for p in parts if len(p.strip()) > 25]


def relative(doc: str, corpus: Path) -> str:
    """A citation's document as a path inside the corpus (how gold labels name it)."""
    root = str(corpus).rstrip("/") + "/"
    return doc.split(root, 1)[1] if root in doc else doc


def hit_row(hit: dict[str, Any], corpus: Path, passages: dict[str, str]) -> dict[str, Any]:
    """A retrieved passage as a row keeps it: its id, where from, its scores; its text goes
    to `passages`, kept once per run."""
    chunk = hit.get("chunk") or {}
    passages[str(chunk.get("id", ""))] = str(chunk.get("text", ""))
    return {
        "id": str(chunk.get("id", "")),
        "doc": relative(str(chunk.get("doc_id", "")), corpus),
        "score": hit.get("score"),
        "dense": hit.get("dense"),
        "bm25": hit.get("bm25"),
    }


def _in_hits(row: dict[str, Any], passages: dict[str, str]) -> bool | None:
    """Every `expect` string in one retrieved passage: the passage holding the answer was
    there to quote (None when the turn has no `expect` or the trace kept no passages)."""
    if not row["expect"] or not row.get("hits"):
        return None
    texts = [_squash(passages.get(h["id"], "")) for h in row["hits"]]
    wants = [w if isinstance(w, list) else [w] for w in row["expect"]]
    return any(all(any(_squash(o) in t for o in opts) for opts in wants) for t in texts)


def _binding(row: dict[str, Any]) -> str:
    """ "right" when every word of the labelled antecedent (stemmed) is in the standalone query
    or the bindings; "unresolved" when the turn went through as typed, with no binding;
    "wrong" when the system bound or rewrote it to something else."""
    seen = _tokens(" ".join([row["standalone"] or "", *row["bindings"].values()]))
    if all(_tokens(v) <= seen for v in row["labelled_binding"].values()):
        return "right"
    return "unresolved" if _as_typed(row) else "wrong"


def _as_typed(row: dict[str, Any]) -> bool:
    return _squash(row["standalone"] or "") == _squash(row["message"]) and not row["bindings"]


def _resolution(row: dict[str, Any]) -> str | None:
    """How a follow-up that needs its context (it has a labelled rewrite) was resolved:
    "wrong" when its labelled binding is wrong; "lost" when the standalone query lost content
    words the user typed that the human rewrite keeps (the question itself was replaced);
    "unresolved" when it went through as typed; else "right". None for turns without a
    rewrite, and for answer edits."""
    if not row["rewrite"] or row["check"]:
        return None
    if row["labelled_binding"] and _binding(row) != "right":
        return _binding(row)
    if _as_typed(row):
        return "unresolved" if _squash(row["rewrite"]) != _squash(row["message"]) else "right"
    kept = (_tokens(row["message"]) & _tokens(row["rewrite"])) - FUNCTION
    seen = _tokens(" ".join([row["standalone"] or "", *row["bindings"].values()]))
    return "right" if kept <= seen else "lost"


def judge(row: dict[str, Any], shown: list[str], passages: dict[str, str]) -> dict[str, Any]:
    """The checks that apply to one turn's stored outcome, None where a check does not apply;
    `shown` holds the replies of the conversation's earlier turns."""
    reply, answerable = row["reply"], row["label"] == ANSWERABLE
    gold_top3 = expect_ok = check_ok = binding = resolution = None
    missing: list[str] = []
    if answerable and row["gold"]:
        gold_top3 = any(g in row["cited"][:3] for g in row["gold"])
    if answerable and row["expect"]:
        text = _squash(reply)
        for want in row["expect"]:
            options = want if isinstance(want, list) else [want]
            if not any(_squash(o) in text for o in options):
                missing.append(" / ".join(options))
        expect_ok = not missing
    if row["labelled_binding"]:
        binding = _binding(row)
    resolution = _resolution(row)
    if row["check"] == "shorter":
        check_ok = bool(shown) and len(reply) < len(shown[-1])
    elif row["check"] == "new_sentences":
        earlier = {s for text in shown for s in _sentences(text)}
        check_ok = not any(s in earlier for s in _sentences(reply))
    judged = {
        "gold_top3": gold_top3,
        "expect_ok": expect_ok,
        "missing": missing,
        "binding": binding,
        "resolution": resolution,
        "check_ok": check_ok,
        "answer_in_hits": _in_hits(row, passages) if answerable else None,
        "display": row["action"] == "answer" and bool(MARKUP.search(reply)),
    }
    return {**judged, "category": category({**row, **judged})}


def labels(turn: dict[str, Any]) -> dict[str, Any]:
    """A turn's labels as a row stores them."""
    return {
        "label": turn["answerability"],
        "rewrite": turn.get("rewrite"),
        "gold": turn["gold"],
        "expect": turn["expect"],
        "labelled_binding": turn.get("binding"),
        "check": turn.get("check"),
    }


def rejudge(
    rows: list[dict[str, Any]], passages: dict[str, str], conversations: Path = CONVERSATIONS
) -> list[dict[str, Any]]:
    """Stored replies judged again against the current labels (for a correction of the
    labels or the checks, not of the system)."""
    turns = {(c["id"], i): t for c in load(conversations) for i, t in enumerate(c["turns"])}
    out: list[dict[str, Any]] = []
    shown: list[str] = []
    for row in rows:
        if row["turn"] == 0:
            shown = []
        row = {**row, **labels(turns[(row["conversation"], row["turn"])])}
        out.append({**row, **judge(row, shown, passages)})
        shown.append(row["reply"])
    return out


def category(row: dict[str, Any]) -> str | None:
    """The one failure category of a turn (None when it passed), in the order a fix would go:
    the behaviour first, then binding, retrieval, the quoted sentences, the answer edits."""
    label, did = row["label"], row["action"]
    if label == UNANSWERABLE:
        return None if did == "abstain" else "missed abstention"
    if label == UNDERSPECIFIED:
        return None if did == "ask" else "missed ask-back"
    if did == "abstain":
        return "false abstention"
    if did == "ask":
        return "false ask-back"
    if row["check"]:
        return "answer edit" if row["check_ok"] is False or row["gold_top3"] is False else None
    missed = row["gold_top3"] is False or row["expect_ok"] is False
    if (
        row["resolution"] == "wrong"
        or (row["resolution"] == "lost" and missed)
        or (row["resolution"] == "unresolved" and row["gold_top3"] is False)
    ):
        return "wrong binding"
    if row["gold_top3"] is False or (row["expect_ok"] is False and row["answer_in_hits"] is False):
        return "wrong/missing retrieval"
    if row["expect_ok"] is False:
        return "right passage, wrong sentences"
    return "display" if row["display"] else None


def converse(
    assistant: Assistant,
    mode: str,
    conversations: list[dict[str, Any]],
    corpus: Path,
    passages: dict[str, str],
) -> list[dict[str, Any]]:
    """Every conversation through one stored session, turn by turn."""
    rows = []
    for conv in conversations:
        chat = assistant.session()
        shown: list[str] = []
        for i, turn in enumerate(conv["turns"]):
            t0 = time.perf_counter()
            answer = chat.ask(turn["message"])
            seconds = time.perf_counter() - t0
            cited = [relative(c.doc, corpus) for c in answer.citations]
            hits = assistant.conversations.trace(answer.trace_id).get("hits") or []
            row = {
                "mode": mode,
                "conversation": conv["id"],
                "turn": i,
                "message": turn["message"],
                **labels(turn),
                "action": action(answer),
                "standalone": answer.standalone_query,
                "bindings": dict(answer.bindings),
                "cited": cited,
                "hits": [hit_row(h, corpus, passages) for h in hits],
                "options": list(answer.clarification_options),
                "reply": answer.answer,
                "seconds": round(seconds, 3),
            }
            rows.append({**row, **judge(row, shown, passages)})
            shown.append(answer.answer)
    return rows


def run(modes: list[str], source: Corpus) -> dict[str, Any]:
    conversations = load(source.conversations)
    work = Path(tempfile.mkdtemp(prefix="tellmemore-handbook-"))
    try:
        corpus = copy_corpus(work / "handbook", source.root)
        assistant = Assistant.open(work / "project", settings=Settings())
        t0 = time.process_time()
        report = assistant.ingest([corpus])
        ingest_cpu = time.process_time() - t0
        assistant.close()
        rows: list[dict[str, Any]] = []
        passages: dict[str, str] = {}
        for mode, opened in each_mode(work / "project", modes):
            rows += converse(opened, mode, conversations, corpus, passages)
        facts = index_facts(work / "project")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {
        "commit": subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip(),
        "corpus": {
            "name": source.name,
            "path": shown(source.root),
            "conversations": shown(source.conversations),
            "title": source.title,
            "notes": shown(source.out) + "_notes.md",
        },
        "documents": report.docs_added,
        "ingest_cpu_seconds": round(ingest_cpu, 1),
        **facts,
        "conversations": len(conversations),
        "rows": rows,
        "passages": passages,
    }


def _cell(text: Any, width: int = 140) -> str:
    if isinstance(text, dict):
        text = ", ".join(f"{k} -> {v}" for k, v in text.items())
    return re.sub(r"\s+", " ", str(text or "")).replace("|", "\\|")[:width]


def quality_table(rows: list[dict[str, Any]]) -> list[str]:
    """Per mode, how the ANSWERABLE turns fared and how each label's turns failed."""
    lines = [
        "| mode | answerable | answered | gold in top 3 | all `expect` present | fully right"
        " | binding right / labelled | follow-ups resolved right | answer edits right |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for mode in dict.fromkeys(r["mode"] for r in rows):
        ans = [r for r in rows if r["mode"] == mode and r["label"] == ANSWERABLE]
        answered = [r for r in ans if r["action"] == "answer"]
        gold = [r for r in ans if r["gold_top3"] is not None]
        exp = [r for r in ans if r["expect_ok"] is not None]
        bound = [r for r in rows if r["mode"] == mode and r["binding"] is not None]
        edits = [r for r in ans if r["check_ok"] is not None]
        follow = [r for r in ans if r["resolution"] is not None]
        lines.append(
            f"| {mode} | {len(ans)} | {len(answered)} "
            f"| {sum(bool(r['gold_top3']) for r in gold)}/{len(gold)} "
            f"| {sum(bool(r['expect_ok']) for r in exp)}/{len(exp)} "
            f"| {sum(r['category'] is None for r in ans)}/{len(ans)} "
            f"| {sum(r['binding'] == 'right' for r in bound)}/{len(bound)} "
            f"({sum(r['binding'] == 'unresolved' for r in bound)} left as typed) "
            f"| {sum(r['resolution'] == 'right' for r in follow)}/{len(follow)} "
            f"({sum(r['resolution'] == 'unresolved' for r in follow)} left as typed, "
            f"{sum(r['resolution'] == 'lost' for r in follow)} lost words of the question) "
            f"| {sum(bool(r['check_ok']) for r in edits)}/{len(edits)} |"
        )
    return lines


def category_table(rows: list[dict[str, Any]]) -> list[str]:
    modes = list(dict.fromkeys(r["mode"] for r in rows))
    counts = {m: Counter(r["category"] for r in rows if r["mode"] == m) for m in modes}
    lines = ["| category | " + " | ".join(modes) + " |", "| --- |" + " --- |" * len(modes)]
    for cat in CATEGORIES:
        lines.append(f"| {cat} | " + " | ".join(str(counts[m][cat]) for m in modes) + " |")
    total = " | ".join(str(sum(v for k, v in counts[m].items() if k)) for m in modes)
    lines.append(f"| **all failures** | {total} |")
    display = " | ".join(
        str(sum(r["display"] for r in rows if r["mode"] == m and r["action"] == "answer"))
        for m in modes
    )
    lines.append(f"| (answers showing markup, any category) | {display} |")
    return lines


def examples(rows: list[dict[str, Any]], per: int = 3) -> list[str]:
    """A few failures of each category, spelled out: what was typed, what the system made of
    it, what it replied."""
    lines = []
    for cat in CATEGORIES:
        part = [r for r in rows if r["category"] == cat]
        if not part:
            continue
        lines += ["", f"**{cat}** ({len(part)})", ""]
        for r in part[:per]:
            bound = f"; bindings {_cell(r['bindings'], 80)}" if r["bindings"] else ""
            missing = f"; missing {_cell('; '.join(r['missing']), 60)}" if r["missing"] else ""
            lines.append(
                f"- {r['conversation']}.{r['turn']} *{_cell(r['message'], 90)}* "
                f"-> `{_cell(r['standalone'], 90)}`{bound}{missing}: {_cell(r['reply'], 160)}"
            )
    return lines


def failure_table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| category | conv.turn | label | message | standalone query | bindings | cited (top 3)"
        " | missing | reply head |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for cat in CATEGORIES:
        for r in rows:
            if r["category"] != cat:
                continue
            lines.append(
                f"| {cat} | {r['conversation']}.{r['turn']} | {r['label']} | {_cell(r['message'])} "
                f"| {_cell(r['standalone'])} | {_cell(r['bindings'])} "
                f"| {_cell('; '.join(c.rsplit('/', 1)[-1] for c in r['cited'][:3]))} "
                f"| {_cell('; '.join(r['missing']))} | {_cell(r['reply'], 180)} |"
            )
    return lines


def render(payload: dict[str, Any]) -> str:
    rows = payload["rows"]
    modes = list(dict.fromkeys(r["mode"] for r in rows))
    first = [r for r in rows if r["mode"] == modes[0]]
    seconds = [r["seconds"] for r in first]
    clef = CORPORA["clef"]
    corpus = payload.get("corpus") or {
        "path": shown(clef.root),
        "title": clef.title,
        "notes": shown(clef.out) + "_notes.md",
    }
    lines = [
        "# A real employee handbook, tried turn by turn (not tuned on)",
        "",
        "```",
        payload["command"],
        "```",
        "",
        f"System: tellmemore at commit {payload.get('commit') or '?'}. "
        f"Corpus: {corpus['path']} ({corpus['title']}, "
        f"{payload['chunks']} chunks, ingest {payload['ingest_cpu_seconds']} s CPU). "
        f"{payload['conversations']} conversations, {len(first)} turns "
        f"({', '.join(f'{n} {lab}' for lab, n in Counter(r['label'] for r in first).items())}), "
        "written and labelled against the documents before any output was seen. Every "
        "conversation is one stored session (`Assistant.session().ask`, the CLI/HTTP chat "
        f"path). Turn wall time in `{modes[0]}`: median "
        f"{sorted(seconds)[len(seconds) // 2]:.2f} s, max {max(seconds):.2f} s (loaded machine). "
        f"Index calibration: `{json.dumps(payload['calibration'])}`.",
        "",
        "A turn is *fully right* when it was answered, its labelled binding is found in the "
        "standalone query or bindings, a gold file is among the first 3 citations, every "
        "`expect` string is in the answer and the answer edits hold. A failing turn is counted "
        "once: an UNANSWERABLE turn not abstained on is a *missed abstention*, an "
        "UNDERSPECIFIED turn not asked back on a *missed ask-back*; an ANSWERABLE turn goes to "
        "the first of: *false abstention*, *false ask-back*, *wrong binding* (bound to "
        "something else; or, when the answer then missed, its standalone query lost content "
        "words of the question, or it was left as typed and retrieval missed), *wrong/missing "
        "retrieval* (no gold file in the first 3 citations, or an `expect` string missing and "
        "no retrieved passage holding them all), *right passage, wrong sentences* (an "
        "`expect` string missing although a retrieved passage holds them all), "
        '*answer edit* ("make that shorter" not shorter, '
        '"tell me more" repeating a shown sentence, or the sources lost), *display* (all '
        "else right, but the reply "
        "shows Markdown/HTML markup: table tags, `[text](url)`, `**`, `_x_`; the web chat shows "
        "replies as plain text).",
        "",
        f"A hand-written reading, with examples: {corpus['notes']}.",
        "",
        "## What each label's turns did",
        "",
        *label_table(rows, LABELS),
        "",
        "## Answerable turns",
        "",
        *quality_table(rows),
        "",
        "## Failures by category",
        "",
        *category_table(rows),
        "",
        f"## Examples of each category in `{modes[0]}`",
        *examples(first),
        "",
        f"## Every failure in `{modes[0]}`",
        "",
        *failure_table(first),
    ]
    for mode in modes[1:]:
        base = {(r["conversation"], r["turn"]): r["category"] for r in first}
        changed = [
            r
            for r in rows
            if r["mode"] == mode and base[(r["conversation"], r["turn"])] != r["category"]
        ]
        lines += [
            "",
            f"## `{mode}`: the turns whose outcome differs from `{modes[0]}`",
            "",
            *(failure_table(changed) if changed else ["(none)"]),
        ]
        fixed = [
            f"- {r['conversation']}.{r['turn']} {_cell(r['message'])} "
            f"(was: {base[(r['conversation'], r['turn'])]})"
            for r in rows
            if r["mode"] == mode and r["category"] is None and base[(r["conversation"], r["turn"])]
        ]
        if fixed:
            lines += ["", f"Right in `{mode}` but not in `{modes[0]}`:", "", *fixed]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--modes",
        action="append",
        choices=[m for m, _ in MODES],
        help="behaviour modes to run (repeatable; default: all)",
    )
    parser.add_argument(
        "--corpus",
        default="clef",
        help=f"a bundled corpus ({', '.join(CORPORA)}; default clef) or a folder of documents",
    )
    parser.add_argument(
        "--conversations", type=Path, help="labelled conversations (default: the corpus's own)"
    )
    parser.add_argument(
        "--out", type=Path, help="report path, without suffix (default: the corpus's)"
    )
    parser.add_argument("--title", help="how the report names the corpus")
    parser.add_argument(
        "--rejudge", action="store_true", help="re-run the checks over the stored --out .json"
    )
    args = parser.parse_args()
    source = corpus_for(args.corpus)
    source = Corpus(
        source.name,
        source.root,
        args.conversations or source.conversations,
        args.out or source.out,
        args.title or source.title,
    )
    if not source.conversations.is_file():
        raise SystemExit(f"no labelled conversations at {source.conversations} (--conversations)")
    command = ".venv/bin/python bench/handbook_trial.py"
    if args.corpus != "clef":
        command += f" --corpus {args.corpus}"
    for flag in ("conversations", "out", "title"):
        if getattr(args, flag):
            command += f' --{flag} "{getattr(args, flag)}"'
    command += "".join(f' --modes "{m}"' for m in args.modes or [])
    out = source.out
    if args.rejudge:
        payload = json.loads(report_path(out, ".json").read_text())
        payload["rows"] = rejudge(payload["rows"], payload["passages"], source.conversations)
        command = payload["command"]
    else:
        payload = {"command": command, **run(args.modes or [], source)}
    report_path(out, ".json").write_text(json.dumps(payload, indent=1) + "\n")
    report_path(out, ".md").write_text(render(payload))
    print(f"wrote {report_path(out, '.md')}")


def report_path(out: Path, suffix: str) -> Path:
    """`out` with `suffix` appended: a dot inside the name is no suffix ("trial_w0.7_tts"
    must not become "trial_w0.json", where two runs overwrite each other); a given ".json"
    or ".md" is replaced."""
    base = out.with_suffix("") if out.suffix in (".json", ".md") else out
    return base.with_name(base.name + suffix)


if __name__ == "__main__":
    main()
