"""Text lines of a PDF page with their font size and position, read through PDFium.

PDFium returns a page's text in reading order with `\\r\\n` between lines. For each
line a few characters are sampled for the font size, font name and box:
enough to tell headings from body text and paragraph gaps from line spacing, at a
fraction of the cost of reading every character's metrics.
"""
from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass
from statistics import median

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

# PDFium marks a hyphen it removed at a line end with U+FFFE and keeps the word
# whole ("manip\ufffeulation"); other control characters are glyphs without text.
_SOFT_HYPHEN = "\ufffe"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffe\uffff]")
# Lines end in \r\n; a lone \r is a glyph without text (TeX's © prints as "\rc").
_LINE = re.compile(r"(?:[^\r\n]|\r(?!\n))+")
# Monospaced fonts set code; PDFs rarely set the FixedPitch flag, so names decide too.
_MONO_NAME = re.compile(
    r"mono|monl|courier|consol|menlo|typewriter|code|fixed|(?:^|[^a-z])(?:cm|sf|ec|lm|t1)?tt\d", re.I
)
_FIXED_PITCH = 1


@dataclass
class Line:
    text: str
    size: float  # font size in points
    left: float
    right: float
    top: float  # PDF coordinates: y grows upwards
    bottom: float
    mono: bool = False  # set in a monospaced font (code)
    heading: int | None = None  # Markdown level once recognised as a heading
    from_outline: bool = False  # inserted from a bookmark title, not found on the page

    @property
    def height(self) -> float:
        return self.top - self.bottom


def _box(textpage: pdfium.PdfTextPage, index: int) -> tuple[float, float, float, float] | None:
    try:
        return textpage.get_charbox(index, loose=True)
    except pdfium.PdfiumError:
        return None


def _is_mono(textpage: pdfium.PdfTextPage, index: int) -> bool:
    name = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    if not pdfium_c.FPDFText_GetFontInfo(textpage, index, name, len(name), ctypes.byref(flags)):
        return False
    font = name.value.decode("latin-1").split("+")[-1]  # drop the subset tag "ABCDEF+"
    return bool(flags.value & _FIXED_PITCH) or bool(_MONO_NAME.search(font))


def _probes(raw: str, start: int) -> list[int]:
    """Text indices to sample: five letters or digits spread over the line.

    Bullets and punctuation are skipped: a small "•" or a quote set in another
    font says nothing about the line's type size.
    """
    alnum = [i for i, c in enumerate(raw) if c.isalnum()]
    if not alnum:
        alnum = [i for i, c in enumerate(raw) if not c.isspace()]
    picks = {alnum[round(q * (len(alnum) - 1))] for q in (0, 0.25, 0.5, 0.75, 1)}
    return [start + i for i in sorted(picks)]


def page_lines(textpage: pdfium.PdfTextPage) -> list[Line]:
    """The page's non-blank lines in PDFium's reading order."""
    text = textpage.get_text_range()
    lines = []
    for match in _LINE.finditer(text):
        raw = match.group()
        clean = _CONTROL.sub("", raw).strip()
        if not clean:
            continue
        ends = [match.start() + len(raw) - len(raw.lstrip()), match.start() + len(raw.rstrip()) - 1]
        hyphen = raw.find(_SOFT_HYPHEN)
        if hyphen >= 0:
            ends.append(match.start() + hyphen)  # the physical end of a hyphenated line
        chars = [pdfium_c.FPDFText_GetCharIndexFromTextIndex(textpage, i) for i in _probes(raw, match.start())]
        chars = [c for c in chars if c >= 0]
        edge_chars = [pdfium_c.FPDFText_GetCharIndexFromTextIndex(textpage, i) for i in ends]
        boxes = [box for box in (_box(textpage, c) for c in edge_chars if c >= 0) if box]
        if not chars or not boxes:
            continue
        # PDFium sometimes runs two physical lines into one text line; its first
        # character is on the upper one and its last on the lower one.
        lines.append(
            Line(
                text=clean,
                size=round(median(pdfium_c.FPDFText_GetFontSize(textpage, c) for c in chars), 1),
                left=boxes[0][0],
                right=max(box[2] for box in boxes),
                top=boxes[0][3],
                bottom=min(box[1] for box in boxes),
                # Every probe: prose lines often carry a few words of inline code.
                mono=all(_is_mono(textpage, c) for c in chars),
            )
        )
    return lines
