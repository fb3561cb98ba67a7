"""Heading- and size-aware chunking of a document's Markdown (spec §2.5).

Lines of five or more dashes are page breaks: they count pages and are removed
from the chunk text (a bare `-----` under a line of text would otherwise read as a
setext heading). Without page breaks pages are virtual, one per
`virtual_page_size` characters.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..records import Chunk

PAGE_BREAK = re.compile(r"^\s*-{5,}\s*$")
HEADING = re.compile(r"^\s{0,3}(#{1,3})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
# Close a chunk at a heading once it holds this much text (spec: 3000 chars).
CLOSE_AT_HEADING = 3000


@dataclass
class _Open:
    lines: list[str] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)
    chars: int = 0
    heading: str | None = None
    level: int | None = None


def chunk_markdown(markdown: str, *, max_chars: int = 12000, min_chars: int = 500,
                   virtual_page_size: int = 3000) -> list[Chunk]:
    """Split Markdown into chunks of at most ~`max_chars`, preferring heading boundaries."""
    physical = any(PAGE_BREAK.match(line) for line in markdown.splitlines())
    chunks: list[_Open] = []
    cur = _Open()
    page, offset, in_fence = 1, 0, False
    for line in markdown.splitlines():
        line_start, offset = offset, offset + len(line) + 1
        if not in_fence and PAGE_BREAK.match(line):
            page += 1
            cur.lines.append("")  # keep block separation where the break was
            cur.pages.append(page)
            continue
        if FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else HEADING.match(line)
        if heading and cur.chars > CLOSE_AT_HEADING:
            chunks.append(cur)
            cur = _Open()
        if heading and not cur.heading:
            cur.heading, cur.level = heading.group(2).strip(), len(heading.group(1))
        line_page = page if physical else line_start // max(1, virtual_page_size) + 1
        cur.lines.append(line)
        cur.pages.append(line_page)
        cur.chars += len(line) + 1
        # Prefer to close at a blank line outside code once the chunk is full.
        if cur.chars >= max_chars and not in_fence and (not line.strip() or cur.chars >= max_chars * 1.25):
            chunks.append(cur)
            cur = _Open()
    if cur.lines:
        chunks.append(cur)
    merged = _merge_small([c for c in chunks if "".join(c.lines).strip()], min_chars, max_chars)
    return [_to_chunk(i, c, "physical" if physical else "virtual") for i, c in enumerate(merged)]


def _merge_small(chunks: list[_Open], min_chars: int, max_chars: int) -> list[_Open]:
    """A chunk under `min_chars` joins the previous one (or the next, if it is first) when it fits."""
    out: list[_Open] = []
    for c in chunks:
        if out and c.chars < min_chars and out[-1].chars + c.chars <= max_chars:
            _absorb(out[-1], c)
        else:
            out.append(c)
    if len(out) > 1 and out[0].chars < min_chars and out[0].chars + out[1].chars <= max_chars:
        first = out.pop(0)
        _absorb(first, out[0])
        out[0] = first
    return out


def _absorb(into: _Open, other: _Open) -> None:
    into.lines += other.lines
    into.pages += other.pages
    into.chars += other.chars
    if not into.heading:
        into.heading, into.level = other.heading, other.level


def _to_chunk(index: int, c: _Open, page_source: str) -> Chunk:
    pages = c.pages or [1]
    return Chunk(index=index, text="\n".join(c.lines), heading=c.heading, heading_level=c.level,
                 start_page=min(pages), end_page=max(pages), page_source=page_source, line_pages=list(pages))
