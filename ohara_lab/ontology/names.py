"""Spelling helpers for SUMO names: normalisation and CamelCase splitting."""

from __future__ import annotations

import re

_SEPARATORS = re.compile(r"[\s_\-]+")
# An upper-case run followed by a capitalised word splits before the word's
# capital ("ATMMachine" → "ATM", "Machine"); digits stay with what precedes them.
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def normalise(name: str) -> str:
    """Case/separator-insensitive key (spec §2.8 stage 2): lower case, ``_ -`` and whitespace removed."""
    return _SEPARATORS.sub("", name).lower()


def split_camel(name: str) -> list[str]:
    """``"FinancialTransaction"`` → ``["Financial", "Transaction"]``; separators split too."""
    parts: list[str] = []
    for chunk in _SEPARATORS.split(name):
        parts.extend(_CAMEL_PART.findall(chunk))
    return parts


def camel_phrase(name: str) -> str:
    """A local name as lower-case words: ``"BodyOfWater"`` → ``"body of water"``."""
    return " ".join(p.lower() for p in split_camel(name))
