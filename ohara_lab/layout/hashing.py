"""The original viewer's string hashes, bit for bit, so jitter and palette picks match it.

`h = h*31 + code unit` over UTF-16 code units (JavaScript's `charCodeAt`), the
Java `String.hashCode` recurrence. JavaScript keeps it in a signed 32-bit
integer (`| 0`); we keep the same bits as an unsigned int, which gives the same
results for `h & mask` and for the unsigned shift `h >>> k` the spec uses.
"""

from __future__ import annotations


def _utf16_units(text: str) -> list[int]:
    raw = text.encode("utf-16-le")
    return [raw[i] | (raw[i + 1] << 8) for i in range(0, len(raw), 2)]


def string_hash32(text: str) -> int:
    """31-multiplier hash as an unsigned 32-bit int (Java `hashCode` bits)."""
    h = 0
    for unit in _utf16_units(text):
        h = (h * 31 + unit) & 0xFFFFFFFF
    return h


def string_hash16(text: str) -> int:
    """The by-SUMO palette hash: the same recurrence masked to 16 bits at every step."""
    h = 0
    for unit in _utf16_units(text):
        h = (h * 31 + unit) & 0xFFFF
    return h
