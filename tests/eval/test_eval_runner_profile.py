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
