"""Document time from real licence texts and hand-written documents."""
from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ohara_lab.ingest.temporal import (
    classify_decay,
    coverage,
    extract_temporal,
    year_mentions,
)

TODAY = date(2026, 11, 29)
LICENSES = Path("/usr/share/common-licenses")
BITCOIN_BOOK = Path("/work/shared/samples/mastering-bitcoin-2nd.md")

NEWS = """# Central bank holds rates steady

Published: 2023-10-05T14:00:00+00:00

By Jane Doe

The central bank kept its policy rate at 4.5% on Thursday, citing slowing inflation.
Rates were last raised in 2022 and have not moved since.
"""

PAPER = """# Entity-aware retrieval over document graphs

## Abstract

We study retrieval over graphs of documents, building on work since 1998 and on
the benchmarks of 2015 and 2019.

## 1. Introduction

Graph retrieval has a long history (Brin 1998; Smith 2015; Lee 2020).

## References

1. Page, L. (1998). The PageRank citation ranking.
2. Smith, J. (2015). Graphs for retrieval.
"""


def _licence(name: str) -> str:
    path = LICENSES / name
    if not path.exists():
        pytest.skip(f"{path} not on this machine (Debian's base-files provides it)")
    return path.read_text()


# --------------------------------------------------------------------------- real licences


@pytest.mark.parametrize(
    "name, published, granularity",
    [
        ("GPL-3", "2007-06-29", "day"),  # "Version 3, 29 June 2007"
        ("GPL-2", "1991-06", "month"),  # "Version 2, June 1991" beats "Copyright (C) 1989, 1991"
        ("LGPL-2.1", "1999-02", "month"),  # "Version 2.1, February 1999"
    ],
)
def test_licences(name: str, published: str, granularity: str) -> None:
    t = extract_temporal(_licence(name), {}, path=str(LICENSES / name), today=TODAY)
    assert (t.published_date, t.granularity, t.source) == (published, granularity, "text")
    assert t.decay_class == "EVERGREEN"
    assert t.confidence == pytest.approx(0.85)


def test_book_edition_line_beats_copyright_year() -> None:
    if not BITCOIN_BOOK.exists():
        pytest.skip(f"{BITCOIN_BOOK} missing")
    # Its front matter says "Copyright © 2010" (a placeholder) and "December 2014: First Edition".
    t = extract_temporal(BITCOIN_BOOK.read_text(), {}, today=TODAY)
    assert (t.published_date, t.granularity, t.decay_class) == ("2014-12", "month", "EVERGREEN")
    assert t.coverage_start is not None and "2009" <= t.coverage_start <= t.coverage_end <= "2014"


# --------------------------------------------------------------------------- hand-written documents


def test_news_header_is_current_day() -> None:
    t = extract_temporal(NEWS, {}, today=TODAY)
    assert (t.published_date, t.granularity, t.source, t.decay_class) == ("2023-10-05", "day", "text", "CURRENT")


def test_paper_is_scholarly_even_with_a_day_date() -> None:
    # Short and day-precise, so without the Abstract+References rule it would be CURRENT.
    t = extract_temporal(PAPER, {"date": "2021-03-15"}, today=TODAY)
    assert (t.published_date, t.source, t.confidence) == ("2021-03-15", "metadata", 0.9)
    assert t.decay_class == "SCHOLARLY"
    # 1998 x3, 2015 x3 kept; 2019 and 2020 are mentioned once each and dropped.
    assert (t.coverage_start, t.coverage_end) == ("1998", "2015")


def test_breaking_news_is_ephemeral() -> None:
    md = "# Breaking: exchange halts withdrawals\n\nPublished: 2024-03-01\n\nWithdrawals are paused.\n"
    assert extract_temporal(md, {}, today=TODAY).decay_class == "EPHEMERAL"


def test_reference_genre_title_is_evergreen() -> None:
    md = "# Bitcoin Developer Guide\n\nHow wallets derive keys.\n"
    assert classify_decay(md, None) == "SCHOLARLY"  # no title: the default
    assert classify_decay(md, "Bitcoin Developer Guide") == "EVERGREEN"


def test_future_dates_are_rejected() -> None:
    md = "Published: 2020-05-01\n\nText.\n"
    t = extract_temporal(md, {"date": "2031-01-01"}, today=TODAY)
    assert (t.published_date, t.source) == ("2020-05-01", "text")  # metadata date is in the future
    t = extract_temporal("Published: 2027-01-01\n\nText.\n", {}, path="notes-2019.md", today=TODAY)
    assert (t.published_date, t.source, t.granularity) == ("2019", "filename", "year")


def test_metadata_wins_over_text_and_created_comes_last() -> None:
    md = "Published: 2020-05-01\n\nText.\n"
    t = extract_temporal(md, {"created": "2024-01-01", "dc:date": "2019-07"}, today=TODAY)
    assert (t.published_date, t.granularity, t.source) == ("2019-07", "month", "metadata")


def test_creation_date_is_still_metadata() -> None:
    t = extract_temporal("Published: 2020-05-01\n\nText.\n", {"created": "2024-01-01"}, today=TODAY)
    assert (t.published_date, t.source, t.confidence) == ("2024-01-01", "metadata", 0.7)


def test_header_candidates_rank_by_confidence_before_position() -> None:
    # Both year-precise; the copyright line comes first but a labelled date is stronger.
    md = "Copyright © 2018 Acme Corp.\n\nDate: 2019\n\nBody text.\n"
    t = extract_temporal(md, {}, today=TODAY)
    assert (t.published_date, t.confidence) == ("2019", 0.85)
    # Copyright notices give their latest year.
    assert extract_temporal("Copyright (C) 1989, 1991 FSF\n", {}, today=TODAY).published_date == "1991"


def test_front_matter_counts_as_metadata() -> None:
    md = "---\ntitle: Notes\ndate: 2022-07-14\n---\n# Notes\n\nPublished: 2020-01-01\n"
    t = extract_temporal(md, {}, today=TODAY)
    assert (t.published_date, t.source) == ("2022-07-14", "metadata")


@pytest.mark.parametrize(
    "path, published, granularity",
    [
        ("reports/report-2021-03.md", "2021-03", "month"),
        ("2021_03_15-minutes.md", "2021-03-15", "day"),
        ("scan20210315.pdf", "2021-03-15", "day"),
        ("paper2019.pdf", "2019", "year"),
    ],
)
def test_filename_dates(path: str, published: str, granularity: str) -> None:
    t = extract_temporal("No dates in this text at all.", {}, path=path, today=TODAY)
    assert (t.published_date, t.granularity, t.source) == (published, granularity, "filename")


def test_no_date_anywhere() -> None:
    t = extract_temporal("Plain text.", {}, path="notes.md", today=TODAY)
    assert (t.published_date, t.source, t.confidence, t.granularity) == (None, "none", 0.0, "year")


# --------------------------------------------------------------------------- coverage


def test_year_mentions_skip_pages_versions_amounts_and_ids() -> None:
    text = ("In 1999 and 2014-2016, see page 1850; version 2012; costs $2000; 2014-04-07; "
            "ISBN 978-1-449-37404-4; call 800-998-9938; targets for 2030.")
    assert year_mentions(text, TODAY) == [1999, 2014, 2016, 2014]


def test_coverage_keeps_repeated_years_and_trims_outliers() -> None:
    # Only repeated years: 1998 x2, 2015 x2 (2019 once is dropped) -> n=4, s[0], s[ceil(2.85)=3].
    assert coverage([1998, 2015, 2019, 1998, 2015]) == ("1998", "2015")
    # n=42: s[floor(0.05*41)=2]=2000 trims the two 1800s; s[ceil(0.95*41)=39]=2010.
    assert coverage([1800, 1800] + [2000] * 20 + [2010] * 20) == ("2000", "2010")
    assert coverage([2004]) == ("2004", "2004")  # nothing repeats: use what there is
    assert coverage([]) is None
