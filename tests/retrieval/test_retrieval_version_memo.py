"""`VersionMemo`: per-atlas-version lookups read once, and read again once a write moves the graph version."""
from __future__ import annotations

from ohara_lab import Atlas
from ohara_lab.ids import entity_id
from ohara_lab.records import RELATED_TO
from ohara_lab.retrieval.answerability.features import ENTITY_NAMES
from ohara_lab.retrieval.graph import VersionMemo
from ohara_lab.retrieval.tiers import RELATED_DEGREES

from tests.support import OFFLINE

FIRST = "Marie Curie worked in Paris with Pierre Curie. She won the Nobel Prize in Physics."
SECOND = "Pierre Curie taught at the Sorbonne in Paris, where Marie Curie later lectured."


def _reader(store, calls):
    def read(slugs):
        calls.append(list(slugs))
        return {e.slug: (e.name, e.type, e.mention_count) for e in store.get_entities(slugs)}
    return read


def test_reads_once_per_graph_version_and_again_after_a_write(tmp_path):
    with Atlas.open(tmp_path / "atlas", **OFFLINE) as atlas:
        atlas.ingest_texts([{"text": FIRST, "title": "Curie", "source_id": "t:curie"}])
        store = atlas.store
        slugs = [e.slug for e in store.get_entities()]
        assert slugs, "the offline extractor found no entity"
        memo, calls = VersionMemo(), []
        first = memo.get_many(store, [*slugs, "no-such-entity"], _reader(store, calls))
        again = memo.get_many(store, slugs, _reader(store, calls))
        assert len(calls) == 1 and first["no-such-entity"] is None
        assert again == {s: first[s] for s in slugs}
        assert again == {e.slug: (e.name, e.type, e.mention_count) for e in store.get_entities(slugs)}
        version = store.graph_version()
        atlas.ingest_texts([{"text": SECOND, "title": "Sorbonne", "source_id": "t:sorbonne"}])
        assert store.graph_version() != version
        after = memo.get_many(store, slugs, _reader(store, calls))
        assert len(calls) == 2  # the version moved: everything is read again
        assert after == {e.slug: (e.name, e.type, e.mention_count) for e in store.get_entities(slugs)}
        assert after != again  # the second document mentions the Curies again: their counts moved


def test_the_engine_memos_agree_with_the_store(tmp_path):
    with Atlas.open(tmp_path / "atlas", **OFFLINE) as atlas:
        atlas.ingest_texts([{"text": FIRST, "title": "Curie", "source_id": "t:curie"}, {"text": SECOND, "title": "Sorbonne", "source_id": "t:sorbonne"}])
        store = atlas.store
        slugs = [e.slug for e in store.get_entities()]
        names = ENTITY_NAMES.get_many(store, slugs, lambda s: {e.slug: (e.name, e.type) for e in store.get_entities(s)})
        assert names == {e.slug: (e.name, e.type) for e in store.get_entities(slugs)}
        ids = [entity_id(s) for s in slugs]
        degrees = RELATED_DEGREES.get_many(store, ids, lambda i: store.relation_degrees(i, RELATED_TO))
        truth = store.relation_degrees(ids, RELATED_TO)
        assert any(truth.values())
        assert {k: v or 0 for k, v in degrees.items()} == {i: truth.get(i, 0) for i in ids}
