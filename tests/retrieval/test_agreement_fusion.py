"""Issue 31.2: BM25 joins the fusion in proportion to how far its top passages agree with dense retrieval's."""
import pytest

from ohara_lab.retrieval.fusion import agreement, agreement_weights
from ohara_lab.retrieval.hits import Hit
from ohara_lab.settings import Settings, profile_values


def bm25(ids: list[str]) -> dict[str, list[Hit]]:
    return {"bm25": [Hit(i, "d", "bm25", 10.0 - n) for n, i in enumerate(ids)]}


def dense(ids: list[str]) -> dict[str, float]:
    return {i: 1.0 - n / 100 for n, i in enumerate(ids)}


def test_agreement_is_the_shared_share_of_both_top_lists():
    # BM25 top 5 = a b c d e, dense top 5 = c a x y z: {a, c} shared -> 2 / 5.
    assert agreement(bm25(list("abcdefg")), dense(list("caxyzbd")), 5) == 0.4
    # Ranks beyond the cut do not count (b and d are dense's 6th and 7th).
    assert agreement(bm25(list("abcde")), dense(list("vwxyzbd")), 5) == 0.0
    # BM25's order is by score, not list order; a section is no passage.
    shuffled = {"bm25": [Hit("b", "d", "bm25", 1.0), Hit("a", "d", "bm25", 2.0),
                         Hit("sections/s1", "d", "bm25", 9.0)]}
    assert agreement(shuffled, dense(["a"]), 1) == 1.0
    assert agreement({}, dense(["a"]), 5) == 0.0 and agreement(bm25(["a"]), {}, 5) == 0.0


def test_bm25_weight_is_the_setting_times_agreement_times_the_mode_row():
    s = Settings(agreement_bm25_weight=0.5, adaptive_weights=False)
    w = agreement_weights({"bm25": 0.0, "ppr": 1.0}, bm25(list("abcde")), dense(list("abcxy")), s, "factoid")
    assert w["bm25"] == pytest.approx(0.5 * 0.6)
    s = Settings(agreement_bm25_weight=0.5, adaptive_weights=True)
    w = agreement_weights({"bm25": 0.0, "ppr": 0.8}, bm25(list("abcde")), dense(list("abcde")), s, "synthesis")
    assert w["bm25"] == pytest.approx(0.5 * 1.0 * 0.6)  # the synthesis row's BM25 multiplier is 0.6
    # A floor: a larger BM25 weight stays.
    assert agreement_weights({"bm25": 0.9, "ppr": 1.0}, bm25(list("abcde")), dense(list("abcde")), s,
                             "factoid")["bm25"] == 0.9


def test_off_by_default_without_a_walk_or_without_agreement():
    base = {"bm25": 0.0, "ppr": 1.0}
    hits, same = bm25(list("abcde")), dense(list("abcde"))
    assert agreement_weights(base, hits, same, Settings(), "factoid") == base
    on = Settings(agreement_bm25_weight=0.5)
    assert agreement_weights({"bm25": 0.0, "ppr": 0.0}, hits, same, on, "factoid")["bm25"] == 0.0
    assert agreement_weights(base, hits, dense(list("vwxyz")), on, "factoid") == base
    assert profile_values("original")["agreement_bm25_weight"] == 0.0
