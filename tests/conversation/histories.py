"""Sample-like conversations shared by the conversation tests (seed 001 and seed 003)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tellmemore.conversation.text import stem, words
from tellmemore.types import TermStats, Turn


def U(text: str) -> Turn:
    return Turn("user", text)


def A(text: str) -> Turn:
    return Turn("assistant", text)


TIERS = (
    "Two tiers. Standard escalation routes to the on-call queue with a 4-hour response "
    "target. Enterprise escalation adds a named responder and a 1-hour target."
)

CLOUD_CONNECT = [U("what escalation options do we have on cloud connect"), A(TIERS)]
"""Seed 003's transcript: two alternatives of equal standing."""

CLOUD_CONNECT_CHOSEN = [
    *CLOUD_CONNECT,
    U("we are on the enterprise tier. what does it add?"),
    A("Enterprise escalation adds a named responder and a 1-hour response target."),
]
"""The user said which tier."""

CLOUD_CONNECT_LONG = [
    U("what escalation options do we have on cloud connect"),
    A(TIERS),
    U("does enterprise escalation on cloud connect cover weekends?"),
    A("Yes, Enterprise escalation on Cloud Connect covers weekends and public holidays."),
    U("how do I open a cloud connect ticket?"),
    A("Open a Cloud Connect ticket from the support portal under Cloud Connect > Tickets."),
    U("can I attach logs to a cloud connect ticket?"),
    A("Yes, attach up to 10 files of 25 MB each to a Cloud Connect ticket."),
]
"""Several turns on one product, before a topic switch."""

SHOPS = [
    U("What time do shops close on weekdays?"),
    A("Shops close at 8 pm on weekdays and at 6 pm on Saturdays."),
]
MONTHLY_PASS = [
    U("I want to buy the monthly pass for the city bikes"),
    A("The monthly pass gives unlimited 30-minute rides on every city bike."),
]
FLAT_TYRE = [
    U("What happens if I get a flat tyre?"),
    A("Lock the bike at the nearest station and take another bike from the rack."),
]
PLANS_LIST = [
    U("which plans does the bike rental offer?"),
    A(
        "There are three plans:\n"
        "1. Day pass: unlimited rides for 24 hours.\n"
        "2. Monthly pass: unlimited 30-minute rides.\n"
        "3. Annual membership: the cheapest per ride."
    ),
]
LATE_RETURNS = [
    U("What are the rules for returning a bike?"),
    A("Late returns cost 2 dollars per 15 minutes, and damage must be reported in the app."),
]

CORPUS = [
    "Cloud Connect escalation: Standard escalation routes to the on-call queue.",
    "Cloud Connect escalation: Enterprise escalation adds a named responder.",
    "Cloud Connect weekend coverage for Enterprise escalation.",
    "Status Page incidents: the SLA for status page incidents is 99.9%.",
    "Status Page subscribers receive incident updates by email.",
    "Bike rental: the monthly pass costs 30 dollars.",
    "Bike rental: helmets for kids are free.",
    "Bike rental: a flat tyre is not charged; take another bike.",
    "Shops close at 8 pm on weekdays; opening hours on public holidays.",
    "Data platform weekend on-call rotation.",
    "Billing product support hours table.",
    "SRE handbook: weekend paging.",
]


def corpus_stats(texts: list[str] = CORPUS) -> Callable[[Iterable[str]], TermStats]:
    """A term_stats callable over a tiny corpus (document frequency of lower-cased words)."""
    docs = [{stem(w) for w in words(t)} for t in texts]

    def lookup(terms: Iterable[str]) -> TermStats:
        return TermStats(len(docs), {t: sum(stem(t) in d for d in docs) for t in terms})

    return lookup
