"""Plain text → Markdown with conservative heading heuristics.

Tuned on real plain-text documents such as the licences in
/usr/share/common-licenses. A block (lines between blank lines) becomes a
heading only when it is short and

* underlined with `===` (title rank) or `---` (major rank), setext style;
* centred (GPL "Preamble") or in capitals ("TERMS AND CONDITIONS"), on one line
  or up to three: title rank when it opens the document, else major rank;
* labelled (`outline`): "0. Definitions.", "  1.2 Scope", "(a) In General", "SEC. 2.",
  "ARTICLE IV", on a line of its own (unless the next block is a numbered line too: a
  list), atop a block of body text, or run in: "2. Grant of Copyright License. Subject
  to ..." becomes the heading "2. Grant of Copyright License." and a paragraph. A
  labelled heading must continue its outline ("2.1" under "2.", "3." after "2."), so a
  numbered list item inside section 4 stays text. A keyword label alone ("ARTICLE IV")
  takes the title on the next line. Unlabelled run-in titles ("Definitions. In this
  Act ...") count only in a document with at least three of them;
* "APPENDIX ...", "Annex B", ...: major rank when the document has major headings;
* outdented, in title case, without a full stop, when the body is indented (RFCs'
  "Status of This Memo"): the rank of the top labelled headings;
* the document's first line, standing alone without a full stop: title rank.

Labelled headings rank below major ones, one rank per outline depth. The ranks a
document uses are numbered 1, 2, 3 in that order, so GPL-3 gets `#` title, `##`
"TERMS AND CONDITIONS", `###` "0. Definitions." and a licence with only a title and
numbered sections gets `#` and `##`. A leading block whose
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
from .outline import Label, Outline, is_title, parse_label, split_run_in
from .sniff import decode_utf8

_MAX_HEADING_CHARS = 80
_MAX_HEADING_WORDS = 12
_NUMBERED = re.compile(r"^(?:\d+\.)*\d+\.?\s+\S")
_MIN_UNLABELLED_RUN_INS = 3  # one "Definitions. ..." paragraph may be prose; three are a pattern
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


def _number_depth(text: str) -> int:
    """How deep a numbered line's number goes: "2." -> 1, "2.1" -> 2."""
    return text.split(None, 1)[0].rstrip(".").count(".") + 1


# Heading ranks; a labelled heading takes _LABELLED + its outline depth. The ranks a
# document uses are renumbered 1, 2, 3 so a licence with a title and numbered sections
# gets # and ##, not # and ###.
_TITLE, _MAJOR, _LABELLED = 1, 2, 3


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
        self.seen_major = False
        self.outline = Outline()
        self.list_depth: int | None = None  # depth of the numbered list item just read, if the last block was one
        run_ins = sum(split_run_in(b[0], labelled=False) is not None for b in self.blocks)
        self.unlabelled_run_ins = run_ins >= _MIN_UNLABELLED_RUN_INS

    def run(self) -> str:
        i = 0
        while i < len(self.blocks):
            block, following = self.blocks[i], self.blocks[i + 1] if i + 1 < len(self.blocks) else None
            i += 1
            if block == [_PAGE]:
                if self.seen_content:
                    self.out.append(markup.PAGE_BREAK)
                continue
            list_depth = self.list_depth
            self.list_depth = None
            if self.label_and_title(block, following):
                i += 1  # the title line is part of the heading
            else:
                self.block(block, following, list_depth)
            self.seen_content = True
        while self.out and self.out[-1] == markup.PAGE_BREAK:
            self.out.pop()  # a trailing form feed ends the last page, it opens no new one
        ranks = sorted({item.rank for item in self.out if isinstance(item, _Heading)})
        return "\n\n".join(
            markup.heading(ranks.index(item.rank) + 1, item.text) if isinstance(item, _Heading) else item
            for item in self.out
        )

    def heading(self, rank: int, text: str) -> None:
        if rank < _LABELLED:
            self.outline.reset()  # "TERMS AND CONDITIONS", "NO WARRANTY" close every numbered section
            self.seen_major = self.seen_major or rank == _MAJOR
        self.out.append(_Heading(rank, text))

    def block(self, block: list[str], following: list[str] | None, list_depth: int | None = None) -> None:
        underline = next((j for j in range(1, len(block)) if self.underlines(block, j)), None)
        if underline is not None and _heading_like(block[underline - 1].strip()):
            if underline > 1:
                self.block(block[: underline - 1], None)
            self.heading(self.underlined_rank(block[underline - 1], block[underline]), block[underline - 1])
            if underline + 1 < len(block):
                self.block(block[underline + 1 :], following)
            return
        if self.run_in(block):
            return
        if len(block) == 1:
            rank = self.heading_rank(block[0], following, list_depth)
            if rank:
                self.heading(rank, block[0])
                return
        elif not self.seen_content and all(self.layout.is_centred(line) for line in block):
            if _heading_like(block[0].strip()):
                self.heading(_TITLE, block[0])
                self.out.append(self.lines(block[1:]))
                return
        elif len(block) <= 3 and all(
            self.is_display(line) and not line.rstrip().endswith(".") for line in block
        ):
            # GPL-2 repeats its title above "TERMS AND CONDITIONS FOR COPYING, ...":
            # one heading set on two lines.
            self.heading(_MAJOR, " ".join(line.strip() for line in block))
            return
        elif self.heading_atop(block):
            self.out.append(self.paragraph(block[1:]))
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

    def is_outdented(self, line: str) -> bool:
        """Set left of an indented body, as RFCs set "Status of This Memo"."""
        indent = len(line) - len(line.lstrip())
        return self.layout.indent >= 2 and indent <= self.layout.indent - 2

    def heading_rank(self, line: str, following: list[str] | None, list_depth: int | None = None) -> int | None:
        text = line.strip()
        if not _heading_like(text):
            return None
        if _is_numbered(text):
            depth = _number_depth(text)
            # A run of one-line numbered blocks is a list, not a run of sections.
            if (following and len(following) == 1 and _is_numbered(following[0].strip())
                    and _number_depth(following[0].strip()) <= depth) or list_depth == depth:
                self.list_depth = depth
                return None
            return self.labelled(text, loose=True)  # a number breaking the outline is a list item
        rank = self.labelled(text, loose=False)
        if rank:
            return rank
        if self.is_display(line):
            # A centred line above every other heading is the title, even below a memo header (RFCs).
            first_heading = not any(isinstance(item, _Heading) for item in self.out)
            return _TITLE if not self.seen_content or (first_heading and self.layout.is_centred(line)) else _MAJOR
        if not self.seen_content and not text.endswith((".", ":", "!", "?")):
            return _TITLE  # a short first line on its own is the document's title
        if self.is_outdented(line) and is_title(text) and "   " not in text and not text.endswith((".", ":", "!", "?")):
            self.outline.reset()  # "Author's Address" closes section 4 as "Appendix A" does
            return _LABELLED
        return None

    def underlined_rank(self, text: str, underline: str) -> int:
        """Setext headings: title rank for `===`, major for `---`, unless labelled ("1. Definitions" over
        dashes, MPL-2.0): then a labelled heading, so "2.1" below "2." nests under it."""
        parsed = parse_label(text.strip())
        if parsed is not None and not underline.strip().startswith("="):
            if any(r.family == "appendix" for r in parsed[0]):
                return self.appendix_rank()
            depth = self.outline.place(parsed[0], force=True)
            if depth is not None:
                return _LABELLED + depth
        return _TITLE if underline.strip().startswith("=") else _MAJOR

    def appendix_rank(self) -> int:
        """"APPENDIX: How to apply ...": beside the major headings, or the top sections when there are none."""
        self.outline.reset()
        return _MAJOR if self.seen_major else _LABELLED

    def labelled(self, text: str, *, loose: bool) -> int | None:
        """The rank of `text` as a labelled heading of its own, placed in the outline; None if it is not one."""
        parsed = parse_label(text)
        if parsed is None:
            return None
        readings, rest = parsed
        if any(r.family == "appendix" for r in readings):
            return self.appendix_rank()
        if rest and not (is_title(rest, loose=loose) or _is_caps(rest)):
            return None
        if not rest and not any(r.family for r in readings):
            return None
        depth = self.outline.place(readings)
        return None if depth is None else _LABELLED + depth

    def label_and_title(self, block: list[str], following: list[str] | None) -> bool:
        """A keyword label alone ("ARTICLE IV") and its title on the next line ("DEFINITIONS"): one heading."""
        if len(block) != 1 or not following or len(following) != 1:
            return False
        parsed = parse_label(block[0])
        title = following[0].strip()
        if parsed is None or parsed[1] or not any(r.family for r in parsed[0]):
            return False
        if not _heading_like(title) or parse_label(title) is not None or not (is_title(title) or _is_caps(title)):
            return False
        rank = self.labelled(block[0].strip(), loose=False)
        if rank is None:
            return False
        self.heading(rank, f"{block[0].strip()} {title}")
        return True

    def run_in(self, block: list[str]) -> bool:
        """A run-in heading opening the block's first line: the heading, then the rest as a paragraph."""
        first = block[0].strip()
        split = split_run_in(first)
        readings: list[Label] | None = None
        if split is not None:
            parsed = parse_label(split[0])
            readings = parsed[0] if parsed else None
        elif self.unlabelled_run_ins:
            split = split_run_in(first, labelled=False)
            readings = [Label("run-in", (), split[0])] if split else None
        if split is None or readings is None or any(r.family == "appendix" for r in readings):
            return False
        depth = self.outline.place(readings)
        if depth is None:
            return False
        head, body = split
        indent = block[0][: len(block[0]) - len(block[0].lstrip())]
        rest = [indent + body, *block[1:]]
        wrapped = len(block) > 1 and all(self.layout.is_full(line) for line in block[:-1])
        self.heading(_LABELLED + depth, head)
        self.out.append(self.reflow(rest) if wrapped else self.paragraph(rest))
        return True

    def heading_atop(self, block: list[str]) -> bool:
        """A short labelled title line directly above its body text ("1. Introduction" then "This ...")."""
        first, second = block[0].strip(), block[1].strip()
        if self.layout.is_full(block[0]) or not _heading_like(first) or parse_label(second) is not None:
            return False
        if not any(self.layout.is_full(line) or line.rstrip().endswith(".") for line in block[1:]):
            return False  # an address ("A. Rockpool", "Example Pools"), not a title over its body
        if not second[:1].isupper() or parse_label(first) is None:
            return False
        parsed = parse_label(first)
        if parsed is None or not parsed[1] or not (is_title(parsed[1]) or _is_caps(parsed[1])):
            return False
        rank = self.labelled(first, loose=False)
        if rank is None:
            return False
        self.heading(rank, block[0])
        return True

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
