"""Recovering headings in PDF text: from the outline (bookmarks) or from font sizes.

*With an outline*, each bookmark's title is looked up among the lines of its
destination page; the bookmark's depth gives the level (depth 0 → `#`). When
several lines match, the one nearest below the bookmark's target position wins,
so a running header repeating a chapter title is not taken for the chapter
heading. A title found on no line is inserted at the target position, so the
section still opens where the author said it does. Lines set in a font smaller
than every bookmarked heading but larger than body text become deeper levels, so
a chapter-only outline still yields section headings.

*Without an outline*, a line is a heading when its font is clearly larger than the
body text (the size covering most characters) and it is short; distinct heading
sizes, largest first, become levels 1, 2, 3, ...
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .pdf_lines import Line

HEADING_SIZE_RATIO = 1.15  # a heading's font is at least this much larger than body text
_MIN_SIZE_STEP = 1.0  # ... and at least this many points larger
_MAX_HEADING_CHARS = 120
_MAX_HEADING_WORDS = 16
DOT_LEADER = re.compile(r"(?:\.\s?){4,}|…{2,}")  # "Introduction . . . . 3" is a TOC entry
# What may precede a bookmark title on the page: "2.1", "A.3.", "Chapter 2:", "§ 4".
# Matched against lower-cased text.
_NUMBERING = re.compile(r"^(?:(?:chapter|section|part|appendix|§)\s*)?(?:\d+|[a-z]|[ivxlc]+)(?:[.\-]\d+)*[.:)]?$")


@dataclass
class Bookmark:
    title: str
    depth: int  # 0 for top-level entries
    page: int  # zero-based page index
    y: float | None  # target position on the page, PDF coordinates


def display_title(pages: list[list[Line]]) -> str | None:
    """The largest heading-sized line on the first page with text: a PDF's visible title."""
    first = next((lines for lines in pages if lines), [])
    body = body_size(pages)
    candidates = [line for line in first if not line.from_outline and _is_candidate(line, body)]
    return max(candidates, key=lambda line: line.size).text if candidates else None


def body_size(pages: list[list[Line]]) -> float:
    """The font size that covers the most characters."""
    weight: Counter[float] = Counter()
    for lines in pages:
        for line in lines:
            if not line.from_outline:
                weight[_size_key(line.size)] += len(line.text)
    return weight.most_common(1)[0][0] if weight else 0.0


def _is_candidate(line: Line, body: float) -> bool:
    text = line.text
    return (
        line.size >= body * HEADING_SIZE_RATIO
        and line.size >= body + _MIN_SIZE_STEP
        and len(text) <= _MAX_HEADING_CHARS
        and len(text.split()) <= _MAX_HEADING_WORDS
        and sum(c.isalpha() for c in text) >= 2
        and not text.endswith(",")
        and not DOT_LEADER.search(text)
    )


def _size_key(size: float) -> float:
    return round(size * 2) / 2


def _assign_by_size(candidates: list[Line], first_level: int) -> None:
    sizes = sorted({_size_key(line.size) for line in candidates}, reverse=True)
    levels = {size: min(first_level + i, 6) for i, size in enumerate(sizes)}
    for line in candidates:
        line.heading = levels[_size_key(line.size)]


def _merge_wrapped(pages: list[list[Line]]) -> None:
    """Join a heading set on two lines (same level, next line directly below) into one."""
    for lines in pages:
        i = 0
        while i + 1 < len(lines):
            a, b = lines[i], lines[i + 1]
            if (
                a.heading
                and a.heading == b.heading
                and not a.from_outline
                and not b.from_outline
                and 0 <= a.bottom - b.top <= 0.6 * a.size
            ):
                a.text = f"{a.text} {b.text}"
                a.bottom = b.bottom
                del lines[i + 1]
            else:
                i += 1


def by_font_size(pages: list[list[Line]]) -> None:
    """Mark headings from font sizes alone (the document has no outline)."""
    body = body_size(pages)
    candidates = [line for lines in pages for line in lines if _is_candidate(line, body)]
    _assign_by_size(candidates, first_level=1)
    _merge_wrapped(pages)


def _norm(text: str) -> str:
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return " ".join(text.lower().split()).rstrip(" .:")


def matches(line_text: str, title: str) -> bool:
    """Whether a line of page text carries a bookmark's title, numbering aside."""
    line, want = _norm(line_text), _norm(title)
    if not line or not want:
        return False
    if line == want:
        return True
    # Numbering on one side only: outline "ASN.1 syntax" vs page "2.1 ASN.1 syntax".
    for longer, shorter in ((line, want), (want, line)):
        if longer.endswith(shorter) and _NUMBERING.match(longer[: -len(shorter)].strip()):
            return True
    return False


def _free(line: Line) -> bool:
    return line.heading is None and not line.from_outline


def _join_wrapped_title(lines: list[Line], title: str) -> None:
    """Merge the two lines a long title is set on, so it can be matched as one."""
    for i in range(len(lines) - 1):
        a, b = lines[i], lines[i + 1]
        if _free(a) and _free(b) and matches(f"{a.text} {b.text}", title):
            a.text, a.bottom = f"{a.text} {b.text}", b.bottom
            del lines[i + 1]
            return


def _locate(lines: list[Line], mark: Bookmark, start: int) -> int | None:
    """Index of the line carrying the bookmark's title, or None."""
    found = [i for i, line in enumerate(lines) if _free(line) and matches(line.text, mark.title)]
    if not found:
        _join_wrapped_title(lines, mark.title)
        found = [i for i, line in enumerate(lines) if _free(line) and matches(line.text, mark.title)]
    if not found:
        return None
    y = mark.y
    if y is not None:
        # The target position is at, or just above, the top of the heading.
        below = [i for i in found if lines[i].top <= y + lines[i].height]
        if below:
            return min(below, key=lambda i: y - lines[i].top)
    after = [i for i in found if i >= start]
    return (after or found)[0]


def _insert_at(lines: list[Line], mark: Bookmark) -> int:
    if mark.y is None:
        return 0
    return next((i for i, line in enumerate(lines) if line.top <= mark.y), len(lines))


def from_outline(pages: list[list[Line]], marks: list[Bookmark]) -> None:
    """Mark headings from bookmarks, inserting the titles not found on their pages."""
    found_sizes = []
    cursor = [0] * len(pages)  # bookmarks on one page come in reading order
    for mark in marks:
        if not 0 <= mark.page < len(pages):
            continue
        lines = pages[mark.page]
        level = min(mark.depth + 1, 6)
        at = _locate(lines, mark, cursor[mark.page])
        if at is None:
            at = _insert_at(lines, mark)
            y = mark.y or 0.0
            size = lines[at].size if at < len(lines) else 0.0
            lines.insert(
                at, Line(mark.title, size, left=0.0, right=0.0, top=y, bottom=y, heading=level, from_outline=True)
            )
        else:
            lines[at].heading = level
            found_sizes.append(lines[at].size)
        cursor[mark.page] = at + 1
    if found_sizes:
        _deeper_by_size(pages, min(found_sizes), deepest=max(m.depth + 1 for m in marks))
    _merge_wrapped(pages)


def _deeper_by_size(pages: list[list[Line]], smallest_bookmarked: float, deepest: int) -> None:
    """Headings the outline leaves out: larger than body text, smaller than any bookmarked one."""
    body = body_size(pages)
    candidates, started = [], False
    for line in (line for lines in pages for line in lines):
        # Only after the first bookmarked heading: a title page's large print
        # (authors, e-mail addresses) is not a section.
        started = started or bool(line.heading and not line.from_outline)
        if (
            started
            and line.heading is None
            and not line.from_outline
            and _is_candidate(line, body)
            and _size_key(line.size) < _size_key(smallest_bookmarked)
        ):
            candidates.append(line)
    if deepest < 6:
        _assign_by_size(candidates, first_level=deepest + 1)
