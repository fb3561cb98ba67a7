"""The one way `ArangoStore` talks AQL: a query text plus bind variables, nothing else.

Every value reaches the server in `bindVars` (collection names as `@@name`
parameters or fixed names from `arango_schema`), so no document text can ever
change a query's meaning; server errors become `StoreError` here, once.
"""
from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Iterable
from typing import Any

from arango.exceptions import ArangoError

from ..errors import StoreError
from ..ids import split_id

# Results of queries inside a stream transaction should arrive in one batch:
# python-arango fetches later batches without the transaction header.
BATCH_SIZE = 10_000

# ArangoDB's document key alphabet and length limit (traditional keys).
_KEY = re.compile(r"^[A-Za-z0-9_\-:.@()+,=;$!*'%]{1,254}$")

# Attributes the store adds for itself; records never see them.
SYSTEM_ATTRIBUTES = frozenset({"_key", "_id", "_rev", "_from", "_to"})
PRIVATE_ATTRIBUTES = frozenset({"seq", "date_lo", "date_hi"})

_seq_lock = threading.Lock()
_seq_last = 0


def rows(db: Any, query: str, bind_vars: dict[str, Any] | None = None) -> list[Any]:
    """Run `query` with `bind_vars` on `db` (a database or a stream transaction) and return all rows."""
    try:
        cursor = db.aql.execute(query, bind_vars=bind_vars or {}, batch_size=BATCH_SIZE)
        return list(cursor)
    except ArangoError as e:
        raise StoreError(f"ArangoDB query failed: {e}") from e


def first(db: Any, query: str, bind_vars: dict[str, Any] | None = None, default: Any = None) -> Any:
    """The first row of a query, or `default` when it returns none."""
    out = rows(db, query, bind_vars)
    return out[0] if out else default


def chunks(items: list[Any], size: int = 1000) -> Iterable[list[Any]]:
    """Bounded bind-variable payloads for bulk writes."""
    for i in range(0, len(items), size):
        yield items[i:i + size]


def next_seq(n: int = 1) -> int:
    """The first of `n` increasing sequence numbers (insertion order, like SQLite's rowid).

    Clock-based so writers in other processes interleave sensibly; never repeats
    within a process even when the clock does not move.
    """
    global _seq_last
    with _seq_lock:
        base = max(time.time_ns(), _seq_last + 1)
        _seq_last = base + n - 1
        return base


def key_of(node_id: str) -> str:
    """The `_key` of a `collection/key` id."""
    return split_id(node_id)[1]


def valid_key(key: str) -> bool:
    return bool(_KEY.match(key))


def hashed_key(*parts: str) -> str:
    """A stable key for a composite identity (side rows that must not be stored twice)."""
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()


def record(doc: dict[str, Any]) -> dict[str, Any]:
    """A stored document as the plain record dict the SQLite store returns."""
    return {k: v for k, v in doc.items() if k not in SYSTEM_ATTRIBUTES and k not in PRIVATE_ATTRIBUTES}


def bump(db: Any, key: str) -> None:
    """Move a version counter in `meta` (readers cache by it)."""
    rows(db, """
        UPSERT {_key: @key}
        INSERT {_key: @key, key: @key, value: 1}
        UPDATE {value: OLD.value + 1}
        IN meta""", {"key": key})
