"""Token accounting for ingest: per document build, and atlas-wide across runs.

A document is structured before its `Document` record exists and enriched after
it is written, so its usage is carried by document id: `UsageBook.begin(doc_id)`
opens a ledger scope for one *build* (re-ingesting the same file is a new build,
and costs only what the cache could not serve), `scope(doc_id)` is where the
enrichment adds to it, and `finish(doc_id)` closes it into the dict stored as
`Document.token_usage`. `add_to_atlas` accumulates the same dict into the atlas
meta key ``llm_usage`` that `Atlas.stats()` (and so `ohara stats`) reports.
"""
from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING, Any

from ..records import utc_now
from .usage import UsageLedger

if TYPE_CHECKING:
    from ..store.protocol import GraphStore

META_KEY = "llm_usage"
_COUNTS = ("prompt", "output", "cached", "thoughts", "total", "calls", "cache_hits")


class UsageBook:
    """Ledger scopes per document build."""

    def __init__(self, ledger: UsageLedger):
        self.ledger = ledger
        self._lock = threading.Lock()
        self._open: dict[str, str] = {}
        self._serial = itertools.count(1)

    def begin(self, doc_id: str) -> str:
        """Open a fresh scope for a new build of `doc_id` and return it."""
        with self._lock:
            scope = f"{doc_id}#build{next(self._serial)}"
            self._open[doc_id] = scope
            return scope

    def scope(self, doc_id: str) -> str:
        """The open build scope of `doc_id` (a new one when none is open)."""
        with self._lock:
            if doc_id in self._open:
                return self._open[doc_id]
        return self.begin(doc_id)

    def finish(self, doc_id: str) -> dict[str, Any]:
        """Close the build: what it cost, with a timestamp (spec §1.1 `token_usage`)."""
        with self._lock:
            scope = self._open.pop(doc_id, None)
        report = self.ledger.scope_report(scope) if scope else UsageLedger().scope_report("none")
        report["recorded_at"] = utc_now()
        return report


def add_to_atlas(store: GraphStore, usage: dict[str, Any]) -> dict[str, Any]:
    """Add one build's usage to the atlas-wide totals (meta ``llm_usage``); returns the new totals.

    Cost stays a known number only while every build's cost was known.
    """
    total: dict[str, Any] = dict(store.get_meta(META_KEY) or {})
    for key in _COUNTS:
        total[key] = int(total.get(key) or 0) + int(usage.get(key) or 0)
    known = total.get("cost_usd", 0.0) is not None and usage.get("cost_usd") is not None
    total["cost_usd"] = round(float(total.get("cost_usd") or 0.0) + float(usage.get("cost_usd") or 0.0), 6) \
        if known else None
    total["builds"] = int(total.get("builds") or 0) + 1
    total["models"] = sorted(set(total.get("models") or []) | set(usage.get("models") or []))
    total["updated_at"] = usage.get("recorded_at") or utc_now()
    store.set_meta(META_KEY, total)
    return total
