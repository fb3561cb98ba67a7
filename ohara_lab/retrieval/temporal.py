"""The temporal prior (spec §3.9), with guards that work.

    historical_fact:              w·(0.7c + 0.3·age) if c > 0 else w·age,  age = 1 − e^(−0.000274·Δ)
    current_state/influence_chain: w·(e^(−λΔ) + 0.3c);  no date: w·0.5·c

Δ = days from publication to the reference date, λ = decay per day of the
document's effective decay class, c = overlap of the document's time span with
the query's date range as a share of the query span.

Fixes over the original: (1) the prior is a bonus, never a signal family, so it
cannot make a node look corroborated; (2) nodes that already qualify for the
Principal tier are left alone (the original's check read an empty set);
(3) the lexical shield compares *normalised* BM25 with `temporal_gate_floor` (the
original compared raw BM25 of 13-24 with 5.0 and shielded every lexical hit);
(4) `ordering` questions get no decay at all.
"""
from __future__ import annotations

import math
from datetime import date
from typing import Any

from ..dates import date_bounds
from ..errors import UsageError
from ..settings import Settings
from .hits import Fused

HISTORICAL_RATE = 0.000274  # per day: age saturates over about a decade
OPEN_START, OPEN_END = date(1000, 1, 1), date(3000, 1, 1)
DECAYING = ("current_state", "influence_chain")


def _day(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _first(value: str | None) -> date | None:
    """The first day a date covers ("2007" -> 2007-01-01); None when it is not a date."""
    bounds = date_bounds(value) if value else None
    return bounds[0] if bounds else None


def _last(value: str | None) -> date | None:
    bounds = date_bounds(value) if value else None
    return bounds[1] if bounds else None


def coverage(doc: dict[str, Any], query_range: dict[str, str | None]) -> float:
    """Share of the query's date range the document's span overlaps (0 without a range or dates)."""
    if not query_range:
        return 0.0
    start = doc.get("temporal_coverage_start") or doc.get("published_date")
    end = doc.get("temporal_coverage_end") or doc.get("published_date")
    if not start and not end:
        return 0.0
    d0 = _first(start) or OPEN_START
    d1 = _last(end) or OPEN_END
    q0 = _day(query_range.get("from")) or OPEN_START
    q1 = _day(query_range.get("to")) or OPEN_END
    overlap = (min(d1, q1) - max(d0, q0)).days
    if overlap < 0:
        return 0.0
    return min(1.0, max(overlap, 1) / max((q1 - q0).days, 1))


def prior(doc: dict[str, Any], intent: str, query_range: dict[str, str | None], settings: Settings,
          today: date) -> float:
    """The temporal bonus of one document for a query (before guards)."""
    w = settings.temporal_weight
    if w <= 0 or intent not in ("historical_fact", *DECAYING):
        return 0.0
    c = coverage(doc, query_range)
    pub = _first(doc.get("published_date"))
    delta = (today - pub).days if pub else None
    if intent == "historical_fact":
        age = 1 - math.exp(-HISTORICAL_RATE * delta) if delta is not None and delta >= 0 else 0.0
        return w * (0.7 * c + 0.3 * age) if c > 0 else w * age
    if pub is None:
        return w * 0.5 * c
    if delta is None or delta < 0:
        return 0.0
    rate = settings.decay_rate(doc.get("effective_decay_class") or doc.get("decay_class"))
    return w * (math.exp(-rate * delta) + 0.3 * c)


def prior_applies(intent: str, settings: Settings) -> bool:
    """No prior without a temporal intent, for ordering questions (recency misorders them), or at weight 0."""
    return intent not in ("none", "ordering") and settings.temporal_weight > 0


def apply_prior(fused: list[Fused], docs: dict[str, dict[str, Any]], intent: str,
                query_range: dict[str, str | None], settings: Settings, protected: set[str],
                today: date) -> list[Fused]:
    """Add the guarded prior to each entry and re-sort."""
    applies = prior_applies(intent, settings)
    for entry in fused:
        entry.temporal, entry.temporal_reason = 0.0, None
        if not applies:
            continue
        if entry.id in protected:
            entry.temporal_reason = "principal_immune"
            continue
        lexical = entry.best("bm25")
        if lexical is not None and lexical.normalised >= settings.temporal_gate_floor:
            entry.temporal_reason = "lexical_shield"
            continue
        bonus = prior(docs.get(entry.document_id, {}), intent, query_range, settings, today)
        if bonus:
            entry.temporal, entry.score = bonus, entry.score + bonus
    return sorted(fused, key=lambda f: (-f.score, f.id))


def reference_day(settings: Settings) -> date:
    """The prior's "today": the "as of" date when there is one, else `reference_date`, else today."""
    day = settings.as_of or settings.reference_date
    return _query_day(day, "as_of" if settings.as_of else "reference_date") if day else date.today()


def _query_day(value: str, name: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{name} must be a date YYYY-MM-DD, got {value!r}") from None


def as_of_documents(published: dict[str, str | None], as_of: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """(documents published after `as_of`, undated documents): a date's earliest day counts ("2007" = Jan 1)."""
    day = _query_day(as_of, "as_of")
    later, undated = set(), []
    for doc, pub in sorted(published.items()):
        first = _first(pub) if pub else None
        if first is None:
            undated.append(doc)
        elif first > day:
            later.add(doc)
    return frozenset(later), tuple(undated)
