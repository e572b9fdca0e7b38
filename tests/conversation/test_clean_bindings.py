"""What a binding shows the user is clean (issue 20): no URL, no markup, and keys are the
words the user typed."""

from __future__ import annotations

from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.conversation.text import readable

from .histories import A, U

RESOLVER = EmbeddedResolver()
LABELS = {"scope", "topic", "and", "what about", "what if", "for"}


def test_markup_and_addresses_are_no_words_of_the_conversation() -> None:
    text = (
        "You are [required](https://intranet.example/policy) to <b>answer</b> the **survey**; "
        "see https://example.com/faq or www.example.org/help for `details`."
    )
    clean = readable(text)
    assert "http" not in clean and "www" not in clean and "<b>" not in clean
    assert "required" in clean and "answer" in clean and "survey" in clean
    assert "**" not in clean and "`" not in clean


def test_the_first_one_never_binds_a_link() -> None:
    """Handbook: "the first one" bound "https" from a link in the answer."""
    history = [
        U("how do I apply for parental leave?"),
        A(
            "To apply:\n1. https://hr.example.com/forms: fill in the leave form\n"
            "2. Manager approval: your manager signs it\n3. HR review: HR confirms the dates"
        ),
    ]
    res = RESOLVER.resolve("what's the first one?", history, ResolveContext())
    shown = " ".join(res.bindings.values()) + " " + res.query
    assert "http" not in shown and "hr.example" not in shown
    assert all(key.lower() not in LABELS for key in res.bindings)


def test_keys_are_the_words_typed() -> None:
    history = [
        U("How much is the Pro plan?"),
        A("Pro costs $299 per month."),
        U("does it include escalation?"),
        A("Pro includes Standard escalation."),
    ]
    res = RESOLVER.resolve("and for the Enterprise plan?", history, ResolveContext())
    assert list(res.bindings) == ["and for the Enterprise plan"]
    low = RESOLVER.resolve(
        "pricing?", [U("tell me about Cloud Connect"), A("It is a VPN.")], ResolveContext()
    )
    assert all(key.lower() not in LABELS for key in low.bindings)
    assert all(key in "pricing?" for key in low.bindings)


def test_a_disabled_pass_leaves_its_kind_of_follow_up_as_typed() -> None:
    """The ablation switch a benchmark uses to measure each pass on a held-out domain."""
    history = [U("what are the plans?"), A("Plans: Starter; Pro; Enterprise.")]
    on = RESOLVER.resolve("how much is the second one?", history, ResolveContext())
    assert on.passes == ("ordinal",)
    off = RESOLVER.resolve(
        "how much is the second one?",
        history,
        ResolveContext(disabled_passes=frozenset({"ordinal"})),
    )
    assert off.passes == () and off.query == "how much is the second one?"


def test_a_padding_row_of_another_table_is_never_bound() -> None:
    """Handbook: "it" bound a word of a job-title row that padded an unrelated answer (on
    main this bound "E7 Submit")."""
    history = [
        U("how do I request time off?"),
        A(
            "Level: Principal; Title: Distinguished engineer; Band: E7 [2]\n"
            "Submit the request in Workday two weeks ahead. [1]"
        ),
    ]
    res = RESOLVER.resolve("who approves it?", history, ResolveContext())
    shown = " ".join(res.bindings.values())
    assert res.bindings and not {"E7", "Principal", "Distinguished", "Band"} & set(shown.split())
