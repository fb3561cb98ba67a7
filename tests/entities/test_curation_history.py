"""Any sequence of merges, splits, renames, cleans, re-ingests and undos keeps `ohara check` clean,
and undoing the latest step restores the atlas exactly (a hypothesis state machine on a real SqliteStore)."""
from __future__ import annotations

import shutil
import tempfile

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from ohara_lab.entities import curation
from ohara_lab.errors import CurationError
from ohara_lab.ids import norm_key
from ohara_lab.store.sqlite import SqliteStore
from ohara_lab.ingest.writeset import write_document
from tests.store.builders import atlas_state, make_graph

NAMES = ["Alice", "Bob", "Carol", "BTC", "Bitcoin", "B.T.C.", "Satoshi"]
NEW = [f"Entity {i}" for i in range(40)]
DOCS = {
    "a1": [("Alice and Bob.", ["Alice", "Bob"]), ("Bitcoin by Satoshi.", ["Bitcoin", "Satoshi"]), ("BTC.", ["BTC"])],
    "b2": [("Bob, Carol, BTC.", ["Bob", "Carol", "BTC"]), ("B.T.C. and Alice.", ["B.T.C.", "Alice"])],
    "c3": [("Carol and Satoshi.", ["Carol", "Satoshi"]), ("Bitcoin, BTC, Bob.", ["Bitcoin", "BTC", "Bob"])],
}
KEYS = {norm_key(n) for n in NAMES + NEW}


def graph(key: str):
    return make_graph(key, [(text, [], names) for text, names in DOCS[key]])


class CurationHistory(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = tempfile.mkdtemp(prefix="ohara-curation-")
        self.store = SqliteStore(self.dir)
        for key in DOCS:
            write_document(self.store, graph(key))
        self.history: list[tuple[int, dict, bool]] = []  # (step id, state before it, undo must restore it exactly)
        self.fresh = iter(NEW)

    def teardown(self) -> None:
        self.store.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _slugs(self) -> list[str]:
        return [e.slug for e in self.store.get_entities()]

    def _do(self, step) -> None:  # type: ignore[no-untyped-def]
        before = atlas_state(self.store, KEYS)
        try:
            op = step()
        except CurationError:
            assert atlas_state(self.store, KEYS) == before  # a refused step changes nothing
            return
        if op is not None:
            self.history.append((op.id, before, True))

    @precondition(lambda self: len(self._slugs()) >= 2)
    @rule(data=st.data())
    def merge(self, data) -> None:  # type: ignore[no-untyped-def]
        slugs = self._slugs()
        target = data.draw(st.sampled_from(slugs))
        sources = data.draw(st.lists(st.sampled_from([s for s in slugs if s != target]), min_size=1, max_size=2,
                                     unique=True))
        self._do(lambda: curation.merge(self.store, sources, target))

    @precondition(lambda self: bool(self._slugs()))
    @rule(data=st.data())
    def split(self, data) -> None:  # type: ignore[no-untyped-def]
        slug = data.draw(st.sampled_from(self._slugs()))
        nodes = [n.node_id for n in self.store.entity_nodes(slugs=[slug])]
        chosen = data.draw(st.lists(st.sampled_from(nodes), min_size=1, unique=True))
        self._do(lambda: curation.split(self.store, slug, next(self.fresh), nodes=chosen))

    @precondition(lambda self: bool(self._slugs()))
    @rule(data=st.data())
    def rename(self, data) -> None:  # type: ignore[no-untyped-def]
        slug = data.draw(st.sampled_from(self._slugs()))
        self._do(lambda: curation.rename(self.store, slug, next(self.fresh)))

    @precondition(lambda self: bool(self._slugs()))
    @rule(data=st.data())
    def clean(self, data) -> None:  # type: ignore[no-untyped-def]
        slug = data.draw(st.sampled_from(self._slugs()))
        self._do(lambda: curation.clean(self.store, slugs=[slug]))

    @rule(key=st.sampled_from(sorted(DOCS)))
    def reingest(self, key: str) -> None:
        before = atlas_state(self.store, KEYS)
        write_document(self.store, graph(key), replaces=[f"documents/{key}"])
        # the same content re-ingested under the active steps' routes changes nothing
        assert atlas_state(self.store, KEYS) == before

    @precondition(lambda self: bool(self.history))
    @rule()
    def undo_latest(self) -> None:
        op_id, before, exact = self.history.pop()
        undone = curation.undo(self.store)
        assert undone.id == op_id
        if exact:
            assert atlas_state(self.store, KEYS) == before

    @precondition(lambda self: bool(self.history))
    @rule(data=st.data())
    def undo_any(self, data) -> None:  # type: ignore[no-untyped-def]
        i = data.draw(st.integers(0, len(self.history) - 1))
        op_id = self.history[i][0]
        state = atlas_state(self.store, KEYS)
        try:
            curation.undo(self.store, op_id)
        except CurationError:
            assert atlas_state(self.store, KEYS) == state
            return
        if i == len(self.history) - 1 and self.history[i][2]:
            assert atlas_state(self.store, KEYS) == self.history[i][1]
        # later steps were applied on top of this one: their "before" no longer describes a reachable state
        self.history = self.history[:i] + [(o, s, False) for o, s, _ in self.history[i + 1:]]

    @invariant()
    def check_is_clean(self) -> None:
        assert _clean_check(self.store) == []


# Derandomized (which also means no example database): CI runs the same sequences every time, so a
# failure is reproducible and never intermittent. To explore beyond them, run the machine with other
# settings, e.g. `run_state_machine_as_test(CurationHistory, settings=settings(max_examples=500,
# database=None, deadline=None))`, and pin what it finds as a plain test (like the one below).
CurationHistory.TestCase.settings = settings(max_examples=60, stateful_step_count=12, deadline=None, derandomize=True,
                                             suppress_health_check=[HealthCheck.too_slow])
test_curation_history = CurationHistory.TestCase


def _clean_check(store: SqliteStore) -> list[str]:
    """What `ohara check` finds that no curation sequence may leave: errors and stale rollups."""
    return [f"{p.code}: {p.detail}" for p in store.check() if p.severity == "error" or p.code == "ROLLUP_STALE"]


def _replay(directory, steps, key: str) -> None:  # type: ignore[no-untyped-def]
    """Apply the steps, re-ingest document `key` (nothing may change), then undo every step, latest
    first (each must restore the atlas it found); `ohara check` stays clean throughout."""
    store = SqliteStore(directory)
    for doc in DOCS:
        write_document(store, graph(doc))
    states = []
    for step in steps:
        states.append(atlas_state(store, KEYS))
        step(store)
        assert _clean_check(store) == []
    before = atlas_state(store, KEYS)
    write_document(store, graph(key), replaces=[f"documents/{key}"])
    assert atlas_state(store, KEYS) == before
    assert _clean_check(store) == []
    while states:
        curation.undo(store)
        assert atlas_state(store, KEYS) == states.pop()
        assert _clean_check(store) == []
    store.close()


def test_reingest_after_split_then_merge_into_the_split_entity(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Found by the state machine: split alice in b2-00003, then merge btc into alice, re-ingest b2.

    The re-ingest must send the node's btc mention to alice (the merge) and not on
    through the older split route to the split-off entity: the split moved the
    node's alice mentions of its time, and btc was not one of them yet. Undoing the
    split last must map the variant b-t-c, kept by the re-ingest while btc was merged
    away, back to btc as ingest would.
    """
    node = "paragraphs/b2-00003"
    _replay(tmp_path, [lambda s: curation.split(s, "alice", "Entity 0", nodes=[node]),
                       lambda s: curation.clean(s, slugs=["bitcoin"]),
                       lambda s: curation.clean(s, slugs=["bob"]),
                       lambda s: curation.merge(s, ["btc"], "alice")], "b2")


def test_reingest_of_the_last_document_of_an_entity_keeps_its_aliases(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Found by the state machine: split btc out of every node but c3's, re-ingest c3.

    btc carries the alias B.T.C. that b2 brought; after the split it lives only in
    c3, so the re-ingest takes it along and must write it back with that alias.
    """
    moved = ["paragraphs/a1-00004", "paragraphs/b2-00002", "paragraphs/b2-00003"]
    _replay(tmp_path, [lambda s: curation.split(s, "btc", "Entity 0", nodes=moved),
                       lambda s: curation.split(s, "alice", "Entity 1", nodes=["paragraphs/a1-00002"]),
                       lambda s: curation.clean(s, slugs=["alice"])], "c3")
