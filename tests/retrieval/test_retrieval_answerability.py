"""Answerability: the features on a real atlas, the model's conformal threshold, refusals of bad models."""
from __future__ import annotations

import json
import math

import pytest

from ohara_lab.errors import AnswerabilityError
from ohara_lab.retrieval.answerability import FEATURE_VERSION, FEATURES, AnswerabilityModel, meta_key
from ohara_lab.retrieval.answerability.features import LEXICAL_FEATURES
from ohara_lab.retrieval.answerability.features import query_names, relation_words
from ohara_lab.retrieval.answerability.model import default_model

from tests.support import OFFLINE


def _model(features=FEATURES, **changes) -> AnswerabilityModel:
    n = len(features)
    base = {"features": list(features), "mean": [0.0] * n, "scale": [1.0] * n, "coef": [0.0] * (n - 1) + [1.0],
            "intercept": 0.0, "calibration_scores": [0.1 * i for i in range(1, 10)]}
    return AnswerabilityModel(**{**base, **changes})


def test_conformal_threshold_is_the_floor_n_plus_one_quantile():
    m = _model()  # 9 calibration scores 0.1 .. 0.9
    assert m.threshold(0.8) == pytest.approx(0.2)  # k = floor(10 * 0.2) = 2 -> second smallest
    assert m.threshold(0.9) == pytest.approx(0.1)  # k = 1
    assert m.threshold(0.95) == -math.inf  # k = 0: too few calibration queries to abstain at all
    with pytest.raises(AnswerabilityError):
        m.threshold(0.0)


def test_score_is_the_logistic_of_the_standardised_features():
    m = _model(mean=[0.5] * len(FEATURES), scale=[0.25] * len(FEATURES))
    values = dict.fromkeys(FEATURES, 0.5) | {FEATURES[-1]: 1.0}
    assert m.score(values) == pytest.approx(1 / (1 + math.exp(-2.0)))
    assert m.contributions(values)[FEATURES[-1]] == pytest.approx(2.0)


def test_a_model_of_another_feature_version_or_a_corrupt_one_is_refused_naming_ohara_calibrate():
    old = {**_model().to_dict(), "feature_version": FEATURE_VERSION + 1}
    with pytest.raises(AnswerabilityError, match="ohara calibrate"):
        AnswerabilityModel.from_dict(old, "x")
    with pytest.raises(AnswerabilityError, match="ohara calibrate"):
        AnswerabilityModel.from_dict({"coef": [1]}, "x")
    bad_scale = {**_model().to_dict(), "scale": [0.0] * len(FEATURES)}
    with pytest.raises(AnswerabilityError, match="corrupt"):
        AnswerabilityModel.from_dict(bad_scale, "x")


def test_the_shipped_models_load():
    from ohara_lab.eval.calibrate import MODEL_FEATURES
    from ohara_lab.retrieval.answerability.features import DENSE_FEATURES

    for lexical in (False, True):
        m = default_model(lexical)
        assert m.features == [f for f in MODEL_FEATURES if not (lexical and f in DENSE_FEATURES)]
        assert m.lexical == lexical and len(m.calibration_scores) >= 20 and len(m.twin_calibration) >= 20
        assert m.provenance.get("trained_on") and all(c >= 0 for f, c in zip(m.features, m.coef)
                                                        if f != "fused_spread_rel")


def test_an_undefined_feature_reads_as_the_mean_and_adds_nothing():
    m = _model(mean=[0.5] * len(FEATURES), scale=[0.25] * len(FEATURES), coef=[1.0] * len(FEATURES))
    values = dict.fromkeys(FEATURES, 0.5)
    assert m.score({**values, FEATURES[0]: None}) == m.score(values) == 0.5
    assert m.contributions({**values, FEATURES[0]: None})[FEATURES[0]] == 0.0


def test_on_the_atlas_scale_the_threshold_is_a_quantile_of_its_twin_scores():
    m = _model(twin_calibration=[0.1 * i for i in range(1, 10)])  # u's of 9 calibration queries
    twins = [i / 10 for i in range(11)]  # this atlas's sorted twin scores 0.0 .. 1.0
    assert m.threshold(0.8, twins) == pytest.approx(0.2)  # u* = 0.2 (second smallest): its 0.2-quantile
    assert m.threshold(0.8) == pytest.approx(0.2)  # without twins: the calibration scores (0.1 .. 0.9)
    assert m.threshold(0.8, [0.5 + t / 2 for t in twins]) == pytest.approx(0.6)  # a higher-scoring atlas
    assert m.threshold(0.95, twins) == -math.inf


def test_query_names_and_relation_words():
    q = "Who was the spouse of the director of The Birds of Paradise?"
    names = query_names(q)
    assert names == ["The Birds of Paradise"]
    assert relation_words(q, names) == ["spouse", "director"]
    assert query_names("When was GPL version 3 published?") == ["GPL"]


def test_features_on_the_sample_atlas_separate_a_covered_question_from_a_foreign_one(samples_atlas):
    good = samples_atlas.query("What did version 3 of the GNU General Public License add about patents?",
                               abstain="features")
    odd = samples_atlas.query("Which striker scored twice for Arsenal against Chelsea in the 2023 cup final?",
                              abstain="features")
    a, b = good.answerability, odd.answerability
    assert set(FEATURES) <= set(a.features) and a.score is None  # features mode: no model, no decision
    assert a.features["term_coverage"] > b.features["term_coverage"]
    assert a.features["bm25_relative"] > b.features["bm25_relative"]
    assert b.features["entity_coverage"] is not None and b.features["entity_coverage"] < 1.0
    assert "answerability" in good.to_dict() and good.to_dict()["answerability"]["features"] == a.features


def test_model_mode_abstains_below_the_threshold_and_says_why(fresh_copy):
    from ohara_lab import Atlas

    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        # A model whose only weight is term coverage, calibrated so that full coverage is needed; the
        # atlas has no vectors, so the lexical model is the one read.
        n = len(LEXICAL_FEATURES)
        coef = [0.0] * n
        coef[LEXICAL_FEATURES.index("term_coverage")] = 5.0
        model = _model(LEXICAL_FEATURES, coef=coef, mean=[0.5] * n, scale=[0.5] * n, calibration_scores=[0.99] * 30)
        atlas.store.set_meta(meta_key(lexical=True), model.to_dict())
        atlas._after_write()
        odd = atlas.query("Which striker scored twice for Arsenal against Chelsea in the cup final?",
                          abstain="model", abstain_keep=0.5)
        assert odd.abstained and odd.tiers.principal == [] and odd.answerability.abstain
        assert "threshold" in odd.abstain_reason
        d = odd.to_dict()
        assert d["abstained"] and d["abstain_reason"] == odd.abstain_reason
        assert d["answerability"]["keep"] == 0.5 and d["answerability"]["threshold"] == pytest.approx(0.99)
        atlas.store.set_meta(meta_key(lexical=True), {**model.to_dict(), "feature_version": 0})
        atlas._after_write()
        stale = atlas.query("GPL", abstain="model")  # a model of other features: the rule decides, with a warning
        assert stale.answerability.score is None and stale.answerability.model == {}


def test_rule_mode_computes_nothing(samples_atlas):
    result = samples_atlas.query("GNU General Public License", abstain="rule")
    assert result.answerability is None and "answerability" not in result.steps
    assert json.dumps(result.to_dict())  # the contract stays serialisable


def test_vectors_the_shipped_dense_model_never_read_are_scored_by_the_lexical_model(fresh_copy):
    from ohara_lab import Atlas
    from ohara_lab.retrieval.answerability import SHIPPED_VECTOR_MODEL, reads_lexical

    assert reads_lexical(None, own_dense_model=True)  # no vectors: always lexical
    assert not reads_lexical(SHIPPED_VECTOR_MODEL, own_dense_model=False)
    assert reads_lexical("wordllama:l2_supercat_256", own_dense_model=False)  # another scale of cosines
    assert not reads_lexical("wordllama:l2_supercat_256", own_dense_model=True)  # unless calibrated on this atlas
    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        settings = atlas.settings.override(abstain="model")
        assert atlas.engine.answerability_model(settings, SHIPPED_VECTOR_MODEL).lexical is False
        assert atlas.engine.answerability_model(settings, "gemini:text-embedding-004").lexical is True
        own = _model(FEATURES, coef=[0.1] * len(FEATURES), mean=[0.5] * len(FEATURES), scale=[1.0] * len(FEATURES),
                     calibration_scores=[0.5] * 30)
        atlas.store.set_meta(meta_key(lexical=False), own.to_dict())
        atlas._after_write()
        chosen = atlas.engine.answerability_model(settings, "gemini:text-embedding-004")
        assert chosen.lexical is False and chosen.coef == own.coef  # the atlas's own dense model


def test_explain_reads_the_decision_in_words(samples_atlas):
    found = samples_atlas.query("What does the GPL require of distributors?", abstain="model").answerability
    text = found.explain()
    first, *rest = text.splitlines()
    assert f"{found.score:.3f}" in first and f"{found.threshold:.3f}" in first
    assert ("answers" in first) != found.abstain and "probe twins" in first
    biggest = max(found.contributions, key=lambda n: abs(found.contributions[n]))
    assert biggest in rest[0]  # strongest contribution first
    assert any("of the twins" in line for line in rest if line.split()[1] in found.relative)
    none = samples_atlas.query("zqxv wpfkj ghrrt", abstain="model").answerability
    assert none.explain() == f"answerability: abstains before the model: {none.reason}"
