"""A model that cannot be read names itself once and the engine abstains by the corroboration rule."""
from __future__ import annotations

import logging

import pytest

from ohara_lab import Atlas
from ohara_lab.errors import AnswerabilityError
from ohara_lab.retrieval.answerability import model as model_module
from ohara_lab.retrieval.answerability.model import default_model, meta_key

from tests.support import OFFLINE

QUESTION = "What does the GPL require of distributors?"


def _rule_result(atlas: Atlas, caplog: pytest.LogCaptureFixture, expected: str):
    with caplog.at_level(logging.WARNING, logger="ohara_lab.retrieval.engine"):
        result = atlas.query(QUESTION, abstain="model")
        again = atlas.query(QUESTION, abstain="model")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and expected in warnings[0] and "corroboration rule" in warnings[0]
    rule = atlas.query(QUESTION, abstain="features")
    assert result.answerability.score is None and result.answerability.abstain == rule.answerability.abstain
    assert [f.id for f in result.tiers.principal] == [f.id for f in rule.tiers.principal]
    assert [f.id for f in again.fused] == [f.id for f in result.fused]


def test_a_corrupt_atlas_model_falls_back_to_the_rule(fresh_copy, caplog):
    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        lexical = atlas.engine.answerability_model(atlas.settings.override(abstain="model")).lexical
        atlas.store.set_meta(meta_key(lexical), {"features": ["dense_top1"], "coef": "garbage"})
    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        _rule_result(atlas, caplog, "the atlas's")


@pytest.mark.parametrize(("name", "reason"), [("no_such_model.json", "No such file"),
                                               ("__init__.py", "JSONDecodeError")])
def test_a_missing_or_unreadable_shipped_model_is_named(fresh_copy, caplog, monkeypatch, name, reason):
    monkeypatch.setattr(model_module, "DEFAULT_MODEL", name)
    monkeypatch.setattr(model_module, "DEFAULT_LEXICAL_MODEL", name)
    with pytest.raises(AnswerabilityError, match=f"{name}.*{reason}"):
        default_model()
    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        _rule_result(atlas, caplog, name)
