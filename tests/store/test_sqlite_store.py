"""SqliteStore against the GraphStore contract, plus SQLite-specific integrity checks."""
from __future__ import annotations

import sqlite3

import pytest

from ohara_lab.store.sqlite import SqliteStore
from ohara_lab.ingest.writeset import write_document

from .builders import dense_similar_graph, make_graph
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
    write_document(store, make_graph("a1", [("Alpha text.", [], [])]))
    store.conn.execute("DELETE FROM fts WHERE node_id = 'paragraphs/a1-00002'")
    assert "FTS_MISSING" in _codes(store)


def test_check_finds_dangling_edges_and_orphans(store):
    write_document(store, make_graph("a1", [("Alpha text.", [], ["Alice"])]))
    store.conn.execute("DELETE FROM documents")
    codes = _codes(store)
    assert {"DANGLING_EDGE", "ORPHANED_NODE"} <= codes


def test_check_finds_count_drift(store):
    write_document(store, make_graph("a1", [("Alice and Bob.", [], ["Alice", "Bob"])]))
    store.conn.execute("UPDATE entities SET mention_count = 5 WHERE slug = 'alice'")
    store.conn.execute("UPDATE edges SET attrs = '{\"count\": 9}' WHERE relation = 'RELATED_TO'")
    assert {"ENTITY_COUNT_MISMATCH", "RELATED_TO_MISMATCH"} <= _codes(store)


def test_wal_mode_and_busy_timeout(store):
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 10_000


def test_unique_rule_is_in_the_schema(store):
    write_document(store, make_graph("a1", [("Alpha text.", [], [])]))
    with pytest.raises(sqlite3.IntegrityError):
        store.conn.execute("INSERT INTO edges(from_id, to_id, relation) SELECT from_id, to_id, relation FROM edges LIMIT 1")


def test_the_explorer_walk_seeks_similar_edges_by_weight(store):
    """With the partial indexes the walk's edge reads are index seeks on (end, weight); the plan is
    read off SQLite itself, so a query shape that stops matching the index turns this red."""
    dense_similar_graph(store, seed=11, n=12)
    assert store._has_similar_indexes()
    plans: list[str] = []
    original = store._q

    def traced(sql, params=()):
        if "SIMILAR_TO" in sql and "json_each(?)" in sql:
            plans.extend(r[-1] for r in store.conn.execute("EXPLAIN QUERY PLAN " + sql, list(params)))
        return original(sql, params)

    store._q = traced
    store.similar_documents(["documents/d0", "documents/d1"], 2, min_weight=0.15, min_path_weight=0.3)
    searches = [p for p in plans if p.startswith(("SEARCH e", "SEARCH edges"))]
    assert searches and all("edges_similar_" in p for p in searches), plans
    assert any("<expr>>" in p for p in searches), plans  # the weight is part of the seek


def test_the_explorer_walk_answers_alike_without_the_weight_indexes(store_factory):
    """An atlas written before the indexes (opened read-only, nothing can add them) takes the
    older plan: same documents, hops and path weights, with and without tags and floors."""
    with_indexes = store_factory()
    rng, keys = dense_similar_graph(with_indexes, seed=11, n=12)
    without = store_factory()
    dense_similar_graph(without, seed=11, n=12)
    without.conn.executescript("DROP INDEX edges_similar_from; DROP INDEX edges_similar_to;")
    without._similar_indexes = None
    assert with_indexes._has_similar_indexes() and not without._has_similar_indexes()
    for trial in range(10):
        seeds = [f"documents/{k}" for k in rng.choice(keys, size=1 + trial % 3, replace=False)]
        for depth in (1, 2, 3):
            for tags in ([], ["Mining"]):
                for floor in (0.0, 0.15, 0.3):
                    args = {"min_weight": 0.15, "tags": tags, "min_path_weight": floor}
                    a = with_indexes.similar_documents(seeds, depth, **args)
                    b = without.similar_documents(seeds, depth, **args)
                    assert sorted(a, key=repr) == sorted(b, key=repr), (seeds, depth, tags, floor)
