"""Content words as the extractive answer compares them: lowercased, stop words out, a
light plural folding ("plans" -> "plan", "policies" -> "policy")."""

from __future__ import annotations

import re

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-']*")
STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "could",
        "do",
        "does",
        "did",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "us",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "about",
        "any",
        "there",
    ]
)


def terms(text: str) -> list[str]:
    """Lowercased content words with a light plural/suffix folding."""
    out = []
    for w in WORD.findall(text.lower()):
        if w in STOP or (len(w) < 2 and not w.isdigit()):  # "sev 2" vs "sev 1"
            continue
        out.append(fold(w))
    return out


def fold(word: str) -> str:
    for suffix in ("ies", "es", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word
