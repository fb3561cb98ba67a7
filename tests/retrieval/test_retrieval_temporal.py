import math
from datetime import date

import pytest

from ohara_lab.retrieval.hits import Contribution, Fused
from ohara_lab.retrieval.temporal import apply_prior, coverage, prior
from ohara_lab.settings import Settings

TODAY = date(2024, 1, 1)
S = Settings(temporal_weight=0.2)


def test_current_state_decays_by_class():
    doc = {"published_date": "2023-01-01", "effective_decay_class": "CURRENT"}
    delta = (TODAY - date(2023, 1, 1)).days  # 365
    assert prior(doc, "current_state", {}, S, TODAY) == pytest.approx(0.2 * math.exp(-0.01 * delta))
    evergreen = {**doc, "effective_decay_class": "EVERGREEN"}
    assert prior(evergreen, "current_state", {}, S, TODAY) == pytest.approx(0.2 * math.exp(-0.000001 * delta))


def test_historical_age_and_coverage():
    doc = {"published_date": "2014", "temporal_coverage_start": "2008", "temporal_coverage_end": "2014"}
    rng = {"from": "2009-01-01", "to": "2010-12-31"}
    c = coverage(doc, rng)
    assert c == 1.0
    age = 1 - math.exp(-0.000274 * (TODAY - date(2014, 1, 1)).days)
    assert prior(doc, "historical_fact", rng, S, TODAY) == pytest.approx(0.2 * (0.7 * 1.0 + 0.3 * age))


def test_partial_coverage_share_of_query_span():
    doc = {"published_date": "2010-06-30"}
    rng = {"from": "2010-01-01", "to": "2010-12-31"}
    # one day of overlap over a 364-day query span
    assert coverage(doc, rng) == pytest.approx(1 / 364)


def test_no_date_and_future_dates():
    assert prior({}, "current_state", {"from": "2020-01-01", "to": None}, S, TODAY) == 0.0
    assert prior({"published_date": "2030-01-01"}, "current_state", {}, S, TODAY) == 0.0
    assert prior({"published_date": "2020-01-01"}, "none", {}, S, TODAY) == 0.0


def _entry(nid, score, bm25_norm=None):
    contribs = []
    if bm25_norm is not None:
        contribs.append(Contribution("bm25", bm25_norm, bm25_norm * 10, bm25_norm, 1.0, "d/1"))
    return Fused(nid, "d/1", score, contribs)


def test_guards_principal_immunity_lexical_shield_and_ordering():
    docs = {"d/1": {"published_date": "2023-12-31", "effective_decay_class": "CURRENT"}}
    a, b, c = _entry("a", 1.0, bm25_norm=1.0), _entry("b", 0.5), _entry("c", 0.4, bm25_norm=0.2)
    out = apply_prior([a, b, c], docs, "current_state", {}, S, protected={"b"}, today=TODAY)
    got = {f.id: (round(f.temporal, 6), f.temporal_reason) for f in out}
    assert got["a"] == (0.0, "lexical_shield")
    assert got["b"] == (0.0, "principal_immune")
    assert got["c"][0] == pytest.approx(0.2 * math.exp(-0.01), abs=1e-6)
    assert c.families == {"bm25"}  # the prior never becomes a signal family
    out = apply_prior([_entry("d", 0.3)], docs, "ordering", {}, S, protected=set(), today=TODAY)
    assert out[0].temporal == 0.0
