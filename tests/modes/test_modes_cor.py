"""Chain-of-Retrieval over the sample corpus, offline."""
from __future__ import annotations

import json

from ohara_lab.modes import MODES, ModeResult, run_mode
from ohara_lab.errors import UsageError

import pytest

QUESTION = "Which licence superseded the GNU General Public License version 2 and what did it add?"
NOTHING = "What is the boiling point of mercury in kelvin?"


def test_cor_reports_the_iterations_it_really_ran(atlas):
    result = atlas.query(QUESTION, mode="cor", cor_max_iter=5, cor_score_delta=10.0)
    d = result.to_dict()
    # The second run cannot raise the best score by 10: the chain stops there, not at the cap of 5.
    assert d["cor_iter_count"] == 2 and len(d["cor_queries"]) == 2 and d["cor_stopped_reason"] == "score_delta"
    first = atlas.query(QUESTION)
    seeds = [f"{x.edge_verb}: {x.edge_summary}" for x in first.tiers.explorer[:3]]
    assert seeds and d["cor_queries"][1] == f"{QUESTION} [context: {'; '.join(seeds)}]"
    assert d["mode"] == "cor" and d["cor"] is True
    json.dumps(d)


def test_cor_merges_both_runs_keeping_the_best_score(atlas):
    result = atlas.query(QUESTION, mode="cor", cor_max_iter=2, cor_score_delta=-1.0)
    assert isinstance(result, ModeResult) and result.extra["cor_iter_count"] == 2
    first = {f.id: f.score for f in atlas.query(QUESTION).fused}
    second = {f.id: f.score for f in atlas.query(result.extra["cor_queries"][1]).fused}
    merged = {f.id: f.score for f in result.fused}
    assert merged.keys() == first.keys() | second.keys()
    assert all(merged[i] == max(first.get(i, 0.0), second.get(i, 0.0)) for i in merged)
    iters = {row["id"]: row["cor_iter"] for row in result.to_dict()["results"]}
    assert set(iters.values()) <= {0, 1} and all((iters[i] == 1) == (second.get(i, -1) > first.get(i, -1))
                                                for i in iters)
    assert [f.score for f in result.fused] == sorted((f.score for f in result.fused), reverse=True)
    assert result.tiers.principal  # the last run's tiers


def test_cor_stops_without_frontier_seeds(atlas):
    result = atlas.query(NOTHING, mode="cor", cor_max_iter=4)
    assert result.extra["cor_iter_count"] == 1 and result.extra["cor_stopped_reason"] == "no_frontier_seeds"
    assert result.abstained and result.tiers.stopped_reason == "no_principal_seeds"


def test_cor_runs_to_the_cap_when_nothing_stops_it(atlas):
    result = atlas.query(QUESTION, mode="cor", cor_max_iter=3, cor_score_delta=-1.0)
    extra = result.extra
    assert extra["cor_iter_count"] == len(extra["cor_queries"])
    assert (extra["cor_stopped_reason"] == "max_iterations") == (extra["cor_iter_count"] == 3)


def test_unknown_mode_names_the_known_ones(atlas):
    with pytest.raises(UsageError, match="choose one of: standard, cor, agent"):
        run_mode(atlas, QUESTION, "deep")
    assert list(MODES) == ["standard", "cor", "agent"]
