"""Plain text → Markdown with conservative heading heuristics.

Tuned on real plain-text documents such as the licences in
/usr/share/common-licenses. A block (lines between blank lines) becomes a
heading only when it is short and

* underlined with `===` (title rank) or `---` (major rank), setext style;
* centred (GPL "Preamble") or in capitals ("TERMS AND CONDITIONS"), on one line
  or up to three: title rank when it opens the document, else major rank;
* numbered on a line of its own ("0. Definitions.", "  1.2 Scope"): section rank,
  unless the next block is a numbered line too (a list);
* the document's first line, standing alone without a full stop: title rank.

The ranks a document uses are numbered 1, 2, 3 in that order, so GPL-3 gets
`#` title, `##` "TERMS AND CONDITIONS", `###` "0. Definitions." and a licence
with only a title and numbered sections gets `#` and `##`. A leading block whose
lines are all centred is the title block: its first line is the heading, the
rest stay as text. Other blocks keep every word: hard-wrapped prose is re-flowed
into one line per paragraph, lists get one line per item, and anything else
(addresses, code, tables) keeps its line breaks. A form feed is a page break.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from ..records import ParsedDocument
from . import markup
from .sniff import decode_utf8

_MAX_HEADING_CHARS = 80
_MAX_HEADING_WORDS = 12
_NUMBERED = re.compile(r"^(?:\d+\.)*\d+\.?\s+\S")
_LIST_ITEM = re.compile(r"^(?:[-*+•]|\(?[0-9]{1,3}[.)]|\(?[a-zA-Z][.)]|\([ivxlc]{1,5}\))\s+\S")
_UNDERLINE = re.compile(r"^\s*(={3,}|-{3,})\s*$")
_PAGE = "\f"


@dataclass
class _Layout:
    """Page geometry inferred from the text: how wide its lines are wrapped."""

    width: int
    indent: int  # the usual left margin of body text

    @classmethod
    def of(cls, lines: list[str]) -> _Layout:
        text = [line.rstrip() for line in lines if line.strip()]
        if not text:
            return cls(0, 0)
        lengths = sorted(len(line) for line in text)
        indents = sorted(len(line) - len(line.lstrip()) for line in text)
        # The 95th percentile ignores the odd over-long URL line.
        return cls(width=lengths[int(0.95 * (len(lengths) - 1))], indent=indents[len(indents) // 2])

    def is_centred(self, line: str) -> bool:
        indent = len(line) - len(line.lstrip())
        body = len(line.strip())
        # Long indented lines (quoted notices, definitions) have centres near the
        # middle too; a centred heading leaves wide margins on both sides.
        if indent < self.indent + 6 or not self.width or body > 0.75 * self.width:
            return False
        return abs(indent + body / 2 - self.width / 2) <= max(3.0, 0.1 * self.width)

    def is_full(self, line: str) -> bool:
        """Whether a line reaches far enough right to have been wrapped, not broken by hand."""
        return len(line.rstrip()) >= 0.55 * self.width


def _blocks(lines: list[str]) -> list[list[str]]:
    """Runs of non-blank lines; a form feed is a block of its own."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in lines:
        if line == _PAGE or not line.strip():
            if current:
                blocks.append(current)
                current = []
            if line == _PAGE:
                blocks.append([_PAGE])
        else:
            current.append(line)
    if current:
        blocks.append(current)
    return blocks


def _heading_like(text: str) -> bool:
    words = text.split()
    return (
        0 < len(words) <= _MAX_HEADING_WORDS
        and len(text) <= _MAX_HEADING_CHARS
        and sum(c.isalpha() for c in text) >= 2
        and not text.endswith((",", ";"))
        and "://" not in text
        and "@" not in text
        and not (text.startswith("<") and text.endswith(">"))
    )


def _is_caps(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 3 and all(c.isupper() for c in letters)


def _is_numbered(text: str) -> bool:
    return bool(_NUMBERED.match(text)) and text.split(None, 1)[1][:1].isupper()


# Heading ranks; the ranks a document uses are renumbered 1, 2, 3 so a licence
# with a title and numbered sections gets # and ##, not # and ###.
_TITLE, _MAJOR, _NUMBERED_SECTION = 1, 2, 3


@dataclass
class _Heading:
    rank: int
    text: str


class _Converter:
    def __init__(self, lines: list[str]):
        self.layout = _Layout.of(lines)
        self.blocks = _blocks(lines)
        self.out: list[str | _Heading] = []
        self.seen_content = False

    def run(self) -> str:
        for i, block in enumerate(self.blocks):
            if block == [_PAGE]:
                if self.seen_content:
                    self.out.append(markup.PAGE_BREAK)
                continue
            self.block(block, self.blocks[i + 1] if i + 1 < len(self.blocks) else None)
            self.seen_content = True
        while self.out and self.out[-1] == markup.PAGE_BREAK:
            self.out.pop()  # a trailing form feed ends the last page, it opens no new one
        ranks = sorted({item.rank for item in self.out if isinstance(item, _Heading)})
        return "\n\n".join(
            markup.heading(ranks.index(item.rank) + 1, item.text) if isinstance(item, _Heading) else item
            for item in self.out
        )

    def block(self, block: list[str], following: list[str] | None) -> None:
        underline = next((j for j in range(1, len(block)) if self.underlines(block, j)), None)
        if underline is not None and _heading_like(block[underline - 1].strip()):
            if underline > 1:
                self.block(block[: underline - 1], None)
            rank = _TITLE if block[underline].strip().startswith("=") else _MAJOR
            self.out.append(_Heading(rank, block[underline - 1]))
            if underline + 1 < len(block):
                self.block(block[underline + 1 :], following)
            return
        if len(block) == 1:
            rank = self.heading_rank(block[0], following)
            if rank:
                self.out.append(_Heading(rank, block[0]))
                return
        elif not self.seen_content and all(self.layout.is_centred(line) for line in block):
            if _heading_like(block[0].strip()):
                self.out.append(_Heading(_TITLE, block[0]))
                self.out.append(self.lines(block[1:]))
                return
        elif len(block) <= 3 and all(
            self.is_display(line) and not line.rstrip().endswith(".") for line in block
        ):
            # GPL-2 repeats its title above "TERMS AND CONDITIONS FOR COPYING, ...":
            # one heading set on two lines.
            self.out.append(_Heading(_MAJOR, " ".join(line.strip() for line in block)))
            return
        self.out.append(self.paragraph(block))

    @staticmethod
    def underlines(block: list[str], j: int) -> bool:
        """Whether line j underlines line j-1 (setext style) rather than being decoration."""
        return bool(_UNDERLINE.match(block[j])) and len(block[j].strip()) >= len(block[j - 1].strip()) / 2

    def is_display(self, line: str) -> bool:
        """A short line set apart by centring or capitals."""
        text = line.strip()
        return _heading_like(text) and (self.layout.is_centred(line) or _is_caps(text))

    def heading_rank(self, line: str, following: list[str] | None) -> int | None:
        text = line.strip()
        if not _heading_like(text):
            return None
        if _is_numbered(text):
            # A run of one-line numbered blocks is a list, not a run of sections.
            if following and len(following) == 1 and _is_numbered(following[0].strip()):
                if following[0].split(None, 1)[0].count(".") <= text.split(None, 1)[0].count("."):
                    return None
            return _NUMBERED_SECTION
        if self.is_display(line):
            return _MAJOR if self.seen_content else _TITLE
        if not self.seen_content and not text.endswith((".", ":", "!", "?")):
            return _TITLE  # a short first line on its own is the document's title
        return None

    def paragraph(self, block: list[str]) -> str:
        items = [i for i, line in enumerate(block) if _LIST_ITEM.match(line.strip())]
        if len(items) >= 2 and items[0] == 0:
            bounds = items + [len(block)]
            return "\n".join(self.reflow(block[a:b]) for a, b in zip(bounds, bounds[1:]))
        if len(block) > 1 and all(self.layout.is_full(line) for line in block[:-1]):
            return self.reflow(block)
        return self.lines(block)

    @staticmethod
    def reflow(block: list[str]) -> str:
        return markup.escape_plain_line(" ".join(line.strip() for line in block))

    @staticmethod
    def lines(block: list[str]) -> str:
        # Dedent, so indented notices are not mistaken for Markdown code blocks
        # unless they are indented relative to their own first line.
        return "\n".join(
            markup.escape_plain_line(line.rstrip())
            for line in textwrap.dedent("\n".join(block)).split("\n")
        )


def to_markdown(text: str) -> str:
    """Markdown for a plain-text document (newlines already unified)."""
    lines = text.replace(_PAGE, "\n" + _PAGE + "\n").split("\n")
    lines = [line.expandtabs() if line != _PAGE else line for line in lines]
    return markup.tidy(_Converter(lines).run())


def parse(path: Path, data: bytes) -> ParsedDocument:
    text = decode_utf8(path, data).replace("\r\n", "\n").replace("\r", "\n")
    markdown = to_markdown(text)
    breaks = sum(1 for line in markdown.split("\n") if line == markup.PAGE_BREAK)
    return ParsedDocument(
        path=str(path),
        markdown=markdown,
        parser="text-heuristics",
        page_count=breaks + 1 if breaks else None,
    )
