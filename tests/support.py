"""Constants and helpers shared by test modules (conftest.py names collide across test folders)."""
from __future__ import annotations

import os
import re
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

# Offline, no vectors: fast, deterministic, and independent of optional extras.
OFFLINE = {"embedder": "none", "embed_paragraphs": False, "llm": "offline", "reference_date": "2026-11-29"}


def offline_env() -> dict[str, str]:
    """The process environment with OFFLINE as `OHARA_*` variables, for `ohara` subprocesses."""
    return {**os.environ, **{f"OHARA_{k.upper()}": str(v) for k, v in OFFLINE.items()}}


@contextmanager
def write_lock_held(atlas_dir: Path) -> Iterator[sqlite3.Connection]:
    """Another connection holding the atlas's write lock (an uncommitted write in flight) while the block runs."""
    conn = sqlite3.connect(Path(atlas_dir) / "atlas.db", isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO meta(key, value) VALUES ('in-flight', '1')")
    try:
        yield conn
    finally:
        conn.execute("ROLLBACK")
        conn.close()


# Fields that say when or how fast, not what: left out when two atlases are compared row for row.
VOLATILE_KEYS = ("computed_at", "seconds", "ts", "created_at", "timings_s")


WALL_CLOCK = re.compile(r'"(upload_time|first_seen)":"[^"]*"')


def table_dump(db: Path, skip_tables: frozenset[str] = frozenset({"sqlite_sequence"}),
               skip_meta: frozenset[str] = frozenset(), *, wall_clock: bool = True) -> dict[str, list[tuple]]:
    """Every row of every table of an atlas database (FTS shadow tables included), sorted, comparable.

    Surrogate integer keys are left out (rows a step re-derives get new ones), and so are the
    volatile fields of JSON values in `meta` (`VOLATILE_KEYS`) and the meta keys in `skip_meta`;
    `wall_clock=False` leaves out when a document and an entity were written too (two builds of one
    atlas a second apart differ there and nowhere else).
    """

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        out: dict[str, list[tuple]] = {}
        for t in tables:
            if t in skip_tables:
                continue
            info = conn.execute(f'PRAGMA table_info("{t}")').fetchall()
            cols = [c[1] for c in info if not (c[5] and c[2].upper() == "INTEGER")] or ["*"]
            rows = conn.execute(f'SELECT {", ".join(cols)} FROM "{t}"').fetchall()
            if t == "meta":
                rows = [(k, _stable(v)) for k, v in rows if k not in skip_meta]
            if t == "entity_merges":
                rows = [tuple(v for c, v in zip(cols, r) if c not in VOLATILE_KEYS) for r in rows]
            if not wall_clock:
                rows = [tuple(WALL_CLOCK.sub("", v) if isinstance(v, str) else v for v in r) for r in rows]
            out[t] = sorted(rows, key=repr)
        return out
    finally:
        conn.close()


def _stable(value: str) -> str:
    import json

    try:
        data = json.loads(value)
    except ValueError:
        return value
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k not in VOLATILE_KEYS}
    return json.dumps(data, sort_keys=True)
