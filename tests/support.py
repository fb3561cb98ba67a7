"""Constants and helpers shared by test modules (conftest.py names collide across test folders)."""
from __future__ import annotations

import os
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
