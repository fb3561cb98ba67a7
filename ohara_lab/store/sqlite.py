"""`SqliteStore`: the embedded default backend, one `atlas.db` per atlas directory.

WAL mode with a busy timeout lets several processes share one atlas; every
document is written inside one `BEGIN IMMEDIATE` transaction, so a crash at any
moment leaves the document either fully present or absent. An ingest may group
several documents in one transaction (`write_group`): each is then written in its
own SAVEPOINT, still whole or absent, and a crash loses the uncommitted group only.

Durability: `synchronous=NORMAL` in WAL mode. A committed transaction survives the
process dying (kill -9, a crash); a power loss or OS crash may take back the last
commits before the next checkpoint, never leaving the database inconsistent.
Statements are prepared once per connection: sqlite3's statement cache
(`cached_statements`) keeps every distinct SQL text of the write path compiled.

A store opened `read_only` (read commands, `ohara serve`, `ohara mcp`) never
creates, migrates or locks the atlas: each thread reads through its own `mode=ro`
connection, so readers run side by side and never wait behind a writer (WAL
readers see the last commit and take no lock a writer waits for).
"""
from __future__ import annotations

import errno
import json
import os
import re
import shutil
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..dates import date_span
from ..errors import DiskFullError, StoreError
from ..ids import DOCUMENTS, PARAGRAPHS, entity_id, in_collection, split_id
from ..records import (
    ANSWERS_SAME,
    RELATED_TO,
    SIMILAR_TO,
    CrawlPage,
    Document,
    DocumentGraph,
    Edge,
    Entity,
    Problem,
    effective_decay_class,
    fields_dict,
    from_dict,
    utc_now,
)
from .node_cache import NodeCache
from .protocol import DuplicateDocument, KnownState, Overlap, RouteRow, SharedQuestion, WriteRows, WriteSet, jaccard
from .sqlite_check import run_checks
from .sqlite_curation import SqliteCurationMixin
from .sqlite_search import SqliteSearchMixin
from .vectors import VectorSearch

SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 60.0
# SQLite's primary result codes; `sqlite3` names them (and sets `sqlite_errorcode`) only from Python 3.11.
SQLITE_BUSY, SQLITE_LOCKED, SQLITE_FULL = 5, 6, 13
_TABLE_NAME = re.compile(r"CREATE (?:VIRTUAL )?TABLE IF NOT EXISTS (\w+)")


# Page cache of the writer's connection (SQLite's default is 2 MiB). An ingest updates the indexes of
# edges, cooccur and node_entities all over the file; with the default most of those pages are read
# again from the OS for every document (MuSiQue small documents, a 91 MB atlas: ~7% less CPU at 64 MiB,
# eval/speed/ingest.md). Allocated as pages are read, so a small atlas never takes it all.
WRITER_CACHE_MIB = 64


@lru_cache(maxsize=1)
def schema_sql() -> str:
    return resources.files("ohara_lab.store").joinpath("schema.sql").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def table_statements() -> dict[str, str]:
    """`CREATE TABLE` statement of every table in the schema, by table name."""
    out, statement = {}, ""
    for line in schema_sql().splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            found = _TABLE_NAME.search(statement)
            if found:
                out[found.group(1)] = statement.strip()
            statement = ""
    return out


class _Connection(sqlite3.Connection):
    """A connection `close()` can reach through a weak reference (the plain C type takes none)."""


# What `json.dumps(value, ensure_ascii=False, separators=(",", ":"))` builds on every call, built once: the
# same text, without a new encoder for each of the ~100k-200k rows an ingest of small documents writes.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


# Before Python 3.11 an error carries no code, only SQLite's own message for it.
_CODE_MESSAGES = {"database or disk is full": SQLITE_FULL, "database is locked": SQLITE_BUSY}


def _result_code(e: BaseException) -> int | None:
    """SQLite's primary result code of `e` (read from its message where `sqlite_errorcode` is missing)."""
    code = getattr(e, "sqlite_errorcode", None)
    if code is not None:
        return int(code) & 0xFF
    return next((c for message, c in _CODE_MESSAGES.items() if message in str(e)), None)


def _dumps(value: Any) -> str:
    return _ENCODER.encode(value)



def _folder_writable(directory: Path) -> bool:
    """May this process create files in `directory` (False on a read-only mount, even for root)?"""
    try:
        if os.statvfs(directory).f_flag & os.ST_RDONLY:
            return False
    except OSError:
        return False
    return os.access(directory, os.W_OK | os.X_OK)


def _unwritable(directory: Path, path: Path) -> str | None:
    """Why an existing atlas cannot be written here (None when it can, or when there is no atlas yet)."""
    if not path.is_file():
        return None  # a new atlas: making it says why it cannot be made
    if not _folder_writable(directory):
        ro = os.statvfs(directory).f_flag & os.ST_RDONLY if directory.exists() else 0
        return f"{directory} is on a read-only file system" if ro else f"{directory} is not writable"
    if not os.access(path, os.W_OK):
        return f"{path} is not writable"
    return None

class SqliteStore(SqliteSearchMixin, SqliteCurationMixin):
    """Graph store in a single SQLite file (`<directory>/atlas.db`)."""

    def __init__(self, directory: str | Path, *, evergreen_threshold: int = 5, read_only: bool = False,
                 busy_timeout_s: float = BUSY_TIMEOUT_S, max_mb: float = 0, ann_threshold: int = 0,
                 ann_ef: int = 0):
        self.directory = Path(directory)
        self.location = str(self.directory)
        self.evergreen_threshold = evergreen_threshold
        self.path = self.directory / "atlas.db"
        # An atlas on a read-only mount (or in a folder or file this user may not write) is opened for
        # reading: queries work, writes fail with this reason (issue 28.9).
        self.read_only_reason = "opened read-only" if read_only else _unwritable(self.directory, self.path)
        self.read_only = read_only or self.read_only_reason is not None
        read_only = self.read_only
        self.busy_timeout_s = busy_timeout_s
        self.max_mb = max_mb  # OHARA_ATLAS_MAX_MB: SQLite's max_page_count on the writer
        self._vec_cache: dict[str, tuple[int, list[str], np.ndarray]] = {}
        self.node_cache = NodeCache()  # decoded node rows, per write generation of the connection
        self._models_cache: tuple[int, dict[str, int]] | None = None
        self._vectors = VectorSearch(self.directory / "ann", ann_threshold, ann_ef, writable=not read_only,
                                     dim_of=self._vector_dim)
        self.created = False
        self._grouped = False  # inside `write_group`: writes share one transaction until `commit_writes`
        self._group_lost = False  # SQLite rolled the open group back itself (SQLITE_FULL, IOERR...)
        self._local = threading.local()  # read-only: one connection per thread
        # Weak: a reader thread's connection goes (and closes) with its thread; close() closes the living ones.
        self._opened: weakref.WeakSet[sqlite3.Connection] = weakref.WeakSet()
        if read_only:
            if not self.path.is_file():
                raise StoreError(f"no atlas at {self.location}")
            # Per-thread connections need no lock; nullcontext() is reusable and re-entrant.
            self._lock: Any = nullcontext()
            self.conn  # noqa: B018 - open now, so a corrupt file fails here with its name
            return
        # What this open creates, so a first ingest that stores nothing can take it back (`discard`).
        self.created = not self.path.exists()
        self._made_directory = not self.directory.exists()
        with self._sql_errors():
            self.directory.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._shared = self._connect()
        with self._sql_errors():
            self._shared.execute("PRAGMA journal_mode=WAL")
            self._shared.execute("PRAGMA synchronous=NORMAL")
            self._shared.execute(f"PRAGMA cache_size=-{WRITER_CACHE_MIB * 1024}")
            if self.max_mb:
                page = self._shared.execute("PRAGMA page_size").fetchone()[0]
                self._shared.execute(f"PRAGMA max_page_count={max(1, int(self.max_mb * (1 << 20) // page))}")
        self._init_schema()

    # ------------------------------------------------------------------ plumbing
    @property
    def conn(self) -> sqlite3.Connection:
        """The connection for this thread: the shared writer's, or this thread's read-only one."""
        if not self.read_only:
            return self._shared
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._connect()
        return conn

    def _connect(self) -> sqlite3.Connection:
        target, uri = (self._read_only_uri(), True) if self.read_only else (str(self.path), False)
        with self._sql_errors():
            conn = sqlite3.connect(target, uri=uri, timeout=self.busy_timeout_s, isolation_level=None,
                                   check_same_thread=False, factory=_Connection)
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_s * 1000)}")
            if self.read_only:
                self._stand_in_for_missing_tables(conn)
        self._opened.add(conn)
        return conn

    def _read_only_uri(self) -> str:
        """`mode=ro`, or `immutable=1` where SQLite cannot make the WAL index (-shm) a WAL reader needs.

        In a folder nobody may write, a reader cannot create `atlas.db-shm`; SQLite then opens the
        file only as immutable (no locks, no WAL). That is exact when no WAL holds writes not yet in
        atlas.db (a writer that closed cleanly folded them in and removed it); otherwise immutable
        would silently miss them, so that case is refused by name."""
        base = self.path.resolve().as_uri()
        if _folder_writable(self.directory) or Path(str(self.path) + "-shm").exists():
            return base + "?mode=ro"
        wal = Path(str(self.path) + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise StoreError(f"atlas {self.location}: {wal.name} holds writes not yet in atlas.db and the folder is "
                             "read-only: open the atlas once where it is writable (ohara check) to fold them in")
        return base + "?mode=ro&immutable=1"

    def _stand_in_for_missing_tables(self, conn: sqlite3.Connection) -> None:
        """An atlas made before a table was added to the schema holds none of its rows: read-only, an empty
        TEMP table (private to this connection, no lock, no change to the file) stands in for it."""
        present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "meta" not in present:
            conn.close()
            raise StoreError(f"no atlas at {self.location} (atlas.db holds no atlas)")
        for name, statement in table_statements().items():
            if name not in present:
                conn.execute(statement.replace(f"IF NOT EXISTS {name}", f"IF NOT EXISTS temp.{name}", 1))

    @contextmanager
    def _sql_errors(self) -> Iterator[None]:
        """SQLite's own errors (locked past the busy timeout, corrupt file, unwritable folder) as one-line StoreErrors."""
        try:
            yield
        except sqlite3.IntegrityError:
            raise
        except (sqlite3.DatabaseError, OSError) as e:
            if _result_code(e) == SQLITE_FULL or getattr(e, "errno", None) == errno.ENOSPC:
                cap = f"OHARA_ATLAS_MAX_MB={self.max_mb:g} reached" if self.max_mb else "SQLITE_FULL"
                raise DiskFullError(f"atlas {self.location}: the disk is full ({cap})") from None
            detail = str(e) or type(e).__name__
            if "locked" in detail or "busy" in detail:
                detail += " (another process was writing to it)"
            raise StoreError(f"atlas {self.location}: {detail}") from None

    def _init_schema(self) -> None:
        with self._lock, self._sql_errors():
            # Every statement is IF NOT EXISTS, so concurrent openers converge on one schema.
            self.conn.executescript(schema_sql())
        with self.transaction():
            row = self.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if row is None:
                self._set_meta("schema_version", SCHEMA_VERSION)
                self._set_meta("created_at", utc_now())
            elif json.loads(row[0]) > SCHEMA_VERSION:
                raise StoreError(f"{self.path} was written by a newer ohara-lab (schema {row[0]})")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; the write lock is taken up front so readers never upgrade."""
        if self.read_only:
            raise StoreError(f"atlas {self.location} is read-only ({self.read_only_reason}): this command writes to it")
        with self._lock, self._sql_errors():
            conn, joined = self.conn, self.conn.in_transaction
            if not (joined or self._grouped):
                self._begin_immediate(conn)
                try:
                    yield conn
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
                return
            # In a write group (or inside its open transaction): this write is whole or absent by a
            # SAVEPOINT, and is committed with the group.
            if not joined:
                self._begin_immediate(conn)
            conn.execute("SAVEPOINT one_write")
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK TO one_write")
                    conn.execute("RELEASE one_write")
                else:  # SQLite rolled back the whole group: the writes before this one went too
                    self._group_lost = True
                raise
            conn.execute("RELEASE one_write")

    def _begin_immediate(self, conn: sqlite3.Connection) -> None:
        """Take the write lock, saying how long it waited when it could not: a lock refused at once (a
        conflict SQLite does not wait out) must not read as another process holding it past the timeout."""
        asked = time.monotonic()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:
            if _result_code(e) not in (SQLITE_BUSY, SQLITE_LOCKED):
                raise  # a full disk or an I/O error says so itself (`_sql_errors` reads its code)
            waited = time.monotonic() - asked
            raise StoreError(f"atlas {self.location}: {e} (waited {waited:.1f} s of OHARA_BUSY_TIMEOUT_S="
                             f"{self.busy_timeout_s:g} for another writer's lock)") from None

    @contextmanager
    def write_group(self) -> Iterator[None]:
        """Writes in this block share one transaction until `commit_writes` (group commit, issue 30.2).

        Each write stays whole: it runs in a SAVEPOINT, so one that fails takes back only
        itself. The transaction opens at the group's first write and holds the write lock
        until it is committed; leaving the block commits what was written (also on Ctrl-C).
        A crash loses at most the uncommitted writes; SQLite discards them on the next open."""
        if self._grouped:
            yield
            return
        self._grouped = True
        try:
            yield
        finally:
            self._grouped = False
            self.commit_writes()

    def commit_writes(self) -> None:
        """Commit the open write group's transaction, if any; StoreError when SQLite had rolled it back."""
        with self._lock, self._sql_errors():
            lost, self._group_lost = self._group_lost, False
            conn = self.conn
            if conn.in_transaction:
                try:
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
        if lost:
            raise StoreError(f"atlas {self.location}: SQLite rolled back a group of writes after an error; "
                             "run the ingest again to redo them")

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """Several reads from one committed state (one read transaction); joins a transaction already open."""
        with self._lock, self._sql_errors():
            conn = self.conn
            if conn.in_transaction:
                yield conn
                return
            conn.execute("BEGIN DEFERRED")
            try:
                yield conn
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            for conn in list(self._opened):
                conn.close()
            self._opened.clear()

    def discard(self) -> None:
        """Close and delete an atlas this open created (`created`), and its directory if it made that too:
        `ohara ingest missing.pdf --atlas A` must not leave an empty A/atlas.db behind."""
        if not self.created:
            raise StoreError(f"{self.location}: not created by this open, not deleted")
        self.close()
        if self._made_directory:  # everything in it is this run's
            shutil.rmtree(self.directory, ignore_errors=True)
            return
        for f in self.directory.glob("atlas.db*"):  # the file and its -wal / -shm companions
            f.unlink(missing_ok=True)
        shutil.rmtree(self.directory / "ann", ignore_errors=True)

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _q(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        with self._lock, self._sql_errors():
            return self.conn.execute(sql, tuple(params)).fetchall()

    # ------------------------------------------------------------------ meta
    def _set_meta(self, key: str, value: Any) -> None:
        self.conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                          (key, _dumps(value)))

    def set_meta(self, key: str, value: Any) -> None:
        with self.transaction():
            self._set_meta(key, value)

    def get_meta(self, key: str, default: Any = None) -> Any:
        rows = self._q("SELECT value FROM meta WHERE key=?", (key,))
        return json.loads(rows[0][0]) if rows else default

    # ------------------------------------------------------------------ write side
    def write(self, writeset: WriteSet) -> None:
        graph, replaces = writeset.graph, writeset.replaces
        with self.transaction() as c:
            state = self._known_state(writeset)
            old_links = self._links_of(graph.document.id) if graph.document.id in replaces else []
            for doc_id in replaces:
                self._delete(doc_id)
            if c.execute("SELECT 1 FROM documents WHERE id=? OR file_hash=?",
                         (graph.document.id, graph.document.file_hash)).fetchone():
                raise DuplicateDocument(graph.document.id)
            routed = writeset.curate(_EntityReads(self), state)
            rows = writeset.rows()
            self._insert_nodes(graph)
            self._upsert_entities(rows)
            self._insert_edges(graph.edges, graph.document.id)
            self._insert_side_tables(graph, rows)
            self._link_questions(writeset, rows)
            self._insert_cooccurrence(graph.document.id, rows)
            self._refresh_related(rows.cooccurrence)
            self._refresh_entities({e.slug for e in graph.entities})
            touched = {graph.document.id}
            links: list[Edge] = []
            if writeset.linker is not None:
                links = writeset.linker(graph, _LinkView(self, graph.document.id))
                self._insert_edges(links, None)
                touched |= {e.to_id for e in links} | {e.from_id for e in links}
            self._refresh_indegree(touched)
            if graph.vectors and graph.vector_model:
                self._put_vectors(graph.vector_model, graph.vectors, graph.document.id)
            self._record_routed(routed)
            if routed and graph.document.id in replaces:
                self._record_links(set(routed), graph.document.id, old_links, links)
            self._bump_graph()

    def _known_state(self, writeset: WriteSet) -> KnownState:
        """The records a write reads before the documents it replaces take entities along with them."""
        return writeset.known_state(_EntityReads(self))

    def _entity_rows(self, slugs: list[str]) -> dict[str, str]:
        """slug -> stored JSON of those entities already in the atlas (one query per 500 slugs)."""
        out: dict[str, str] = {}
        for part in _chunks(sorted(set(slugs)), 500):
            out.update(self.conn.execute(f"SELECT slug, data FROM entities WHERE slug IN ({','.join('?' * len(part))})",
                                         part).fetchall())
        return out

    def entity_mapping(self, entities: list[Entity]) -> dict[str, str]:
        """Incoming slug -> existing slug with the same norm_key (atlas-level dedup)."""
        stored = self._entity_rows([e.slug for e in entities])
        mapping: dict[str, str] = {}
        for ent in entities:
            if ent.slug in stored:
                continue
            row = self.conn.execute("SELECT slug FROM entities WHERE norm_key=? ORDER BY rowid LIMIT 1",
                                    (ent.norm_key,)).fetchone()
            if row:
                mapping[ent.slug] = row[0]
        return mapping

    def _insert_nodes(self, g: DocumentGraph) -> None:
        d = g.document
        self.conn.execute(
            "INSERT INTO documents(id, file_hash, origin_path, title, published_date, coverage_start, coverage_end,"
            " date_lo, date_hi, decay_class, effective_decay_class, ingestion_status, structure_needs_review,"
            " similar_to_indegree, data) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (d.id, d.file_hash, d.origin_path, d.title, d.published_date, d.temporal_coverage_start,
             d.temporal_coverage_end, *date_span(d.published_date, d.temporal_coverage_start, d.temporal_coverage_end), d.decay_class, d.effective_decay_class,
             d.ingestion_status, int(d.structure_needs_review), d.similar_to_indegree, _dumps(fields_dict(d))))
        self.conn.executemany(
            "INSERT INTO sections(id, document_id, parent_section_id, level, doc_position, title, data) VALUES (?,?,?,?,?,?,?)",
            [(s.id, s.document_id, s.parent_section_id, s.level, s.doc_position, s.title, _dumps(fields_dict(s)))
             for s in g.sections])
        self.conn.executemany(
            "INSERT INTO paragraphs(id, document_id, section_id, node_type, doc_position, content, llm_pending, data)"
            " VALUES (?,?,?,?,?,?,?,?)",
            [(p.id, p.document_id, p.section_id, p.node_type, p.doc_position, p.content, int(p.llm_pending),
              _dumps(fields_dict(p))) for p in g.paragraphs])
        self.conn.executemany(
            "INSERT INTO tables(id, document_id, section_id, doc_position, markdown, data) VALUES (?,?,?,?,?,?)",
            [(t.id, t.document_id, t.section_id, t.doc_position, t.markdown_representation, _dumps(fields_dict(t)))
             for t in g.tables])

    def _upsert_entities(self, rows: WriteRows) -> None:
        """Insert the WriteSet's new entity records, rewrite the ones that gained aliases, add every name."""
        self.conn.executemany("INSERT OR IGNORE INTO entity_names(norm_key, slug) VALUES (?,?)", rows.names)
        self.conn.executemany("INSERT INTO entities(id, slug, norm_key, name, type, mention_count, data)"
                              " VALUES (?,?,?,?,?,0,?)",
                              [(e.id, e.slug, e.norm_key, e.name, e.type, _dumps(fields_dict(e))) for e in rows.new_entities])
        self.conn.executemany("UPDATE entities SET data=? WHERE slug=?",
                              [(_dumps(fields_dict(e)), e.slug) for e in rows.merged_entities])

    def _insert_edges(self, edges: Iterable[Edge], owner: str | None) -> None:
        self.conn.executemany(
            "INSERT INTO edges(from_id, to_id, relation, document_id, attrs) VALUES (?,?,?,?,?)"
            " ON CONFLICT(from_id, to_id, relation) DO UPDATE SET attrs=excluded.attrs",
            [(e.from_id, e.to_id, e.relation, owner, _dumps(e.attrs)) for e in edges])

    def _insert_side_tables(self, g: DocumentGraph, rows: WriteRows) -> None:
        doc = g.document.id
        self.conn.executemany("INSERT OR IGNORE INTO node_tags(node_id, document_id, tag) VALUES (?,?,?)",
                              [(nid, doc, tag) for nid, tag in rows.tags])
        self.conn.executemany("INSERT OR IGNORE INTO node_entities(node_id, document_id, slug, type) VALUES (?,?,?,?)",
                              [(nid, doc, slug, kind) for nid, slug, kind in rows.mentions])
        fts = [(s.title, s.id, "sections", doc) for s in g.sections]
        fts += [(p.content, p.id, "paragraphs", doc) for p in g.paragraphs]
        fts += [(t.markdown_representation, t.id, "tables", doc) for t in g.tables]
        self.conn.executemany("INSERT INTO fts(text, node_id, collection, document_id) VALUES (?,?,?,?)", fts)

    def _link_questions(self, writeset: WriteSet, rows: WriteRows) -> None:
        """Store the document's questions; the WriteSet's ANSWERS_SAME edges with every paragraph sharing one."""
        doc = writeset.graph.document.id
        if not rows.questions:
            return
        self.conn.executemany("INSERT OR IGNORE INTO node_questions(node_id, document_id, norm, question)"
                              " VALUES (?,?,?,?)", [(nid, doc, norm, text) for nid, norm, text in rows.questions])
        pairs = self.conn.execute(
            "SELECT a.node_id, b.node_id, a.norm, a.question, b.question FROM node_questions a"
            " JOIN node_questions b ON b.norm = a.norm AND b.node_id != a.node_id"
            " WHERE a.document_id = ? ORDER BY a.norm, a.node_id, b.node_id", (doc,)).fetchall()
        self._insert_edges(writeset.answers_same([tuple(p) for p in pairs]), doc)

    def _insert_cooccurrence(self, doc_id: str, rows: WriteRows) -> None:
        self.conn.executemany("INSERT INTO cooccur(document_id, a, b, n) VALUES (?,?,?,?)",
                              [(doc_id, a, b, n) for (a, b), n in rows.cooccurrence.items()])

    def _refresh_related(self, pairs: Iterable[tuple[str, str]]) -> None:
        """RELATED_TO a->b carries the atlas-wide co-occurrence count; zero-count edges go."""
        pairs = sorted(pairs)
        if not pairs:
            return
        c = self.conn
        c.execute("CREATE TEMP TABLE IF NOT EXISTS _q_pairs(a TEXT, b TEXT, PRIMARY KEY (a, b))")
        c.execute("DELETE FROM _q_pairs")
        c.executemany("INSERT INTO _q_pairs VALUES (?,?)", pairs)
        totals = {(a, b): n for a, b, n in c.execute(
            "SELECT q.a, q.b, COALESCE(SUM(c.n), 0) FROM _q_pairs q LEFT JOIN cooccur c ON c.a=q.a AND c.b=q.b"
            " GROUP BY q.a, q.b")}
        upsert = (f"INSERT INTO edges(from_id, to_id, relation, document_id, attrs) VALUES (?,?,'{RELATED_TO}',NULL,?)"
                  " ON CONFLICT(from_id, to_id, relation) DO UPDATE SET attrs=excluded.attrs")
        if all(totals.get(p, 0) for p in pairs):  # the usual ingest: one statement for every pair, in the same order
            c.executemany(upsert, [(entity_id(a), entity_id(b), _dumps({"count": totals[(a, b)]})) for a, b in pairs])
            return
        for a, b in pairs:
            total = totals.get((a, b), 0)
            src, dst = entity_id(a), entity_id(b)
            if total:
                c.execute(upsert, (src, dst, _dumps({"count": total})))
            else:
                c.execute(f"DELETE FROM edges WHERE from_id=? AND to_id=? AND relation='{RELATED_TO}'", (src, dst))

    def _refresh_entities(self, slugs: Iterable[str]) -> None:
        """Derive mention_count and document_ids from MENTIONS; entities nobody mentions go."""
        for slug in slugs:
            rows = self.conn.execute("SELECT document_id FROM node_entities WHERE slug=?", (slug,)).fetchall()
            if not rows:
                self.conn.execute("DELETE FROM entities WHERE slug=?", (slug,))
                self.conn.execute("DELETE FROM entity_names WHERE slug=?", (slug,))
                # Atlas-level edges of a removed entity (SYNONYM_OF) must not dangle.
                self.conn.execute("DELETE FROM edges WHERE from_id=? OR to_id=?", (entity_id(slug),) * 2)
                continue
            docs = sorted({r[0] for r in rows})
            row = self.conn.execute("SELECT data FROM entities WHERE slug=?", (slug,)).fetchone()
            if row is None:
                continue
            ent = from_dict(Entity, json.loads(row[0]))
            ent.mention_count, ent.document_ids = len(rows), docs
            self.conn.execute("UPDATE entities SET mention_count=?, data=? WHERE slug=?",
                              (len(rows), _dumps(fields_dict(ent)), slug))

    def _refresh_indegree(self, ids: Iterable[str]) -> None:
        for doc_id in {i for i in ids if in_collection(i, DOCUMENTS)}:
            row = self.conn.execute("SELECT decay_class, effective_decay_class, similar_to_indegree FROM documents"
                                    " WHERE id=?", (doc_id,)).fetchone()
            if row is None:
                continue
            n = self.conn.execute(f"SELECT COUNT(*) FROM edges WHERE to_id=? AND relation='{SIMILAR_TO}'",
                                  (doc_id,)).fetchone()[0]
            if (n, effective_decay_class(row[0], n, self.evergreen_threshold)) == (row[2], row[1]):
                continue  # unchanged: the document's JSON need not be rewritten
            data = self.conn.execute("SELECT data FROM documents WHERE id=?", (doc_id,)).fetchone()[0]
            doc = from_dict(Document, json.loads(data))
            doc.similar_to_indegree = n
            doc.effective_decay_class = effective_decay_class(doc.decay_class, n, self.evergreen_threshold)
            self.conn.execute("UPDATE documents SET similar_to_indegree=?, effective_decay_class=?, data=? WHERE id=?",
                              (n, doc.effective_decay_class, _dumps(fields_dict(doc)), doc_id))

    # ------------------------------------------------------------------ delete
    def delete_document(self, document_id: str) -> bool:
        with self.transaction():
            return self._delete(document_id)

    def _delete(self, doc_id: str) -> bool:
        c = self.conn
        if not c.execute("SELECT 1 FROM documents WHERE id=?", (doc_id,)).fetchone():
            return False
        slugs = {r[0] for r in c.execute("SELECT DISTINCT slug FROM node_entities WHERE document_id=?", (doc_id,))}
        pairs = {(r[0], r[1]) for r in c.execute("SELECT a, b FROM cooccur WHERE document_id=?", (doc_id,))}
        linked = {r[0] for r in c.execute(
            f"SELECT to_id FROM edges WHERE from_id=? AND relation='{SIMILAR_TO}' UNION "
            f"SELECT from_id FROM edges WHERE to_id=? AND relation='{SIMILAR_TO}'", (doc_id, doc_id))}
        c.execute("CREATE TEMP TABLE IF NOT EXISTS _gone(id TEXT PRIMARY KEY)")
        c.execute("DELETE FROM _gone")
        c.execute("INSERT INTO _gone VALUES (?)", (doc_id,))
        for table in ("sections", "paragraphs", "tables"):
            c.execute(f"INSERT INTO _gone SELECT id FROM {table} WHERE document_id=?", (doc_id,))
        c.execute("DELETE FROM edges WHERE document_id=?", (doc_id,))
        c.execute("DELETE FROM edges WHERE from_id IN (SELECT id FROM _gone)")
        c.execute("DELETE FROM edges WHERE to_id IN (SELECT id FROM _gone)")
        for table in ("sections", "paragraphs", "tables", "node_tags", "node_entities", "node_questions", "cooccur",
                      "vectors", "routed_nodes"):
            c.execute(f"DELETE FROM {table} WHERE document_id=?", (doc_id,))
        c.execute("DELETE FROM fts WHERE document_id=?", (doc_id,))
        c.execute("DELETE FROM documents WHERE id=?", (doc_id,))
        self._refresh_related(pairs)
        self._refresh_entities(slugs)
        self._refresh_indegree(linked)
        self._bump_vectors()
        self._bump_graph()
        return True

    def update_edges(self, edges: Iterable[Edge]) -> int:
        n = 0
        with self.transaction() as c:
            for e in edges:
                cur = c.execute("UPDATE edges SET attrs=? WHERE from_id=? AND to_id=? AND relation=?",
                                (_dumps(e.attrs), e.from_id, e.to_id, e.relation))
                n += cur.rowcount
            self._bump_graph()
        return n

    def add_edges(self, edges: Iterable[Edge]) -> int:
        edges = list(edges)
        with self.transaction():
            known = set(self._existing({e.from_id for e in edges} | {e.to_id for e in edges}))
            keep = [e for e in edges if e.from_id in known and e.to_id in known]
            self._insert_edges(keep, None)
            self._refresh_indegree({e.to_id for e in keep if e.relation == SIMILAR_TO})
            if keep:
                self._bump_graph()
        return len(keep)

    def replace_edges(self, relation: str, edges: Iterable[Edge]) -> int:
        edges = [e for e in edges if e.relation == relation]
        with self.transaction() as c:
            c.execute("DELETE FROM edges WHERE relation=? AND document_id IS NULL", (relation,))
            known = self._existing({e.from_id for e in edges} | {e.to_id for e in edges})
            keep = [e for e in edges if e.from_id in known and e.to_id in known]
            self._insert_edges(keep, None)
            self._bump("graph_version")
        return len(keep)

    def _existing(self, ids: set[str]) -> set[str]:
        found: set[str] = set()
        for table in ("documents", "sections", "paragraphs", "tables", "entities"):
            members = [i for i in ids if i.startswith(table + "/")]
            for chunk in _chunks(members, 900):
                marks = ",".join("?" * len(chunk))
                found |= {r[0] for r in self.conn.execute(f"SELECT id FROM {table} WHERE id IN ({marks})", chunk)}
        return found

    def update_document(self, document_id: str, changes: dict[str, Any]) -> bool:
        with self.transaction() as c:
            row = c.execute("SELECT data FROM documents WHERE id=?", (document_id,)).fetchone()
            if row is None:
                return False
            data = {**json.loads(row[0]), **changes}
            doc = from_dict(Document, data)
            c.execute("UPDATE documents SET title=?, published_date=?, decay_class=?, ingestion_status=?, data=?"
                      " WHERE id=?", (doc.title, doc.published_date, doc.decay_class, doc.ingestion_status,
                                      _dumps(fields_dict(doc)), document_id))
        return True

    # ------------------------------------------------------------------ vectors
    def put_vectors(self, model: str, vectors: dict[str, np.ndarray]) -> None:
        with self.transaction():
            self._put_vectors(model, vectors, None)

    def _put_vectors(self, model: str, vectors: dict[str, np.ndarray], doc_id: str | None) -> None:
        rows = []
        for nid, vec in vectors.items():
            arr = np.asarray(vec, dtype=np.float32).ravel()
            owner = doc_id or self._owner(nid)
            rows.append((nid, model, owner, arr.size, arr.tobytes()))
        self.conn.executemany("INSERT INTO vectors(node_id, model, document_id, dim, vec) VALUES (?,?,?,?,?)"
                              " ON CONFLICT(node_id, model) DO UPDATE SET vec=excluded.vec, dim=excluded.dim", rows)
        self._bump_vectors()

    def delete_vectors(self, models: list[str]) -> None:
        """Drop every vector of the given models (after re-embedding with another one)."""
        with self.transaction() as c:
            c.executemany("DELETE FROM vectors WHERE model=?", [(m,) for m in models])
            self._bump_vectors()

    def _owner(self, nid: str) -> str:
        collection = split_id(nid)[0]
        if collection == "documents":
            return nid
        row = self.conn.execute(f"SELECT document_id FROM {collection} WHERE id=?", (nid,)).fetchone()
        if row is None:
            raise StoreError(f"cannot store a vector for unknown node {nid}")
        return str(row[0])

    def _bump_vectors(self) -> None:
        self._bump("vectors_version")

    def _bump(self, key: str) -> None:
        """Move a version counter in meta (readers cache by it)."""
        self._set_meta(key, (self.get_meta(key, 0) or 0) + 1)

    def graph_version(self) -> int:
        return int(self.get_meta("graph_version", 0) or 0)

    def vector_search(self, model: str, query: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Top-k (node id, cosine) of `model`'s vectors: exact, or from the HNSW graph above the threshold."""
        return self._vectors.search(model, self.vector_models().get(model, 0), self.get_meta("vectors_version", 0),
                                    lambda: self._read_vectors(model), lambda: self.vector_matrix(model), query, k)

    def sync_vector_index(self) -> None:
        """After writes: grow, prune or drop the HNSW graphs beside the atlas (`ohara_lab.store.vectors`)."""
        if self.read_only:
            return
        counts = self.vector_models()
        self._vectors.sync(counts, self.get_meta("vectors_version", 0), lambda m: lambda: self._read_vectors(m))
        for model, count in counts.items():
            if self._vectors.approximate(count):
                self._vec_cache.pop(model, None)  # the graph holds these vectors; the matrix need not stay

    def rebuild_vector_index(self) -> list[str]:
        """Build afresh every HNSW graph `check` finds damaged, of an older format or missing (`check --fix`)."""
        if self.read_only:
            return []
        version = self.get_meta("vectors_version", 0)
        models = sorted({model for model, _ in self._vectors.findings(self.vector_models(), version)})
        for model in models:
            self._vectors.rebuild(model, version, lambda m=model: self._read_vectors(m))  # type: ignore[misc]
        return models

    def _vector_dim(self, model: str) -> int:
        row = self._q("SELECT dim FROM vectors WHERE model=? LIMIT 1", (model,))
        return int(row[0][0]) if row else 0

    def vector_matrix(self, model: str) -> tuple[list[str], np.ndarray]:
        version = self.get_meta("vectors_version", 0)
        cached = self._vec_cache.get(model)
        if cached and cached[0] == version:
            return cached[1], cached[2]
        ids, matrix = self._read_vectors(model)
        self._vec_cache[model] = (version, ids, matrix)
        return ids, matrix

    def _read_vectors(self, model: str) -> tuple[list[str], np.ndarray]:
        """Every vector of `model` by node id, read afresh (`vector_matrix` keeps one copy per version)."""
        rows = self._q("SELECT node_id, dim, vec FROM vectors WHERE model=? ORDER BY node_id", (model,))
        ids = [r[0] for r in rows]
        dim = rows[0][1] if rows else 0
        matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), dim) \
            if rows else np.zeros((0, 0), dtype=np.float32)
        return ids, matrix

    def vector_models(self) -> dict[str, int]:
        # Every query asks; counting the table is ~40 ms at 100k vectors, so count once per vectors_version.
        version = self.get_meta("vectors_version", 0)
        if self._models_cache is None or self._models_cache[0] != version:
            counts = {r[0]: r[1] for r in self._q("SELECT model, COUNT(*) FROM vectors GROUP BY model")}
            self._models_cache = (version, counts)
        return dict(self._models_cache[1])

    def texts_without_vectors(self, model: str) -> list[tuple[str, str]]:
        sql = ("SELECT {id}, {text} FROM {t} WHERE {id} NOT IN (SELECT node_id FROM vectors WHERE model=?)"
               " ORDER BY document_id, doc_position")
        out = []
        for table, text in (("paragraphs", "content"), ("tables", "markdown")):
            out += [(r[0], r[1]) for r in self._q(sql.format(id="id", text=text, t=table), (model,))]
        return out

    # ------------------------------------------------------------------ read side
    def find_documents(self, *, file_hash: str | None = None, origin_path: str | None = None) -> list[Document]:
        if file_hash is not None:
            rows = self._q("SELECT data FROM documents WHERE file_hash=?", (file_hash,))
        elif origin_path is not None:
            rows = self._q("SELECT data FROM documents WHERE origin_path=?", (origin_path,))
        else:
            rows = []
        return [from_dict(Document, json.loads(r[0])) for r in rows]

    def get_document(self, document_id: str) -> Document | None:
        rows = self._q("SELECT data FROM documents WHERE id=?", (document_id,))
        return from_dict(Document, json.loads(rows[0][0])) if rows else None

    def list_documents(self) -> list[Document]:
        return [from_dict(Document, json.loads(r[0]))
                for r in self._q("SELECT data FROM documents ORDER BY title, id")]

    def get_nodes(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Rows by id (unknown ids left out), kept per write generation (`node_cache.NodeCache`)."""
        with self._lock, self._sql_errors():
            return self.node_cache.get(self.conn, list(ids), self._read_nodes)

    def _read_nodes(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        by_coll: dict[str, list[str]] = {}
        for nid in ids:
            by_coll.setdefault(split_id(nid)[0], []).append(nid)
        out: dict[str, dict[str, Any]] = {}
        for coll, members in by_coll.items():
            if coll not in ("documents", "sections", "paragraphs", "tables", "entities"):
                continue
            for chunk in _chunks(members, 900):
                marks = ",".join("?" * len(chunk))
                for r in self._q(f"SELECT id, data FROM {coll} WHERE id IN ({marks})", chunk):
                    row = json.loads(r[1])
                    row["collection"] = coll
                    out[r[0]] = row
        return out

    def document_nodes(self, document_id: str) -> dict[str, list[dict[str, Any]]]:
        out = {}
        with self.snapshot() as c:  # a writer deleting the document between tables must not split it
            for table in ("sections", "paragraphs", "tables"):
                rows = c.execute(f"SELECT data FROM {table} WHERE document_id=? ORDER BY doc_position",
                                 (document_id,)).fetchall()
                out[table] = [json.loads(r[0]) for r in rows]
        return out

    def get_entities(self, slugs: Iterable[str] | None = None) -> list[Entity]:
        if slugs is None:
            rows = self._q("SELECT data FROM entities ORDER BY slug")
        else:
            rows = []
            for chunk in _chunks(list(slugs), 900):
                rows += self._q(f"SELECT data FROM entities WHERE slug IN ({','.join('?' * len(chunk))})", chunk)
        return [from_dict(Entity, json.loads(r[0])) for r in rows]

    def edges(self, *, from_ids: Iterable[str] | None = None, to_ids: Iterable[str] | None = None,
              relations: Iterable[str] | None = None) -> list[Edge]:
        filters = _in_filters((("from_id", from_ids), ("to_id", to_ids), ("relation", relations)))
        if filters is None:
            return []
        where, params = filters
        sql = "SELECT from_id, to_id, relation, attrs FROM edges"
        if where:
            sql += " WHERE " + " AND ".join(where)
        return [Edge(r[0], r[1], r[2], json.loads(r[3])) for r in self._q(sql + " ORDER BY rowid", params)]

    def relation_degrees(self, ids: Iterable[str], relation: str) -> dict[str, int]:
        """Edges of one relation touching each node (either direction)."""
        out: dict[str, int] = {}
        for chunk in _chunks(sorted(set(ids)), 400):
            marks = ",".join("?" * len(chunk))
            for column in ("from_id", "to_id"):
                for node, n in self._q(f"SELECT {column}, COUNT(*) FROM edges WHERE {column} IN ({marks})"
                                       # "+relation": look up by node, never scan the whole relation
                                       f" AND +relation = ? GROUP BY {column}", [*chunk, relation]):
                    out[node] = out.get(node, 0) + n
        return out

    def answers_same(self, ids: Iterable[str]) -> list[SharedQuestion]:
        """Paragraphs linked by ANSWERS_SAME from `ids`, with the shared question (by seed, then target id)."""
        out: list[SharedQuestion] = []
        for chunk in _chunks(sorted(set(ids)), 900):
            marks = ",".join("?" * len(chunk))
            for seed, target, doc, attrs in self._q(
                    f"SELECT e.from_id, e.to_id, p.document_id, e.attrs FROM edges e JOIN paragraphs p ON p.id = e.to_id"
                    f" WHERE e.from_id IN ({marks}) AND e.relation = '{ANSWERS_SAME}' ORDER BY e.from_id, e.to_id", chunk):
                a = json.loads(attrs)
                out.append(SharedQuestion(seed, target, doc, a.get("shared_query", ""),
                                                 a.get("shared_query_norm", "")))
        return out

    # ------------------------------------------------------------------ feedback
    def add_feedback(self, query: str, query_hash: str, node_id: str, rank: int | None, signal: str) -> None:
        with self.transaction() as c:
            c.execute("INSERT INTO feedback(ts, query, query_hash, node_id, rank, signal) VALUES (?,?,?,?,?,?)",
                      (utc_now(), query, query_hash, node_id, rank, signal))

    def feedback(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self._q("SELECT ts, query, query_hash, node_id, rank, signal FROM feedback ORDER BY rowid")]

    # ------------------------------------------------------------------ crawl
    def put_crawl_pages(self, pages: Iterable[CrawlPage]) -> None:
        """Insert or replace crawl pages by URL, all in one transaction (a page keeps its discovery order)."""
        with self.transaction() as c:
            c.executemany(
                "INSERT INTO crawl(url, host, state, depth, run, data) VALUES (?,?,?,?,?,?) ON CONFLICT(url) DO UPDATE"
                " SET host=excluded.host, state=excluded.state, depth=excluded.depth, run=excluded.run, data=excluded.data",
                [(p.url, p.host, p.state, p.depth, p.run, _dumps(p.to_dict())) for p in pages])

    def crawl_pages(self, *, urls: Iterable[str] | None = None, hosts: Iterable[str] | None = None,
                    run: int | None = None, states: Iterable[str] | None = None) -> list[CrawlPage]:
        """Crawl pages matching every filter given, by depth then discovery order."""
        filters = _in_filters((("host", hosts), ("state", states)))
        if filters is None:
            return []
        where, params = filters
        if run is not None:
            where.append("run = ?")
            params.append(run)
        slices: list[list[str] | None] = [None] if urls is None else list(_chunks(list(dict.fromkeys(urls)), 500))
        rows = []
        for chunk in slices:  # bounded IN lists for many URLs
            clauses = where + ([f"url IN ({','.join('?' * len(chunk))})"] if chunk is not None else [])
            sql = "SELECT depth, seq, data FROM crawl" + (" WHERE " + " AND ".join(clauses) if clauses else "")
            rows += self._q(sql, params + (chunk or []))
        return [from_dict(CrawlPage, json.loads(r[2])) for r in sorted(rows, key=lambda r: (r[0], r[1]))]

    # ------------------------------------------------------------------ stats and integrity
    def stats(self) -> dict[str, Any]:
        def count(sql: str) -> int:
            return int(self._q(sql)[0][0])

        return {
            "documents": count("SELECT COUNT(*) FROM documents"),
            "sections": count("SELECT COUNT(*) FROM sections"),
            "paragraphs": count("SELECT COUNT(*) FROM paragraphs"),
            "tables": count("SELECT COUNT(*) FROM tables"),
            "entities": count("SELECT COUNT(*) FROM entities"),
            "edges": {r[0]: r[1] for r in self._q("SELECT relation, COUNT(*) FROM edges GROUP BY relation ORDER BY relation")},
            "partial_documents": count("SELECT COUNT(*) FROM documents WHERE ingestion_status != 'complete'"),
            "needs_review": count("SELECT COUNT(*) FROM documents WHERE structure_needs_review = 1"),
            "llm_pending": count("SELECT COUNT(*) FROM paragraphs WHERE llm_pending = 1"),
            "tagged_paragraphs": count(f"SELECT COUNT(DISTINCT node_id) FROM node_tags WHERE node_id LIKE '{PARAGRAPHS}/%'"),
            "vectors": self.vector_models(),
        }

    def check(self) -> list[Problem]:
        with self.snapshot() as c:
            problems = run_checks(c)
        return problems + self._vectors.check(self.vector_models(), self.get_meta("vectors_version", 0))


class _EntityReads:
    """The reads curating incoming entities makes inside the write transaction (`EntityReads`)."""

    def __init__(self, store: SqliteStore):
        self.store = store

    def entity_mapping(self, entities: list[Entity]) -> dict[str, str]:
        return self.store.entity_mapping(entities)

    def routed_slugs(self, slugs: set[str]) -> set[str]:
        return self.store.routed_slugs(slugs)

    def routes_leaving(self, slugs: list[str]) -> list[RouteRow]:
        return self.store.routes_leaving(slugs)

    def variant_routes(self, pairs: list[tuple[str, str]]) -> list[RouteRow]:
        return self.store.variant_routes(pairs)

    def entity_records(self, slugs: set[str]) -> dict[str, Entity]:
        return self.store._entity_records(slugs)

    def slugs_by_key(self, keys: set[str]) -> dict[str, list[str]]:
        return self.store._slugs_by_key(keys)

    def slugs_routed_by_key(self, keys: set[str]) -> set[str]:
        return self.store._slugs_routed_by_key(keys)


class _LinkView:
    """What a linker may read inside the write transaction (see `LinkContext`)."""

    def __init__(self, store: SqliteStore, document_id: str):
        self.store, self.document_id = store, document_id

    def entity_overlap(self, slugs: Iterable[str], exclude_types: Iterable[str] = (),
                       min_jaccard: float = 0.0) -> list[Overlap]:
        slugs = sorted(set(slugs))
        excluded = list(exclude_types)
        if not slugs:
            return []
        c = self.store.conn
        c.execute("CREATE TEMP TABLE IF NOT EXISTS _q_slugs(slug TEXT PRIMARY KEY)")
        c.execute("DELETE FROM _q_slugs")
        c.executemany("INSERT INTO _q_slugs VALUES (?)", [(s,) for s in slugs])
        type_filter = f"AND type NOT IN ({','.join('?' * len(excluded))})" if excluded else ""
        shared = c.execute(
            f"SELECT DISTINCT document_id, slug FROM node_entities WHERE slug IN (SELECT slug FROM _q_slugs)"
            f" AND document_id != ? {type_filter}", (self.document_id, *excluded)).fetchall()
        by_doc: dict[str, list[str]] = {}
        for doc_id, slug in shared:
            by_doc.setdefault(doc_id, []).append(slug)
        sizes = self._entity_counts(sorted(by_doc), excluded)
        out = []
        for doc_id, common_slugs in sorted(by_doc.items()):
            size = sizes.get(doc_id, 0)
            if min_jaccard > 0 and jaccard(len(slugs), size, len(common_slugs)) < min_jaccard:
                continue  # cannot link: no need to load and parse the document
            doc = self.store.get_document(doc_id)
            if doc is not None:
                out.append(Overlap(doc, size, sorted(common_slugs)))
        return out

    def _entity_counts(self, doc_ids: list[str], excluded: list[str]) -> dict[str, int]:
        """Distinct entities per document (types in `excluded` left out), one query per 500 documents."""
        type_filter = f"AND type NOT IN ({','.join('?' * len(excluded))})" if excluded else ""
        out: dict[str, int] = {}
        for part in _chunks(doc_ids, 500):
            out.update(self.store.conn.execute(
                f"SELECT document_id, COUNT(DISTINCT slug) FROM node_entities WHERE document_id IN"
                f" ({','.join('?' * len(part))}) {type_filter} GROUP BY document_id", (*part, *excluded)).fetchall())
        return out

    def snippets(self, document_id: str, n: int = 3, min_chars: int = 50) -> list[str]:
        rows = self.store.conn.execute(
            "SELECT content FROM paragraphs WHERE document_id=? AND length(content) > ? ORDER BY doc_position LIMIT ?",
            (document_id, min_chars, n)).fetchall()
        return [r[0] for r in rows]


def _in_filters(pairs: Iterable[tuple[str, Iterable[Any] | None]]) -> tuple[list[str], list[Any]] | None:
    """`column IN (...)` clauses and their values for the filters given; None when one is empty (nothing matches)."""
    where: list[str] = []
    params: list[Any] = []
    for column, values in pairs:
        if values is not None:
            values = list(values)
            if not values:
                return None
            where.append(f"{column} IN ({','.join('?' * len(values))})")
            params += values
    return where, params


def _chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
