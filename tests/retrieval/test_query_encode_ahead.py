"""The query is embedded on a worker thread while phase 0 and BM25 run (`Engine._encode_ahead`): the vector
phase must get exactly the vector a serial embedding gives, and nothing is started when no phase reads it."""
from __future__ import annotations

import os
import shutil
import signal

import numpy as np
import pytest

from ohara_lab import Atlas
from ohara_lab.eval.configs import CONFIGS

from tests.support import OFFLINE

QUESTION = "rules against locking down consumer devices"


@pytest.fixture(scope="module")
def dense_atlas(samples_atlas_dir, tmp_path_factory):
    pytest.importorskip("wordllama")
    path = tmp_path_factory.mktemp("dense") / "a"
    shutil.copytree(samples_atlas_dir, path)
    with Atlas.open(path, **{**OFFLINE, "embedder": "wordllama"}) as a:
        a.embed(progress=False)
        yield a


def test_the_vector_phase_gets_the_vector_a_serial_embedding_gives(dense_atlas):
    engine = dense_atlas.engine
    engine.clear_query_cache()
    state = engine.start(QUESTION, None, engine.settings)
    assert state.pending_vector is not None and state.pending_vector[0][1] == QUESTION
    engine.retrieve(state)
    embedder = engine._query_embedder(engine.settings, dense_atlas.store.vector_models())[0]
    assert np.array_equal(state.query_vector, embedder.embed([QUESTION], "query")[0])
    assert "vector" not in state.skipped and state.dense


def test_nothing_runs_ahead_when_no_phase_reads_the_vector_or_it_is_cached(dense_atlas):
    engine = dense_atlas.engine
    engine.clear_query_cache()
    bm25_only = engine.settings.override(**CONFIGS["bm25_only"].overrides)
    assert engine.start(QUESTION, None, bm25_only).pending_vector is None
    engine.query(QUESTION)  # caches the vector
    assert engine.start(QUESTION, None, engine.settings).pending_vector is None


def test_results_are_the_same_with_and_without_a_cached_vector(dense_atlas):
    engine = dense_atlas.engine
    engine.clear_query_cache()
    ahead = engine.query(QUESTION)
    cached = engine.query(QUESTION)
    assert [(f.id, f.score) for f in ahead.fused] == [(f.id, f.score) for f in cached.fused]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_process_queries_with_its_own_encoder_threads(dense_atlas):
    # A fork inherits the pool object but not its threads: a child that reused it waited forever.
    engine = dense_atlas.engine
    engine.clear_query_cache()
    engine.query(QUESTION)  # the parent's pool exists and has a thread
    pid = os.fork()
    if pid == 0:  # the child: a different query, so its vector is not cached
        signal.alarm(60)
        try:
            ok = bool(engine.query("who may convey a covered work").fused)
        finally:
            os._exit(0 if ok else 3)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status


def test_the_install_check_runs_before_the_first_build_only(dense_atlas, monkeypatch):
    """`available` searches sys.path (two finds per query before): an engine that has built its embedder does
    not ask again, and one that has not still says what is missing."""
    from ohara_lab.embed import registry  # noqa: PLC0415

    engine = dense_atlas.engine
    engine.query(QUESTION)  # built
    monkeypatch.setattr(registry, "available", lambda name: pytest.fail("asked again after the build"))
    engine.clear_query_cache()
    assert "vector" not in engine.query(QUESTION + " and again").skipped
    monkeypatch.setattr(registry, "available", lambda name: False)
    engine._embedders.clear()
    try:
        assert "not installed" in engine.query(QUESTION + " once more").skipped["vector"]
    finally:
        engine._embedders.clear()


def test_the_words_document_frequencies_are_read_while_the_query_is_embedded(dense_atlas, monkeypatch):
    """While the vector is still being made on another core the engine reads what answerability will read
    whatever the vector (the query's document frequencies, cached per graph version): before the vector phase
    returns, not after it; the results are those of a serial run."""
    import threading  # noqa: PLC0415
    import time  # noqa: PLC0415

    engine, store = dense_atlas.engine, dense_atlas.store
    question = "which consumer devices are locked down by rules"
    engine.clear_query_cache()
    serial = engine.query(question)
    embedder = engine._query_embedder(engine.settings, store.vector_models())[0]
    real, started = embedder.embed, threading.Event()

    def slow(texts, kind="document"):
        started.set()
        time.sleep(0.2)  # still embedding when the main thread reaches the vector phase
        return real(texts, kind)

    monkeypatch.setattr(embedder, "embed", slow)
    store.__dict__.pop("_fts_cache", None)  # forget every document frequency
    engine.clear_query_cache()
    state = engine.start(question, None, engine.settings)
    assert started.wait(5)
    engine.retrieve(state)
    counted = store.__dict__["_fts_cache"]["df"]
    assert set(state.query.keywords) <= set(counted)
    ahead = engine.finish(state)
    assert [(f.id, f.score) for f in ahead.fused] == [(f.id, f.score) for f in serial.fused]
    assert ahead.answerability.to_dict() == serial.answerability.to_dict()


def test_nothing_is_read_ahead_for_answerability_under_the_corroboration_rule(dense_atlas, monkeypatch):
    # OHARA_ABSTAIN=rule assesses nothing: the wait for the vector reads nothing for it (a remote store pays each read).
    import threading  # noqa: PLC0415
    import time  # noqa: PLC0415

    engine, store = dense_atlas.engine, dense_atlas.store
    embedder = engine._query_embedder(engine.settings, store.vector_models())[0]
    real, started = embedder.embed, threading.Event()

    def slow(texts, kind="document"):
        started.set()
        time.sleep(0.2)
        return real(texts, kind)

    monkeypatch.setattr(embedder, "embed", slow)
    reads: list[object] = []
    monkeypatch.setattr(engine, "_while_encoding", reads.append)
    for abstain, expected in (("rule", 0), ("model", 1)):
        engine.clear_query_cache()
        state = engine.start("which consumer devices are locked down by rules", None,
                             engine.settings.override(abstain=abstain))
        assert started.wait(5)
        engine.retrieve(state)
        assert len(reads) == expected, abstain
        started.clear()
        reads.clear()
