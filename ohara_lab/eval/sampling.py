"""The seeded sampling doc_ohara used to pick its evaluation sets (spec §5).

mulberry32 (Tommy Ettinger's 32-bit PRNG, as written in doc_ohara's
`tests/eval/prepare_qasper.js` and `build_query_set.js`) driving a backwards
Fisher–Yates shuffle. Reproducing it bit for bit lets the loaders rebuild the
shipped 200-paper / 150-question / 500-query selections from the official files.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
_MASK = 0xFFFFFFFF


def _imul(a: int, b: int) -> int:
    """JavaScript `Math.imul` on uint32 bit patterns (low 32 bits of the product)."""
    return (a * b) & _MASK


def mulberry32(seed: int) -> Callable[[], float]:
    """A generator of floats in [0, 1), identical to doc_ohara's `rng(seed)`.

    Every JS operation here is a 32-bit bit-pattern operation, so doing all of it
    modulo 2**32 on unsigned ints gives the same bits as the JS int32 arithmetic.
    """
    state = seed & _MASK

    def next_float() -> float:
        nonlocal state
        state = (state + 0x6D2B79F5) & _MASK
        t = _imul(state ^ (state >> 15), 1 | state)
        t = ((t + _imul(t ^ (t >> 7), 61 | t)) & _MASK) ^ t
        return ((t ^ (t >> 14)) & _MASK) / 4294967296

    return next_float


def js_shuffled(items: Sequence[T], rand: Callable[[], float]) -> list[T]:
    """Backwards Fisher–Yates as in doc_ohara: for i = n-1..1, j = floor(rand()·(i+1)), swap."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = int(rand() * (i + 1))
        out[i], out[j] = out[j], out[i]
    return out
