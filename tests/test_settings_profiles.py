"""Profiles: the spec's engine one switch away, explicit settings winning over a profile."""
from __future__ import annotations

import pytest

from ohara_lab.errors import SettingsError
from ohara_lab.settings import ORIGINAL_PROFILE, Settings


def test_the_original_profile_sets_the_spec_engine_from_the_environment():
    s = Settings.from_env({"OHARA_PROFILE": "original"})
    assert s.profile == "original"
    assert {k: getattr(s, k) for k in ORIGINAL_PROFILE} == ORIGINAL_PROFILE
    assert s.normalisation == "max" and s.ppr_weight == 0.0 and s.abstain == "rule"


def test_an_explicit_variable_wins_over_the_profile():
    s = Settings.from_env({"OHARA_PROFILE": "original", "OHARA_VECTOR_WEIGHT": "0.9"})
    assert s.vector_weight == 0.9 and s.bm25_weight == ORIGINAL_PROFILE["bm25_weight"]


def test_a_per_call_profile_switch_then_the_other_overrides():
    default = Settings.from_env({})
    original = default.override(profile="original", bm25_weight=0.6)
    assert original.bm25_weight == 0.6 and original.normalisation == "max" and original.ppr_weight == 0.0
    back = original.override(profile="default")
    assert {k: getattr(back, k) for k in ORIGINAL_PROFILE} == {k: getattr(default, k) for k in ORIGINAL_PROFILE}


def test_unknown_profile_is_an_error_naming_the_known_ones():
    with pytest.raises(SettingsError, match="default or original"):
        Settings.from_env({"OHARA_PROFILE": "tuned"})
