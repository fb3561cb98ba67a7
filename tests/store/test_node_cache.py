"""SqliteStore.get_nodes' per-generation cache (store/node_cache.py): same rows and rankings with and
without it, and a write (this connection's or another's) is seen at once. Counts reads; times nothing."""
from __future__ import annotations

from ohara_lab import Atlas

TEXTS = [
    {"text": "Ada Lovelace wrote the first program for Babbage's Analytical Engine in London.", "title": "Ada", "source_id": "t:ada"},
    {"text": "Charles Babbage designed the Analytical Engine, a mechanical computer, in London.", "title": "Babbage", "source_id": "t:babbage"},
    {"text": "The Difference Engine was built by the Science Museum in 1991 from Babbage's plans.", "title": "Engine", "source_id": "t:engine"},
]
QUESTIONS = ["Who wrote the first program?", "Where was the Analytical Engine designed?", "Difference Engine"]


def _dump(atlas: Atlas, question: str) -> dict:
    out = atlas.query(question).to_dict()
    out.pop("timings_ms", None)
    return out


def test_rankings_identical_with_and_without_the_cache(tmp_path):
    with Atlas.open(tmp_path / "a", embedder="none", llm="offline") as atlas:
        atlas.ingest_texts(TEXTS)
        cache = atlas.store.node_cache
        cache.enabled = False
        without = [_dump(atlas, q) for q in QUESTIONS]
        cache.enabled = True
        with_cache = [_dump(atlas, q) for q in QUESTIONS]
        again = [_dump(atlas, q) for q in QUESTIONS]
    assert with_cache == without
    assert again == without


def test_cache_reads_once_and_sees_writes(tmp_path):
    with Atlas.open(tmp_path / "a", embedder="none", llm="offline") as atlas:
        atlas.ingest_texts(TEXTS)
        store, cache = atlas.store, atlas.store.node_cache
        doc = next(d.id for d in atlas.documents() if d.title == "Ada")
        first = store.get_nodes([doc])
        reads = cache.reads
        assert store.get_nodes([doc]) == first and cache.reads == reads  # no second read
        store.get_nodes([doc])[doc]["title"] = "mutated"  # callers get copies
        assert store.get_nodes([doc])[doc]["title"] == "Ada"
        assert store.update_document(doc, {"title": "Ada L."})  # a write that moves no graph_version
        assert store.get_nodes([doc])[doc]["title"] == "Ada L." and cache.reads > reads
        # another connection's commit (as another process would)
        with Atlas.open(tmp_path / "a", embedder="none", llm="offline") as other:
            other.store.update_document(doc, {"title": "Countess"})
        assert store.get_nodes([doc])[doc]["title"] == "Countess"
        assert store.get_nodes(["documents/none"]) == {}
