"""`ohara calibrate`'s fitting: out-of-fold calibration scores, class checks."""
from __future__ import annotations

import random

import pytest

from ohara_lab.errors import UsageError
from ohara_lab.eval.calibrate import Row, fit
from ohara_lab.retrieval.answerability import FEATURES


def _rows(n_pos: int, n_neg: int, seed: int = 1) -> list[Row]:
    rng = random.Random(seed)
    rows = []
    for i in range(n_pos):
        rows.append(Row(f"a{i}", "answerable", {f: rng.gauss(0.7, 0.15) for f in FEATURES}))
    for i in range(n_neg):
        rows.append(Row(f"n{i}", "heldout", {f: rng.gauss(0.4, 0.15) for f in FEATURES}))
    return rows


def test_fit_separates_and_calibrates_on_out_of_fold_answerable_scores():
    model = fit(_rows(40, 30))
    assert len(model.calibration_scores) == 40 and model.calibration_scores == sorted(model.calibration_scores)
    assert model.provenance["rows"] == {"answerable": 40, "heldout": 30} and model.provenance["folds"] == 5
    pos = [model.score(r.features) for r in _rows(40, 0, seed=7)]
    neg = [model.score(r.features) for r in _rows(0, 30, seed=8)]
    assert sum(pos) / len(pos) > sum(neg) / len(neg)
    t = model.threshold(0.92)  # k = floor(41 * 0.08) = 3: the third smallest calibration score
    assert t == model.calibration_scores[2]
    assert fit(_rows(40, 30)).coef == model.coef  # deterministic


def test_one_class_or_too_few_is_refused_unless_allowed():
    with pytest.raises(UsageError, match="answerable and unanswerable"):
        fit(_rows(30, 0))
    with pytest.raises(UsageError, match="--allow-small"):
        fit(_rows(30, 8))
    assert fit(_rows(30, 8), allow_small=True).provenance["rows"]["heldout"] == 8
