"""A deterministic dump of every table in an `atlas.db`, and one digest per table.

Used to show a change to the write path leaves an atlas byte for byte as it was
(`python -m ohara_lab.store.dump ATLAS_DIR`). Rows are read in rowid order where a
table has one (the order readers see with `ORDER BY rowid`), else sorted; values
are encoded as JSON (blobs as hex). Two kinds of value are inherently not reproducible and
are replaced by a placeholder before hashing: the wall-clock times ingest stamps
(`meta.created_at`, a document's `upload_time`, an entity's `first_seen`), and the settings
hash an answerability profile is keyed by (`meta.answerability_profile`'s `config`: the
settings include the atlas's own paths, so it changes with the folder an atlas is built in).
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# An ISO-8601 UTC time with seconds, as `records.utc_now()` writes it.
_CLOCK = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|\+00:00)")
CLOCK = "<clock>"
_PROFILE_CONFIG = re.compile(r'"config":"[0-9a-f]{16}"')
PROFILE_KEY = "answerability_profile"


def _value(v: Any) -> Any:
    if isinstance(v, bytes):
        return {"hex": v.hex()}
    if isinstance(v, str):
        return _CLOCK.sub(CLOCK, v)
    return v


def _has_rowid(conn: sqlite3.Connection, table: str) -> bool:
    try:
        conn.execute(f'SELECT rowid FROM "{table}" LIMIT 1').fetchall()
    except sqlite3.OperationalError:
        return False
    return True


def table_names(conn: sqlite3.Connection) -> list[str]:
    """Every table (FTS5 shadow tables included), by name; SQLite's own `sqlite_*` tables left out."""
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    return [r[0] for r in rows]


def dump_table(conn: sqlite3.Connection, table: str) -> list[str]:
    """One JSON line per row: rowid order when the table has one (rowid included), else sorted."""
    cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
    if _has_rowid(conn, table) and not table.endswith(("_config", "_data", "_idx", "_docsize", "_content")):
        rows = conn.execute(f'SELECT rowid, * FROM "{table}" ORDER BY rowid').fetchall()
        cols = ["rowid", *cols]
        if table == "meta":
            rows = [
                (r[0], r[1], _PROFILE_CONFIG.sub('"config":"<settings>"', r[2]) if r[1] == PROFILE_KEY else r[2])
                for r in rows
            ]
        return [
            json.dumps(dict(zip(cols, map(_value, r), strict=True)), ensure_ascii=False, sort_keys=True) for r in rows
        ]
    rows = conn.execute(f'SELECT * FROM "{table}"').fetchall()
    return sorted(
        json.dumps(dict(zip(cols, map(_value, r), strict=True)), ensure_ascii=False, sort_keys=True) for r in rows
    )


def dump(path: str | Path, places: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    """Every table of the atlas at `path` (an atlas directory or its `atlas.db`) as JSON lines.

    `places` maps folders the sources were read from to placeholders (an `origin_path` names the
    checkout or machine the atlas was built on, which says nothing about the write)."""
    db = Path(path)
    if db.is_dir():
        db = db / "atlas.db"
    conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        tables = {t: dump_table(conn, t) for t in table_names(conn)}
    finally:
        conn.close()
    for folder, token in sorted((places or {}).items(), key=lambda p: -len(p[0])):
        tables = {t: [line.replace(folder, token) for line in lines] for t, lines in tables.items()}
    return tables


def digests(path: str | Path, places: Mapping[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """table -> {rows, sha256} of `dump(path, places)`."""
    out = {}
    for table, lines in dump(path, places).items():
        h = hashlib.sha256()
        for line in lines:
            h.update(line.encode("utf-8") + b"\n")
        out[table] = {"rows": len(lines), "sha256": h.hexdigest()}
    return out


def main(argv: list[str]) -> int:
    for location in argv:
        print(json.dumps(digests(location), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
