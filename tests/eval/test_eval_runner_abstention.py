"""The abstention sweep's one-retrieval-per-query shortcut gives exactly what full queries give."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ohara_lab.errors import UsageError
from ohara_lab.eval import abstention
from ohara_lab.eval.build import build_atlas
from ohara_lab.eval.dataset import Dataset
from ohara_lab.eval.datasets.registry import load_dataset

FIXTURE = Path(__file__).parent / "fixtures" / "runner"
GRID = {"families": (1, 2, 3, 4), "pctls": (0.0, 0.75, 0.95), "bases": ("full", "no_many_angle")}


@pytest.fixture(scope="module")
def undated(tmp_path_factory):
    ds = load_dataset(str(FIXTURE))
    # without dates the temporal prior is zero everywhere, so the shortcut applies
    ds = Dataset("undated", [replace(d, published_at=None) for d in ds.documents], ds.queries)
    built = build_atlas(ds, tmp_path_factory.mktemp("atlases"), embedder="none", progress=False)
    yield ds, built
    built.close()


def test_shortcut_equals_full_queries(undated, monkeypatch):
    ds, built = undated
    exact = abstention.abstention_sweep(built, ds, exact=True, **GRID)

    def no_full_runs(*a, **k):
        raise AssertionError("the shortcut should not run full queries per grid point")

    monkeypatch.setattr(abstention, "run_config", no_full_runs)
    fast = abstention.abstention_sweep(built, ds, **GRID)
    assert fast == exact
    assert len(fast) == 4 * 3 * 2 and sum(r["is_default"] for r in fast) == 2


def test_needs_unanswerable_queries(undated):
    ds, built = undated
    answerable = Dataset("a", ds.documents, [q for q in ds.queries if not q.is_null])
    with pytest.raises(UsageError, match="no unanswerable"):
        abstention.abstention_sweep(built, answerable)


def test_queries_the_temporal_prior_touches_are_rerun_per_point(tmp_path, monkeypatch):
    ds = load_dataset(str(FIXTURE))
    latest = replace(ds.queries[0], id="q-latest", text="What is the latest ferry timetable for Port Halden?")
    ds = Dataset("dated", ds.documents, [*ds.queries, latest])
    built = build_atlas(ds, tmp_path, embedder="none", progress=False)
    try:
        grid = {"families": (1, 3), "pctls": (0.0, 0.9), "bases": ("full",)}
        exact = abstention.abstention_sweep(built, ds, exact=True, **grid)
        calls = []
        real = abstention.run_query
        monkeypatch.setattr(abstention, "run_query", lambda b, text, *a, **k: calls.append(text) or real(b, text, *a, **k))
        fast = abstention.abstention_sweep(built, ds, **grid)
    finally:
        built.close()
    assert fast == exact
    # one warm-up + one retrieval per query, then the dated current-state query once per grid point
    assert calls.count(latest.text) == 1 + 4
    assert len(calls) == 1 + len(ds.queries) + 4
