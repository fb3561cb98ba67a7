"""Normalising document metadata (dates, names) from the various container formats."""
from __future__ import annotations

import re
from typing import Any

# PDF dates look like D:20250208122313Z or D:199812231952-08'00'; OOXML and OPF use
# ISO 8601. Both start with year[, month[, day]], which is all the temporal model keeps.
_DATE = re.compile(r"^(?:D:)?\s*(\d{4})(?:-?(\d{2})(?:-?(\d{2}))?)?")


def iso_date(raw: Any) -> str | None:
    """YYYY-MM-DD, YYYY-MM or YYYY from a PDF/ISO date string or datetime; None if unreadable."""
    if raw is None:
        return None
    if hasattr(raw, "strftime"):
        return raw.strftime("%Y-%m-%d")
    m = _DATE.match(str(raw).strip())
    if not m:
        return None
    year, month, day = m.groups()
    if not 1000 <= int(year) <= 2999:
        return None
    if month and 1 <= int(month) <= 12:
        if day and 1 <= int(day) <= 31:
            return f"{year}-{month}-{day}"
        return f"{year}-{month}"
    return year


def clean(value: Any) -> str | None:
    """A metadata string with whitespace collapsed; None when empty."""
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text or None


def compact(fields: dict[str, Any]) -> dict[str, Any]:
    """Drop empty fields so consumers can test for presence with `in`."""
    return {k: v for k, v in fields.items() if v not in (None, "", [], {})}
