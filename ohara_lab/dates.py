"""Dates as the atlas stores them: `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, and the days they cover.

`parse_date` normalises a value from metadata or text to one of those shapes and
its granularity; `date_bounds` gives the first and last calendar day a value
covers ("2024-02" -> 1 Feb .. 29 Feb, the month's real length from the
calendar). Every part of ohara-lab that reads a date goes through these two.
"""
from __future__ import annotations

import calendar
import re
from datetime import date, datetime
from typing import Any

from dateutil import parser as _dateparser


def valid_date(y: int, m: int = 1, d: int = 1) -> bool:
    """A real calendar day between the years 1000 and 2999."""
    if not 1000 <= y <= 2999 or not 1 <= m <= 12:
        return False
    return 1 <= d <= calendar.monthrange(y, m)[1]


def parse_date(s: Any) -> tuple[str, str] | None:
    """Normalise one date value to (`YYYY-MM-DD`|`YYYY-MM`|`YYYY`, day|month|year).

    Takes strings in many formats (ISO 8601 with time and zone, "June 1991",
    "29 June 2007", "May 1, 2023", RFC 2822, PDF "D:20230501...", "2023/05/01"),
    `date`/`datetime` objects and integer years. A value without a 4-digit year
    gives None: "June 5" is not a date we can place. The calendar date is taken
    as written, with no time-zone conversion.
    """
    if isinstance(s, datetime):
        s = s.date()
    if isinstance(s, date):
        return s.isoformat(), "day"
    if isinstance(s, int) and not isinstance(s, bool):
        return (f"{s:04d}", "year") if valid_date(s) else None
    if not isinstance(s, str):
        return None
    s = s.strip()
    if s.startswith("D:"):
        s = s[2:]
    m = re.fullmatch(r"(\d{4})", s)
    if m:
        return (m.group(1), "year") if valid_date(int(m.group(1))) else None
    m = re.fullmatch(r"(\d{4})[-/.](\d{1,2})", s)
    if m:
        y, mo = int(m.group(1)), int(m.group(2))
        return (f"{y:04d}-{mo:02d}", "month") if valid_date(y, mo) else None
    m = re.fullmatch(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T\s].*)?", s) or re.fullmatch(
        r"(\d{4})(\d{2})(\d{2})(?:\d{2,6})?(?:Z.*|[+-].*)?", s
    )
    if m:
        y, mo, d = (int(g) for g in m.groups()[:3])
        return (f"{y:04d}-{mo:02d}-{d:02d}", "day") if valid_date(y, mo, d) else None
    years = re.findall(r"(?<!\d)\d{4}(?!\d)", s)
    if not years or len(s) > 80:
        return None
    try:
        # Two different defaults reveal which fields the string really holds.
        a = _dateparser.parse(s, default=datetime(2000, 1, 1), fuzzy=True)
        b = _dateparser.parse(s, default=datetime(2004, 2, 2), fuzzy=True)
    except (ValueError, OverflowError, TypeError):
        return None
    if a.year != b.year or str(a.year) not in years or not valid_date(a.year):
        return None
    if a.month != b.month:
        return f"{a.year:04d}", "year"
    if a.day != b.day:
        return f"{a.year:04d}-{a.month:02d}", "month"
    return f"{a.year:04d}-{a.month:02d}-{a.day:02d}", "day"


def date_bounds(value: Any) -> tuple[date, date] | None:
    """First and last calendar day a date covers ("2023" -> Jan 1 .. Dec 31); None when it is not a date."""
    parsed = parse_date(value)
    if parsed is None:
        return None
    norm, gran = parsed
    parts = [int(p) for p in norm.split("-")]
    if gran == "year":
        return date(parts[0], 1, 1), date(parts[0], 12, 31)
    if gran == "month":
        y, m = parts
        return date(y, m, 1), date(y, m, calendar.monthrange(y, m)[1])
    d = date(*parts)
    return d, d


def first_day(value: Any) -> date | None:
    """The first day a date covers (how documents are ordered by publication); None when it is not a date."""
    bounds = date_bounds(value)
    return bounds[0] if bounds else None


def iso_bounds(value: Any) -> tuple[str, str] | None:
    """`date_bounds` as `YYYY-MM-DD` strings (how stores and widgets compare days)."""
    bounds = date_bounds(value)
    return (bounds[0].isoformat(), bounds[1].isoformat()) if bounds else None


def date_to_ordinal(value: Any, *, end: bool = False) -> int:
    """Proleptic Gregorian ordinal of a date's first day (its last day with `end=True`)."""
    bounds = date_bounds(value)
    if bounds is None:
        raise ValueError(f"not a date: {value!r}")
    return (bounds[1] if end else bounds[0]).toordinal()


def date_span(*values: Any) -> tuple[str | None, str | None]:
    """Earliest and latest day some dates speak of (a document's publication and coverage combined)."""
    lows, highs = [], []
    for value in values:
        if bounds := iso_bounds(value):
            lows.append(bounds[0])
            highs.append(bounds[1])
    return (min(lows), max(highs)) if lows else (None, None)
