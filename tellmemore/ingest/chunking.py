"""Structure-aware chunking, sized in the embedding model's tokens.

A document's Markdown-like text is split on headings into sections (each
keeps its heading path), each section into blocks (paragraphs, whole lists,
whole tables, code), and consecutive blocks of one section are packed into
chunks up to `max_tokens`. A block too long to fit is split on its natural
units: table rows (the table's header row repeated in every piece), list
items, then sentences, then words. Nothing is truncated: every chunk, header
included, is measured with the embedder's own `count_tokens` and fits.

Every chunk's text starts with a header line naming its subject,
"Doc title > Section > Subsection", so a chunk retrieved alone still says what
it is about (seed 000: "every chunk has to name its own subject").

With `overlap_sentences` (setting `chunking.overlap_sentences`, default 0), a
chunk after the first of its section opens with the last sentences of the
previous chunk's prose, as many as fit, so a fact cut at a boundary is still
whole in one chunk. Chunks are packed as without overlap (same boundaries, same
ids): the repeated sentences only use the room a chunk has left.

Default chunk size, from top-k (`default_chunk_tokens`)
--------------------------------------------------------
Chunk size is downstream of how many chunks retrieval returns (seed 000). With
few slots, a broad chunk that mentions everything about a subject wins every
query about it and crowds the specific passage out of the top k; with many
slots (or a reranker) coarser chunks can afford to share the list. So chunks
are narrow at small k and widen with k:

    tokens = clamp(128 + 32 * (k - 3), 64, model_window - 2)

- 128 tokens at k = 3: about one paragraph or one short section (~95 words),
  which is seed 000's "narrow entry", and the length all-MiniLM-L6-v2 was
  trained on, so the vector represents the whole chunk;
- each slot beyond 3 affords 32 more tokens (k = 5, the default: 192; k = 7:
  256 -> capped); each slot fewer takes 32 away, floor 64 (two or three
  sentences: below that a chunk loses its context);
- never above the model window minus its 2 special tokens ([CLS], [SEP]), the
  hard limit beyond which the model silently truncates. The header is counted
  inside the chunk, so the window holds header + body.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from tellmemore.ingest.blocks import LIST_ITEM, Block, Section, parse_sections
from tellmemore.ingest.ids import chunk_id, content_hash
from tellmemore.ingest.loaders.base import Document
from tellmemore.ingest.pages import PageLocator
from tellmemore.ingest.sentences import split_sentences
from tellmemore.injection import injection_flags  # one detector for ingestion and answers
from tellmemore.types import Chunk

CHUNKER_VERSION = "5"
"""Bump when the same document would chunk differently: every document is then re-chunked."""

SPECIAL_TOKENS = 2
"""Tokens a BERT-style encoder adds around every input ([CLS] ... [SEP])."""

NARROW_TOKENS = 128
NARROW_AT_K = 3
TOKENS_PER_SLOT = 32
MIN_CHUNK_TOKENS = 64

HEADER_SEP = " > "

CountTokens = Callable[[str], int]


def default_chunk_tokens(top_k: int, model_max_tokens: int) -> int:
    """Chunk size in model tokens for a retrieval top-k (the rule is in the module docstring)."""
    if top_k < 1:
        raise ValueError(f"top_k must be >= 1, got {top_k}")
    window = model_max_tokens - SPECIAL_TOKENS
    if window < 16:
        raise ValueError(f"model window of {model_max_tokens} tokens is too small to chunk for")
    wanted = NARROW_TOKENS + TOKENS_PER_SLOT * (top_k - NARROW_AT_K)
    return max(min(wanted, window), min(MIN_CHUNK_TOKENS, window))


# ---------------------------------------------------------------- splitting


_CLAUSE = re.compile(r"(?<=[;:])\s+")
"""Inside a sentence too long for a chunk, the next best cut: after a ";" or ":"."""


def _units(block: Block) -> tuple[str, list[str], str]:
    """(prefix repeated in every piece, units, joiner) of an over-long block."""
    lines = block.text.split("\n")
    if block.kind == "table":
        head = (
            lines[:2]
            if len(lines) > 1 and set(lines[1].replace("|", "").strip()) <= set("-: ")
            else lines[:1]
        )
        return "\n".join(head) + "\n", lines[len(head) :], "\n"
    if block.kind == "list":
        items: list[str] = []
        for line in lines:
            if (LIST_ITEM.match(line) and not line[:1].isspace()) or not items:
                items.append(line)
            else:
                items[-1] += "\n" + line
        return "", [it.strip("\n") for it in items if it.strip()], "\n"
    if block.kind == "code":
        return "", lines, "\n"
    flat = " ".join(block.text.split())
    if block.kind == "sentence":
        return "", [s for s in _CLAUSE.split(flat) if s.strip()], " "
    return "", split_sentences(flat), " "


def _row_pieces(row: str, room: int, count: CountTokens) -> list[str] | None:
    """A table row too long for a chunk, cut between cells; every piece after the first
    repeats the row's label (its first cell), so "| Senior | ... |" stays about Senior.
    None when the row has fewer than three cells (nothing to cut between)."""
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    if len(cells) < 3:
        return None
    label = f"| {cells[0]} | "
    pieces: list[str] = []
    current: list[str] = [cells[0]]
    for cell in cells[1:]:
        wider = "| " + " | ".join([*current, cell]) + " |"
        if len(current) > 1 and count(wider) > room:
            pieces.append("| " + " | ".join(current) + " |")
            current = [cells[0]]
        current.append(cell)
    pieces.append("| " + " | ".join(current) + " |")
    out: list[str] = []
    for piece in pieces:
        if count(piece) <= room:
            out.append(piece)
            continue
        # one cell alone is wider than a chunk: cut inside it, at sentences, then words
        body = piece[len(label) :].rstrip(" |") if piece.startswith(label) else piece
        subs = split_text(Block("para", body), max(8, room - count(label) - 2), count)
        out.extend(f"{label}{sub} |" for sub in subs)
    return out


def _split_words(text: str, budget: int, count: CountTokens) -> list[str]:
    """Pieces of `text` of at most about `budget` tokens, cut between words (or inside a giant
    word). Word counts are summed (linear, not re-counting the growing piece); `_fit` then
    measures each chunk for real, for tokenizers where counts are not additive."""
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for word in text.split():
        n = count(word)
        if n > budget:
            if current:
                pieces.append(" ".join(current))
                current, used = [], 0
            pieces.extend(_split_chars(word, budget, count))
            continue
        if current and used + n > budget:
            pieces.append(" ".join(current))
            current, used = [], 0
        current.append(word)
        used += n
    if current:
        pieces.append(" ".join(current))
    return pieces


def _split_chars(word: str, budget: int, count: CountTokens) -> list[str]:
    pieces: list[str] = []
    while word:
        lo, hi = 1, len(word)
        while lo < hi:  # longest prefix that fits
            mid = (lo + hi + 1) // 2
            if count(word[:mid]) <= budget:
                lo = mid
            else:
                hi = mid - 1
        pieces.append(word[:lo])
        word = word[lo:]
    return pieces


def split_text(block: Block, budget: int, count: CountTokens) -> list[str]:
    """Pieces of an over-long block, each of at most `budget` tokens, in order."""
    prefix, units, joiner = _units(block)
    prefix_tokens = count(prefix) if prefix else 0
    room = budget - prefix_tokens
    if room < max(8, budget // 4):  # a table header too wide to repeat: keep it once, first
        units = [*prefix.rstrip("\n").split("\n"), *units]  # row by row, never cut as one
        prefix, room = "", budget
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for unit in units:
        n = count(unit)
        if n > room:
            if current:
                pieces.append(prefix + joiner.join(current))
                current, used = [], 0
            pieces.extend(prefix + s for s in _split_unit(block.kind, unit, room, count))
            continue
        if current and used + n + 1 > room:
            pieces.append(prefix + joiner.join(current))
            current, used = [], 0
        current.append(unit)
        used += n + (1 if len(current) > 1 else 0)
    if current:
        pieces.append(prefix + joiner.join(current))
    return pieces


def _split_unit(kind: str, unit: str, room: int, count: CountTokens) -> list[str]:
    """One unit (a row, an item, a sentence) wider than `room`, cut at the largest natural
    boundary it has: a table row between cells, an item between sentences, a sentence
    between clauses; words only when nothing larger fits."""
    if kind == "code":
        return _split_words(unit, room, count)
    if kind == "table":
        rows = _row_pieces(unit, room, count)
        if rows is not None:
            return rows
    finer = "sentence" if kind == "para" else "para"
    if kind != "sentence" and len(_units(Block(finer, unit))[1]) > 1:
        return split_text(Block(finer, unit), room, count)
    if kind != "sentence" and len(_units(Block("sentence", unit))[1]) > 1:
        return split_text(Block("sentence", unit), room, count)
    return _split_words(unit, room, count)


# ---------------------------------------------------------------- chunks


def _hashed(metadata: dict[str, object]) -> dict[str, object]:
    """The metadata that decides whether a chunk is re-embedded: all but its source path,
    so moving the docs folder re-embeds nothing (state.db keeps the new path; the index
    row keeps the path the chunk was embedded from)."""
    return {k: v for k, v in metadata.items() if k != "source"}


def make_header(title: str, path: Sequence[str], max_tokens: int, count: CountTokens) -> str:
    """ "Title > Section > Subsection", shortened (middle first) to at most `max_tokens`."""
    parts = [p for p in (title, *path) if p]
    header = HEADER_SEP.join(parts)
    while count(header) > max_tokens and len(parts) > 2:
        parts = [parts[0], "…", *parts[3:]] if parts[1] == "…" else [parts[0], "…", *parts[2:]]
        header = HEADER_SEP.join(parts)
    if count(header) > max_tokens:
        header = _split_words(header, max_tokens, count)[0]
    return header


Piece = tuple[str, int, str]
"""(text, tokens, block kind) of a block or of a part of an over-long block."""

Body = tuple[str, str]
"""(text, kind of the block it ends with) of a chunk body, before any overlap."""


def _pack(pieces: list[Piece], budget: int) -> list[list[Piece]]:
    """Greedy packing of consecutive pieces into groups of at most ~`budget` tokens. A
    paragraph that leads a list in ("There are three kinds of FSA:") never ends a group
    while its list opens the next: it moves over to the list, which it names."""
    groups: list[list[Piece]] = []
    current: list[Piece] = []
    used = 0
    for piece in pieces:
        n = piece[1]
        if current and used + n + 1 > budget:
            carried: list[Piece] = []
            if len(current) > 1 and _leads_in(current[-1], piece) and current[-1][1] + n < budget:
                carried = [current.pop()]
            groups.append(current)
            current, used = carried, sum(p[1] for p in carried)
        current.append(piece)
        used += n + (1 if len(current) > 1 else 0)
    if current:
        groups.append(current)
    return groups


def _leads_in(piece: Piece, following: Piece) -> bool:
    """A paragraph ending in a colon right before a list or a table: its lead-in."""
    lead = piece[2] == "para" and piece[0].rstrip().endswith(":")
    return lead and following[2] in ("list", "table")


def _fit(group: list[Piece], header: str, max_tokens: int, count: CountTokens) -> list[Body]:
    """Bodies that fit with the header, measured for real: tokenizers are not always additive,
    so a packed group that overshoots is halved, and a single piece is cut smaller."""
    body = "\n\n".join(text for text, _, _ in group)
    over = count(f"{header}\n\n{body}") - max_tokens
    if over <= 0:
        return [(body, group[-1][2])]
    if len(group) > 1:
        mid = len(group) // 2
        return _fit(group[:mid], header, max_tokens, count) + _fit(
            group[mid:], header, max_tokens, count
        )
    text, n, kind = group[0]
    budget = max(1, n - over)
    parts = split_text(Block(kind, text), budget, count)
    if len(parts) <= 1:
        parts = _split_words(text, budget, count)
    if len(parts) <= 1:
        return [(p, kind) for p in parts]  # one character per piece already; nothing smaller
    return [
        fitted for p in parts for fitted in _fit([(p, count(p), kind)], header, max_tokens, count)
    ]


def sentences(text: str) -> list[str]:
    """Sentences of prose (`ingest.sentences.split_sentences`): the last few of a chunk are
    repeated at the start of the next one."""
    return split_sentences(" ".join(text.split()))


def _overlap(
    prev: Body, body: str, n: int, header: str, max_tokens: int, count: CountTokens
) -> str:
    """The last `n` sentences of the previous body to repeat before `body`, or "".

    Only prose is repeated: a body ending with a table row, a list, a quote or code (its
    last block is not a paragraph) gets no overlap. Sentences are dropped from the front
    until header, overlap and body fit in `max_tokens`.
    """
    text, kind = prev
    if kind != "para":
        return ""
    chosen = sentences(text.rsplit("\n\n", 1)[-1])[-n:]
    while chosen:
        overlap = " ".join(chosen)
        if count(f"{header}\n\n{overlap}\n\n{body}") <= max_tokens:
            return overlap
        chosen = chosen[1:]
    return ""


def _bodies(section: Section, header: str, limit: int, count: CountTokens) -> list[Body]:
    """A section's bodies, each fitting in `limit` tokens together with the header."""
    budget = limit - count(header) - 2
    pieces: list[Piece] = []
    for block in section.blocks:
        n = count(block.text)
        if n <= budget:
            pieces.append((block.text, n, block.kind))
        else:
            pieces.extend((p, count(p), block.kind) for p in split_text(block, budget, count))
    return [body for group in _pack(pieces, budget) for body in _fit(group, header, limit, count)]


def chunk_document(
    doc: Document,
    *,
    max_tokens: int,
    count_tokens: CountTokens,
    tenant: str = "",
    embedder_name: str = "",
    overlap_sentences: int = 0,
) -> list[Chunk]:
    """The chunks of one document, in order, each at most `max_tokens` tokens with its header.

    `embedder_name` takes part in every chunk's content hash, so switching the
    embedding model re-embeds everything instead of mixing vector spaces.

    With `overlap_sentences` > 0, every chunk after the first of a section starts
    with the last sentences of the previous chunk's body (prose only, never across
    sections, and only as many as fit), so a fact cut at a chunk boundary is still
    whole in one chunk. Ids stay those of `overlap_sentences=0`; 0 changes nothing.

    A paged document (`doc.page_starts`, PDF) gives every chunk `metadata["page_span"]`:
    [first] or [first, last], the pages its body came from.
    """
    if max_tokens < 16:
        raise ValueError(f"max_tokens must be >= 16, got {max_tokens}")
    if overlap_sentences < 0:
        raise ValueError(f"overlap_sentences must be >= 0, got {overlap_sentences}")
    title = doc.title or doc.doc_id
    chunks: list[Chunk] = []
    ordinals: dict[tuple[str, ...], int] = {}
    pages = PageLocator(doc.text, doc.page_starts) if doc.page_starts else None
    for section in parse_sections(doc.text, title):
        header = make_header(title, section.path, max_tokens // 2, count_tokens)
        fitted = _bodies(section, header, max_tokens, count_tokens)
        bodies = [body for body, _ in fitted]
        if overlap_sentences:
            for i in range(1, len(fitted)):
                overlap = _overlap(
                    fitted[i - 1], bodies[i], overlap_sentences, header, max_tokens, count_tokens
                )
                if overlap:
                    bodies[i] = f"{overlap}\n\n{bodies[i]}"
        for body in bodies:
            ordinal = ordinals.get(section.path, 0)
            ordinals[section.path] = ordinal + 1
            text = f"{header}\n\n{body}"
            metadata = {
                **doc.metadata,
                "source": doc.source,
                "format": doc.format,
                "tenant": tenant,
                "ordinal": ordinal,
                "flags": injection_flags(body),
            }
            span = pages.span(body) if pages is not None else ()
            if span:
                metadata["page_span"] = list(span)
            chunks.append(
                Chunk(
                    id=chunk_id(doc.doc_id, section.path, ordinal, tenant=tenant),
                    doc_id=doc.doc_id,
                    text=text,
                    title=title,
                    section=section.path,
                    version=doc.version,
                    url=doc.url,
                    tenant=tenant,
                    content_hash=content_hash(
                        text, title, doc.version, doc.url, tenant, _hashed(metadata), embedder_name
                    ),
                    metadata=metadata,
                )
            )
    return chunks
