"""Document time, offline: publication date, coverage years, granularity, decay class.

`extract_temporal` fills `records.Temporal` (spec §1.1) from what a document says
about itself, without an LLM. The first source that yields a date wins:

1. **metadata** — the parser's metadata and any YAML front matter (the parser's
   values win), keys tried in `METADATA_KEYS` order. Creation dates come last:
   a PDF's creation date is often the day the file was made, not published.
2. **text** — the first `HEADER_CHARS` characters: labelled lines
   ("Published: 2023-05-01", "Date: ..."), licence version lines ("Version 3,
   29 June 2007"), edition lines ("December 2014: First Edition"), arXiv ids,
   copyright notices (latest year), a line that is only a date. The candidate
   with the highest confidence wins, then the finer granularity, then the
   earlier position.
3. **filename** — `report-2021-03.md`, `2021_03_15-notes.md`, `paper2019.pdf`.

A date after `today` is never accepted (a typo or a deadline, not a
publication). Coverage is the span of years the body talks about, and the
decay class is a rule over document shape (see `classify_decay`).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import PurePath
from typing import Any

from ..dates import date_bounds, parse_date, valid_date
from ..records import Temporal
from ..text import first_h1

HEADER_CHARS = 3000
SHORT_DOC_CHARS = 20000  # "short" for news-like and ephemeral documents (~3,000 words)
MIN_YEAR = 1500  # earliest year counted as coverage
COVERAGE_PCTL = (0.05, 0.95)

# Metadata keys in priority order, with the confidence of a date found there.
METADATA_KEYS: tuple[tuple[str, float], ...] = (
    ("date", 0.9), ("published_at", 0.9), ("published", 0.9), ("publication_date", 0.9),
    ("date_published", 0.9), ("datepublished", 0.9), ("dc:date", 0.9), ("dcterms:date", 0.9),
    ("dcterms:issued", 0.9), ("issued", 0.9), ("year", 0.8),
    ("created", 0.7), ("creation_date", 0.7), ("creationdate", 0.7), ("dcterms:created", 0.7),
)

GRANULARITY_RANK = {"day": 3, "month": 2, "year": 1}

_MONTHS = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_ORD = r"(?:st|nd|rd|th)?"
# Date-shaped substrings, most specific first; `_search_date` takes the earliest, then the longest.
_DATE_SHAPES = [
    re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?!\d)"),
    re.compile(r"(?<!\d)\d{4}/\d{1,2}/\d{1,2}(?!\d)"),
    re.compile(rf"(?<!\d)\d{{1,2}}{_ORD}\s+(?:of\s+)?{_MONTHS}\.?,?\s+\d{{4}}(?!\d)", re.IGNORECASE),
    re.compile(rf"\b{_MONTHS}\.?\s+\d{{1,2}}{_ORD},?\s+\d{{4}}(?!\d)", re.IGNORECASE),
    re.compile(rf"\b{_MONTHS}\.?,?\s+\d{{4}}(?!\d)", re.IGNORECASE),
    re.compile(r"(?<!\d)\d{1,2}[/.]\d{1,2}[/.]\d{4}(?!\d)"),
    re.compile(r"(?<![\d-])\d{4}-(?:0[1-9]|1[0-2])(?![\d-])"),
    re.compile(r"(?<![\d.,])(?:1\d|20)\d\d(?![\d.,]\d|\d)"),
]


def _search_date(text: str) -> tuple[str, str, int, int] | None:
    """The earliest (then longest) date-shaped substring that parses: (date, gran, start, end)."""
    best: tuple[int, int, str, str] | None = None
    for shape in _DATE_SHAPES:
        for m in shape.finditer(text):
            parsed = parse_date(m.group())
            if parsed is None:
                continue
            key = (m.start(), -(m.end() - m.start()))
            if best is None or key < (best[0], -best[1]):
                best = (m.start(), m.end() - m.start(), *parsed)
            break  # later matches of this shape start later
    if best is None:
        return None
    start, length, norm, gran = best
    return norm, gran, start, start + length


# --------------------------------------------------------------------------- sources


@dataclass(frozen=True)
class _Candidate:
    date: str
    granularity: str
    confidence: float
    position: int = 0


def _not_future(c: _Candidate | None, today: date) -> bool:
    bounds = date_bounds(c.date) if c is not None else None
    return bounds is not None and bounds[0] <= today


def _front_matter(markdown: str) -> tuple[dict[str, str], str]:
    """YAML-style `key: value` front matter (between leading `---` lines) and the rest."""
    m = re.match(r"\A\ufeff?---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", markdown, re.DOTALL)
    if not m:
        return {}, markdown
    meta = {}
    for line in m.group(1).splitlines():
        k, sep, v = line.partition(":")
        if sep and k.strip() and not k.startswith((" ", "\t", "-")):
            meta[k.strip().lower()] = v.strip().strip("'\"")
    return meta, markdown[m.end():]


def _from_metadata(metadata: Mapping[str, Any], today: date) -> _Candidate | None:
    lowered = {str(k).lower(): v for k, v in metadata.items()}
    for key, conf in METADATA_KEYS:
        value = lowered.get(key)
        if isinstance(value, (list, tuple)):
            value = value[0] if value else None
        if value is None or value == "":
            continue
        parsed = parse_date(value)
        if parsed is None and isinstance(value, str):
            found = _search_date(value)
            parsed = found[:2] if found else None
        if parsed:
            cand = _Candidate(parsed[0], parsed[1], conf)
            if _not_future(cand, today):
                return cand
    return None


_MD_DECOR = "*_>#|`~ \t-"
_LABELLED = re.compile(
    r"^[\s>*_#|-]*(?P<label>published(?:\s+on)?|publication\s+date|date\s+(?:published|of\s+publication)"
    r"|posted(?:\s+on)?|released?(?:\s+date)?|issued|date|last\s+updated|updated|modified)"
    r"\s*[*_]*\s*[:：]\s*(?P<value>.+)$",
    re.IGNORECASE | re.MULTILINE,
)
_VERSION_LINE = re.compile(r"\b(?:Version|Revision|Rev\.)\s+\d[\w.]*\s*,\s*(?P<value>[^\n]{4,40})", re.IGNORECASE)
_EDITION = re.compile(
    r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th))\s+edition\b",
    re.IGNORECASE,
)
_COPYRIGHT = re.compile(
    r"(?:copyright|©|\(c\))(?:\s*(?:©|\(c\)))?\s*(?P<years>\d{4}(?:\s*(?:[,–—-]|and)\s*\d{2,4})*)",
    re.IGNORECASE,
)
_ARXIV = re.compile(r"arXiv:\s?(?P<yy>\d{2})(?P<mm>\d{2})\.\d{4,5}", re.IGNORECASE)

_TEXT_CONFIDENCE = {
    "published": 0.85, "version": 0.85, "edition": 0.8, "updated": 0.7,
    "arxiv": 0.6, "copyright": 0.6, "date_line": 0.55,
}


def _header_candidates(head: str) -> list[_Candidate]:
    cands: list[_Candidate] = []

    def add(text: str, kind: str, offset: int) -> None:
        found = _search_date(text)
        if found:
            cands.append(_Candidate(found[0], found[1], _TEXT_CONFIDENCE[kind], offset + found[2]))

    for m in _LABELLED.finditer(head):
        label = m.group("label").lower()
        kind = "updated" if label.endswith(("updated", "modified")) else "published"
        add(m.group("value"), kind, m.start("value"))
    for m in _VERSION_LINE.finditer(head):
        add(m.group("value"), "version", m.start("value"))
    for m in _EDITION.finditer(head):
        # The date sits on the same line: "December 2014: First Edition", "First Edition, May 2010".
        line_start = head.rfind("\n", 0, m.start()) + 1
        line_end = head.find("\n", m.end())
        line_end = len(head) if line_end < 0 else line_end
        lo = max(line_start, m.start() - 40)
        add(head[lo:min(line_end, m.end() + 40)], "edition", lo)
    for m in _COPYRIGHT.finditer(head):
        years = [int(y) for y in re.findall(r"\d{2,4}", m.group("years"))]
        full = [years[0]]
        for y in years[1:]:  # "2014-15" means 2015
            full.append(y if y >= 1000 else full[-1] // 100 * 100 + y)
        latest = max(full)
        if valid_date(latest):
            cands.append(_Candidate(f"{latest:04d}", "year", _TEXT_CONFIDENCE["copyright"], m.start()))
    for m in _ARXIV.finditer(head):
        y, mo = 2000 + int(m.group("yy")), int(m.group("mm"))
        if valid_date(y, mo):
            cands.append(_Candidate(f"{y:04d}-{mo:02d}", "month", _TEXT_CONFIDENCE["arxiv"], m.start()))
    pos = 0
    for line in head[:1000].splitlines(keepends=True):
        bare = line.strip(_MD_DECOR + "\n\r")
        found = _search_date(bare) if 4 <= len(bare) <= 40 else None
        if found and found[3] - found[2] >= 0.8 * len(bare):
            cands.append(_Candidate(found[0], found[1], _TEXT_CONFIDENCE["date_line"], pos))
        pos += len(line)
    return cands


def _best(cands: list[_Candidate], today: date) -> _Candidate | None:
    ok = [c for c in cands if _not_future(c, today)]
    if not ok:
        return None
    return min(ok, key=lambda c: (-c.confidence, -GRANULARITY_RANK[c.granularity], c.position))


_FILENAME_SHAPES: tuple[tuple[re.Pattern[str], str, float], ...] = (
    (re.compile(r"(?<!\d)(\d{4})[-_.](\d{2})[-_.](\d{2})(?!\d)"), "day", 0.5),
    (re.compile(r"(?<!\d)(\d{4})(\d{2})(\d{2})(?!\d)"), "day", 0.45),
    (re.compile(r"(?<!\d)(\d{4})[-_.](\d{2})(?![\d])"), "month", 0.45),
    (re.compile(r"(?<!\d)((?:1[5-9]|20)\d\d)(?!\d)"), "year", 0.35),
)


def _from_filename(path: str, today: date) -> _Candidate | None:
    stem = PurePath(path).stem
    for shape, gran, conf in _FILENAME_SHAPES:
        for m in shape.finditer(stem):
            parsed = parse_date("-".join(m.groups()))
            if parsed and parsed[1] == gran:
                cand = _Candidate(parsed[0], gran, conf)
                if _not_future(cand, today):
                    return cand
    return None


# --------------------------------------------------------------------------- coverage

_CODE_FENCE = re.compile(r"```.*?```|~~~.*?~~~", re.DOTALL)
# Link targets stop at the next "(" (one level of parentheses allowed) and an
# address is matched from the start of its token: "](" without ")" scanned to the
# end, or "\S+@" tried at every position of a long token, is quadratic in its length.
_NOISE = re.compile(r"`[^`\n]*`|\]\((?:[^()\n]|\([^()\n]*\))*\)|(?:https?://|www\.)\S+|(?<!\S)\S+@\S+")
_YEAR_MENTION = re.compile(
    r"(?P<iso>(?<![\w.])(?P<iy>\d{4})-\d{2}-\d{2}(?!\d))"
    r"|(?P<range>(?<![\w.,/$€£¥#-])(?P<r1>\d{4})\s?[–—-]\s?(?P<r2>\d{4}|\d{2})(?![\w%]|[.,]\d|-\d))"
    r"|(?<![\w.,/$€£¥#:+-])(?P<y>\d{4})(?![\w%]|[.,:/]\d|-\d)"
)
# A number right after these words is a page, version, id or count, not a year.
_NOT_YEAR_BEFORE = re.compile(
    r"(?:\b(?:pages?|pp?|no|nos|number|version|ver|v|vol|volume|chapter|ch|section|sec|fig|figure|table"
    r"|isbn|issn|doi|rfc|bip|block|height|port|line|step|item|id|code|circular|decision|decree|law)\.?"
    r"|[$€£¥#])\s*$",
    re.IGNORECASE,
)
_NOT_YEAR_AFTER = re.compile(
    r"^\s*(?:%|percent|bytes?|bits?|kb|mb|gb|tb|btc|bitcoins?|satoshis?|usd|eur|dollars?|euros?|vnd"
    r"|km|kg|m|cm|mm|mw|kw|gw|hz|mhz|ghz|ms|px|people|persons|users|units|tons?|tonnes|words|lines"
    r"|pages|times|blocks|transactions|nodes|miners)\b",
    re.IGNORECASE,
)


def year_mentions(markdown: str, today: date) -> list[int]:
    """Years the text mentions, MIN_YEAR..today.year, skipping page/version/amount numbers."""
    text = _NOISE.sub(" ", _CODE_FENCE.sub(" ", markdown))
    out: list[int] = []
    for m in _YEAR_MENTION.finditer(text):
        before = text[max(0, m.start() - 16):m.start()]
        if _NOT_YEAR_BEFORE.search(before) or _NOT_YEAR_AFTER.match(text[m.end():m.end() + 14]):
            continue
        if m.group("iso"):
            years = [int(m.group("iy"))]
        elif m.group("range"):
            y1, r2 = int(m.group("r1")), m.group("r2")
            y2 = int(r2) if len(r2) == 4 else y1 // 100 * 100 + int(r2)
            years = [y1, y2] if y1 < y2 else []  # "2020-19" is an id, not a range
        else:
            years = [int(m.group("y"))]
        out += [y for y in years if MIN_YEAR <= y <= today.year]
    return out


def coverage(years: list[int]) -> tuple[str, str] | None:
    """(start, end) years the body covers, robust to stray numbers.

    Only years mentioned at least twice count (all of them when none repeats);
    start = the 5th and end = the 95th percentile of those mentions, nearest
    rank on the sorted list: s[floor(0.05*(n-1))] and s[ceil(0.95*(n-1))].
    """
    if not years:
        return None
    counts = Counter(years)
    kept = sorted(y for y in years if counts[y] >= 2) or sorted(years)
    n = len(kept)
    lo = kept[math.floor(COVERAGE_PCTL[0] * (n - 1))]
    hi = kept[math.ceil(COVERAGE_PCTL[1] * (n - 1))]
    return f"{lo:04d}", f"{hi:04d}"


# --------------------------------------------------------------------------- decay class

_LEGAL_TITLE = re.compile(r"\blicen[cs]e\b|\blegal code\b|\bterms of (?:use|service)\b", re.IGNORECASE)
_LEGAL_WORDS = re.compile(
    r"\b(?:licen[cs]e[ds]?|licensor|licensee|warrant(?:y|ies)|copyright|redistribut\w*|distribut\w*"
    r"|permission|liabilit\w*)\b", re.IGNORECASE)
LEGAL_MIN_WORDS = 6  # legal words in the opening: the licences measured here have 7-17, a book preface 1
_LICENCE_STRONG = re.compile(
    r"permission is hereby granted, free of charge|redistribution and use in source and binary forms"
    r"|everyone is permitted to copy and distribute verbatim copies", re.IGNORECASE)
_ISBN = re.compile(r"\bISBN(?:-1[03])?:?\s*(?:97[89][\s-]?)?\d[\d\s-]{7,14}[\dX]\b", re.IGNORECASE)
_STANDARD = re.compile(
    r"\bRFC\s?\d{3,5}\b|\bRequest for Comments\b|\bISO(?:/IEC)?\s\d{3,5}\b|\bIEEE Std\b|\bECMA-\d+\b"
    r"|\bW3C Recommendation\b|\bInternet[- ]Draft\b")
_REFERENCE_TITLE = re.compile(
    r"\b(?:specification|standard|manual|handbook|reference|guide|documentation|glossary|dictionary"
    r"|encyclopa?edia|textbook|licen[cs]e)\b", re.IGNORECASE)
_ABSTRACT = re.compile(r"^[#\s*_]*abstract\b", re.IGNORECASE | re.MULTILINE)
_REFERENCES = re.compile(
    r"^[#\s*_]*(?:\d+\.?\s*)?(?:references|bibliography|works cited|literature cited)[*_\s:]*$",
    re.IGNORECASE | re.MULTILINE)
_DOI = re.compile(r"\b(?:doi:\s*|https?://(?:dx\.)?doi\.org/)10\.\d{4,9}/\S+|\b10\.\d{4,9}/[-._;()/:A-Za-z0-9]+",
                  re.IGNORECASE)
# One strong marker in the opening makes a short post ephemeral; weak ones need a second.
_EPHEMERAL_STRONG = re.compile(
    r"\bbreaking(?: news)?\b|\blive updates?\b|\bjust in\b|\bdeveloping story\b|\btoday only\b"
    r"|\bsave the date\b|\brsvp\b|\bregister (?:now|today)\b|\bwebinar\b|\blimited[- ]time\b"
    r"|\bsale ends\b|\bevent notice\b", re.IGNORECASE)
_EPHEMERAL_WEAK = re.compile(
    r"\btoday\b|\btonight\b|\btomorrow\b|\bthis weekend\b|\bannouncement\b|\bannounc(?:es|ing)\b"
    r"|\bjoin us\b|\bdeadline\b", re.IGNORECASE)
_NEWS = re.compile(
    r"\b(?:Reuters|Associated Press|AFP|Bloomberg News|staff (?:writer|reporter)|press release|newsroom)\b"
    r"|\(AP\)|^\s*[*_]*by\s+[A-Z][a-z]+\s+[A-Z][a-z]+[*_]*\s*$", re.MULTILINE)
_PUBLISHED_LABEL = re.compile(r"^[\s>*_#|-]*(?:published|posted)(?:\s+on)?\s*[*_]*\s*[:：]",
                              re.IGNORECASE | re.MULTILINE)


def classify_decay(markdown: str, title: str | None = None, granularity: str | None = None) -> str:
    """Decay class from document shape; the first rule that fires wins.

    1. EVERGREEN, reference works: a licence ("License"/"Legal Code" in the
       title or first 500 characters plus >= LEGAL_MIN_WORDS legal words such as
       licensee, warranty, distribute in the opening; or a canonical licence
       sentence such as "Permission is hereby granted"), an ISBN, an
       "Nth Edition" line, or a standards id (RFC, ISO, IEEE Std, W3C, ...).
    2. SCHOLARLY, papers: an Abstract heading together with a References /
       Bibliography heading, or a DOI or arXiv id in the opening.
    3. EPHEMERAL, time-bound posts: short (< SHORT_DOC_CHARS) and a time-bound
       marker in the title, or in the first 1,500 characters one strong marker
       ("breaking", "live updates", "webinar", "RSVP", "save the date", ...) or
       two different weak ones ("today", "tomorrow", "announcement", "join us",
       "deadline", ...).
    4. CURRENT, news-like: short and a "Published:"/"Posted:" header, a news
       source marker (Reuters, AP, "By First Last" line), or a day-precision
       publication date.
    5. EVERGREEN, again, for a title naming a reference genre (specification,
       manual, handbook, guide, glossary, ...).
    6. SCHOLARLY otherwise (the spec's default).
    The opening is the first HEADER_CHARS characters.
    """
    head = markdown[:HEADER_CHARS]
    title = title or ""
    top = title + "\n" + head[:500]
    short = len(markdown) < SHORT_DOC_CHARS
    legal = _LEGAL_TITLE.search(top) and len(_LEGAL_WORDS.findall(head)) >= LEGAL_MIN_WORDS
    if (legal or _LICENCE_STRONG.search(head)
            or _ISBN.search(head) or _EDITION.search(head) or _STANDARD.search(top)):
        return "EVERGREEN"
    if (_ABSTRACT.search(head) and _REFERENCES.search(markdown)) or _DOI.search(head) or _ARXIV.search(head):
        return "SCHOLARLY"
    if short:
        opening = head[:1500]
        weak = {m.group().lower() for m in _EPHEMERAL_WEAK.finditer(opening)}
        if (_EPHEMERAL_STRONG.search(title) or _EPHEMERAL_WEAK.search(title)
                or _EPHEMERAL_STRONG.search(opening) or len(weak) >= 2):
            return "EPHEMERAL"
        if _PUBLISHED_LABEL.search(head) or _NEWS.search(head) or granularity == "day":
            return "CURRENT"
    if _REFERENCE_TITLE.search(title):
        return "EVERGREEN"
    return "SCHOLARLY"


# --------------------------------------------------------------------------- entry point


def extract_temporal(markdown: str, metadata: Mapping[str, Any] | None = None, title: str | None = None,
                     path: str | None = None, *, today: date | None = None) -> Temporal:
    """Publication date, coverage, granularity, confidence, decay class and source of a document.

    `today` bounds every date (default: the real today); pass a fixed date for
    reproducible ingests and tests. With no date found, `source` is "none",
    confidence 0 and granularity the spec default "year".
    """
    today = today or date.today()
    front, body = _front_matter(markdown)
    merged: dict[str, Any] = {**front, **{str(k).lower(): v for k, v in (metadata or {}).items()}}

    source = "none"
    chosen = _from_metadata(merged, today)
    if chosen:
        source = "metadata"
    else:
        chosen = _best(_header_candidates(body[:HEADER_CHARS]), today)
        if chosen:
            source = "text"
        elif path:
            chosen = _from_filename(path, today)
            source = "filename" if chosen else "none"

    span = coverage(year_mentions(body, today))
    granularity = chosen.granularity if chosen else "year"
    return Temporal(
        published_date=chosen.date if chosen else None,
        coverage_start=span[0] if span else None,
        coverage_end=span[1] if span else None,
        granularity=granularity,
        confidence=chosen.confidence if chosen else 0.0,
        decay_class=classify_decay(body, title or first_h1(body[:HEADER_CHARS]), chosen.granularity if chosen else None),
        source=source,
    )
