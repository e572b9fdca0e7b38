"""Answer edits without an LLM: "make that shorter" and "tell me more".

"make that shorter" keeps the one or two sentences of the last answer that best answer
the question it answered (ranked by the sentence scorer), with their source markers: the
same sources, and always shorter (a one-sentence answer loses its asides, then its
least relevant clauses). "tell me more" searches the same topic again, and the answer
quotes only sentences this conversation has not shown yet (`shown_sentences`).

The cues of "tell me more" are data (`edits.json`).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from importlib import resources

from tellmemore.answer import scoring
from tellmemore.answer.answer_types import asked_type
from tellmemore.answer.plaintext import plain_text
from tellmemore.ingest.sentences import split_sentences
from tellmemore.types import Turn

NOTHING_MORE = "The documents say nothing more about this than what I have already quoted."
_MARKER = re.compile(r"\s*\[(\d{1,3})\]")
_BULLET = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s+")
_LABEL = re.compile(r"^[^\[\]]{1,80}:$")
"""A source's name above its group of quotes ("Parental leave:"): no sentence."""
_ASIDE = re.compile(r"\s*\([^()]*\)|\s*,\s*(?:e\.g\.|i\.e\.|for example|such as)[^,.;]*,?")
_CLAUSE = re.compile(r"(?<=[,;:])\s+|\s+(?:-|–|—)\s+")
SECOND_SENTENCE_WORDS = 12
"""A best sentence this short is joined by the next best one."""


@functools.cache
def _cues() -> re.Pattern[str]:
    text = resources.files("tellmemore.answer").joinpath("edits.json").read_text("utf-8")
    return re.compile("|".join(f"(?:{p})" for p in json.loads(text)["more"]))


def asks_for_more(message: str) -> bool:
    """ "tell me more", "go on", "what else?", "more details please": more of the topic."""
    return _cues().search(" ".join(message.lower().split())) is not None


def _norm(text: str) -> str:
    return " ".join(_MARKER.sub("", text).lower().split())


def shown_sentences(history: Sequence[Turn]) -> tuple[str, ...]:
    """The conversation's answers so far, normalised: a candidate sentence found in one
    of them has been shown."""
    return tuple(_norm(t.content) for t in history if t.role == "assistant" and t.content)


def was_shown(sentence: str, shown: Sequence[str]) -> bool:
    """Whether `sentence` (as the document writes it) is in an answer already given. The
    answer showed it as plain text: "your usual [duty location](url)" was shown as "your
    usual duty location", and "tell me more" quoted it again (TTS handbook)."""
    norm = _norm(plain_text(sentence))
    return bool(norm) and any(norm in s for s in shown)


_CITED = re.compile(r"((?:\s*\[\d{1,3}\])+)")


def _pieces(answer: str) -> list[tuple[str, str]]:
    """(sentence, the markers that cite it) of an answer, in order; group labels and
    bullets dropped. A marker cites the text before it ("A. [1] B. [2]"), every sentence of
    it ("A. B. [1]")."""
    out: list[tuple[str, str]] = []
    for raw in answer.splitlines():
        line = _BULLET.sub("", raw.strip())
        if not line or _LABEL.match(line):
            continue
        label = re.match(r"^[^\[\]:.?!]{1,60}:\s+(?=\S)", line)
        if label and label.group(0).count(" ") < 7 and _MARKER.search(line):
            line = line[label.end() :]  # "Parental leave: 16 weeks ... [1]" -> the quote
        parts = _CITED.split(line)
        for text, cited in zip(parts[::2], [*parts[1::2], ""], strict=True):
            markers = "".join(f" [{m}]" for m in _MARKER.findall(cited))
            if out and not re.search(r"\w", text):  # "holidays [1]." : the stop is its
                out[-1] = (out[-1][0] + text.strip(), out[-1][1])
                continue
            for sentence in split_sentences(text.strip()):
                out.append((sentence, markers))
    return out


def shorter(answer: str, question: str, embed: scoring.Embed | None = None) -> str:
    """A shorter form of `answer` (a quoted answer with "[n]" markers) for `question`:
    its best one or two sentences in their order, with their markers; always shorter
    than `answer` when `answer` has more than one word."""
    pieces = _pieces(answer)
    if not pieces:
        return _cut(answer.strip(), "")
    if len(pieces) > 1:
        candidates = [scoring.Candidate(t, 0, i) for i, (t, _) in enumerate(pieces)]
        x = scoring.features(question, candidates, [""], asked_type(question), embed)
        p = scoring.shipped().probabilities(x)
        ranked = sorted(range(len(pieces)), key=lambda i: (-p[i], i))
        keep = [ranked[0]]
        if len(pieces[ranked[0]][0].split()) < SECOND_SENTENCE_WORDS:
            keep.append(ranked[1])
        text = " ".join(f"{pieces[i][0]}{pieces[i][1]}" for i in sorted(keep))
        if len(text) < len(answer.strip()):
            return text
        best = pieces[ranked[0]]
        text = f"{best[0]}{best[1]}"
        if len(text) < len(answer.strip()):
            return text
        return _cut(best[0], best[1], limit=len(answer.strip()), question=question)
    sentence, markers = pieces[0]
    return _cut(sentence, markers, limit=len(answer.strip()), question=question)


def _cut(sentence: str, markers: str, *, limit: int | None = None, question: str = "") -> str:
    """One sentence made shorter than `limit` characters: without its asides
    ("(see below)", ", e.g. ...,"), then its clauses that share the fewest words with the
    question, then its last words."""
    limit = len(sentence + markers) if limit is None else limit
    plain = _ASIDE.sub("", sentence).strip()
    if plain and len(plain + markers) < limit:
        return plain + markers
    clauses = [c for c in _CLAUSE.split(plain or sentence) if c.strip()]
    if len(clauses) > 1:
        asked = scoring.content_stems(question)
        best = max(
            clauses, key=lambda c: (len(asked & scoring.content_stems(c)), -clauses.index(c))
        )
        text = best.rstrip(",;: ")
        if not text.endswith((".", "!", "?")):
            text += "."
        text = text[:1].upper() + text[1:]
        if len(text + markers) < limit:
            return text + markers
    words = (plain or sentence).split()
    while len(words) > 1 and len(" ".join(words) + "…" + markers) >= limit:
        words = words[:-1]
    return " ".join(words).rstrip(",;:") + "…" + markers
