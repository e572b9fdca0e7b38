"""When to say "not in the documents" instead of answering.

Two signals, read over the phrasings of the user's question only (the history phrasing,
the message glued to earlier turns, matches the documents whenever the conversation did:
"what is the capital of France?" after a Cloud Connect question was answered with the
region list):

- the best hit's cosine similarity to the question (dense scores are comparable across
  queries; fused or BM25 scores are not), against `retrieval.min_dense_score`;
- the lexical coverage: the IDF-weighted share of the question's content words that one of
  its top hits holds. A short question ("what changed in the last release?") can sit at a
  low cosine to the chunk that answers it, while that chunk holds its rare words.

The turn abstains when nothing was retrieved, or when both signals are low.
`bench/abstention.py` chose the floors on MTRAG (docs/architecture.md, "Abstention").
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence

from tellmemore.answer import superlatives
from tellmemore.answer.units import units
from tellmemore.conversation.text import content_words, norm, singular
from tellmemore.types import Hit, TermStats

log = logging.getLogger(__name__)

COVERAGE_HITS = 5
"""Top hits of each phrasing whose words count for the lexical coverage."""


def should_abstain(
    hits: Sequence[Hit],
    *,
    min_dense_score: float,
    coverage: Callable[[], float] | None = None,
    min_coverage: float = 1.0,
) -> bool:
    """`coverage`: computes the lexical coverage (only called when the cosine is low); at
    or above `min_coverage` the documents do speak of the question."""
    if not hits:
        return True
    dense = [h.dense for h in hits if h.dense is not None]
    if not dense or max(dense) >= min_dense_score:
        return False
    return coverage is None or coverage() < min_coverage


def lexical_coverage(
    queries: Sequence[str],
    per_query: Mapping[str, Sequence[Hit]],
    term_stats: Callable[[list[str]], TermStats] | None,
) -> float:
    """The best IDF-weighted share of a phrasing's content words that one of its top hits
    holds (0.0 without term statistics): a word no chunk uses weighs the most."""
    if term_stats is None:
        return 0.0
    best = 0.0
    for q in queries:
        wanted = sorted({stem(w) for w in content_words(q)})  # sorted: sums in a fixed order
        if not wanted:
            continue
        try:
            stats = term_stats(wanted)
        except Exception:  # an index that cannot count words must not cost the turn
            log.warning("term statistics failed; lexical coverage taken as 0", exc_info=True)
            return 0.0
        idf = {w: stats.idf(w) for w in wanted}
        total = sum(idf.values()) or 1.0
        comparing = {stem(w) for w in content_words(q) if w.lower() in superlatives.COMPARING}
        for hit in per_query.get(q.strip(), ())[:COVERAGE_HITS]:
            held = {stem(w) for w in content_words(hit.chunk.text)}
            if comparing and _compares(q, hit):
                held |= comparing  # "cheapest": the table's prices answer it, not its words
            best = max(best, sum(v for w, v in idf.items() if w in held) / total)
    return best


def stem(word: str) -> str:
    """Plural-only normalisation ("tiers" = "tier"), not the package's Porter stem: on the
    coverage measure Porter stems ("bill" = "billed") raised missed abstentions (govt 0.284
    -> 0.301, clapnq 0.717 -> 0.733; bench/results/resolver_quality.md, round 8), and the
    term statistics are asked for these forms, which the index stems itself."""
    return singular(norm(word))


def _compares(question: str, hit: Hit) -> bool:
    """The hit's table rows answer the superlative question ("which plan is the
    cheapest?" over a price column)."""
    rows = [u.text for u in units(hit.chunk.text, hit.chunk.header) if u.row]
    return len(rows) >= 2 and superlatives.pick(question, rows) is not None


def evidence_hits(
    fused: Sequence[Hit], per_query: Mapping[str, Sequence[Hit]], evidence: Sequence[str]
) -> list[Hit]:
    """The hits of the phrasings that say what the user asks (`evidence`), from each
    phrasing's own ranking; the fused hits when those rankings are not at hand."""
    own = [h for q in evidence for h in per_query.get(q.strip(), ())]
    return own or list(fused)


def abstain_message(subject: str | None = None) -> str:
    """A clear abstention with a next step."""
    about = f" about {subject!r}" if subject else ""
    return (
        f"I couldn't find anything in the documents{about} that answers this. "
        "Try naming the product, plan or policy you mean, or rephrase with the words "
        "the documentation would use."
    )
