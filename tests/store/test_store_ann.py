"""The HNSW path of vector search: recall against exact search, duplicate vectors answered as the
exact search answers them, persistence beside the atlas, incremental growth on ingest and removal
on `rm` (through a real SqliteStore and Atlas), an older index format rebuilt."""
from __future__ import annotations

from pathlib import Path

import json
import logging

import numpy as np
import pytest

pytest.importorskip("faiss", reason="the HNSW index needs the dense extra: pip install -e '.[dense]'")

from ohara_lab import Atlas  # noqa: E402 - after the skip guard
from ohara_lab.store.ann import FORMAT_VERSION, HnswIndex, IndexDamaged  # noqa: E402
from ohara_lab.store.vectors import knn  # noqa: E402
from ohara_lab.store.sqlite import SqliteStore  # noqa: E402
from ohara_lab.ingest.writeset import write_document
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


def test_exact_search_breaks_ties_at_the_cut_by_id() -> None:
    rng = np.random.default_rng(11)
    tie = _unit(rng.standard_normal((1, DIM)))[0]
    others = _unit(rng.standard_normal((200, DIM)))
    matrix = np.vstack([np.repeat(tie[None, :], 8, axis=0), others]).astype(np.float32)
    # Eight equal rows first, ids descending: argpartition alone keeps t7, t6, t5 (the cut is not by id).
    ids = [f"t{i}" for i in range(7, -1, -1)] + [f"o{i:04d}" for i in range(200)]
    hits = knn(ids, matrix, tie, 3)
    assert [i for i, _ in hits] == ["t0", "t1", "t2"]


def _with_duplicates(rng: np.random.Generator) -> tuple[list[str], np.ndarray]:
    """Clustered rows plus boilerplate: one vector held by 150 ids, 40 vectors held by 2–6 ids each."""
    base = _clustered(rng, 2500)
    parts = [base, np.repeat(base[:1], 150, axis=0)]
    parts += [np.repeat(base[i:i + 1], int(rng.integers(1, 6)), axis=0) for i in range(1, 41)]
    matrix = np.vstack(parts)
    order = rng.permutation(len(matrix))  # duplicates spread through the id order
    ids = [f"paragraphs/p{int(i):05d}" for i in order]
    return ids, np.ascontiguousarray(matrix)


def test_duplicate_vectors_are_one_node_and_answer_as_the_exact_search() -> None:
    rng = np.random.default_rng(5)
    ids, matrix = _with_duplicates(rng)
    graph = HnswIndex.build(MODEL, ids, matrix, vectors_version=1)
    assert graph.live == len(ids) and graph.live_vectors == 2500
    # Queries on a duplicated vector: every one of the top 10 ties at cosine 1, so only the id order decides.
    tied = [matrix[ids.index(i)] for i in ids[:60]] + list(matrix[[ids.index(min(ids))]])
    for q in tied:
        assert [i for i, _ in graph.search(q, 10, ef=128)] == [i for i, _ in knn(ids, matrix, q, 10)]
    queries = _clustered(rng, 60)
    truth = [[i for i, _ in knn(ids, matrix, q, 10)] for q in queries]
    assert _recall([[i for i, _ in graph.search(q, 10, ef=128)] for q in queries], truth) >= 0.99
    # Two builds of the same rows answer alike.
    again = HnswIndex.build(MODEL, ids, matrix, vectors_version=1)
    assert all(graph.search(q, 10, 64) == again.search(q, 10, 64) for q in [*tied, *queries])


def test_a_shared_vector_leaves_the_graph_with_its_last_id(tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    ids, matrix = _with_duplicates(rng)
    graph = HnswIndex.build(MODEL, ids, matrix, vectors_version=1)
    shared = matrix[0]
    holders = [i for i, score in knn(ids, matrix, shared, 500) if score == pytest.approx(1.0, abs=1e-6)]
    assert len(holders) >= 150
    keep = [n for n in ids if n not in holders[1:]]  # one holder stays: the vector stays in the graph
    rows = matrix[[ids.index(n) for n in keep]]
    assert graph.sync(keep, rows, 2) == (0, len(holders) - 1)
    assert graph.search(shared, 1, 64)[0][0] == holders[0] and graph.live_vectors == 2500
    rest = [n for n in keep if n != holders[0]]
    graph.sync(rest, matrix[[ids.index(n) for n in rest]], 3)
    assert graph.live_vectors == 2499
    assert not {i for i, _ in graph.search(shared, 10, 64)} & set(holders)
    graph.save(tmp_path / "g")
    loaded = HnswIndex.load(tmp_path / "g")
    assert loaded is not None and loaded.live_vectors == 2499
    assert not {i for i, _ in loaded.search(shared, 10, 64)} & set(holders)
    # The vector comes back (a removed document ingested again): its old label, no new node.
    loaded.sync(ids, matrix, 4)
    assert len(loaded.keys) == 2500 and loaded.live == len(ids)
    assert [i for i, _ in loaded.search(shared, 10, 64)] == holders[:10]


def test_a_graph_saved_without_its_json_is_not_trusted(tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    ids, matrix = _with_duplicates(rng)
    graph = HnswIndex.build(MODEL, ids[:2000], matrix[:2000], vectors_version=1)
    graph.save(tmp_path / "g")
    first_json = (tmp_path / "g.json").read_text(encoding="utf-8")
    # A crash after the graph was renamed and before its JSON was: the graph has nodes the JSON lacks.
    graph.sync(ids, matrix, 2)
    graph.save(tmp_path / "g")
    (tmp_path / "g.json").write_text(first_json, encoding="utf-8")
    with pytest.raises(IndexDamaged, match="bytes|checksum|header"):
        HnswIndex.load(tmp_path / "g")
    # After a sync that only deleted, the graph file is the same (removal is in the JSON's groups):
    # the older JSON is a consistent older state, which a sync brings in step.
    graph = HnswIndex.build(MODEL, ids, matrix, vectors_version=1)
    graph.save(tmp_path / "h")
    old_json = (tmp_path / "h.json").read_text(encoding="utf-8")
    shared = matrix[0]
    holders = {i for i, score in knn(ids, matrix, shared, 500) if score == pytest.approx(1.0, abs=1e-6)}
    rest = [n for n in ids if n not in holders]
    rows = matrix[[ids.index(n) for n in rest]]
    graph.sync(rest, rows, 2)
    assert not {i for i, _ in graph.search(shared, 10, 64)} & holders
    graph.save(tmp_path / "h")
    (tmp_path / "h.json").write_text(old_json, encoding="utf-8")
    stale = HnswIndex.load(tmp_path / "h")
    assert stale is not None and stale.vectors_version == 1
    stale.sync(rest, rows, 2)
    assert not {i for i, _ in stale.search(shared, 10, 64)} & holders


def _write_docs(store: SqliteStore, keys: list[str], per_doc: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    vectors: dict[str, np.ndarray] = {}
    for key in keys:
        graph = make_graph(key, [(f"paragraph {i} of {key}", [], []) for i in range(per_doc)])
        rows = _clustered(rng, per_doc)
        graph.vectors = {p.id: rows[i] for i, p in enumerate(graph.paragraphs)}
        graph.vector_model = MODEL
        write_document(store, graph)
        vectors.update(graph.vectors)
    return vectors


def test_graph_is_kept_beside_the_atlas_grows_on_ingest_and_forgets_removed_documents(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    directory = tmp_path / "atlas"
    store = SqliteStore(directory, ann_threshold=500, ann_ef=128)
    vectors = _write_docs(store, ["aa", "bb", "cc"], 250, rng)
    store.sync_vector_index()
    files = sorted(p.name for p in (directory / "ann").iterdir())
    assert files == ["m_test.faiss", "m_test.json"]
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
        graph = reader._vectors._graph(MODEL, reader.vector_models()[MODEL], reader.get_meta("vectors_version", 0),
                                       lambda: reader._read_vectors(MODEL))
        assert reader._vectors.builds == 0 and graph.live == 3 * 250 + 100 - 250
        assert len(gone) >= 20  # the removed document's vectors, else the loop below checks nothing
        for node in gone[:20]:
            assert node not in answers(reader, vectors[node])

    # Below the threshold the graph files go and search is exact again.
    with Atlas.open(directory, embedder="none", llm="offline", ann_threshold=10_000) as atlas:
        atlas.remove([_doc_id(atlas, "cc")])
        assert not (directory / "ann").exists()
        hits = atlas.store.vector_search(MODEL, vectors["paragraphs/aa-00002"], 1)
        assert hits[0][0] == "paragraphs/aa-00002"


def test_an_index_of_an_older_format_is_rebuilt(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    directory = tmp_path / "atlas"
    store = SqliteStore(directory, ann_threshold=300, ann_ef=128)
    vectors = _write_docs(store, ["aa", "bb"], 200, rng)
    store.sync_vector_index()
    store.close()
    meta_path = directory / "ann" / "m_test.json"
    old = json.loads(meta_path.read_text(encoding="utf-8"))
    old["version"] = FORMAT_VERSION - 1
    meta_path.write_text(json.dumps(old), encoding="utf-8")
    with SqliteStore(directory, ann_threshold=300, ann_ef=128) as store:
        some = next(iter(vectors))
        assert store.vector_search(MODEL, vectors[some], 1)[0][0] == some
        assert store._vectors.builds == 1
    assert json.loads(meta_path.read_text(encoding="utf-8"))["version"] == FORMAT_VERSION
    with SqliteStore(directory, read_only=True, ann_threshold=300, ann_ef=128) as reader:
        reader.vector_search(MODEL, vectors[some], 1)
        assert reader._vectors.builds == 0  # the rebuilt file is loaded as it is


def test_an_atlas_indexed_by_hnswlib_is_rebuilt_with_one_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Format 2 (hnswlib: `<model>.hnsw` + JSON version 2) is not read: one log line, then a faiss index."""
    rng = np.random.default_rng(8)
    directory = tmp_path / "atlas"
    with SqliteStore(directory, ann_threshold=300, ann_ef=128) as store:
        vectors = _write_docs(store, ["aa", "bb"], 200, rng)
    ann = directory / "ann"
    ann.mkdir()
    # What format 2 wrote (hnswlib's own bytes are never opened, so any bytes stand for them).
    (ann / "m_test.hnsw").write_bytes(b"\x00" * 4096)
    (ann / "m_test.json").write_text(json.dumps({"format": "ohara-lab/ann", "version": 2, "library": "hnswlib 0.8.0",
                                                 "model": MODEL, "dim": DIM, "m": 16, "ef_construction": 200,
                                                 "vectors_version": 1, "keys": [], "groups": []}), encoding="utf-8")
    with Atlas.open(directory, embedder="none", llm="offline", ann_threshold=300, read_only=True) as atlas:
        assert [p.code for p in atlas.check() if p.code.startswith("ANN")] == ["ANN_OLD_FORMAT"]
    caplog.set_level(logging.INFO)
    some = next(iter(vectors))
    for read_only in (True, False):  # read-only: rebuilt in memory; writable: rebuilt and saved
        caplog.clear()
        with SqliteStore(directory, read_only=read_only, ann_threshold=300, ann_ef=128) as store:
            assert store.vector_search(MODEL, vectors[some], 1)[0][0] == some
            assert store._vectors.builds == 1
        lines = [r.getMessage() for r in caplog.records if "format" in r.getMessage()]
        assert len(lines) == 1 and "format 2" in lines[0] and "\n" not in lines[0], lines
    assert sorted(p.name for p in ann.iterdir()) == ["m_test.faiss", "m_test.json"]
    with SqliteStore(directory, read_only=True, ann_threshold=300, ann_ef=128) as reader:
        assert reader.vector_search(MODEL, vectors[some], 1)[0][0] == some
        assert reader._vectors.builds == 0


def _doc_id(atlas: Atlas, key: str) -> str:
    return next(d.id for d in atlas.documents() if d.title == f"Doc {key}")
