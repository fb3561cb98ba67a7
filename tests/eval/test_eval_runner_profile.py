"""`run_matrix(profile=...)`: every config starts from the named engine; configs naming their own keep it."""
from __future__ import annotations

from pathlib import Path

import pytest

from ohara_lab.eval.build import build_atlas
from ohara_lab.eval.datasets.registry import load_dataset
from ohara_lab.eval.runner import run_matrix

FIXTURE = Path(__file__).parent / "fixtures" / "runner"


@pytest.fixture(scope="module")
def fixture_atlas(tmp_path_factory):
    ds = load_dataset(str(FIXTURE))
    built = build_atlas(ds, tmp_path_factory.mktemp("atlases"), embedder="none", progress=False)
    yield ds, built
    built.close()


def _ranked(run, name):
    return {qid: r.ranked for qid, r in run.runs[name].results.items()}


def test_full_under_the_original_profile_is_the_original_config(fixture_atlas):
    ds, built = fixture_atlas
    paper = run_matrix(ds, built, "full,original", profile="original", n_resamples=100, progress=False)
    assert paper.runs["full"].overrides["profile"] == "original"
    assert _ranked(paper, "full") == _ranked(paper, "original")
    default = run_matrix(ds, built, "full,original", profile="default", n_resamples=100, progress=False)
    assert _ranked(default, "original") == _ranked(paper, "original")  # a config's own profile wins
    assert default.runs["full"].overrides["profile"] == "default"
    assert _ranked(default, "full") != _ranked(paper, "full")  # the two engines rank differently


def test_against_rows_compares_every_config_with_the_named_baseline(fixture_atlas):
    from ohara_lab.eval.report import against_rows

    ds, built = fixture_atlas
    run = run_matrix(ds, built, "bm25_only,full", profile="default", n_resamples=100, progress=False)
    rows = against_rows(run, "bm25_only", metrics=("recall@5", "mrr@10"))
    assert {(r["config"], r["baseline"], r["metric"]) for r in rows} == {
        ("full", "bm25_only", "recall@5"), ("full", "bm25_only", "mrr@10")}
    for r in rows:
        assert r["diff"] == round(r["mean_config"] - r["mean_baseline"], 4) and 0.0 <= r["p_value"] <= 1.0
    assert against_rows(run, "vector_only") == []  # a baseline that did not run


def test_half_keeps_one_seeded_half_of_the_queries(fixture_atlas):
    from ohara_lab.errors import UsageError
    from ohara_lab.eval.runner import half
    from ohara_lab.eval.tuning import split_queries

    ds, _ = fixture_atlas
    tune, test = split_queries(ds, 0.5, 42)
    assert [q.id for q in half(ds, "test", 42).queries] == [q.id for q in ds.queries if q.id in set(test)]
    assert [q.id for q in half(ds, "tune", 42).queries] == [q.id for q in ds.queries if q.id in set(tune)]
    assert half(ds, None) is ds and half(ds, "test").documents == ds.documents
    with pytest.raises(UsageError, match="tune or test"):
        half(ds, "train")
