"""Speculative RAG: pre-warm the Explorer frontier's queries into a cache later queries read.

When ``speculative_rag`` is on for a query, the queries a user is likely to ask
next — ``"<edge_verb>: <edge_summary>"`` of the first ``speculative_limit`` frontier
items (spec §4) — run on a background thread with the same settings, and their
results are kept. A later query with the same text, history and settings (the
speculative switches aside: they change side effects, not results) is served from
the cache, waiting for the warm-up if it is still running. The original system
fired these queries and never read their results; here they are read.

`SpeculativeQueries` is a wrapper the atlas composes around its engine: its
``query`` serves from the cache or runs the engine; its pre-warm step is registered
at the engine's ``after_tiers`` extension point. The cache is in memory, bounded
(oldest entries go first), and emptied by ``invalidate()``, which the atlas calls
after every write, so a served result is never older than the atlas. A warm-up
that fails is forgotten and the query simply runs.
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import fields
from typing import Any

from ..settings import Settings
from .engine import Engine
from .result import RetrievalResult
from .state import QueryState

log = logging.getLogger(__name__)

MAX_ENTRIES = 64
IGNORED = ("speculative_rag", "speculative_limit")  # switches that do not change a result

def cache_key(text: str, history: list[dict[str, str]] | None, settings: Settings) -> str:
    """SHA-256 over the query text, its history and every result-relevant setting."""
    relevant = {k: v for k, v in settings.to_dict().items() if k not in IGNORED}
    payload = json.dumps([text, list(history or []), relevant], sort_keys=True, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def overrides_between(base: Settings, wanted: Settings) -> dict[str, Any]:
    """The per-call overrides that turn `base` into `wanted`."""
    return {f.name: getattr(wanted, f.name) for f in fields(Settings)
            if getattr(wanted, f.name) != getattr(base, f.name)}


class SpeculativeCache:
    """Futures of warmed-up results by cache key, computed one at a time in the background."""

    def __init__(self, max_entries: int = MAX_ENTRIES):
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, Future[RetrievalResult]] = OrderedDict()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ohara-speculative")
        self.served = 0

    def warm(self, key: str, run: Callable[[], RetrievalResult]) -> bool:
        """Start computing `key` unless it is cached or in flight; True when started."""
        with self._lock:
            if key in self._entries:
                return False
            self._entries[key] = self._pool.submit(run)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
            return True

    def lookup(self, key: str) -> RetrievalResult | None:
        """The warmed result for `key` (waiting for it if in flight), or None."""
        with self._lock:
            future = self._entries.get(key)
        if future is None:
            return None
        try:
            result = future.result()
        except Exception as exc:  # a failed warm-up must not fail the real query
            log.info("speculative warm-up failed, running the query: %s", exc)
            with self._lock:
                if self._entries.get(key) is future:
                    del self._entries[key]
            return None
        self.served += 1
        return result

    def keys(self) -> list[str]:
        with self._lock:
            return list(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def drain(self) -> None:
        """Wait until every warm-up started so far has finished."""
        with self._lock:
            pending = list(self._entries.values())
        for future in pending:
            with contextlib.suppress(Exception):  # a failed warm-up is reported by lookup, not here
                future.result()


class SpeculativeQueries:
    """`engine.query` behind a cache of pre-warmed results; the pre-warm runs as an `after_tiers` step."""

    def __init__(self, engine: Engine, cache: SpeculativeCache | None = None):
        self.engine = engine
        self.cache = cache or SpeculativeCache()
        engine.extensions.register("after_tiers", "speculative", self.prewarm)

    def query(self, text: str, *, session_history: list[dict[str, str]] | None = None,
              **overrides: Any) -> RetrievalResult:
        """The warmed result for this exact query and settings, else the engine's."""
        t0 = time.perf_counter()
        hit = self.cache.lookup(cache_key(text, session_history, self.engine.settings.override(**overrides)))
        if hit is None:
            return self.engine.query(text, session_history=session_history, **overrides)
        served = copy.copy(hit)
        ms = (time.perf_counter() - t0) * 1000
        served.timings_ms = {"speculative_cache": ms, "total": ms}
        return served

    def invalidate(self) -> None:
        """After a write: drop warmed results and the engine's per-atlas caches."""
        self.cache.clear()
        self.engine.invalidate()

    def _runner(self, text: str, overrides: dict[str, Any]) -> Callable[[], RetrievalResult]:
        """The warm-up of one explorer edge's text (bound now: the loop variable moves on)."""
        return lambda: self.engine.query(text, **overrides)

    def prewarm(self, result: RetrievalResult, state: QueryState) -> None:
        """Start the frontier's likely next queries in the background (when `speculative_rag` is on)."""
        s = state.settings
        if not s.speculative_rag or s.speculative_limit <= 0:
            return
        overrides = {**overrides_between(self.engine.settings, s), "speculative_rag": False}
        for item in result.tiers.explorer[: s.speculative_limit]:
            text = f"{item.edge_verb}: {item.edge_summary}" if item.edge_verb and item.edge_summary else state.query.raw
            if text == state.query.raw:
                continue  # the query itself, just answered
            self.cache.warm(cache_key(text, None, s), self._runner(text, overrides))
