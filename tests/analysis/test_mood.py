"""A message asks (a question, a request) or only remarks (`analysis.mood.asks`)."""

from __future__ import annotations

import pytest

from tellmemore.analysis.mood import asks


@pytest.mark.parametrize(
    "message",
    [
        "what about a phone stipend?",
        "Is there a gym stipend",  # no closing mark: typed as a query
        "gym stipend",
        "What's the budget.",  # a question word, closed with a full stop
        "ok. what is the fee.",
        "List the benefits!",  # a request's verb, even exclaimed
        "please explain with penalty.",
        "Tell me about the gym stipend.",  # a verb and the asker as its object
        "I would like to know more about the Rongbuk Monastery.",
        "I'm not sure I understand what a TLS handshake is.",
        "Speaking of it, what can you tell me about its history.",
        "Excuse me, I meant source code example, rather.",  # a repair asks again
        "New Zealand climate.",  # a topic typed as a sentence: no verb
        "I need to do some legal research. Can I visit the law library?",
    ],
)
def test_questions_and_requests_ask(message: str) -> None:
    assert asks(message)


@pytest.mark.parametrize(
    "message",
    [
        "So, no game meat from now on!",
        "What a terrible war!",  # an exclamation, though it opens with "what"
        "I see. What a terrible war !",
        "Great!  there certainly are scientists who care about violent culture in the US!",
        "So, they have solved the problem.",
        "I am in Sacramento.",
        "Thanks, that helps.",
    ],
)
def test_statements_and_remarks_do_not(message: str) -> None:
    assert not asks(message)
