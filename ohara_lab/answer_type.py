"""The expected answer type of a question, and the typed spans of a sentence. Pure Python, no model.

    want = expected_types("Who was the first president of the association?")
    want.types   -> ("PERSON", "ORG")
    want.reason  -> "'who' asks for a person (or an organisation)"
    spans = typed_spans("Hall was its first president in 1892.", [("G. Stanley Hall", "PERSON"), ("Hall", "PERSON")])
    [(s.text, s.type) for s in spans] -> [("Hall", "PERSON"), ("1892", "DATE")]

Types are the entity layer's (`ohara_lab.entities.extract.SPACY_LABEL_TYPES`: PERSON, ORG,
LOCATION, DATE, AMOUNT, EVENT, TECH, CONCEPT) plus NUMBER, a bare count ("35", "2,913,123",
"four"), which the entity layer drops (spaCy's CARDINAL) and so is found here by pattern.

`expected_types` reads the question's cue, first rule that matches wins (`RULES`, in order):
"how many/much", percentages and measures -> NUMBER / AMOUNT; "when", "what year/date/time" -> DATE;
"where" and "what/which <place noun>" -> LOCATION; "what/which <organisation noun>" -> ORG;
"what/which <person noun>" -> PERSON; "who/whom/whose" -> PERSON, ORG; "what/which <work or law
noun>" -> CONCEPT; "what/which <event noun>" -> EVENT. "What kind/type/sort of ..." asks for a
description, so it has no type. No cue: `types == ()` and the reason says so.

`typed_spans` returns non-overlapping spans of a sentence, leftmost first: the given entity names
(the stored mentions of the paragraph: name and aliases, matched as whole words, longest first),
then, where no entity claimed the characters, DATE, AMOUNT and NUMBER patterns (month dates, years,
decades, centuries; currency, percentages, numbers with a unit of measure; other numbers and
number words). With `types`, only spans of those types come back.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass

NUMBER = "NUMBER"  # a bare count: not an entity type of the atlas

__all__ = ["NUMBER", "RULES", "Expected", "TypedSpan", "cue_clause", "expected_types", "in_question", "typed_spans"]


@dataclass(frozen=True)
class Expected:
    """What a question asks for: entity types (most likely first) and why."""

    types: tuple[str, ...]
    reason: str
    cue: str = ""  # the question words that decided it

    def __bool__(self) -> bool:
        return bool(self.types)


@dataclass(frozen=True)
class TypedSpan:
    """Characters [start, end) of a sentence holding a value of `type`; `source` entity | pattern."""

    start: int
    end: int
    text: str
    type: str
    source: str


_WH = r"(?:what|which)"
# "what is the (name of the)? (most popular|main ...)? <noun>": up to three words may stand between.
_NOT_MODIFIER = r"(?!(?:of|in|for|by|from|on|at|to|with|did|does|do|is|was|are|were|has|have|had)\b)"
_HEAD = (rf"\b{_WH}(?:\s+(?:is|was|are|were))?(?:\s+(?:the|a|an))?(?:\s+name\s+of(?:\s+the)?)?"
         rf"(?:\s+{_NOT_MODIFIER}[\w'-]+){{0,3}}?\s+")
_PLACES = (r"city|cities|country|countries|county|counties|state|states|town|village|region|province|district"
           r"|continent|river|lake|mountains?|range|island|sea|ocean|bay|territory|place|location|airport|capital"
           r"|nation|borough|park|peninsula|waterfall|falls|valley|desert|street|stadium|hotel|municipality"
           r"|parish|neighbou?rhood|body\s+of\s+water")
_ORGS = (r"company|companies|organi[sz]ations?|team|club|band|group|university|college|school|party|label"
         r"|network|agency|church|association|newspaper|airline|publisher|firm|corporation|league|army")
_PEOPLE = (r"person|president|king|queen|author|writer|actor|actress|singer|director|composer|explorer|player"
           r"|leader|founder|emperor|ruler|wife|husband|spouse|father|mother|son|daughter|sibling|brother|sister"
           r"|child|governor|mayor|minister|chancellor|artist|painter|poet|producer|coach|captain")
_WORKS = r"movie|film|book|song|album|novel|play|treaty|law|act|opera|poem|show|series|character|piece"
_EVENTS = r"war|battle|event|election|revolution|tournament"

# (pattern, types, reason), tried in order over the lower-cased question.
RULES: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...] = tuple(
    (re.compile(p), types, reason) for p, types, reason in (
        (rf"\b{_WH}\s+(?:kind|type|sort|kinds|types)\s+of\b", (), "'what kind of' asks for a description"),
        (r"\bhow\s+much\s+(?:money|did|does|do|is|was|were|are)\b|\bhow\s+much\b.*\b(?:cost|worth|pay|paid|price)",
         ("AMOUNT", NUMBER), "'how much' money asks for an amount"),
        (r"\bhow\s+(?:many|much)\b", (NUMBER, "AMOUNT"), "'how many/much' asks for a number"),
        (rf"\b{_WH}\s+(?:percentage|percent|proportion|share|fraction|rate)\b",
         ("AMOUNT", NUMBER), "a percentage is an amount"),
        (r"\bhow\s+(?:old)\b", (NUMBER, "DATE"), "'how old' asks for an age"),
        (r"\bhow\s+(?:long|tall|high|far|deep|big|large|wide|heavy|fast)\b",
         ("AMOUNT", "DATE", NUMBER), "'how long/tall/far ...' asks for a measure"),
        (rf"{_HEAD}(?:population|number|amount|count|total|area\s+code|size|score|attendance)\b",
         (NUMBER, "AMOUNT"), "a population, number or amount is a number"),
        (rf"{_HEAD}(?:debt|revenue|budget|salary|price|cost|income|gdp|snowfall|rainfall|height|length"
         rf"|elevation|distance|depth|weight|temperature)\b", ("AMOUNT", NUMBER), "a measure or sum is an amount"),
        (rf"\bwhen\b|{_HEAD}(?:year|date|day|month|time|century|decade|era|period|season)\b|\bwhat\s+year\b",
         ("DATE",), "'when' / 'what year' asks for a date"),
        (r"\bwhere\b", ("LOCATION",), "'where' asks for a place"),
        (rf"{_HEAD}(?:{_PLACES})\b", ("LOCATION",), "the question names a kind of place"),
        (rf"{_HEAD}(?:{_ORGS})\b", ("ORG",), "the question names a kind of organisation"),
        (rf"{_HEAD}(?:{_PEOPLE})\b", ("PERSON",), "the question names a kind of person"),
        (r"\b(?:who|whom|whose)\b", ("PERSON", "ORG"), "'who' asks for a person (or an organisation)"),
        (rf"{_HEAD}(?:{_WORKS})\b", ("CONCEPT",), "the question names a work, title or law"),
        (rf"{_HEAD}(?:{_EVENTS})\b", ("EVENT",), "the question names a kind of event"),
    ))


def expected_types(question: str) -> Expected:
    """The types `question` asks for (empty when no rule's cue is in it), with the rule's reason."""
    clause = cue_clause(question)
    for pattern, types, reason in RULES:
        m = pattern.search(clause)
        if m:
            return Expected(types, reason, m.group(0).strip())
    return Expected((), "no answer-type cue in the question")


_QWORD = r"(?:what|which|who|whom|whose|when|where|how)"
_PREPOSITIONS = r"(?:in|to|of|at|from|on|by|for|with|during|since|until|into|under|after|before)"
_CUE_STARTS = (
    re.compile(rf"^(?:{_PREPOSITIONS}\s+)?{_QWORD}\b"),  # "In which country is ...", "Who was ..."
    re.compile(r"\b(?:how\s+(?:many|much)|what)\b"),  # "... has how many districts?", "... of what treaty?"
    re.compile(rf"\b{_QWORD}(?=\s+(?:did|does|do|is|was|were|are|has|have|had)\b)"),  # ", where did Germany ..."
    re.compile(rf"\b{_QWORD}(?=\s*\?\s*$)"),  # "... that was started when?"
)
_RELATIVE = re.compile(r"\b(?:where|when|who|whom|whose|which|that)\b")


def cue_clause(question: str) -> str:
    """The lower-cased words that carry the question's cue: from its interrogative word to the next relative one.

    Only the last sentence of a question asks ("There is a country where ... Who mothered ...?"); a
    "where" or "who" after a noun opens a relative clause ("the country where ...") and asks nothing.
    """
    text = " ".join(question.lower().split())
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", text) if s.strip()]
    for i in range(len(sentences) - 1, -1, -1):  # an abbreviation ("Harris W. Fawell") may split the asking one
        for start in _CUE_STARTS:
            m = start.search(sentences[i])
            if m:
                rest = " ".join(sentences[i:])[m.start():]
                first = re.match(r"\S+(?:\s+\S+)?", rest)
                end = _RELATIVE.search(rest, first.end() if first else 0)
                return rest[:end.start()].strip() if end else rest
    return ""


_MONTHS = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
           r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?")
_YEAR = r"(?:1[0-9]\d\d|20\d\d)(?:\s?(?:AD|BC|BCE|CE))?"
_DATES = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTHS},?\s+\d{{3,4}}\b"  # 1 August 1973
    rf"|\b{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{3,4}}\b"  # February 4, 1948
    rf"|\b{_MONTHS}\s+\d{{4}}\b|\b{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?\b"  # April 1793, June 6
    r"|\b\d{4}-\d{2}-\d{2}\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)\s+century\b|\b1[0-9]\d0s\b|\b20\d0s\b"
    rf"|\b{_YEAR}\b(?![.,]?\d)"
    r"|\b\d{1,2}(?::\d{2})?\s?(?:a\.m\.|p\.m\.|am|pm)(?!\w)",
    re.IGNORECASE)
_UNITS = (r"%|percent|per\s+cent|inch(?:es)?|in\.|feet|foot|ft|yards?|miles?|mi|km|kilomet(?:er|re)s?|met(?:er|re)s?"
          r"|m|cm|mm|kg|kilograms?|grams?|g|pounds?|lbs?|tons?|tonnes?|acres?|hectares?|ha|square\s+\w+"
          r"|degrees?|°[CF]?|mph|km/h|litres?|liters?|gallons?|TEUs?")
_SCALE = r"(?:\s?(?:thousand|million|billion|trillion))?"
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_AMOUNTS = re.compile(
    rf"(?:US)?[$€£¥₹]\s?(?:{_NUM}){_SCALE}"
    rf"|\b(?:{_NUM}){_SCALE}\s?(?:{_UNITS}|dollars|euros|pounds\s+sterling|yen)(?![\w])",
    re.IGNORECASE)
_NUMBER_WORDS = (r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen"
                 r"|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
                 r"|hundred|thousand")
_NUMBERS = re.compile(rf"(?<![\w.,])(?:{_NUM}){_SCALE}(?![\w]|[.,]\d)|\b(?:{_NUMBER_WORDS})\b", re.IGNORECASE)
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (("DATE", _DATES), ("AMOUNT", _AMOUNTS), (NUMBER, _NUMBERS))


def typed_spans(sentence: str, entities: Iterable[tuple[str, str]] = (),
                types: Collection[str] | None = None) -> list[TypedSpan]:
    """Non-overlapping typed spans of `sentence`: `entities` ((name, type) pairs) first, then patterns."""
    taken = bytearray(len(sentence))
    found: list[TypedSpan] = []

    def claim(start: int, end: int, etype: str, source: str) -> None:
        if end > start and taken.find(1, start, end) < 0:
            taken[start:end] = b"\x01" * (end - start)
            found.append(TypedSpan(start, end, sentence[start:end], etype, source))

    for name, etype in sorted(set(entities), key=lambda e: (-len(e[0]), e)):
        if len(name.strip()) < 2:
            continue
        for start in _whole_word_matches(sentence, name.strip()):
            claim(start, start + len(name.strip()), etype, "entity")
    for etype, pattern in _PATTERNS:
        for m in pattern.finditer(sentence):
            claim(m.start(), m.end(), etype, "pattern")
    found.sort(key=lambda s: s.start)
    return [s for s in found if types is None or s.type in types]


def _whole_word_matches(text: str, name: str) -> Iterator[int]:
    r"""Starts of `name` in `text` not inside a word: `(?<!\w)name(?!\w)` without compiling a pattern per name
    (the evidence of one query holds hundreds of names; per-name patterns thrashed `re`'s cache)."""
    start = text.find(name)
    while start >= 0:
        end = start + len(name)
        if not (start and _word_char(text[start - 1])) and not (end < len(text) and _word_char(text[end])):
            yield start
            start = text.find(name, end)
        else:
            start = text.find(name, start + 1)


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"  # what `re`'s \w matches in a str pattern


_WORDS = re.compile(r"[a-z0-9]+")


def in_question(span: str, question: str) -> bool:
    """True when every word of `span` is a word of `question` (case-insensitive): no new information."""
    words = _WORDS.findall(span.lower())
    asked = set(_WORDS.findall(question.lower()))
    return bool(words) and all(w in asked for w in words)
