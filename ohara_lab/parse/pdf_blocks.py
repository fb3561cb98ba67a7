"""Grouping a PDF page's lines into headings and paragraphs, written as Markdown.

A new paragraph starts at a heading, a bullet, a change of font size, a switch
between monospaced and proportional type (code), a jump to another column, a
vertical gap clearly wider than the document's usual line gap, or after a
sentence-ending line that stopped short although the next word would have fit.
Prose paragraphs are re-flowed onto one line; blocks of short lines (code,
addresses, tables, TOC entries) keep their line breaks.
"""
from __future__ import annotations

from statistics import median

from . import markup
from .pdf_headings import DOT_LEADER
from .pdf_lines import Line

_BULLETS = ("•", "◦", "▪", "●", "■", "□", "‣", "∙")
_SENTENCE_END = (".", "!", "?", ":", '"', "”")
_CHAR_WIDTH = 0.5  # an average character's width in proportional type, in ems


def usual_gap(pages: list[list[Line]]) -> float:
    """The median space between consecutive body lines: ordinary line spacing."""
    gaps = [
        a.bottom - b.top
        for lines in pages
        for a, b in zip(lines, lines[1:])
        if not a.heading and not b.heading and abs(a.size - b.size) < 0.5 and a.bottom - b.top > -a.height / 2
    ]
    return median(gaps) if gaps else 0.0


class PageWriter:
    """Writes pages of one document, whose body font size and line gap it is given."""

    def __init__(self, body: float, gap: float):
        self.body = body
        self.gap = gap
        self.margin = 0.0  # right edge of the current page's text column

    def markdown(self, lines: list[Line]) -> str:
        """The page's Markdown: headings and paragraphs separated by blank lines."""
        body_lines = sorted(line.right for line in lines if not line.heading)
        # The 90th percentile ignores code or URLs running into the margin.
        self.margin = body_lines[int(0.9 * (len(body_lines) - 1))] if body_lines else 0.0
        blocks: list[list[Line]] = []
        for line in lines:
            if line.heading or not blocks or blocks[-1][-1].heading or self.breaks(blocks[-1][-1], line):
                blocks.append([line])
            else:
                blocks[-1].append(line)
        return "\n\n".join(self.render(block) for block in blocks)

    def wrapped(self, prev: Line, line: Line) -> bool:
        """Whether `prev` ends because it was full: `line`'s first word would not have fit after it.

        Works for ragged-right text too, where full lines end at varying points.
        """
        word = line.text.split(None, 1)[0]
        return self.margin - prev.right < (len(word) + 1) * _CHAR_WIDTH * prev.size

    def breaks(self, prev: Line, line: Line) -> bool:
        if line.text.startswith(_BULLETS) or abs(prev.size - line.size) >= 0.12 * self.body:
            return True
        if prev.mono != line.mono:
            return True  # code starts or ends
        gap = prev.bottom - line.top
        if gap < -prev.height / 2 or gap > self.gap + 0.5 * self.body:
            return True  # moved up (next column) or left a blank line
        return not self.wrapped(prev, line) and prev.text.endswith(_SENTENCE_END)

    def render(self, block: list[Line]) -> str:
        first = block[0]
        if first.heading:
            return markup.heading(first.heading, first.text)
        texts = [line.text for line in block]
        if first.text.startswith(_BULLETS):
            texts[0] = "- " + first.text[1:].lstrip()
        reflow = (
            not first.mono
            and all(map(self.wrapped, block, block[1:]))
            # TOC entries stay one per line: the chunker reads "Title . . . 42" lines.
            and not any(DOT_LEADER.search(text) for text in texts)
        )
        if len(block) > 1 and reflow:
            return markup.escape_plain_line(" ".join(texts))
        return "\n".join(markup.escape_plain_line(text) for text in texts)
