"""Doc and paragraph matchers and `hit_ranks` (spec §5), on hand-made items."""
from __future__ import annotations

from ohara_lab.eval.dataset import EvalQuery
from ohara_lab.eval.matchers import (
    DocMatcher, ParagraphMatcher, RankedItem, hit_ranks, matcher_for, normalize_text,
)

LONG_A = "Tide-aware tokenization lowers the out-of-vocabulary rate from 9.1% to 6.0% on the coastal test set."
LONG_B = "Each candidate merge is scored by its dialect frequency divided by its inland frequency, plus one."


def test_normalize_lowercases_and_collapses_whitespace():
    assert normalize_text("  Hello\n\tWORLD  again ") == "hello world again"
    assert normalize_text(None) == ""


def test_doc_matcher_hits_gold_doc_ids_only():
    m = DocMatcher(["d1", "d3", "d1"])
    assert m.gold_count == 2
    assert m(RankedItem("d3", "anything")) == "d3"
    assert m(RankedItem("d2")) is None


def test_hit_ranks_counts_each_gold_id_once_at_its_best_rank():
    m = DocMatcher(["A", "C"])
    items = [RankedItem(d) for d in ["A", "B", "A", "C", "C", "B"]]
    assert hit_ranks(items, m) == [0, 3]
    assert hit_ranks([], m) == []


def test_paragraph_matcher_keeps_only_snippets_longer_than_40_chars():
    exactly_40 = "x" * 40
    m = ParagraphMatcher([exactly_40, LONG_A])
    assert m.gold_count == 2  # all evidence strings count for the denominators
    assert m.snippets == [normalize_text(LONG_A)]
    assert m(RankedItem("p", "y " + exactly_40 + " y")) is None
    assert ParagraphMatcher(["x" * 41])(RankedItem("p", "x" * 41)) == "x" * 41


def test_paragraph_matcher_item_containing_snippet_after_normalisation():
    m = ParagraphMatcher([LONG_B, LONG_A])
    text = "Intro.  " + LONG_A.upper().replace(" ", "\n ") + " More text."
    assert m(RankedItem("p1", text)) == normalize_text(LONG_A)[:60]


def test_paragraph_matcher_item_contained_in_snippet():
    m = ParagraphMatcher([LONG_A])
    assert m(RankedItem("p1", "the out-of-vocabulary rate from 9.1%")) == normalize_text(LONG_A)[:60]
    assert m(RankedItem("p1", "")) is None
    assert m(RankedItem("p1", "a sentence that appears nowhere in the evidence")) is None


def test_paragraph_matcher_uses_200_char_prefixes():
    long_evidence = "alpha " * 60  # 360 chars
    m = ParagraphMatcher([long_evidence])
    # the item holds only the first 200 chars of the snippet -> e[:200] ⊆ text
    assert m(RankedItem("p", normalize_text(long_evidence)[:200])) is not None
    # an item whose first 200 chars are in the snippet, whatever follows
    assert m(RankedItem("p", normalize_text(long_evidence)[:200] + " omega omega")) is not None
    # first 199 chars only, then something else: neither containment holds
    assert m(RankedItem("p", normalize_text(long_evidence)[:199] + "Z")) is None


def test_paragraph_matcher_gold_id_is_first_60_chars_and_first_snippet_wins():
    a = "shared opening words " * 3 + "then the first ending"
    b = "shared opening words " * 3 + "then a different ending"
    m = ParagraphMatcher([a, b])
    assert a[:60] == b[:60]
    items = [RankedItem("p", a), RankedItem("p", b)]
    # both items map to the same gold id e[:60], so only the first counts as a hit
    assert hit_ranks(items, m) == [0]


def test_matcher_for_picks_by_dataset_kind():
    q = EvalQuery(id="q", text="?", type="t", gold_doc_ids=["d"], gold_evidence=[LONG_A])
    assert isinstance(matcher_for(q, "doc"), DocMatcher)
    assert isinstance(matcher_for(q, "paragraph"), ParagraphMatcher)
