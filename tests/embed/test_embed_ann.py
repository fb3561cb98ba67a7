"""The HNSW path of vector search: recall against exact search, persistence beside the atlas,
incremental growth on ingest and removal on `rm` (through a real SqliteStore and Atlas)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("hnswlib", reason="the HNSW index needs the dense extra: pip install -e '.[dense]'")

from ohara_lab import Atlas  # noqa: E402 - after the skip guard
from ohara_lab.embed.ann import HnswIndex  # noqa: E402
from ohara_lab.embed.index import knn  # noqa: E402
from ohara_lab.store.sqlite import SqliteStore  # noqa: E402
from tests.store.builders import make_graph  # noqa: E402

DIM = 48
MODEL = "m:test"


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _clustered(rng: np.random.Generator, n: int) -> np.ndarray:
    centres = _unit(rng.standard_normal((40, DIM)))
    return _unit(centres[rng.integers(0, 40, n)] + 0.6 * rng.standard_normal((n, DIM)) / np.sqrt(DIM))


def _recall(found: list[list[str]], truth: list[list[str]]) -> float:
    return sum(len(set(f) & set(t)) for f, t in zip(found, truth)) / sum(len(t) for t in truth)


def test_recall_at_10_against_exact_search() -> None:
    rng = np.random.default_rng(7)
    data, queries = _clustered(rng, 3000), _clustered(rng, 60)
    ids = [f"paragraphs/p{i:05d}" for i in range(len(data))]
    graph = HnswIndex.build(MODEL, ids, data, vectors_version=1)
    truth = [[i for i, _ in knn(ids, data, q, 10)] for q in queries]
    found = [[i for i, _ in graph.search(q, 10, ef=128)] for q in queries]
    assert _recall(found, truth) >= 0.99
    # A narrow search finds fewer: the recall is the index's, not a copy of the exact answer.
    narrow = [[i for i, _ in graph.search(q, 10, ef=10)] for q in queries]
    assert _recall(narrow, truth) < _recall(found, truth)
    # Scores are cosines, best first.
    q = queries[0]
    best = graph.search(q, 3, ef=128)
    assert best[0][1] == pytest.approx(float(data[ids.index(best[0][0])] @ q), abs=1e-5)
    assert [s for _, s in best] == sorted((s for _, s in best), reverse=True)


def _write_docs(store: SqliteStore, keys: list[str], per_doc: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    vectors: dict[str, np.ndarray] = {}
    for key in keys:
        graph = make_graph(key, [(f"paragraph {i} of {key}", [], []) for i in range(per_doc)])
        rows = _clustered(rng, per_doc)
        graph.vectors = {p.id: rows[i] for i, p in enumerate(graph.paragraphs)}
        graph.vector_model = MODEL
        store.write_document(graph)
        vectors.update(graph.vectors)
    return vectors


def test_graph_is_kept_beside_the_atlas_grows_on_ingest_and_forgets_removed_documents(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    directory = tmp_path / "atlas"
    store = SqliteStore(directory, ann_threshold=500, ann_ef=128)
    vectors = _write_docs(store, ["aa", "bb", "cc"], 250, rng)
    store.sync_vector_index()
    files = sorted(p.name for p in (directory / "ann").iterdir())
    assert files == ["m_test.hnsw", "m_test.json"]
    assert store._vectors.builds == 1 and MODEL not in store._vec_cache  # the graph holds the vectors

    def answers(s: SqliteStore, q: np.ndarray) -> list[str]:
        return [i for i, _ in s.vector_search(MODEL, q, 10)]

    queries = _clustered(rng, 30)
    ids, matrix = store._read_vectors(MODEL)
    truth = [[i for i, _ in knn(ids, matrix, q, 10)] for q in queries]
    assert _recall([answers(store, q) for q in queries], truth) >= 0.99
    store.close()

    # Another process opens the atlas read-only: the graph is loaded from disk, not rebuilt.
    reader = SqliteStore(directory, read_only=True, ann_threshold=500, ann_ef=128)
    assert answers(reader, queries[0]) == answers(SqliteStore(directory, ann_threshold=500, ann_ef=128), queries[0])
    assert reader._vectors.builds == 0
    reader.close()

    # Ingest grows the graph in place (no rebuild); the new document's paragraphs are found.
    store = SqliteStore(directory, ann_threshold=500, ann_ef=128)
    new = _write_docs(store, ["dd"], 100, rng)
    store.sync_vector_index()
    assert store._vectors.builds == 0
    some = next(iter(new))
    assert answers(store, new[some])[0] == some
    store.close()

    # `ohara rm` (Atlas.remove): the document's vectors leave the graph on disk too.
    with Atlas.open(directory, embedder="none", llm="offline", ann_threshold=500) as atlas:
        assert atlas.remove([_doc_id(atlas, "bb")]) == 1
    gone = [i for i in vectors if i.startswith("paragraphs/bb-")]
    with SqliteStore(directory, read_only=True, ann_threshold=500, ann_ef=128) as reader:
        graph = reader._vectors._graph(MODEL, reader.get_meta("vectors_version", 0), lambda: reader._read_vectors(MODEL))
        assert reader._vectors.builds == 0 and graph.live == 3 * 250 + 100 - 250
        for node in gone[:20]:
            assert node not in answers(reader, vectors[node])

    # Below the threshold the graph files go and search is exact again.
    with Atlas.open(directory, embedder="none", llm="offline", ann_threshold=10_000) as atlas:
        atlas.remove([_doc_id(atlas, "cc")])
        assert not (directory / "ann").exists()
        hits = atlas.store.vector_search(MODEL, vectors["paragraphs/aa-00002"], 1)
        assert hits[0][0] == "paragraphs/aa-00002"


def _doc_id(atlas: Atlas, key: str) -> str:
    return next(d.id for d in atlas.documents() if d.title == f"Doc {key}")
