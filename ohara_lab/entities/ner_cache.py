"""A persistent cache of extracted mentions, so re-ingest after a settings change that does not touch
NER skips the model (`OHARA_NER_CACHE_ENTRIES`; 0 turns it off).

One SQLite file beside the atlas, `<atlas>/ner_cache.db`, separate from `atlas.db`: it is derived
data, never read by retrieval, and losing it costs only time. A row is the cleaned mentions of one
paragraph text under one *extractor key*:

    key = (extractor name with model name and version, spaCy version, ner_max_chars, CACHE_FORMAT)

    row = (key, SHA-256 of the paragraph text) -> mentions as JSON

so a model, library or piece-size change never reads another's mentions (and the first write under
a new key drops the old key's rows: the cache holds one extractor's mentions). An extractor's
output for a text does not depend on the other texts of its batch (`SpacyExtractor.extract` cleans
each text's mentions alone), so a cached text gives exactly what extracting it again would: the
atlas is the same with the cache and without it (tests/entities/test_ner_cache.py compares them).

Bounded: past `max_entries` rows the least recently used are dropped. Hits and misses of the last
ingest session and of all sessions are kept in the file for `ohara stats`.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from ..records import Mention, fields_dict
from .extract import Pending, start_extraction

log = logging.getLogger(__name__)

CACHE_FILE = "ner_cache.db"
CACHE_FORMAT = 1  # bump when clean_mentions or the Mention fields change what a row means
_SQL_CHUNK = 500  # host parameters per IN (...) lookup, far below SQLite's limit

_SCHEMA = """
CREATE TABLE IF NOT EXISTS mentions (key TEXT NOT NULL, text_hash TEXT NOT NULL, mentions TEXT NOT NULL,
                                     used INTEGER NOT NULL, PRIMARY KEY (key, text_hash)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS mentions_used ON mentions(used);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


def extractor_key(extractor: Any, max_chars: int) -> str:
    """What a cached row must have been made by: extractor and model version, library version, piece size."""
    lib = ""
    if str(extractor.name).startswith("spacy:"):
        import spacy  # noqa: PLC0415 - loaded already by the extractor

        lib = spacy.__version__
    return f"{extractor.name}|spacy={lib}|max_chars={max_chars}|format={CACHE_FORMAT}"


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _dump(mentions: list[Mention]) -> str:
    return json.dumps([fields_dict(m) for m in mentions], ensure_ascii=False, separators=(",", ":"))


def _load(raw: str) -> list[Mention]:
    return [Mention(**d) for d in json.loads(raw)]


class NerCache:
    """Mentions by (extractor key, text hash) in one SQLite file, least recently used dropped past `max_entries`."""

    def __init__(self, path: str | Path, max_entries: int):
        self.path = Path(path)
        self.max_entries = max_entries
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.con = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
        # A cache: a lost last write after a power cut costs a re-extraction, so no fsync per write.
        self.con.execute("PRAGMA journal_mode=WAL")
        self.con.execute("PRAGMA synchronous=OFF")
        self.con.executescript(_SCHEMA)
        self._clock = self.con.execute("SELECT COALESCE(MAX(used), 0) FROM mentions").fetchone()[0]
        self.hits = self.misses = 0
        self._set("session_hits", 0)
        self._set("session_misses", 0)
        self.con.commit()

    def _set(self, name: str, value: int) -> None:
        self.con.execute("INSERT INTO counters VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value=excluded.value",
                         (name, value))

    def _add(self, name: str, value: int) -> None:
        self.con.execute("INSERT INTO counters VALUES (?, ?) ON CONFLICT(name)"
                         " DO UPDATE SET value=value+excluded.value",
                         (name, value))

    def get(self, key: str, hashes: list[str]) -> dict[str, list[Mention]]:
        found: dict[str, list[Mention]] = {}
        unique = list(dict.fromkeys(hashes))
        for lo in range(0, len(unique), _SQL_CHUNK):
            part = unique[lo:lo + _SQL_CHUNK]
            rows = self.con.execute(f"SELECT text_hash, mentions FROM mentions WHERE key=? AND text_hash IN "
                                    f"({','.join('?' * len(part))})", [key, *part])
            found.update((h, _load(raw)) for h, raw in rows)
        return found

    def put(self, key: str, rows: dict[str, list[Mention]], used: list[str], hits: int, misses: int) -> None:
        """Store new rows, mark `used` rows as just used, count hits and misses, then trim to `max_entries`."""
        self._clock += 1
        with self.con:
            if rows and self.con.execute("SELECT 1 FROM mentions WHERE key<>? LIMIT 1", (key,)).fetchone():
                self.con.execute("DELETE FROM mentions WHERE key<>?", (key,))  # another model's: never read again
            self.con.executemany("INSERT OR REPLACE INTO mentions VALUES (?, ?, ?, ?)",
                                 [(key, h, _dump(m), self._clock) for h, m in rows.items()])
            self.con.executemany("UPDATE mentions SET used=? WHERE key=? AND text_hash=?",
                                 [(self._clock, key, h) for h in dict.fromkeys(used) if h not in rows])
            for name, n in (("hits", hits), ("misses", misses)):
                self._add(name, n)
                self._add(f"session_{name}", n)
            if rows:
                over = self.con.execute("SELECT COUNT(*) FROM mentions").fetchone()[0] - self.max_entries
                if over > 0:
                    self.con.execute("DELETE FROM mentions WHERE (key, text_hash) IN (SELECT key, text_hash FROM"
                                     " mentions ORDER BY used LIMIT ?)", (over,))
        self.hits += hits
        self.misses += misses

    def close(self) -> None:
        self.con.close()


class CachedExtractor:
    """An entity extractor answering the texts it has seen from a `NerCache` and the others from the model."""

    def __init__(self, extractor: Any, cache: NerCache, key: str):
        self.inner, self.cache, self.key = extractor, cache, key
        self.name = extractor.name  # the atlas records the extractor, not the cache in front of it

    def extract(self, texts: list[str]) -> list[list[Mention]]:
        return self._start(texts, lambda todo: Pending(lambda: self.inner.extract(todo))).result()

    def submit(self, texts: list[str]) -> Pending:
        """The cached texts read now, the others handed to the extractor's `submit` (when it has one); the
        new rows are stored when the result is asked for."""
        return self._start(texts, partial(start_extraction, self.inner))

    def _start(self, texts: list[str], start: Callable[[list[str]], Pending]) -> Pending:
        """The cached texts read now, `start` on the others (all of them when the cache cannot be read)."""
        hashes = [_hash(t) for t in texts]
        try:
            found = self.cache.get(self.key, hashes)
        except sqlite3.Error as exc:  # a damaged cache costs time, never the ingest
            log.warning("NER cache %s unreadable (%s); extracting without it", self.cache.path, exc)
            return start(texts)
        todo = [i for i, h in enumerate(hashes) if h not in found]
        todo = list({hashes[i]: i for i in reversed(todo)}.values())[::-1]  # one extraction per distinct text
        extracted = start([texts[i] for i in todo]) if todo else Pending(list)

        def finish() -> list[list[Mention]]:
            new = dict(zip((hashes[i] for i in todo), extracted.result()))
            try:
                self.cache.put(self.key, new, [h for h in hashes if h in found], len(texts) - len(todo), len(todo))
            except sqlite3.Error as exc:
                log.warning("NER cache %s not written (%s)", self.cache.path, exc)
            return [found[h] if h in found else new[h] for h in hashes]

        return Pending(finish)

    def close(self) -> None:
        self.cache.close()


def cached_extractor(extractor: Any, directory: str | Path | None, max_entries: int, max_chars: int) -> Any:
    """`extractor` behind the cache in `directory` (an atlas directory), or as it is when there is none."""
    if directory is None or max_entries <= 0:
        return extractor
    if not os.access(directory, os.W_OK):
        # A read-only atlas (a read-only mount, a folder this user may not write) takes no ingest, so there
        # is nothing to cache, and the store's own one-line refusal is what the user should read.
        return extractor
    try:
        cache = NerCache(Path(directory) / CACHE_FILE, max_entries)
    except sqlite3.Error as exc:
        log.warning("NER cache in %s unusable (%s); extracting without it", directory, exc)
        return extractor
    return CachedExtractor(extractor, cache, extractor_key(extractor, max_chars))


def cache_stats(directory: str | Path) -> dict[str, Any] | None:
    """Entries and hit rates of the cache in an atlas directory (None when it has none), read only."""
    path = Path(directory) / CACHE_FILE
    if not path.is_file():
        return None
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            entries = con.execute("SELECT COUNT(*) FROM mentions").fetchone()[0]
            c = dict(con.execute("SELECT name, value FROM counters").fetchall())
        finally:
            con.close()
    except sqlite3.Error:
        return None

    def rate(h: int, m: int) -> float | None:
        return round(h / (h + m), 4) if h + m else None

    return {"entries": entries, "last_session_hits": c.get("session_hits", 0),
            "last_session_misses": c.get("session_misses", 0),
            "last_session_hit_rate": rate(c.get("session_hits", 0), c.get("session_misses", 0)),
            "hits": c.get("hits", 0), "misses": c.get("misses", 0),
            "hit_rate": rate(c.get("hits", 0), c.get("misses", 0))}
