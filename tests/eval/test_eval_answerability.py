"""Scoring the answerability model on labelled queries: AUROC with its CI, operating points, risk-coverage."""
from __future__ import annotations

from pathlib import Path

import pytest

from ohara_lab.eval import answerability as ans
from ohara_lab.eval.build import build_atlas
from ohara_lab.eval.datasets.registry import load_dataset
from ohara_lab.eval.holdout import make_unanswerable
from ohara_lab.retrieval.answerability.model import default_model

FIXTURE = Path(__file__).parent / "fixtures" / "runner"


def _rows(pos: list[float], neg: list[float], kind: str = "heldout") -> list[ans.Scored]:
    return ([ans.Scored(f"a{i}", "answerable", s, {}, principal_hit=i % 2 == 0) for i, s in enumerate(pos)]
            + [ans.Scored(f"n{i}", kind, s, {}, principal_hit=False) for i, s in enumerate(neg)])


def test_auroc_table_is_one_for_separated_scores_and_a_half_for_identical_ones():
    separated = ans.auroc_table(_rows([0.9, 0.8, 0.7], [0.1, 0.2]), resamples=200)
    assert separated == [{"null_kind": "heldout", "n_null": 2, "n_answerable": 3, "auroc": 1.0,
                          "ci_low": 1.0, "ci_high": 1.0}]
    tied = ans.auroc_table(_rows([0.5] * 4, [0.5] * 4), resamples=200)[0]
    assert tied["auroc"] == 0.5 and tied["ci_low"] <= 0.5 <= tied["ci_high"]
    both = ans.auroc_table(_rows([0.9], [0.1]) + _rows([], [0.95], kind="foreign"), resamples=50)
    assert [(r["null_kind"], r["auroc"]) for r in both] == [("foreign", 0.0), ("heldout", 1.0)]


def test_risk_coverage_keeps_the_most_confident_first():
    points = ans.risk_coverage(_rows([0.9, 0.8, 0.7, 0.6], []))  # hits at ranks 1 and 3
    assert [p["coverage"] for p in points] == [0.25, 0.5, 0.75, 1.0]
    assert [round(p["risk"], 3) for p in points] == [0.0, 0.5, 0.333, 0.5]


def test_coefficients_are_the_models_largest_first():
    model = default_model()
    rows = ans.coefficients(model)
    assert {r["feature"] for r in rows} == set(model.features)
    assert [abs(r["coefficient"]) for r in rows] == sorted((abs(r["coefficient"]) for r in rows), reverse=True)


@pytest.fixture(scope="module")
def fixture_atlas(tmp_path_factory):
    ds = make_unanswerable(load_dataset(str(FIXTURE)), 0.34, 42)
    built = build_atlas(ds, tmp_path_factory.mktemp("atlases"), embedder="none", progress=False)
    yield ds, built
    built.close()


def test_split_rows_scores_every_query_once_with_its_kind(fixture_atlas):
    ds, built = fixture_atlas
    model = default_model(lexical=True)
    rows = ans.split_rows(built, ds, model, split="all", foreign_limit=0)
    assert [r.query_id for r in rows] == [q.id for q in ds.queries]
    assert {r.kind for r in rows} == {"answerable", "heldout"}
    assert all(0.0 <= r.score <= 1.0 and set(r.features) >= set(model.features) for r in rows)
    assert not any(r.principal_hit for r in rows if r.kind != "answerable")
    points = ans.operating_points(rows, model)
    assert [p["keep"] for p in points] == list(ans.KEEPS)
    assert all(0.0 <= p["abstention_heldout"] <= 1.0 and p["n_heldout"] >= 1 for p in points)
    assert rows == ans.split_rows(built, ds, model, split="all", foreign_limit=0)  # deterministic
