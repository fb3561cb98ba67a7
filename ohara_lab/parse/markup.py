"""Markdown conventions every parser shares.

The chunker (spec §2.5) reads two things from a line on its own, outside fenced
code: a run of five or more dashes is a page break, and `#`..`###` after at most
three spaces is a heading. Parsers write page breaks and headings deliberately;
text that merely looks like one must be escaped so it cannot shift page numbers
or invent sections.
"""
from __future__ import annotations

import re

PAGE_BREAK = "-----"

_PAGE_BREAK_LINE = re.compile(r"^\s*-{5,}\s*$")
_HEADING_LINE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_EMPTY_HEADING = re.compile(r"^ {0,3}#{1,6}$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def _outside_fences(lines: list[str]) -> list[bool]:
    """For each line, whether it is Markdown text rather than inside a fenced code block."""
    flags, fenced = [], False
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
            flags.append(False)
        else:
            flags.append(not fenced)
    return flags


def escape_plain_line(line: str) -> str:
    """Escape a line of plain text so the chunker cannot read it as a heading or page break."""
    body = line.lstrip()
    if body.startswith("#") or _PAGE_BREAK_LINE.match(line):
        return line[: len(line) - len(body)] + "\\" + body
    return line


def escape_page_break_lines(markdown: str) -> str:
    r"""Escape dash runs in converted Markdown (a `<p>-----</p>` must not become a page break).

    A backslash-escaped `\-----` renders as the same dashes, so readers see no
    change. Fenced code is left alone: the chunker does not look inside it.
    """
    lines = markdown.split("\n")
    return "\n".join(
        "\\" + line.lstrip() if text and _PAGE_BREAK_LINE.match(line) else line
        for line, text in zip(lines, _outside_fences(lines))
    )


def heading(level: int, text: str) -> str:
    """An ATX heading line; levels beyond Markdown's six are clamped."""
    return "#" * max(1, min(level, 6)) + " " + " ".join(text.split())


def demote_headings(markdown: str, by: int) -> str:
    """Every ATX heading outside fenced code moved `by` levels down (clamped at six), to nest it in a section."""
    lines = markdown.split("\n")
    out = []
    for line, text in zip(lines, _outside_fences(lines)):
        m = _HEADING_LINE.match(line) if text else None
        out.append(heading(len(m.group(1)) + by, m.group(2)) if m else line)
    return "\n".join(out)


def tidy(markdown: str) -> str:
    """Unify newlines, drop trailing spaces and empty headings, keep at most one blank line.

    Inside fenced code only the newlines are unified.
    """
    lines = markdown.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[str] = []
    for line, text in zip(lines, _outside_fences(lines)):
        if not text:
            out.append(line)
            continue
        line = line.rstrip()
        # An anchor-only <h1><a id=".."/></h1> converts to a bare "#", which
        # would open an untitled section downstream.
        if _EMPTY_HEADING.match(line) or (not line and (not out or not out[-1])):
            continue
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def headings(markdown: str) -> list[tuple[int, str]]:
    """(level, text) of every ATX heading line outside fenced code, in order."""
    out = []
    lines = markdown.split("\n")
    for line, text in zip(lines, _outside_fences(lines)):
        m = _HEADING_LINE.match(line) if text else None
        if m:
            out.append((len(m.group(1)), m.group(2)))
    return out


def first_heading(markdown: str) -> str | None:
    """The first top-level heading's text, else the first heading's, else None."""
    found = headings(markdown)
    if not found:
        return None
    top = min(level for level, _ in found)
    return next(text for level, text in found if level == top)


def has_text(markdown: str) -> bool:
    """True when something other than page breaks and whitespace is present."""
    return any(
        line.strip() and not _PAGE_BREAK_LINE.match(line) for line in markdown.split("\n")
    )
