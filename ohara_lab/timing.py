"""Wall time per named stage: ingest's per-stage seconds and the engine's per-phase milliseconds."""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class Timer:
    """Adds the wall time of every `with timer.stage(name):` block to `totals[name]`.

    `scale` turns seconds into the unit `totals` is kept in (1000 for milliseconds);
    `totals` may be a dict the caller already holds (a query's `timings`).
    """

    def __init__(self, totals: dict[str, float] | None = None, *, scale: float = 1.0) -> None:
        self.totals: dict[str, float] = {} if totals is None else totals
        self.scale = scale

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.totals[name] = self.totals.get(name, 0.0) + (time.perf_counter() - t0) * self.scale

    __call__ = stage  # `with clock("bm25"):` reads as well as `with timer.stage("parse"):`
