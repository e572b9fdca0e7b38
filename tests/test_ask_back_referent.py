"""Asking back which one a follow-up means, over the bundled sample documents (real
MiniLM, real SQLite): after an answer listing several plans "the plan" and "that one" ask
which plan, the reply answers the original question; with one plan in the conversation
nothing is asked."""

from __future__ import annotations

PLANS = ("Starter", "Pro", "Enterprise")


def test_the_plan_after_a_list_of_plans_asks_which_and_the_reply_answers(
    sample_assistant,  # type: ignore[no-untyped-def]
) -> None:
    chat = sample_assistant.session()
    listed = chat.ask("What plans does Cloud Connect offer?")
    assert not listed.clarification
    asked = chat.ask("How many sites does the plan include?")
    assert asked.clarification is not None
    assert asked.clarification_options == PLANS
    assert not asked.citations, "a clarifying question searches nothing"
    answer = chat.ask("Pro")
    assert not answer.clarification
    assert "pro" in (answer.standalone_query or "").lower()
    assert "ten sites" in answer.answer


def test_that_one_after_a_list_of_plans_offers_the_plans(sample_assistant) -> None:  # type: ignore[no-untyped-def]
    chat = sample_assistant.session()
    chat.ask("What plans does Cloud Connect offer?")
    asked = chat.ask("does that one include an SLA?")
    assert asked.clarification_options == PLANS


def test_one_plan_in_the_conversation_is_not_asked_about(sample_assistant) -> None:  # type: ignore[no-untyped-def]
    """The referent means the Pro plan: no question back. Whether the binding is shown or
    withheld (the message as typed finds the plan table: `conversation.gating`), it is Pro."""
    for follow_up in ("does the plan include an SLA?", "how many sites does it include?"):
        chat = sample_assistant.session()
        chat.ask("How much is the Pro plan?")
        answer = chat.ask(follow_up)
        assert not answer.clarification, follow_up
        resolution = sample_assistant.trace(answer.trace_id)["resolution"]
        proposed = {**resolution["bindings"], **resolution["withheld"]}
        shown = " ".join([answer.standalone_query or "", *proposed.values()])
        assert "pro" in shown.lower(), follow_up


def test_it_after_two_plans_asked_together_asks_which_when_opted_in(
    sample_assistant_with,  # type: ignore[no-untyped-def]
) -> None:
    """`conversation.ask_coordinated` reaches the resolver: "it" after two plans set side by
    side asks which one; off (the default), it binds one as before."""
    asked: dict[bool, object] = {}
    for on in (True, False):
        chat = sample_assistant_with(conversation={"ask_coordinated": on}).session()
        chat.ask("When do the Starter plan and the Enterprise plan renew?")
        asked[on] = chat.ask("how many sites does it include?").clarification_options
    assert asked[True] is not None and len(asked[True]) == 2  # type: ignore[arg-type]
    assert {o.lower() for o in asked[True]} == {"starter plan", "enterprise plan"}  # type: ignore[union-attr]
    assert not asked[False]
