"""Time → Z: fractional years, buckets per resolution, the timeline ruler (spec §6).

Source: OHARA spec §6 "Coordinates", Time bullet (the original `index.html`).

    fy     = year + month0/12 + day/365          (a bare YYYY means July 1; YYYY-MM the 1st)
    mo     = ⌊frac(fy)·12⌋,  dy = ⌊(frac(fy) − mo/12)·365⌋
    bucket = day     yr + mo/12 + dy/365
             week    yr + mo/12 + ⌊dy/7⌋·7/365
             month   yr + mo/12
             year    yr
             decade  ⌊yr/10⌋·10
             century ⌊yr/100⌋·100
    Z      = (bucket − min bucket)·220;   if every dated bucket is equal, Z = 220 × rank in date order

Every quantity above is a whole number of 1/4380 year (4380 = lcm(12, 365)),
so we compute in those integer units: float round-off can never push a date
across a bucket edge, which it does in the original for some days.

Kept from the formula as specified: day 31 gives `31/365 > 1/12`, so the 31st
of a month falls in the next month's first bucket, and 31 December in the next
year's bucket.

Changed from the original on purpose:
* undated documents are not hidden at the first bucket; they sit in their own
  slab at `Z = −UNDATED_GAP` with an "undated" tick;
* the ruler keeps at most `MAX_TICKS` ticks by widening its step (a whole
  multiple of the resolution step), so the whole axis stays labelled;
* week ticks that land on day 0 of a month are labelled with day 01.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ohara_lab.errors import UsageError

UNITS_PER_YEAR = 4380  # 12 months × 365 units, 365 days × 12 units
_MONTH = 365
_DAY = 12
Z_PER_YEAR = 220.0  # Z distance of one bucket unit (a year) in the spec
UNDATED_GAP = 220.0  # undated slab sits one bucket step before the first dated bucket
UNDATED_LABEL = "undated"
MAX_TICKS = 200

_DATE = re.compile(r"^\s*(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")


def date_units(text: str | None) -> int | None:
    """`fy · 4380` for a `YYYY[-MM[-DD]]` string, or None when it is missing or unreadable."""
    if not text:
        return None
    m = _DATE.match(text)
    if not m:
        return None
    year = int(m.group(1))
    if m.group(2) is None:
        month0, day = 6, 1  # a bare year means July 1
    else:
        month0 = int(m.group(2)) - 1
        day = int(m.group(3)) if m.group(3) is not None else 1
    if not (0 <= month0 <= 11 and 1 <= day <= 31):
        return None
    return year * UNITS_PER_YEAR + month0 * _MONTH + day * _DAY


def document_date(published_date: str | None, coverage_start: str | None) -> str | None:
    """The date that places a document: its publication date, else its coverage start."""
    for candidate in (published_date, coverage_start):
        if date_units(candidate) is not None:
            return candidate
    return None


def fractional_year(text: str | None) -> float | None:
    units = date_units(text)
    return None if units is None else units / UNITS_PER_YEAR


def _split(units: int) -> tuple[int, int, int]:
    """(yr, mo, dy) of the spec from a unit count; exact integer floor division."""
    yr, rem = divmod(units, UNITS_PER_YEAR)
    mo = rem // _MONTH
    return yr, mo, (rem - mo * _MONTH) // _DAY


def _label_day(units: int) -> str:
    yr, mo, dy = _split(units)
    return f"{yr:04d}-{mo + 1:02d}-{max(dy, 1):02d}"


def _label_month(units: int) -> str:
    yr, mo, _ = _split(units)
    return f"{yr:04d}-{mo + 1:02d}"


def _label_year(units: int) -> str:
    return f"{_split(units)[0]:04d}"


def _label_span(units: int) -> str:
    return f"{_split(units)[0]:04d}s"


@dataclass(frozen=True)
class Resolution:
    name: str
    step: int  # ruler step in units
    bucket: Callable[[int, int, int], int]  # (yr, mo, dy) -> bucket in units
    label: Callable[[int], str]


_Y, _M, _D = UNITS_PER_YEAR, _MONTH, _DAY
RESOLUTIONS: dict[str, Resolution] = {
    r.name: r
    for r in (
        Resolution("day", _D, lambda yr, mo, dy: yr * _Y + mo * _M + dy * _D, _label_day),
        Resolution("week", 7 * _D, lambda yr, mo, dy: yr * _Y + mo * _M + (dy // 7) * 7 * _D, _label_day),
        Resolution("month", _M, lambda yr, mo, dy: yr * _Y + mo * _M, _label_month),
        Resolution("year", _Y, lambda yr, mo, dy: yr * _Y, _label_year),
        Resolution("decade", 10 * _Y, lambda yr, mo, dy: (yr // 10) * 10 * _Y, _label_span),
        Resolution("century", 100 * _Y, lambda yr, mo, dy: (yr // 100) * 100 * _Y, _label_span),
    )
}


def resolution(name: str) -> Resolution:
    try:
        return RESOLUTIONS[name]
    except KeyError:
        raise UsageError(f"unknown time resolution {name!r}; choose one of {list(RESOLUTIONS)}") from None


def bucket_units(units: int, resolution_name: str) -> int:
    return resolution(resolution_name).bucket(*_split(units))


def bucket(text: str | None, resolution_name: str = "year") -> float | None:
    """The spec's bucket value (in years) of a date string at a resolution."""
    units = date_units(text)
    return None if units is None else bucket_units(units, resolution_name) / UNITS_PER_YEAR


def bucket_label(text: str | None, resolution_name: str = "year") -> str:
    units = date_units(text)
    if units is None:
        return UNDATED_LABEL
    res = resolution(resolution_name)
    return res.label(res.bucket(*_split(units)))


def _to_z(units_from_min: np.ndarray | int) -> np.ndarray:
    return np.asarray(units_from_min, dtype=np.float64) * (Z_PER_YEAR / UNITS_PER_YEAR)


@dataclass(frozen=True)
class Timeline:
    """The ruler along Z."""

    resolution: str
    tick_z: np.ndarray  # (t,) float32, ascending; the undated tick first when present
    tick_labels: list[str]
    undated_z: float | None  # Z of the undated slab, None when every document is dated

    def thinned(self, max_labels: int) -> tuple[np.ndarray, list[str]]:
        """At most about `max_labels` ticks, evenly strided; index 0 (the undated slab's, if any) always kept."""
        keep = list(range(0, len(self.tick_labels), max(1, math.ceil(len(self.tick_labels) / max_labels))))
        return self.tick_z[keep], [self.tick_labels[i] for i in keep]


def place_in_time(dates: Sequence[str | None], resolution_name: str = "year") -> tuple[np.ndarray, Timeline]:
    """Z of each document (from its chosen date string, input order) and the ruler."""
    res = resolution(resolution_name)
    units = [date_units(d) for d in dates]
    dated = [i for i, u in enumerate(units) if u is not None]
    undated_z = -UNDATED_GAP if len(dated) < len(units) else None
    doc_z = np.full(len(units), undated_z if undated_z is not None else 0.0, dtype=np.float64)

    tick_units: list[int] = []
    tick_z = np.zeros(0, dtype=np.float64)
    if dated:
        buckets = np.array([res.bucket(*_split(u)) for u in units if u is not None], dtype=np.int64)
        lo, hi = int(buckets.min()), int(buckets.max())
        if lo == hi:
            # Spec: one shared bucket would stack every document; spread them by date rank.
            order = sorted(range(len(dated)), key=lambda k: (units[dated[k]], k))
            for rank, k in enumerate(order):
                doc_z[dated[k]] = Z_PER_YEAR * rank
            tick_units = [lo]
        else:
            doc_z[dated] = _to_z(buckets - lo)
            step = res.step
            count = (hi - lo) // step + 1
            if count > MAX_TICKS:
                step *= math.ceil(count / MAX_TICKS)
                count = (hi - lo) // step + 1
            tick_units = [lo + i * step for i in range(count)]
        tick_z = _to_z(np.array(tick_units, dtype=np.int64) - lo)

    labels = [res.label(u) for u in tick_units]
    if undated_z is not None:
        tick_z = np.concatenate([[undated_z], tick_z])
        labels = [UNDATED_LABEL, *labels]
    return doc_z, Timeline(res.name, tick_z.astype(np.float32), labels, undated_z)
