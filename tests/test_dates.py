"""One home for dates: parsing to the stored shapes and the days a date covers."""
from __future__ import annotations

from datetime import date

import pytest

from ohara_lab.dates import date_bounds, date_to_ordinal, first_day, iso_bounds, parse_date

# --------------------------------------------------------------------------- parse_date & bounds


@pytest.mark.parametrize(
    "value, expected",
    [
        ("2023", ("2023", "year")),
        ("2023-05", ("2023-05", "month")),
        ("2023-05-01", ("2023-05-01", "day")),
        ("2023-10-05T14:00:00+00:00", ("2023-10-05", "day")),  # date as written, no tz shift
        ("June 1991", ("1991-06", "month")),
        ("29 June 2007", ("2007-06-29", "day")),
        ("May 1, 2023 at 10:00 AM", ("2023-05-01", "day")),
        ("Mon, 02 Oct 2023 10:00:00 GMT", ("2023-10-02", "day")),
        ("D:20230501120000+02'00'", ("2023-05-01", "day")),  # PDF metadata
        (date(2020, 2, 29), ("2020-02-29", "day")),
        (1999, ("1999", "year")),
        ("June 5", None),  # no year
        ("12", None),
        ("2023-02-30", None),  # not a calendar day
        ("sometime in spring", None),
    ],
)
def test_parse_date(value, expected) -> None:
    assert parse_date(value) == expected


def test_date_bounds_and_ordinals() -> None:
    assert date_bounds("2024-02") == (date(2024, 2, 1), date(2024, 2, 29))  # leap year
    assert date_bounds("2023") == (date(2023, 1, 1), date(2023, 12, 31))
    assert date_bounds("2023-05-07") == (date(2023, 5, 7), date(2023, 5, 7))
    assert date_to_ordinal("2023") == date(2023, 1, 1).toordinal()
    assert date_to_ordinal("2023", end=True) == date(2023, 12, 31).toordinal()
    assert date_bounds("soon") is None and iso_bounds("") is None
    with pytest.raises(ValueError):
        date_to_ordinal("soon")


def test_month_bounds_use_the_months_real_length() -> None:
    # The widget's own copy once ended every month on the 31st ("2007-06-31").
    assert iso_bounds("2007-6") == ("2007-06-01", "2007-06-30")
    assert iso_bounds("2007") == ("2007-01-01", "2007-12-31")
    assert iso_bounds("2007-06-29") == ("2007-06-29", "2007-06-29")
    assert iso_bounds("June 2007") == ("2007-06-01", "2007-06-30")
    assert first_day("2023-10-05T14:00:00+00:00") == date(2023, 10, 5) and first_day(None) is None
