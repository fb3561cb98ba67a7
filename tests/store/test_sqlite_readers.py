"""Readers and writers on one SQLite atlas (issue 12, point 8).

Read-only stores make nothing, migrate nothing and take no lock a writer holds;
each thread reads through its own connection; a document's nodes come from one
snapshot even while a writer deletes it; SQLite's own errors surface as one-line
`StoreError`s.
"""
from __future__ import annotations

import re
import sqlite3
import threading

import pytest

from ohara_lab.errors import StoreError
from ohara_lab.store.sqlite import SqliteStore
from ohara_lab.ingest.writeset import write_document

from tests.support import write_lock_held

from .builders import make_graph


@pytest.fixture
def atlas_dir(tmp_path):
    path = tmp_path / "atlas"
    with SqliteStore(path) as writer:
        write_document(writer, make_graph("a1", [("Alpha text about Alice.", ["Text"], ["Alice"]),
                                                ("More alpha text.", [], [])]))
        write_document(writer, make_graph("b2", [("Beta text about Bob.", [], ["Bob"])]))
    return path


@pytest.fixture
def locked(atlas_dir):
    with write_lock_held(atlas_dir) as conn:
        yield conn


def test_read_only_open_of_a_missing_atlas_fails_and_creates_nothing(tmp_path):
    missing = tmp_path / "typo" / "atlas"
    with pytest.raises(StoreError, match=f"^no atlas at {missing}$"):
        SqliteStore(missing, read_only=True)
    assert not (tmp_path / "typo").exists()


def test_read_only_open_of_a_folder_without_an_atlas_fails(tmp_path):
    (tmp_path / "atlas.db").write_bytes(b"")  # an empty file is an empty SQLite database, not an atlas
    with pytest.raises(StoreError, match="no atlas at"):
        SqliteStore(tmp_path, read_only=True)


def test_read_only_open_neither_waits_for_nor_disturbs_a_writer(atlas_dir, locked):
    # No busy timeout: a reader that needed the writer's lock would fail at once with "database is locked".
    with SqliteStore(atlas_dir, read_only=True, busy_timeout_s=0) as reader:
        assert reader.stats()["documents"] == 2
        assert [d.id for d in reader.list_documents()] == ["documents/a1", "documents/b2"]


def test_read_only_store_refuses_writes(atlas_dir):
    with SqliteStore(atlas_dir, read_only=True) as reader:
        with pytest.raises(StoreError, match="read-only"):
            reader.delete_document("documents/a1")
        with pytest.raises(StoreError, match="read-only"):
            reader.add_feedback("q", "h", "paragraphs/a1-00002", 1, "positive")
    with SqliteStore(atlas_dir, read_only=True) as reader:
        assert reader.get_document("documents/a1") is not None and reader.feedback() == []


def test_each_thread_reads_through_its_own_connection(atlas_dir):
    """A reader inside a long read transaction does not hold up another thread's reads."""
    with SqliteStore(atlas_dir, read_only=True) as reader:
        inside, release = threading.Event(), threading.Event()
        conns = {}

        def slow_reader():
            with reader.snapshot() as c:
                conns["slow"] = c
                c.execute("SELECT COUNT(*) FROM paragraphs").fetchall()
                inside.set()
                release.wait()  # holds its read transaction open until the test has its answer

        t = threading.Thread(target=slow_reader)
        t.start()
        done = threading.Event()

        def fast_reader():
            conns["fast"] = reader.conn
            assert reader.stats()["documents"] == 2
            done.set()

        try:
            assert inside.wait(120)
            threading.Thread(target=fast_reader).start()
            # A reader queued behind the slow one cannot finish before `release`, which comes only after
            # this wait: the bound only caps how long a failing run takes, it is not a speed check.
            finished = done.wait(120)
        finally:
            release.set()
            t.join()
        assert finished, "a reader waited for another reader's transaction"
        assert conns["slow"] is not conns["fast"]


@pytest.mark.parametrize("read_only", [False, True])
def test_document_nodes_come_from_one_snapshot_while_a_writer_deletes(atlas_dir, read_only):
    """The writer deletes the document after the sections were read and before the paragraphs are.

    SQLite's trace hook runs the delete at exactly that moment (the reader's statement on
    `paragraphs` starts), so without one read transaction the reader sees sections of a
    document whose paragraphs are gone.
    """
    reader = SqliteStore(atlas_dir, read_only=True) if read_only else SqliteStore(atlas_dir)
    writer = SqliteStore(atlas_dir)
    deleted = []

    def delete_between_statements(sql: str) -> None:
        if "FROM paragraphs" in sql and not deleted:
            deleted.append(writer.delete_document("documents/a1"))

    try:
        reader.conn.set_trace_callback(delete_between_statements)
        nodes = reader.document_nodes("documents/a1")
        reader.conn.set_trace_callback(None)
        assert deleted == [True], "the writer did not run between the reader's statements"
        assert [len(nodes[t]) for t in ("sections", "paragraphs")] == [1, 2]
        assert reader.document_nodes("documents/a1") == {"sections": [], "paragraphs": [], "tables": []}
    finally:
        reader.close()
        writer.close()


def test_a_writer_locked_out_past_the_busy_timeout_gets_a_store_error(atlas_dir, locked):
    with SqliteStore(atlas_dir, read_only=True) as reader:
        assert reader.get_document("documents/a1") is not None
    with pytest.raises(StoreError) as err:
        SqliteStore(atlas_dir, busy_timeout_s=0.3)
    assert "database is locked" in str(err.value) and "\n" not in str(err.value)
    assert re.search(r"waited \d+\.\d s of OHARA_BUSY_TIMEOUT_S=0.3 for another writer.s lock", str(err.value))
    # The wait before that error is SQLite's busy timeout, read back rather than timed.
    with SqliteStore(atlas_dir, read_only=True, busy_timeout_s=0.3) as reader:
        assert reader.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 300


def test_a_corrupt_atlas_file_is_a_store_error(tmp_path):
    (tmp_path / "atlas.db").write_bytes(b"this is not a database, just text" * 200)
    with pytest.raises(StoreError, match="file is not a database"):
        SqliteStore(tmp_path)
    with pytest.raises(StoreError, match="file is not a database"):
        SqliteStore(tmp_path, read_only=True)


def test_an_atlas_older_than_a_table_reads_it_as_empty_and_stays_untouched(atlas_dir):
    """Read-only opens do no schema work, so a table added to the schema after the atlas was made is missing."""
    conn = sqlite3.connect(atlas_dir / "atlas.db")
    conn.execute("DROP TABLE node_questions")  # as an atlas built before ANSWERS_SAME existed
    conn.commit()
    conn.close()
    before = (atlas_dir / "atlas.db").read_bytes()
    with SqliteStore(atlas_dir, read_only=True) as reader:
        # today no read touches it, tomorrow's may: what it would read is an empty table, not "no such table"
        assert reader.conn.execute("SELECT COUNT(*) FROM node_questions").fetchone()[0] == 0
        assert reader.stats()["documents"] == 2 and reader.check() == []
    assert (atlas_dir / "atlas.db").read_bytes() == before
    conn = sqlite3.connect(atlas_dir / "atlas.db")
    assert conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name='node_questions'").fetchone()[0] == 0
    conn.close()


def test_result_codes_are_read_without_sqlite_errorcode():
    # Before Python 3.11 sqlite3 errors carry no code: a full disk and a lock are told apart by their message
    # (an error made here has no `sqlite_errorcode`, as on 3.10).
    from ohara_lab.store.sqlite import SQLITE_BUSY, SQLITE_FULL, _result_code

    assert not hasattr(sqlite3.OperationalError("database is locked"), "sqlite_errorcode")
    assert _result_code(sqlite3.OperationalError("database is locked")) == SQLITE_BUSY
    assert _result_code(sqlite3.OperationalError("database or disk is full")) == SQLITE_FULL
    assert _result_code(sqlite3.OperationalError("disk I/O error")) is None
