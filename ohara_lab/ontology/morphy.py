"""Base forms of an English word, after WordNet's morphy (morph.c), simplified.

Irregular forms come from WordNet's ``*.exc`` exception lists; regular ones from
morphy's suffix rules for nouns (``-s``, ``-ses``, ``-xes``, ``-zes``, ``-ches``,
``-shes``, ``-men``, ``-ies``), verbs (``-s``, ``-ies``, ``-es``, ``-ed``, ``-ing``)
and adjectives (``-er``, ``-est``). Unlike morphy we do not know a token's part of
speech, so all rules are tried, e-restoring variants before bare ones ("mined" →
"mine" before "min") and longer suffixes before shorter ones.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

SUFFIX_RULES: tuple[tuple[str, str], ...] = (
    ("ies", "y"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("ses", "s"),
    ("xes", "x"),
    ("zes", "z"),
    ("men", "man"),
    ("ing", "e"),
    ("ing", ""),
    ("ed", "e"),
    ("ed", ""),
    ("es", "e"),
    ("es", ""),
    ("s", ""),
    ("er", ""),
    ("er", "e"),
    ("est", ""),
    ("est", "e"),
)


def base_forms(word: str, exceptions: Mapping[str, str | Sequence[str]]) -> Iterator[str]:
    """Candidate base forms of `word`, most trusted first (exception list, then suffix rules)."""
    irregular = exceptions.get(word)
    if isinstance(irregular, str):
        yield irregular
    elif irregular:
        yield from irregular
    for suffix, repl in SUFFIX_RULES:
        # Keep at least two letters of stem: "ds" is not a plural of "d".
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            yield word[: -len(suffix)] + repl
