"""`tellmemore demo`: ingest the bundled sample docs and play a scripted conversation.

For every turn it prints the decision, the resolution, and where the right
passage ranks when the message is searched as typed versus as resolved, in the
spirit of seed 001's expected output. The turns cover first questions,
follow-ups, an ambiguous follow-up and its clarification, a topic switch, small
talk, and a question the documents do not cover, asked mid-conversation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from tellmemore.cli.common import ProjectOpt, console, open_assistant
from tellmemore.cli.render import print_answer


@dataclass(frozen=True)
class DemoTurn:
    message: str
    gold_doc: str | None = None
    """doc id of the passage that answers the turn (None: nothing to retrieve)."""
    gold_section: str | None = None
    """a word of the section heading that answers it, to tell tiers apart."""
    new_session: bool = False


SCRIPT: tuple[DemoTurn, ...] = (
    DemoTurn("what escalation options do we have on cloud connect", "cloud-connect/escalation.md"),
    DemoTurn("does that one cover weekends?", "cloud-connect/escalation.md"),
    DemoTurn("enterprise", "cloud-connect/escalation.md", "Enterprise"),
    DemoTurn("and how fast do they respond?", "cloud-connect/escalation.md", "Enterprise"),
    DemoTurn("How much is the Pro plan?", "cloud-connect/plans-and-pricing.md"),
    DemoTurn("what is its plan code?", "cloud-connect/plans-and-pricing.md"),
    DemoTurn("what's the SLA on status page incidents?", "status-page/incident-sla.md"),
    DemoTurn("and on holidays?", "status-page/incident-sla.md"),
    DemoTurn("thanks a lot!"),
    DemoTurn("What are the shop opening hours?", "bike-rental/policy.md", new_session=True),
    DemoTurn("and on public holidays?", "bike-rental/policy.md", "Shop hours"),
    DemoTurn("My tyre went flat during a ride.", "bike-rental/policy.md", "flat"),
    DemoTurn("Do I pay for the other one?", "bike-rental/policy.md", "flat"),
    DemoTurn("can you make that shorter?"),
    # out of scope mid-conversation: the history phrasing alone matches the bike policy
    DemoTurn("what is the capital of France?"),
)


def demo_command(
    project: ProjectOpt = None,
    docs: Annotated[
        Path | None, typer.Option("--docs", help="Folder to ingest [default: bundled sample].")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="Only the summary table.")] = False,
) -> None:
    """Ingest the sample docs and play a scripted conversation: follow-ups, an ambiguous
    follow-up, a topic switch, small talk and an out-of-scope question, with raw-vs-resolved
    retrieval ranks."""
    from tellmemore.ingest import sample_corpus_path

    assistant = open_assistant(project)
    source = docs or sample_corpus_path()
    try:
        report = assistant.ingest([source], sync=True)
        console.print(
            f"[bold]Ingested[/] {source}: {assistant.index.count()} chunks "
            f"({report.chunks_embedded} embedded now, {report.chunks_unchanged} unchanged)."
        )
        summary = Table(title="Raw message vs resolved query: rank of the right passage")
        for col in ("turn", "decision", "searching for", "raw", "resolved"):
            summary.add_column(col)
        chat = assistant.session()
        for n, turn in enumerate(SCRIPT, start=1):
            if turn.new_session:
                chat = assistant.session()
            answer = chat.ask(turn.message)
            raw_rank = resolved_rank = "-"
            if turn.gold_doc and answer.standalone_query and not answer.clarification:
                raw_rank = _rank(assistant, turn.message, turn)
                resolved_rank = _turn_rank(assistant, answer.trace_id, turn)
            if not quiet:
                console.rule(f"[bold]{n}. you:[/] {escape(turn.message)}")
                gate = assistant.trace(answer.trace_id).get("gate", "")
                console.print(f"[dim]decision:[/] {answer.decision.value}   [dim]gate:[/] {gate}")
                print_answer(console, answer)
                if turn.gold_doc and answer.standalone_query and not answer.clarification:
                    console.print(
                        f"[dim]rank of the right passage: raw {raw_rank}, resolved "
                        f"{resolved_rank}[/]"
                    )
            query = answer.standalone_query if answer.decision.value == "retrieve" else None
            if answer.clarification:
                query = f"(asks: {answer.clarification})"
            decision = answer.decision.value
            if answer.clarification:
                decision = "clarify"
            elif answer.abstained:
                decision = "abstain"
            summary.add_row(
                turn.message,
                decision,
                query or "(no retrieval)",
                raw_rank,
                resolved_rank,
            )
        console.print(summary)
        hits = assistant.search("does enterprise escalation on cloud connect cover weekends?")
        if hits:
            top = hits[0]
            console.print(
                f"[bold]search[/] 'does enterprise escalation on cloud connect cover weekends?'"
                f" -> {top.chunk.header} (score {top.score:.3f})"
            )
    finally:
        assistant.close()


def _turn_rank(assistant, trace_id: str, turn: DemoTurn) -> str:  # type: ignore[no-untyped-def]
    """The right passage's rank among what the turn itself retrieved (every phrasing it
    searched, fused), as the answer was built from it."""
    hits = assistant.trace(trace_id).get("hits") or []
    for rank, hit in enumerate(hits[:10], start=1):
        chunk = hit.get("chunk") or {}
        if chunk.get("doc_id") != turn.gold_doc:
            continue
        if turn.gold_section is None or turn.gold_section.lower() in chunk["text"].lower():
            return str(rank)
    return "none"


def _rank(assistant, query: str, turn: DemoTurn) -> str:  # type: ignore[no-untyped-def]
    hits = assistant.search(query, k=10)
    for hit in hits:
        if hit.chunk.doc_id != turn.gold_doc:
            continue
        if turn.gold_section is None or turn.gold_section.lower() in hit.chunk.text.lower():
            return str(hit.rank)
    return "none"
