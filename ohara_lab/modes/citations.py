"""Span-level citations: where, in a cited node's stored text, each supporting quote sits.

A quote is located in the node's stored content (a paragraph's ``content``, a
table's Markdown) by the strictest step that finds it:

1. ``exact``       the quote is a substring of the content;
2. ``whitespace``  the same characters with any run of whitespace between words
                   (documents wrap lines, answers do not);
3. ``fuzzy``       rapidfuzz's ``fuzz.partial_ratio_alignment``: the window of the content
                   most similar to the quote, similarity = 100 * (1 - d / (|a| + |b|)) with d
                   the Indel distance (insertions + deletions); accepted at ``FUZZY_CUTOFF``
                   and widened to whole words.

A table row quoted as the prose `table_prose` made of it ("Header: cell; ...") maps to
that row's line of the Markdown. A quote found by no step is *unverified*: it is kept
and labelled, never presented as a span. Every span satisfies
``content[start:end] == text``.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from rapidfuzz import fuzz

FUZZY_CUTOFF = 90.0  # rapidfuzz partial-ratio similarity a fuzzy window must reach
MIN_QUOTE_CHARS = 8  # shorter "quotes" (a number, a word) would match almost anywhere
_WORD = re.compile(r"\S+")
_TABLE_RULE = re.compile(r"\|?[\s:|-]+\|?")


@dataclass(frozen=True)
class Span:
    """Characters [start, end) of a node's stored content that support a citation."""

    start: int
    end: int
    text: str
    match: str  # exact | whitespace | fuzzy | table_row
    score: float = 100.0

    def to_dict(self) -> dict:
        return asdict(self)


def locate(quote: str, content: str, *, table: bool = False) -> list[Span]:
    """Spans of `content` supporting `quote` (empty when it cannot be aligned)."""
    quote = quote.strip().strip("\"'“”‘’").strip()
    if len(quote) < MIN_QUOTE_CHARS or not content:
        return []
    for step in (_exact, _whitespace, _fuzzy):
        found = step(quote, content)
        if found is not None:
            return [found]
    return table_row_spans(quote, content) if table else []


def _exact(quote: str, content: str) -> Span | None:
    at = content.find(quote)
    return Span(at, at + len(quote), quote, "exact") if at >= 0 else None


def _whitespace(quote: str, content: str) -> Span | None:
    words = quote.split()
    pattern = r"\s+".join(re.escape(w) for w in words)
    m = re.search(pattern, content)
    return Span(m.start(), m.end(), m.group(0), "whitespace") if m else None


def _fuzzy(quote: str, content: str) -> Span | None:
    found = fuzz.partial_ratio_alignment(quote, content, score_cutoff=FUZZY_CUTOFF)
    if found is None or found.dest_end <= found.dest_start:
        return None
    start, end = _whole_words(content, found.dest_start, found.dest_end)
    return Span(start, end, content[start:end], "fuzzy", round(found.score, 1))


def _whole_words(content: str, start: int, end: int) -> tuple[int, int]:
    """Widen [start, end) to word boundaries and trim surrounding whitespace."""
    while start > 0 and not content[start - 1].isspace() and not content[start].isspace():
        start -= 1
    while end < len(content) and not content[end - 1].isspace() and not content[end].isspace():
        end += 1
    while start < end and content[start].isspace():
        start += 1
    while end > start and content[end - 1].isspace():
        end -= 1
    return start, end


def table_row_spans(quote: str, markdown: str) -> list[Span]:
    """The Markdown lines of the table rows whose prose sentence the quote contains (or nearly)."""
    flat = " ".join(quote.split())
    spans = []
    for prose, start, end in table_rows(markdown):
        if prose in flat or fuzz.partial_ratio(prose, flat) >= FUZZY_CUTOFF:
            spans.append(Span(start, end, markdown[start:end], "table_row"))
    return spans


def table_rows(markdown: str) -> list[tuple[str, int, int]]:
    """(prose sentence, start, end) per data row of a Markdown table; prose as `table_prose` writes it."""
    lines = []
    offset = 0
    for line in markdown.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        stripped = body.strip()
        if stripped.startswith("|") and not _TABLE_RULE.fullmatch(stripped):
            lead = len(body) - len(body.lstrip())
            cells = [c.strip() for c in stripped.strip("|").split("|")]
            lines.append((cells, offset + lead, offset + len(body.rstrip())))
        offset += len(line)
    if len(lines) < 2:
        return []
    header = lines[0][0]
    return [("; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells) if c) + ".", start, end)
            for cells, start, end in lines[1:]]


def table_prose(markdown: str) -> str:
    """A Markdown table as one sentence per row ("Header: cell; Header: cell."), so rows can be quoted."""
    rows = table_rows(markdown)
    return " ".join(prose for prose, _, _ in rows) if rows else markdown
