"""SqliteStore against the GraphStore contract, plus SQLite-specific integrity checks."""
from __future__ import annotations

import sqlite3

import pytest

from ohara_lab.store.sqlite import SqliteStore

from .builders import make_graph
from .contract import *  # noqa: F401,F403 - the contract suite


@pytest.fixture
def store_factory(tmp_path):
    made = []

    def make(**kwargs):
        s = SqliteStore(tmp_path / f"atlas{len(made)}", **kwargs)
        made.append(s)
        return s
    yield make
    for s in made:
        s.close()


@pytest.fixture
def store(store_factory):
    return store_factory()


def _codes(store):
    return {p.code for p in store.check() if p.severity == "error"}


def test_check_finds_a_missing_fts_row(store):
    store.write_document(make_graph("a1", [("Alpha text.", [], [])]))
    store.conn.execute("DELETE FROM fts WHERE node_id = 'paragraphs/a1-00002'")
    assert "FTS_MISSING" in _codes(store)


def test_check_finds_dangling_edges_and_orphans(store):
    store.write_document(make_graph("a1", [("Alpha text.", [], ["Alice"])]))
    store.conn.execute("DELETE FROM documents")
    codes = _codes(store)
    assert {"DANGLING_EDGE", "ORPHANED_NODE"} <= codes


def test_check_finds_count_drift(store):
    store.write_document(make_graph("a1", [("Alice and Bob.", [], ["Alice", "Bob"])]))
    store.conn.execute("UPDATE entities SET mention_count = 5 WHERE slug = 'alice'")
    store.conn.execute("UPDATE edges SET attrs = '{\"count\": 9}' WHERE relation = 'RELATED_TO'")
    assert {"ENTITY_COUNT_MISMATCH", "RELATED_TO_MISMATCH"} <= _codes(store)


def test_wal_mode_and_busy_timeout(store):
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 10_000


def test_unique_rule_is_in_the_schema(store):
    store.write_document(make_graph("a1", [("Alpha text.", [], [])]))
    with pytest.raises(sqlite3.IntegrityError):
        store.conn.execute("INSERT INTO edges(from_id, to_id, relation) SELECT from_id, to_id, relation FROM edges LIMIT 1")
