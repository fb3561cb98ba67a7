"""Time → Z, checked against values worked out by hand from spec §6."""
from __future__ import annotations

import numpy as np
import pytest

from ohara_lab.errors import UsageError
from ohara_lab.layout.time_axis import (
    MAX_TICKS,
    bucket,
    bucket_label,
    document_date,
    fractional_year,
    place_in_time,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2020-03-15", 2020 + 2 / 12 + 15 / 365),  # 2020.20776...
        ("1987", 1987 + 6 / 12 + 1 / 365),  # a bare year is July 1
        ("1999-07", 1999 + 6 / 12 + 1 / 365),  # a month is its 1st
        ("2021-06-01T08:00:00Z", 2021 + 5 / 12 + 1 / 365),  # a timestamp keeps its date
    ],
)
def test_fractional_year(text: str, expected: float) -> None:
    assert fractional_year(text) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("text", [None, "", "n.d.", "2020-13-01", "2020-02-32", "20"])
def test_unreadable_dates_are_undated(text: str | None) -> None:
    assert fractional_year(text) is None
    assert bucket(text) is None
    assert bucket_label(text) == "undated"


# 2020-03-15: mo = 2, dy = 15.   1987 (July 1): mo = 6, dy = 1.
@pytest.mark.parametrize(
    ("text", "resolution", "value", "label"),
    [
        ("2020-03-15", "day", 2020 + 2 / 12 + 15 / 365, "2020-03-15"),
        ("2020-03-15", "week", 2020 + 2 / 12 + 14 / 365, "2020-03-14"),  # ⌊15/7⌋·7 = 14
        ("2020-03-15", "month", 2020 + 2 / 12, "2020-03"),
        ("2020-03-15", "year", 2020, "2020"),
        ("2020-03-15", "decade", 2020, "2020s"),
        ("2020-03-15", "century", 2000, "2000s"),
        ("1987", "day", 1987 + 6 / 12 + 1 / 365, "1987-07-01"),
        ("1987", "week", 1987.5, "1987-07-01"),  # dy = ⌊1/7⌋·7 = 0, labelled day 01
        ("1987", "month", 1987.5, "1987-07"),
        ("1987", "year", 1987, "1987"),
        ("1987", "decade", 1980, "1980s"),
        ("1987", "century", 1900, "1900s"),
        # The spec's day/365 makes the 31st spill over: 31/365 > 1/12.
        ("2020-01-31", "month", 2020 + 1 / 12, "2020-02"),
        ("2020-12-31", "year", 2021, "2021"),
    ],
)
def test_buckets(text: str, resolution: str, value: float, label: str) -> None:
    assert bucket(text, resolution) == pytest.approx(value, abs=1e-12)
    assert bucket_label(text, resolution) == label


def test_document_date_prefers_publication_then_coverage() -> None:
    assert document_date("2001", "1999") == "2001"
    assert document_date(None, "1999") == "1999"
    assert document_date("unknown", "1999-05") == "1999-05"
    assert document_date(None, None) is None


def test_undated_documents_get_their_own_slab() -> None:
    z, timeline = place_in_time(["2019-05-01", "2021-01-01", None], "year")
    assert z.tolist() == [0.0, 440.0, -220.0]  # (2019−2019)·220, (2021−2019)·220, slab
    assert timeline.undated_z == -220.0
    assert timeline.tick_labels == ["undated", "2019", "2020", "2021"]
    assert timeline.tick_z.tolist() == [-220.0, 0.0, 220.0, 440.0]


def test_equal_buckets_spread_by_date_order() -> None:
    z, timeline = place_in_time(["2020-11-02", None, "2020-02-10", "2020-06-20"], "year")
    # Dated ranks: Feb 0, Jun 1, Nov 2 → 220 × rank; the undated one stays in its slab.
    assert z.tolist() == [440.0, -220.0, 0.0, 220.0]
    assert timeline.tick_labels == ["undated", "2020"]
    assert timeline.tick_z.tolist() == [-220.0, 0.0]


def test_no_dates_at_all() -> None:
    z, timeline = place_in_time([None, "someday"], "year")
    assert z.tolist() == [-220.0, -220.0]
    assert timeline.tick_labels == ["undated"]


def test_month_and_day_resolution_z_and_ticks() -> None:
    z, timeline = place_in_time(["2020-01-10", "2020-04-10"], "month")
    assert z == pytest.approx([0.0, 55.0])  # 3 months = 0.25 year · 220
    assert timeline.tick_labels == ["2020-01", "2020-02", "2020-03", "2020-04"]
    assert timeline.tick_z == pytest.approx([0.0, 220 / 12, 440 / 12, 55.0], rel=1e-6)
    assert timeline.undated_z is None

    z, timeline = place_in_time(["2020-03-01", "2020-03-03"], "day")
    assert z == pytest.approx([0.0, 2 * 220 / 365])
    assert timeline.tick_labels == ["2020-03-01", "2020-03-02", "2020-03-03"]


def test_decade_z_is_in_years() -> None:
    z, timeline = place_in_time(["1985", "2003"], "decade")
    assert z.tolist() == [0.0, 4400.0]  # buckets 1980 and 2000, 20 years apart
    assert timeline.tick_labels == ["1980s", "1990s", "2000s"]
    assert timeline.tick_z.tolist() == [0.0, 2200.0, 4400.0]


def test_ruler_is_capped_by_widening_the_step() -> None:
    _, timeline = place_in_time(["1000", "3000"], "year")
    # 2001 yearly ticks → step 11 years (⌈2001/200⌉) → ⌊2000/11⌋ + 1 = 182 ticks.
    assert len(timeline.tick_labels) == 182 <= MAX_TICKS
    assert timeline.tick_labels[:3] == ["1000", "1011", "1022"]
    assert timeline.tick_labels[-1] == "2991"
    assert timeline.tick_z[-1] == pytest.approx(1991 * 220)
    assert np.all(np.diff(timeline.tick_z) > 0)


def test_unknown_resolution_is_refused() -> None:
    with pytest.raises(UsageError, match="fortnight"):
        place_in_time(["2020"], "fortnight")
