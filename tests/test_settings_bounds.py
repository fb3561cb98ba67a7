"""Every numeric setting declares its range and is held to it wherever settings are made (issue 28, point 6).

Before: `OHARA_PPR_DAMPING=1.5`, negative weights and `nan` were taken silently and gave
NaN scores; `OHARA_RESULT_LIMIT=0` and `--weight bm25=nan` ended in tracebacks.
"""
from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import fields

import numpy as np
import pytest

from ohara_lab.errors import SettingsError
from ohara_lab.settings import ORIGINAL_PROFILE, Settings, describe

from tests.support import offline_env

# (variable, value as set, the range its message must name)
HOSTILE_ENV = [
    ("OHARA_PPR_DAMPING", "1.5", "[0, 1)"),
    ("OHARA_PPR_DAMPING", "1", "[0, 1)"),
    ("OHARA_RESULT_LIMIT", "0", "[1, 100000]"),
    ("OHARA_RESULT_LIMIT", "-3", "[1, 100000]"),
    ("OHARA_RESULT_LIMIT", "2.5", "[1, 100000]"),
    ("OHARA_RESULT_LIMIT", "99999999999999999999999", "[1, 100000]"),
    ("OHARA_BM25_WEIGHT", "nan", "[0, 100]"),
    ("OHARA_VECTOR_WEIGHT", "-0.5", "[0, 100]"),
    ("OHARA_PPR_WEIGHT", "inf", "[0, 100]"),
    ("OHARA_TEMPORAL_WEIGHT", "-inf", "[0, 100]"),
    ("OHARA_CROSS_DOC_WEIGHT", "1e308", "[0, 100]"),
    ("OHARA_ABSTAIN_KEEP", "0", "(0, 1]"),
    ("OHARA_PRINCIPAL_SCORE_PCTL", "1.01", "[0, 1]"),
    ("OHARA_ANALYTICS_SEED", "-1", "[0, 4294967295]"),
    ("OHARA_CRAWL_DEPTH", "-2", "[-1, 1000000]"),
    ("OHARA_WEB_TIMEOUT_S", "0", "(0, 86400]"),
    ("OHARA_LLM_BUDGET_USD", "-1", "[0, 1000000]"),
    ("OHARA_API_MAX_BODY_KB", "0", "[1, 1048576]"),
    ("OHARA_API_HEADER_TIMEOUT_S", "nan", "(0, 3600]"),
    ("OHARA_API_MAX_CONNECTIONS", "0", "[1, 100000]"),
]


def _kind(f) -> str:
    return str(f.type).split("|")[0].strip()


def test_every_numeric_setting_declares_its_range():
    numeric = [f for f in fields(Settings) if _kind(f) in ("int", "float")]
    assert len(numeric) > 80
    assert [f.name for f in numeric if not f.metadata.get("bounds")] == []
    assert [f.name for f in fields(Settings) if _kind(f) not in ("int", "float") and f.metadata.get("bounds")] == []


def test_describe_gives_each_range():
    docs = {d.env: d for d in describe()}
    assert docs["OHARA_PPR_DAMPING"].bounds == "[0, 1)" and docs["OHARA_ABSTAIN_KEEP"].bounds == "(0, 1]"
    assert docs["OHARA_RESULT_LIMIT"].bounds == "[1, 100000]" and docs["OHARA_NER"].bounds == ""


@pytest.mark.parametrize(("var", "value", "bounds"), HOSTILE_ENV, ids=[f"{v}={x}" for v, x, _ in HOSTILE_ENV])
def test_a_bad_number_in_the_environment_is_one_error_naming_variable_value_and_range(var, value, bounds):
    with pytest.raises(SettingsError) as caught:
        Settings.from_env({var: value})
    message = str(caught.value)
    assert message.startswith(f"{var}=") and bounds in message and "\n" not in message
    shown = message.split("=", 1)[1].split(":", 1)[0].strip("'")
    assert shown == value or float(shown) == float(value) or (math.isnan(float(value)) and shown == "nan")


@pytest.mark.parametrize("changes", [
    {"ppr_damping": 1.5}, {"bm25_weight": -1.0}, {"vector_weight": float("nan")}, {"ppr_weight": float("inf")},
    {"bm25_weight": np.float64("nan")}, {"result_limit": 0}, {"limit": 0}, {"result_limit": True},
    {"result_limit": 2.5}, {"result_limit": "0"}, {"depth": 10**30}, {"abstain_keep": 0.0},
], ids=repr)
def test_kwargs_and_per_call_overrides_are_held_to_the_same_ranges(changes):
    base = Settings()
    with pytest.raises(SettingsError, match=r"^OHARA_[A-Z_0-9]+=.*must be (an integer|a finite number) in [\[(]"):
        base.override(**changes)
    with pytest.raises(SettingsError):
        Settings.from_env({}, **changes)
    field_changes = {("result_limit" if k == "limit" else k): v for k, v in changes.items()}
    with pytest.raises(SettingsError):
        Settings(**field_changes)
    assert base == Settings()  # nothing half-applied


def test_the_ends_of_a_range_follow_its_brackets():
    s = Settings()
    assert s.override(ppr_damping=0.0).ppr_damping == 0.0 and s.override(ppr_damping=0.999).ppr_damping == 0.999
    assert s.override(abstain_keep=1.0).abstain_keep == 1.0 and s.override(crawl_depth=-1).crawl_depth == -1
    assert s.override(result_limit=100000).result_limit == 100000 and s.override(bm25_weight=100).bm25_weight == 100
    assert s.override(result_limit=np.int64(7)).result_limit == 7  # numpy integers are integers
    assert s.override(llm_budget_usd=None).llm_budget_usd is None  # an optional number may be unset
    for changes in ({"ppr_damping": 1.0}, {"abstain_keep": 0.0}, {"crawl_depth": -2}, {"result_limit": 100001},
                    {"bm25_weight": 100.0001}):
        with pytest.raises(SettingsError):
            s.override(**changes)


def test_every_default_and_the_original_profile_lie_in_range():
    assert Settings.from_env({}).ppr_damping == 0.5
    original = Settings.from_env({"OHARA_PROFILE": "original"})
    assert {k: getattr(original, k) for k in ORIGINAL_PROFILE} == ORIGINAL_PROFILE


def test_a_query_with_an_out_of_range_override_is_refused_and_the_atlas_answers_as_before(samples_atlas):
    text = "Which licence versions replaced the earlier ones, and when?"
    before = [(f.id, f.score) for f in samples_atlas.query(text).fused]
    for changes in ({"ppr_damping": 1.5}, {"bm25_weight": -1.0}, {"vector_weight": float("nan")}, {"limit": 0}):
        with pytest.raises(SettingsError, match="must be"):
            samples_atlas.query(text, **changes)
    after = [(f.id, f.score) for f in samples_atlas.query(text).fused]
    assert after == before and all(math.isfinite(score) for _, score in after)


def _ohara(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ohara_lab.cli", *args], env={**offline_env(), **env},
                          capture_output=True, text=True, timeout=180)


@pytest.mark.parametrize(("args", "env", "line"), [
    (["query", "licences"], {"OHARA_RESULT_LIMIT": "0"},
     "OHARA_RESULT_LIMIT=0: result_limit must be an integer in [1, 100000]"),
    (["query", "licences"], {"OHARA_PPR_DAMPING": "1.5"},
     "OHARA_PPR_DAMPING=1.5: ppr_damping must be a finite number in [0, 1)"),
    (["query", "licences", "--weight", "bm25=nan"], {},
     "OHARA_BM25_WEIGHT=nan: bm25_weight must be a finite number in [0, 100]"),
    (["query", "licences", "--limit", "0"], {}, "OHARA_RESULT_LIMIT=0: result_limit must be an integer in [1, 100000]"),
    (["stats"], {"OHARA_BM25_WEIGHT": "-1"}, "OHARA_BM25_WEIGHT=-1.0: bm25_weight must be a finite number in [0, 100]"),
    (["settings"], {"OHARA_PPR_DAMPING": "1.5"}, "OHARA_PPR_DAMPING=1.5: ppr_damping must be a finite number in [0, 1)"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_the_cli_turns_a_bad_setting_into_one_line_and_exit_2(samples_atlas_dir, args, env, line):
    proc = _ohara(*args, *(["--atlas", str(samples_atlas_dir)] if args[0] != "settings" else []), **env)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [f"ohara: error: {line}"] and proc.stdout == ""


def test_ohara_settings_shows_each_range():
    proc = _ohara("settings")
    assert proc.returncode == 0, proc.stderr
    row = next(line for line in proc.stdout.splitlines() if line.startswith("OHARA_PPR_DAMPING "))
    assert row.split()[:3] == ["OHARA_PPR_DAMPING", "0.5", "[0,"] and "1)" in row.split()[3]
