"""Entity validation rules (spec §2.8): type check, canonical repair, opaque tokens, merge.

Every extractor (LLM, spaCy, rule-based) hands its raw mentions to
`clean_mentions`, so one set of rules decides what becomes an entity. Names that
are noise or carry a contradicted type are screened after it, once per document,
by `noise.py` with the rule list `noise_rules.json` (data, not code): some of those
rules read the whole document, which a per-node cleaner never sees.

Deviations from the original, all deliberate:

* **Case is kept where it carries meaning.** The original capitalises the first
  letter of every word and splits every hyphenated canonical into words, which
  turns "iPhone" into "IPhone" and "BIP-32" into "BIP 32". Here a word whose
  letters after the first already contain a capital ("iPhone", "SegWit", "eBay",
  "BIP") is left as it is, and a hyphenated canonical is split only when it
  looks like an LLM slug: no whitespace and no capitals ("alice-bitcoin-address").
* **Function words stay lower-case** inside multi-word names ("State Bank of
  Vietnam", not "State Bank Of Vietnam"). `norm_key` and slugs ignore case, so
  this changes no identifier.
* **ISO dates are left alone** ("2014-06-02" would otherwise match the decimal
  pattern and become "2014.06 02").
* **Opaque names** (not only canonicals and aliases) are checked: an opaque
  `name` falls back to the canonical.
"""
from __future__ import annotations

import math
import re
from dataclasses import replace

from ..ids import norm_key
from ..records import ENTITY_TYPES, Mention

CONTEXT_MAX_CHARS = 120

_DECIMAL = re.compile(r"^(\d+)-(\d{2})(-(.+))?$")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}(-\d{2})?$")
_SLUG_LIKE = re.compile(r"^[a-z0-9']+(-[a-z0-9']+)+$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)
_HEX16 = re.compile(r"^[0-9a-f]{16,}$", re.IGNORECASE)
_ALNUM = re.compile(r"^[A-Za-z0-9]+$")
_VOWELS = re.compile(r"[aeiou]", re.IGNORECASE)

# Lower-cased inside a name unless first ("Bank of America", "Ho Chi Minh City").
_FUNCTION_WORDS = frozenset(
    "a an and at by de del der des di du for in la le of on or the to van von y".split()
)


def _cap_word(word: str, first: bool) -> str:
    """Capitalise one word's first letter unless it already carries inner capitals."""
    if not word:
        return word
    if any(c.isupper() for c in word[1:]):
        return word  # acronym or mixed case: iPhone, SegWit, BIP, McKinsey
    if not first and word in _FUNCTION_WORDS:
        return word
    return word[0].upper() + word[1:]


def _cap_words(words: list[str]) -> str:
    return " ".join(_cap_word(w, i == 0) for i, w in enumerate(words))


def repair_canonical(s: str) -> str:
    """Undo the usual LLM mangling of a canonical name (spec §2.8, with the deviations above).

    "0-05-bitcoin" -> "0.05 Bitcoin"; "alice-s-cafe" -> "Alice's Cafe";
    "bob-s" -> "Bob's"; "alice-bitcoin-address" -> "Alice Bitcoin Address";
    "bitcoin core" -> "Bitcoin Core"; "iPhone", "SegWit", "BIP-32" unchanged.
    """
    s = " ".join(s.split())
    if not s or _ISO_DATE.match(s):
        return s
    m = _DECIMAL.match(s)
    if m:
        s = f"{m.group(1)}.{m.group(2)}" + (f" {m.group(4)}" if m.group(4) else "")
    s = s.replace("-s-", "'s-")
    if s.endswith("-s"):
        s = s[:-2] + "'s"
    if "-" in s and _SLUG_LIKE.match(s):
        return _cap_words([p for p in s.split("-") if p])
    return _cap_words(s.split(" "))


def is_opaque(token: str) -> bool:
    """True for machine identifiers (hashes, UUIDs, base58 strings) mistaken for names.

    Exactly the spec's order: hyphenated UUID -> opaque; whitespace or <20 chars
    -> not; >=16 hex digits -> opaque; any non-alphanumeric -> not; else opaque
    iff vowels/length < 0.15.
    """
    s = token.strip()
    if not s:
        return False
    if _UUID.match(s):
        return True
    if len(s) < 20 or any(c.isspace() for c in s):  # the same test, the cheap half first (most names are short)
        return False
    if _HEX16.match(s):
        return True
    if not _ALNUM.match(s):
        return False
    return len(_VOWELS.findall(s)) / len(s) < 0.15


def _clamp(x: object) -> float:
    try:
        v = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0
    if math.isnan(v):
        return 0.0
    return min(1.0, max(0.0, v))


def _clean_one(m: Mention, repair: bool) -> Mention | None:
    if m.type not in ENTITY_TYPES:
        return None
    raw = (m.canonical or m.name or "").strip()
    if not raw:
        return None
    canonical = repair_canonical(raw) if repair else " ".join(raw.split())
    if not canonical or is_opaque(canonical):
        return None
    name = " ".join((m.name or "").split())
    if not name or is_opaque(name):
        name = canonical
    aliases: list[str] = []
    for a in m.aliases or []:
        a = " ".join(str(a).split()) if a is not None else ""
        if a and not is_opaque(a) and a != canonical and a not in aliases:
            aliases.append(a)
    return replace(
        m,
        name=name,
        canonical=canonical,
        confidence=_clamp(m.confidence),
        context=(m.context or "")[:CONTEXT_MAX_CHARS],
        aliases=aliases,
    )


def clean_mentions(mentions: list[Mention], *, repair: bool = True) -> list[Mention]:
    """Validate, repair and merge the mentions of one node (spec §2.8).

    `repair=False` skips `repair_canonical`, for extractors whose canonicals are
    verbatim spans of the text (the repair exists to undo LLM slug mangling and
    would damage real text such as "2019-20"). Mentions sharing a `norm_key`
    merge into the first: its aliases gain the later name and aliases, never its
    own canonical and never twice. Input objects are not modified.
    """
    out: list[Mention] = []
    by_key: dict[str, int] = {}
    for raw in mentions:
        m = _clean_one(raw, repair)
        if m is None:
            continue
        key = norm_key(m.canonical)
        if key in by_key:
            first = out[by_key[key]]
            for a in [m.name, *m.aliases]:
                if a and a != first.canonical and a not in first.aliases:
                    first.aliases.append(a)
            continue
        by_key[key] = len(out)
        out.append(m)
    return out
