"""The engine's declared extension points: registered steps run where they are declared and are named."""
from __future__ import annotations

import pytest

from ohara_lab.errors import UsageError
from ohara_lab.retrieval.engine import Engine
from ohara_lab.retrieval.extensions import Extensions


def test_registered_steps_run_in_order_and_are_named_in_steps_and_explain(samples_atlas):
    seen: list[str] = []
    points = Extensions()
    points.register("fingerprint", "probe", lambda state: seen.append("fingerprint"))
    points.register("after_bm25", "probe", lambda state, store: seen.append("after_bm25"))
    points.register("after_tiers", "probe", lambda result, state: seen.append("after_tiers"))
    points.register("toc_selector", "none", lambda query, tree: [])
    engine = Engine(samples_atlas.store, samples_atlas.settings, points)
    result = engine.query("GNU General Public License patents")
    assert seen == ["fingerprint", "after_bm25", "after_tiers"]
    steps = result.steps
    for label in ("fingerprint:probe", "after_bm25:probe", "after_tiers:probe"):
        assert label in steps and label in result.timings_ms
    assert steps.index("fingerprint:probe") < steps.index("bm25") < steps.index("after_bm25:probe") \
        < steps.index("tiers") < steps.index("after_tiers:probe")
    assert "steps run:" in result.explain(result.results[0].id)
    assert points.describe() == ["fingerprint:probe", "toc_selector:none", "after_bm25:probe", "after_tiers:probe"]


def test_unknown_point_and_duplicate_names_are_refused():
    points = Extensions()
    with pytest.raises(UsageError, match="after_tiers"):
        points.register("before_everything", "x", lambda: None)
    points.register("after_tiers", "x", lambda r, s: None)
    with pytest.raises(UsageError, match="already registered"):
        points.register("after_tiers", "x", lambda r, s: None)


def test_the_atlas_engine_declares_the_llm_steps_and_the_speculative_prewarm(samples_atlas):
    assert samples_atlas.engine.extensions.describe() == [
        "toc_selector:lexical", "after_bm25:reasoning", "after_tiers:integrity_verify", "after_tiers:self_rag",
        "after_tiers:rerank", "after_tiers:speculative"]
    assert not hasattr(samples_atlas.engine, "after_tiers")  # no attribute left to patch
