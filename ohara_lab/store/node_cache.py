"""Node rows read once per write generation of the atlas (issue 30.3).

A query reads the same rows several times: the vector and walk phases read their candidates' document ids,
then the answerability features, the tiers and the views read the same passages and documents again.
`NodeCache` keeps the decoded rows of one SQLite connection for as long as nothing was written:

* the key is the connection's *write generation*, `(PRAGMA data_version, total_changes)`: `data_version`
  moves when any other connection (another process included) commits, `total_changes` when this connection
  writes (committed or not). Any write to any table moves one of them, so a cached row can never be older
  than what a fresh read would return;
* nothing is kept while the connection is inside a transaction (a rollback does not move `total_changes`
  back, so rows read inside it could outlive it);
* read-only stores have one connection per thread, and generations are only comparable within a
  connection: the cache is per connection (weakly held: it goes with its connection);
* callers get their own shallow copy of each row; bounded at `limit` rows (past it, it starts over).
"""
from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Callable
from typing import Any

Row = dict[str, Any]
LIMIT = 1 << 14


class NodeCache:
    def __init__(self, limit: int = LIMIT):
        self.limit = limit
        self.enabled = True
        self._lock = threading.Lock()
        self._by_conn: weakref.WeakKeyDictionary[sqlite3.Connection, tuple[tuple[int, int], dict[str, Row | None]]]
        self._by_conn = weakref.WeakKeyDictionary()
        self.reads = 0  # rows read from SQLite (tests count them)

    def get(self, conn: sqlite3.Connection, ids: list[str], read: Callable[[list[str]], dict[str, Row]]
            ) -> dict[str, Row]:
        """id -> row for `ids` that exist, reading only the ids not known at this write generation."""
        if not self.enabled or conn.in_transaction:
            found = read(ids)
            self.reads += len(ids)
            return found
        generation = (conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes)
        with self._lock:
            cached = self._by_conn.get(conn)
            if cached is None or cached[0] != generation or len(cached[1]) > self.limit:
                cached = (generation, {})
                self._by_conn[conn] = cached
            known = cached[1]
            missing = [i for i in dict.fromkeys(ids) if i not in known]
        if missing:
            found = read(missing)
            self.reads += len(missing)
            if (conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes) == generation:
                with self._lock:  # nothing was written while reading: the rows belong to this generation
                    known.update({i: found.get(i) for i in missing})
        else:
            found = {}
        out: dict[str, Row] = {}
        for i in ids:
            row = found.get(i) if i in found else known.get(i)
            if row is not None:
                out[i] = dict(row)
        return out
