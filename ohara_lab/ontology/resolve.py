"""``validateTags``: map candidate tags (from an LLM or a user) onto SUMO class names.

Spec §2.8. Each candidate is tried, in order, by

1. exact local name (``FinancialTransaction``);
2. case/separator-insensitive name (``financial_transaction``, ``Financial-Transaction``);
3. the alias table (`aliases.ALIASES`): first listed target present in the index;
4. CamelCase split (undocumented in the original's README, present in its code):
   the candidate's parts of ≥ 3 characters, when it has ≥ 2 parts, tried
   longest-first (ties: left to right) against stage 2 — ``CryptoCurrencyToken``
   → ``Currency``.

Unresolved candidates are dropped and logged; the output is de-duplicated in
order, and ``resolved_map`` lists only candidates whose canonical name differs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .aliases import ALIASES
from .names import normalise, split_camel

log = logging.getLogger(__name__)

MIN_CAMEL_PART = 3


@dataclass
class TagResolution:
    """Result of `resolve_tags`: what survived, what was renamed, what was dropped."""

    tags: list[str] = field(default_factory=list)
    resolved_map: dict[str, str] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)


class TagResolver:
    """The four resolution stages over one class index."""

    def __init__(self, names: Iterable[str], aliases: Mapping[str, tuple[str, ...]] = ALIASES):
        self._exact = frozenset(names)
        self._folded: dict[str, str] = {}
        for name in sorted(self._exact):  # sorted: a fold collision resolves the same way every run
            self._folded.setdefault(normalise(name), name)
        self._aliases = aliases

    def resolve_one(self, candidate: str) -> str | None:
        """The SUMO class for one candidate, or None."""
        if candidate in self._exact:
            return candidate
        key = normalise(candidate)
        if key in self._folded:
            return self._folded[key]
        for target in self._aliases.get(key, ()):
            if target in self._exact:
                return target
        parts = [p for p in split_camel(candidate) if len(p) >= MIN_CAMEL_PART]
        if len(split_camel(candidate)) >= 2:
            # sorted() is stable, so equal-length parts keep their left-to-right order.
            for part in sorted(parts, key=len, reverse=True):
                hit = self._folded.get(normalise(part))
                if hit is not None:
                    return hit
        return None

    def resolve(self, candidates: Iterable[object]) -> TagResolution:
        result = TagResolution()
        seen: set[str] = set()
        for raw in candidates:
            candidate = str(raw).strip() if raw is not None else ""
            tag = self.resolve_one(candidate) if candidate else None
            if tag is None:
                result.dropped.append(candidate)
                continue
            if tag != candidate:
                result.resolved_map[candidate] = tag
            if tag not in seen:
                seen.add(tag)
                result.tags.append(tag)
        if result.dropped:
            log.info("dropped %d unresolved SUMO tag candidate(s): %s", len(result.dropped), result.dropped)
        return result
