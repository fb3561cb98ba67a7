"""Numbered, lettered and keyword headings: their labels, run-in titles and place in the outline.

Plain-text documents (licences, RFCs, statutes) and Markdown whose headings all sit at one
depth carry their structure in the heading *labels*: "2.", "2.1", "(a)", "Section 3",
"ARTICLE IV". This module reads those labels and decides where each heading goes.

* `parse_label` splits a heading candidate into its label and the rest. A label has a
  *style* (dotted numbers of depth k, "(a)", "(1)", "(A)", "(i)", "a.", "A.", "I.",
  or a keyword family: part, chapter, section, appendix) and a value. Labels in the
  ")" style ("1)", "a)") are list markers and never heading labels.
* `split_run_in` finds a run-in heading, "2. Grant of Copyright License. Subject to ...":
  a label, a short title in title case (or capitals), then "." / ":" / ".—" and the
  body. A sentence ("0. This License applies to any program ...") is not a title.
* `Outline` places labelled headings the way nested lists nest (after the stack of
  open headings an outline processor keeps; cf. the section-number rule of
  RFC 7322 §4.8 and the subsection/paragraph/subparagraph/clause ladder of the
  U.S. House Legislative Counsel's drafting style): a style already open is a
  sibling and closes what was opened below it, a new style opens a level below.
  Keyword families have a fixed order (part > chapter/article > section), so an
  "ARTICLE II" closes the sections of Article I whichever came first. A heading must
  also continue its style's sequence (2 after 1, 2.2 after 2.1, 2.1 right under 2,
  (b) after (a)); one that does not (a "1." list item inside section 4) is not a
  heading. Ambiguous letters ("(i)" after "(h)", "C." as a letter or a numeral) take
  the reading that continues a sequence.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# Words a title may keep in lower case ("Grant of Copyright License", "Revised Versions of this License").
FUNCTION_WORDS = frozenset(
    "a an and as at but by for from in into nor of on onto or per than that the their this these those to "
    "under upon versus via vs with within without your its our".split()
)
MAX_TITLE_WORDS = 10
MAX_TITLE_CHARS = 72
# Keyword families, highest first; a family closes every open heading of a lower one.
KEYWORD_FAMILIES: dict[str, tuple[int, tuple[str, ...]]] = {
    "part": (0, ("part", "book", "title", "division")),
    "chapter": (1, ("chapter", "article", "subpart", "subtitle")),
    "section": (2, ("section", "sec", "§", "§§")),
    "appendix": (-1, ("appendix", "annex", "schedule", "exhibit", "addendum", "attachment")),
}
_KEYWORD_OF = {word: family for family, (_, words) in KEYWORD_FAMILIES.items() for word in words}
_NUMBER_WORDS = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                 "sixteen seventeen eighteen nineteen twenty").split()
_ROMAN = re.compile(r"^(?=[ivxlcdm]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$", re.I)
_KEYWORD = re.compile(
    r"^(?P<kw>(?:[A-Z][a-z]+|[A-Z]{2,}|§§?)\.?)\s*"
    r"(?P<num>\d+(?:[.\-]\d+)*[A-Za-z]?|[IVXLCDM]+|[A-Z]|[A-Za-z]+)?(?P<dot>[.:]?)(?=\s|$|—|–|-)")
_DOTTED = re.compile(r"^(?P<num>\d{1,3}(?:\.\d{1,3})*)(?P<dot>\.?)(?=\s)")
_PAREN = re.compile(r"^\((?P<v>[a-z]{1,4}|[A-Z]{1,4}|\d{1,3})\)(?=\s)")
_LETTER_DOT = re.compile(r"^(?P<v>[a-zA-Z]|[IVXLC]{1,6}|[ivxlc]{1,6})\.(?=\s)")
# What ends a run-in title: ". " ": " ".—" "—" " -- ".
_TERMINATOR = re.compile(r"(?:\.\s*[—–]|\.\s*-{1,2}|[—–]|\s-{1,2}\s|\.|:)(?=\s|[A-Z\"“(])")
_ABBREVIATIONS = frozenset("mr mrs ms dr st no nos fig figs vol vols inc ltd co corp jr sr vs etc eg ie cf".split())


@dataclass(frozen=True)
class Label:
    """One reading of a heading label: its style, its value, and how it was written."""

    style: str  # "num:2", "(a)", "(1)", "(A)", "(i)", "a.", "A.", "I.", "i.", "kw:section", ...
    value: tuple[int, ...]  # dotted parts for numbers, (ordinal,) for letters and numerals, () for none
    text: str

    @property
    def family(self) -> str | None:
        return self.style[3:] if self.style.startswith("kw:") else None

    @property
    def rank(self) -> int:
        """Keyword families rank by KEYWORD_FAMILIES; every other style sits below them."""
        family = self.family
        return KEYWORD_FAMILIES[family][0] if family else len(KEYWORD_FAMILIES)


def _roman(text: str) -> int | None:
    if not text or not _ROMAN.match(text):
        return None
    values = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
    total, prev = 0, 0
    for ch in reversed(text.lower()):
        v = values[ch]
        total, prev = (total - v, prev) if v < prev else (total + v, v)
    return total


def _letter(text: str) -> int | None:
    return ord(text.lower()) - ord("a") + 1 if len(text) == 1 and text.isalpha() else None


def _ordinal_readings(v: str, shape: str) -> list[Label]:
    """Letter and numeral readings of `v` in a shape such as "(%s)" or "%s."."""
    out: list[Label] = []
    letter, roman = _letter(v), _roman(v)
    case = "a" if v.islower() else "A"
    if letter is not None:
        out.append(Label(shape % case, (letter,), shape % v))
    if roman is not None:
        out.append(Label(shape % ("i" if v.islower() else "I"), (roman,), shape % v))
    return out


def _keyword(text: str) -> tuple[list[Label], str] | None:
    m = _KEYWORD.match(text)
    if not m:
        return None
    word = m.group("kw").rstrip(".").lower()
    family = _KEYWORD_OF.get(word)
    num = m.group("num") or ""
    if family is None or not (m.group("kw")[0].isupper() or word.startswith("§")):
        return None
    if num and not (num[0].isdigit() or _roman(num) or len(num) == 1 or num.lower() in _NUMBER_WORDS):
        return None  # "Part of the problem", "Title page"
    if not num and family != "appendix":
        return None  # "Section" alone is a word, not a label
    if num.isalpha() and len(num) > 1 and num.lower() not in _NUMBER_WORDS and not num.isupper():
        return None
    value = tuple(int(p) for p in re.split(r"[.\-]", num) if p.isdigit()) if num[:1].isdigit() else ()
    label = text[:m.end()].strip()
    return [Label(f"kw:{family}", value, label)], text[m.end():].strip()


def parse_label(text: str) -> tuple[list[Label], str] | None:
    """The readings of the label opening `text` and what follows it, or None when it opens with none.

    "2.1 Scope" -> ([num:2 (2, 1)], "Scope"); "(i) Notice" -> ([(a) 9, (i) 1], "Notice");
    "ARTICLE IV" -> ([kw:chapter], ""); "1) milk" -> None (a list marker).
    """
    text = text.strip()
    m = _DOTTED.match(text)
    if m:
        parts = tuple(int(p) for p in m.group("num").split("."))
        if len(parts) == 1 and not m.group("dot") and parts[0] >= 100:
            return None  # "2019 Annual Report", "404 Not Found"
        return [Label(f"num:{len(parts)}", parts, m.group(0))], text[m.end():].strip()
    m = _PAREN.match(text)
    if m:
        v = m.group("v")
        readings = [Label("(1)", (int(v),), m.group(0))] if v.isdigit() else _ordinal_readings(v, "(%s)")
        return (readings, text[m.end():].strip()) if readings else None
    m = _LETTER_DOT.match(text)
    if m:
        readings = _ordinal_readings(m.group("v"), "%s.")
        return (readings, text[m.end():].strip()) if readings else None
    return _keyword(text)


def is_title(text: str, *, loose: bool = False) -> bool:
    """Whether `text` reads as a heading title: short, and every word but function words capitalised.

    `loose` asks only for a capital first letter (a numbered line of its own, "0. Definitions.").
    """
    if len(text) > MAX_TITLE_CHARS:
        return False
    words = text.rstrip(".:").split()
    if not words or len(words) > MAX_TITLE_WORDS:
        return False
    if not any(sum(c.isalpha() for c in w) >= 2 for w in words):
        return False
    first = words[0].lstrip("\"“'‘(")
    if not first[:1].isupper() and not first[:1].isdigit():
        return False
    if loose:
        return True
    for word in words:
        bare = word.strip("\"“”'‘’(),;")
        if not bare or not bare[0].isalpha():
            continue  # numbers and symbols: "Sections 15 and 16"
        if not bare[0].isupper() and bare.lower() not in FUNCTION_WORDS:
            return False
    return True


def split_run_in(text: str, *, labelled: bool = True) -> tuple[str, str] | None:
    """("2. Grant of Copyright License.", "Subject to ...") for a run-in heading, else None.

    With `labelled`, the text must open with a label; without, the title is the whole
    opening phrase ("Definitions. In this Act ..."), at most five words and not an
    abbreviation such as "Mr.".
    """
    text = text.strip()
    start = 0
    parsed = parse_label(text)
    if labelled != (parsed is not None):
        return None
    if parsed is not None:
        start = len(text) - len(parsed[1])
    # A title ends within MAX_TITLE_CHARS; a paragraph pasted as one long line is not searched further.
    for m in _TERMINATOR.finditer(text[: start + MAX_TITLE_CHARS + 8], start):
        title = text[start:m.start()].strip()
        body = text[m.end():].strip()
        if not title or not body:
            return None
        if not is_title(title) or not (body[0].isupper() or body[0] in "\"“(["):
            return None
        words = title.split()
        if not labelled and (len(words) > 5 or (len(words) == 1 and (len(title) <= 3
                                                                      or title.lower() in _ABBREVIATIONS))):
            return None
        if words[-1].lower().rstrip(".") in _ABBREVIATIONS:
            return None
        return text[:m.end()].strip(), body
    return None


def _number_depth(label: Label) -> int:
    """How many numbers a dotted label has ("2.1" -> 2); 0 for every other style."""
    return int(label.style[4:]) if label.style.startswith("num:") else 0


@dataclass
class _Open:
    label: Label


@dataclass
class Outline:
    """The labelled headings open at this point of a document (see the module docstring)."""

    stack: list[_Open] = field(default_factory=list)
    last: dict[str, tuple[int, ...]] = field(default_factory=dict)  # a style's last value, across resets

    def reset(self) -> None:
        """An unlabelled heading ("TERMS AND CONDITIONS") closes every labelled one."""
        self.stack.clear()

    def place(self, readings: list[Label], *, force: bool = False) -> int | None:
        """The depth (0 = top labelled level) of a heading with these label readings, None if it breaks
        every sequence; the outline is updated only when a reading fits. With `force` (a heading the
        layout already proves, such as an underlined one) a heading that fits nowhere opens the outline."""
        fits: list[tuple[int, int, int, Label]] = []  # (preference, reading order, depth, reading)
        for i, reading in enumerate(readings):
            fit = self._fit(reading)
            if fit is not None:
                fits.append((fit[1], i, fit[0], reading))
        if not fits and force:
            fits = [(1, 0, 0, readings[0])]
        if not fits:
            return None
        _, _, depth, label = min(fits, key=lambda x: (x[0], x[1]))
        del self.stack[depth:]
        self.stack.append(_Open(label))
        if label.value:
            self.last[label.style] = label.value
        return depth

    def _fit(self, label: Label) -> tuple[int, int] | None:
        """(depth, preference) where `label` fits: 0 continues an open style, 1 opens a new level."""
        for depth, open_ in enumerate(self.stack):
            if open_.label.style == label.style or (label.family and open_.label.family == label.family):
                return (depth, 0) if self._continues(open_.label, label) else None
            if label.family and open_.label.rank > label.rank:
                return depth, 1  # "ARTICLE II" closes the sections and numbers opened under Article I
            if 0 < _number_depth(label) < _number_depth(open_.label):
                return (depth, 1) if self._starts(label) else None  # "2." closes a "1.1" opened alone
        depth = len(self.stack)
        return (depth, 1) if self._starts(label) else None

    def _continues(self, prev: Label, label: Label) -> bool:
        if label.family or not label.value:
            return True  # keyword numbering varies ("SEC. 101." after "SEC. 2."); trust the keyword
        if len(label.value) > 1:
            parent = self._parent_number(len(label.value))
            if parent is not None and label.value[:-1] != parent:
                return False
        return label.value[-1] == prev.value[-1] + 1

    def _starts(self, label: Label) -> bool:
        if label.family or not label.value:
            return True
        if len(label.value) > 1:
            parent = self._parent_number(len(label.value))
            return parent == label.value[:-1] and label.value[-1] in (0, 1)
        if label.style == "num:1":
            last = self.last.get("num:1")
            # The first number of a document may be any (an excerpt); later ones continue or restart.
            return last is None or label.value[0] in (0, 1, last[0] + 1)
        return label.value[0] == 1

    def _parent_number(self, depth: int) -> tuple[int, ...] | None:
        for open_ in reversed(self.stack):
            if open_.label.style == f"num:{depth - 1}":
                return open_.label.value
        return None
