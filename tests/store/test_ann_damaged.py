"""A damaged ANN index (issue 28.5): a truncated or garbage graph file, or a description (sidecar
JSON) that does not match it, is ignored with one warning; queries are then answered by exact
search, with the same answers as an atlas without the index; `check` reports it and
`check --fix` rebuilds it.

The damage is done to whichever graph file sits beside the JSON in `<atlas>/ann/`, so the same
tests run against the index format before this one (where each of them fails).
"""
from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("faiss", reason="the HNSW index needs the dense extra: pip install -e '.[dense]'")

from ohara_lab import Atlas  # noqa: E402 - after the skip guard
from ohara_lab.store.sqlite import SqliteStore  # noqa: E402
from ohara_lab.ingest.writeset import write_document
from tests.store.builders import make_graph  # noqa: E402

DIM = 32
MODEL = "m:test"
THRESHOLD = 300
QUERIES = 12


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, list[list[tuple[str, float]]]]:
    """An atlas of 400 vectors with its index, queries, and the exact answers (no index in play)."""
    rng = np.random.default_rng(21)
    directory = tmp_path_factory.mktemp("healthy") / "atlas"
    with SqliteStore(directory, ann_threshold=THRESHOLD, ann_ef=64) as store:
        for key in ("aa", "bb"):
            graph = make_graph(key, [(f"paragraph {i} of {key}", [], []) for i in range(200)])
            rows = _unit(rng.standard_normal((200, DIM)))
            graph.vectors = {p.id: rows[i] for i, p in enumerate(graph.paragraphs)}
            graph.vector_model = MODEL
            write_document(store, graph)
        store.sync_vector_index()
    queries = _unit(rng.standard_normal((QUERIES, DIM)))
    with SqliteStore(directory, read_only=True, ann_threshold=0) as exact:  # threshold 0: never the index
        truth = [exact.vector_search(MODEL, q, 10) for q in queries]
    return directory, queries, truth


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def _graph_file(directory: Path) -> Path:
    return next(p for p in (directory / "ann").iterdir() if p.suffix != ".json")


def _meta_file(directory: Path) -> Path:
    return next((directory / "ann").glob("*.json"))


def _edit_meta(directory: Path, edit: Callable[[dict], None]) -> None:
    """Change the description and sign it again, as a description written for another graph would be."""
    path = _meta_file(directory)
    meta = json.loads(path.read_text(encoding="utf-8"))
    edit(meta)
    body = {k: v for k, v in meta.items() if k != "meta_sha256"}
    meta["meta_sha256"] = hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()
    path.write_text(json.dumps(meta), encoding="utf-8")


def _truncate(directory: Path) -> None:
    path = _graph_file(directory)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _garbage(directory: Path) -> None:
    path = _graph_file(directory)
    path.write_bytes(np.random.default_rng(1).integers(0, 256, path.stat().st_size, dtype=np.uint8).tobytes())


def _flip_payload(directory: Path) -> None:
    """Same size, header intact: bytes in the middle of the graph changed (only the checksum sees it)."""
    path = _graph_file(directory)
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(b ^ 0x5A for b in data[middle:middle + 64])
    path.write_bytes(bytes(data))


def _fewer_nodes(directory: Path) -> None:
    def edit(meta: dict) -> None:
        for field in ("keys", "groups"):
            meta[field] = meta[field][:-1]
        if "nodes" in meta:
            meta["nodes"] -= 1

    _edit_meta(directory, edit)


def _other_dim(directory: Path) -> None:
    _edit_meta(directory, lambda meta: meta.update(dim=meta["dim"] * 2))


def _other_checksum(directory: Path) -> None:
    _edit_meta(directory, lambda meta: meta.update(sha256=hashlib.sha256(b"another graph").hexdigest()))


def _swapped_ids(directory: Path) -> None:
    """The description of the same graph with two vectors' ids exchanged: silently other answers before."""
    def edit(meta: dict) -> None:
        groups = meta["groups"]
        groups[0], groups[1] = groups[1], groups[0]

    path = _meta_file(directory)
    meta = json.loads(path.read_text(encoding="utf-8"))
    edit(meta)  # not signed again: a hand edit
    path.write_text(json.dumps(meta), encoding="utf-8")


DAMAGE = {"truncated": _truncate, "garbage bytes": _garbage, "payload bytes changed": _flip_payload,
          "sidecar node count": _fewer_nodes, "sidecar dimension": _other_dim, "sidecar checksum": _other_checksum,
          "sidecar ids edited": _swapped_ids}


def _ann_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and "ANN index" in r.getMessage()]


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_index_warns_once_and_queries_answer_exactly(damage: str, built, tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    healthy, queries, truth = built
    directory = _copy(healthy, tmp_path / "atlas")
    DAMAGE[damage](directory)
    before = {p.name: p.read_bytes() for p in (directory / "ann").iterdir()}
    caplog.set_level(logging.WARNING)
    for read_only in (True, False):
        caplog.clear()
        with SqliteStore(directory, read_only=read_only, ann_threshold=THRESHOLD, ann_ef=64) as store:
            got = [store.vector_search(MODEL, q, 10) for q in queries]
            store.sync_vector_index()  # a write's sync leaves the damaged index alone
        assert got == truth
        warned = _ann_warnings(caplog)
        assert len(warned) == 1 and MODEL in warned[0], warned
    # Nothing was rewritten behind the user's back: the damage stays until `check --fix`.
    assert {p.name: p.read_bytes() for p in (directory / "ann").iterdir()} == before


@pytest.mark.parametrize("damage", ["truncated", "garbage bytes", "sidecar node count", "sidecar checksum"])
def test_check_reports_a_damaged_index_and_fix_rebuilds_it(damage: str, built, tmp_path: Path,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    from click.testing import CliRunner

    from ohara_lab.cli import main

    healthy, queries, truth = built
    directory = _copy(healthy, tmp_path / "atlas")
    DAMAGE[damage](directory)
    env = {"OHARA_ANN_THRESHOLD": str(THRESHOLD), "OHARA_EMBEDDER": "none", "OHARA_LLM": "offline"}
    result = CliRunner().invoke(main, ["check", "--atlas", str(directory)], env=env)
    assert result.exit_code == 1, result.output
    assert "ANN_CORRUPT" in result.output and "atlas is sound" not in result.output
    with Atlas.open(directory, embedder="none", llm="offline", ann_threshold=THRESHOLD) as atlas:
        fixed = atlas.check(fix=True)
        assert any(p.code == "ANN_REBUILT" and p.severity == "fixed" for p in fixed), fixed
        assert not [p for p in fixed if p.code.startswith("ANN") and p.severity != "fixed"], fixed
    result = CliRunner().invoke(main, ["check", "--atlas", str(directory)], env=env)
    assert result.exit_code == 0 and "ANN_" not in result.output, result.output
    # The rebuilt index is used again (no warning) and answers as the healthy one did.
    caplog.set_level(logging.WARNING)
    caplog.clear()
    with SqliteStore(directory, read_only=True, ann_threshold=THRESHOLD, ann_ef=64) as store:
        got = [store.vector_search(MODEL, q, 10) for q in queries]
        assert store._vectors.builds == 0 and not store._vectors.damaged
    assert not _ann_warnings(caplog)
    assert [[i for i, _ in g] for g in got] == [[i for i, _ in t] for t in truth]
    assert all(s == pytest.approx(t, abs=1e-5) for g, tr in zip(got, truth) for (_, s), (_, t) in zip(g, tr))


def test_a_healthy_index_is_sound_and_used(built, caplog: pytest.LogCaptureFixture) -> None:
    healthy, queries, truth = built
    with Atlas.open(healthy, embedder="none", llm="offline", ann_threshold=THRESHOLD, read_only=True) as atlas:
        assert not [p for p in atlas.check() if p.code.startswith("ANN")]
    caplog.set_level(logging.WARNING)
    with SqliteStore(healthy, read_only=True, ann_threshold=THRESHOLD, ann_ef=64) as store:
        got = [store.vector_search(MODEL, q, 10) for q in queries]
        assert store._vectors._graphs and store._vectors.builds == 0  # answered by the graph on disk
    assert not _ann_warnings(caplog)
    assert [[i for i, _ in g] for g in got] == [[i for i, _ in t] for t in truth]
