"""When to say "not in the documents" instead of answering.

The evidence is missing when nothing was retrieved, or when the best hit's
cosine similarity to the query is below a calibrated floor (dense scores are
comparable across queries; fused or BM25 scores are not). Only the phrasings of the
user's question count: the history phrasing (the message glued to earlier turns)
matches the documents whenever the conversation did, so "what is the capital of
France?" after three Cloud Connect questions was answered with the region list. The floor comes from
settings (`retrieval.min_dense_score`, 0.25; docs/architecture.md gives the scores of
related and unrelated questions on the sample corpus that put it there).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tellmemore.types import Hit


def should_abstain(hits: Sequence[Hit], *, min_dense_score: float) -> bool:
    if not hits:
        return True
    dense = [h.dense for h in hits if h.dense is not None]
    if not dense:
        return False
    return max(dense) < min_dense_score


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
