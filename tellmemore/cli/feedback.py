"""`tellmemore feedback`: a thumbs up or down on an answer, tied to its trace id.

The same record as the service's POST /v1/feedback: it sits in state.db next to the
trace, so a bad answer found at the command line can be found again with its query,
bindings and hits.
"""

from __future__ import annotations

from typing import Annotated

import typer

from tellmemore.cli.common import (
    JsonOpt,
    ProjectOpt,
    console,
    open_assistant,
    print_json,
    utf8_id,
)


def feedback_command(
    trace_id: Annotated[str, typer.Argument(help="The answer's trace id (ask prints it).")],
    rating: Annotated[str, typer.Argument(help="up or down.")],
    reason: Annotated[
        str | None, typer.Option("--reason", "-r", help="What was right or wrong.")
    ] = None,
    project: ProjectOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Rate an answer up or down, with an optional reason, by its trace id."""
    from tellmemore.turn import valid_unicode

    utf8_id(trace_id, "the trace id")
    assistant = open_assistant(project)
    try:
        reason = valid_unicode(reason) if reason else reason
        cleaned = reason.strip() if reason and reason.strip() else None
        feedback_id = assistant.feedback(trace_id, rating.strip().lower(), cleaned)
    finally:
        assistant.close()
    if json_out:
        print_json(
            {"feedback_id": feedback_id, "trace_id": trace_id, "rating": rating, "reason": cleaned}
        )
        return
    console.print(f"Feedback {feedback_id} recorded on trace {trace_id}.")
