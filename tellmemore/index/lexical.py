"""Query text -> FTS5 terms: lowercased words without stopwords or FTS5 syntax.

FTS5 indexes every word (stopwords too, so `term_stats` can count them), but
queries never send stopwords as OR terms: they would match most chunks, swamp
the score and cost a scan of their long posting lists. Each remaining term is
quoted, so no input ("AND OR NOT * (", a lone quote, "col:term") can be read
as FTS5 syntax.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MAX_QUERY_TERMS = 64

# English function words, question words and contraction pieces ("don't" ->
# "don", "t"). Not "us", "may", "won": they are also names, months and verbs.
_STOPWORDS_TEXT = """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can cannot could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not of off on once only or other ought our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    s t d m ll re ve don doesn didn isn aren wasn weren hasn haven hadn wouldn shouldn couldn
    also might must shall via vs etc yes ok okay please tell know let get got
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())

_PIECE = re.compile(r"[^\W_]+")


def query_terms(text: str) -> list[str]:
    """The FTS5 terms of a query: lowercased words without stopwords or syntax, deduplicated.

    A whitespace-separated token made of several pieces that contains a digit
    ("ERR-4032", "v2.1", "2024-05-01") stays one phrase ("err 4032"), so codes
    match as written; other tokens split into their words. At most
    `MAX_QUERY_TERMS` terms are kept, in query order.
    """
    terms: list[str] = []
    seen: set[str] = set()
    for raw in text.lower().split():
        pieces = _PIECE.findall(raw)
        if not pieces:
            continue
        if len(pieces) > 1 and any(c.isdigit() for c in raw):
            candidates = [" ".join(pieces)]
        else:
            candidates = [p for p in pieces if p not in STOPWORDS]
        for term in candidates:
            if term not in seen:
                seen.add(term)
                terms.append(term)
    return terms[:MAX_QUERY_TERMS]


def match_expression(terms: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression OR-ing the quoted terms; None for no terms."""
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def fts_query(text: str) -> str | None:
    """`match_expression(query_terms(text))`: None when nothing searchable is left."""
    return match_expression(query_terms(text))


def searchable_text(title: str, section: Sequence[str], text: str) -> str:
    """What FTS5 indexes: the header ("Title > Section") and the text, the header once."""
    header = " > ".join(p for p in (title, *section) if p)
    if not header or text.startswith(header):
        return text
    return f"{header}\n{text}"
