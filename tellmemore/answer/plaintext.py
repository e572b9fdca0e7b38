"""A quoted sentence as a reader sees it: Markdown inline markup rendered to plain text.

Chunks keep their source's Markdown (the LLM path and the citations want it), but an
extractive answer is read as plain text (the CLI, the web chat, an API caller's own UI):
"the recognized [Holiday List](https://github.com/...)" and "**not**" in a quoted sentence
are noise, and a URL in an answer was bound as the next turn's referent ("the first one"
-> "https"). Links keep their text (a bare or self-named link its URL), images their alt
text, code spans their code; emphasis marks, inline HTML tags and backslash escapes go.
Parsed by markdown-it-py (CommonMark), so "snake_case_name", "5 * 3" and "$5m" stay as
written.
"""

from __future__ import annotations

import functools
import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

_MARKS = frozenset("*_`[]<>\\!{")
"""Characters without which a text holds no inline markup: the common case skips parsing."""


_TEMPLATED_TARGET = re.compile(r"\]\(\s*\{[{%][^()\n]*\)")
"""A link whose target is a site generator's template tag ("[the donated leave
program]({% page "/travel-and-leave/..." %})", Jekyll/Liquid): not a CommonMark link (its
target holds spaces), so it was quoted raw; its text is what it says."""


_TEMPLATE_TAG = re.compile(r"\{%-?\s*[\w.]+(?:\s+(?:\"([^\"]*)\"|'([^']*)'))?[^%]*-?%\}")
"""A site generator's tag in running text ("go to {% slack_channel "training" %}"): it
shows as its quoted argument, or as nothing ("{% endif %}")."""


_HALF_EMPHASIS = re.compile(r"(?:(?<=\s)|^)[_*]{1,3}(?=[^\s_*\d])|(?<=[^\s_*\d])[_*]{1,3}(?=\s|$)")
"""An emphasis mark left without its other half: the sentence splitter cut an emphasised
span of two sentences ("_did your dates change? [1] If yes, STOP._"), so each half keeps
one mark, which CommonMark prints as a character. Only a run at a word's start or end goes
("snake_case_name", "5 * 3", "a 5* hotel" and "*2" stay), and only in text, not in code spans."""


@functools.lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark")


def plain_text(text: str) -> str:
    """`text` (one sentence, list item or table row) with its inline Markdown rendered as
    plain text; text without markup comes back unchanged."""
    if not _MARKS.intersection(text):
        return text
    text = _TEMPLATED_TARGET.sub("](#)", text)
    text = _TEMPLATE_TAG.sub(lambda m: m.group(1) or m.group(2) or "", text)
    tokens = _parser().parseInline(text)
    out: list[str] = []
    for block in tokens:
        _render(block.children or [], out)
    rendered = "".join(out).strip()
    return rendered or text


def _render(tokens: list[Token], out: list[str]) -> None:
    link_url: str | None = None
    link_start = 0
    for tok in tokens:
        kind = tok.type
        if kind == "text":
            out.append(_HALF_EMPHASIS.sub("", tok.content))
        elif kind == "code_inline":
            out.append(tok.content)
        elif kind in ("softbreak", "hardbreak"):
            out.append(" ")
        elif kind == "image":
            out.append(tok.content or "")
        elif kind == "link_open":
            link_url, link_start = str(tok.attrs.get("href", "")), len(out)
        elif kind == "link_close":
            label = "".join(out[link_start:]).strip()
            if not label and link_url and not link_url.startswith("#"):
                out.append(link_url)  # "[](https://x)": the URL is all it says
            link_url = None
        # emphasis and strong marks, inline HTML tags: nothing to show
