"""Issue 31.1: BM25 joins the fusion when one document holds most of BM25's top passages."""
from ohara_lab.retrieval.fusion import document_share, long_document_weights
from ohara_lab.retrieval.hits import Hit
from ohara_lab.settings import Settings, profile_values


def hits(docs: list[str]) -> list[Hit]:
    return [Hit(f"p{i:02d}", d, "bm25", 10.0 - i) for i, d in enumerate(docs)]


def test_document_share_counts_the_top_ten_only():
    assert document_share(hits(["a"] * 4 + list("bcdefg") + ["a"] * 5)) == 0.4
    assert document_share(hits(list("abcdefghij"))) == 0.1
    assert document_share([]) == 0.0


def test_long_document_raises_bm25_with_the_mode_row():
    s = Settings(adaptive_weights=False)
    w = long_document_weights({"bm25": 0.0, "ppr": 1.0}, {"bm25": hits(["a"] * 5 + list("bcdef"))}, s, "factoid")
    assert w["bm25"] == s.long_document_bm25_weight == 1.0
    s = Settings(adaptive_weights=True)
    w = long_document_weights({"bm25": 0.0, "ppr": 0.8}, {"bm25": hits(["a"] * 5 + list("bcdef"))}, s, "synthesis")
    assert w["bm25"] == 0.6  # 1.0 x the synthesis row's BM25 multiplier


def test_many_documents_or_no_walk_leave_weights_alone():
    s = Settings()
    base = {"bm25": 0.0, "ppr": 1.0}
    assert long_document_weights(base, {"bm25": hits(list("abcdefghij"))}, s, "factoid") == base
    assert long_document_weights({"bm25": 0.0, "ppr": 0.0}, {"bm25": hits(["a"] * 10)}, s, "factoid")["bm25"] == 0.0
    off = Settings(long_document_bm25_weight=0.0)
    assert long_document_weights(base, {"bm25": hits(["a"] * 10)}, off, "factoid") == base


def test_original_profile_turns_it_off():
    assert profile_values("original")["long_document_bm25_weight"] == 0.0
