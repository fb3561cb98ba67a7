"""Pure parts of the harness: REFEED, splits, answer judging, Pareto front, build keys, reproduce jobs."""
from __future__ import annotations

import pytest

from ohara_lab.errors import UsageError
from ohara_lab.eval import paper
from ohara_lab.eval.abstention import pareto_front
from ohara_lab.eval.build import (
    FIXED_REFERENCE_DATE, atlas_directory, build_key, corpus_fingerprint, corpus_reference_date,
)
from ohara_lab.eval.dataset import Dataset, EvalDocument, EvalQuery
from ohara_lab.eval.generation import (
    answer_words, contains_answer, gold_answers, match_kind, normalise, short_em, short_f1, squad_normalise,
)
from ohara_lab.eval.report import fmt, markdown_table
from ohara_lab.eval.reproduce import FULL_JOBS, NOTEBOOKS, QUICK_JOBS, full_jobs, select_jobs
from ohara_lab.eval.tuning import apply_suggestions, split_queries, tune_weights
from ohara_lab.settings import Settings


def _feedback(signals):
    return [{"rank": r, "signal": s} for r, s in signals]


# ---------------------------------------------------------------------- REFEED


def test_refeed_low_accuracy_suggests_the_originals_fix():
    report = tune_weights(_feedback([(1, "positive"), (1, "negative"), (2, "negative"), (3, "negative")]))
    assert report.accuracy == 25.0 and report.total == 4
    assert report.suggestions == {"OHARA_ENTITY_PIVOT_WEIGHT": "0.4", "OHARA_PRINCIPAL_SCORE_PCTL": "0.85"}
    assert report.per_rank == [{"rank": 1, "positive": 1, "total": 2, "rate": 0.5},
                               {"rank": 2, "positive": 0, "total": 1, "rate": 0.0},
                               {"rank": 3, "positive": 0, "total": 1, "rate": 0.0}]


def test_refeed_high_middle_and_empty():
    high = tune_weights(_feedback([(1, "positive")] * 9 + [(2, "negative")]))
    assert high.accuracy == 90.0
    assert high.suggestions == {"OHARA_CROSS_DOC_WEIGHT": "0.6", "OHARA_CROSS_DOC_EXPAND_DEPTH": "2"}
    # exactly 50% and exactly 80% are "else: nothing" in the original
    assert tune_weights(_feedback([(1, "positive"), (1, "negative")])).suggestions == {}
    assert tune_weights(_feedback([(1, "positive")] * 4 + [(1, "negative")])).suggestions == {}
    empty = tune_weights([{"rank": 1, "signal": "meh"}])
    assert empty.accuracy is None and empty.suggestions == {} and empty.per_rank == []


def test_apply_suggestions_rewrites_and_appends(tmp_path):
    env = tmp_path / ".env"
    env.write_text("OHARA_CROSS_DOC_WEIGHT=0.4\nOTHER=1\n")
    apply_suggestions({"OHARA_CROSS_DOC_WEIGHT": "0.6", "OHARA_CROSS_DOC_EXPAND_DEPTH": "2"}, env)
    assert env.read_text() == "OHARA_CROSS_DOC_WEIGHT=0.6\nOTHER=1\nOHARA_CROSS_DOC_EXPAND_DEPTH=2\n"


# ---------------------------------------------------------------------- splits


def _ds(n_per_type=6):
    docs = [EvalDocument(id=f"d{i}", title=f"d{i}", text="x") for i in range(3)]
    queries = [EvalQuery(f"{t}{i}", "q", t, ["d0"]) for t in ("a", "b") for i in range(n_per_type)]
    return Dataset("toy", docs, queries)


def test_split_is_disjoint_stratified_and_seeded():
    ds = _ds()
    tune, test = split_queries(ds, 0.5, seed=1)
    assert set(tune).isdisjoint(test) and set(tune) | set(test) == {q.id for q in ds.queries}
    assert sum(i.startswith("a") for i in tune) == 3 and sum(i.startswith("b") for i in tune) == 3
    assert split_queries(ds, 0.5, seed=1) == (tune, test)
    assert split_queries(ds, 0.5, seed=2) != (tune, test)
    with pytest.raises(UsageError):
        split_queries(ds, 1.0)
    with pytest.raises(UsageError):
        split_queries(_ds(1), 0.9)  # one query per type: the test split would be empty


# ---------------------------------------------------------------------- answers


def test_normalised_match_follows_the_original_rule():
    assert normalise("  Bergen, Norway! ") == "bergen norway"
    assert match_kind("Bergen", ["bergen"]) == "exact"
    assert match_kind("He was born in Bergen in 1961. [2]", ["Bergen"]) == "answer_contains_gold"
    assert match_kind("Oslo", ["Oslo School of Architecture"]) == "gold_contains_answer"
    assert match_kind("USA and more", ["USA"]) is None  # gold of 3 characters is too short to be contained
    assert match_kind("of", ["Oslo of"]) is None  # an answer of 2 characters is too short to be contained
    assert match_kind("Paris", ["London"]) is None
    assert match_kind("[1]", ["1"]) is None  # citation markers are not answers


def test_gold_answers_include_aliases_once():
    q = EvalQuery("q", "?", "t", ["d"], answer="NYC", meta={"answer_aliases": ["New York City", "NYC"]})
    assert gold_answers(q) == ["NYC", "New York City"]


# ---------------------------------------------------------------------- abstention


def test_pareto_front_drops_dominated_points():
    rows = [{"principal_hit": 0.9, "null_abstention": 0.1}, {"principal_hit": 0.8, "null_abstention": 0.5},
            {"principal_hit": 0.7, "null_abstention": 0.4}, {"principal_hit": 0.9, "null_abstention": 0.0},
            {"principal_hit": None, "null_abstention": 0.9}]
    assert pareto_front(rows) == [rows[0], rows[1]]


# ---------------------------------------------------------------------- build keys


def test_reference_date_is_the_latest_corpus_day_or_the_fixed_one():
    docs = [EvalDocument("a", "a", "x", published_at="2023-10-02T17:30:00+00:00"),
            EvalDocument("b", "b", "x", published_at="2023-12-31"), EvalDocument("c", "c", "x", published_at="soon")]
    assert corpus_reference_date(Dataset("d", docs, [])) == "2023-12-31"
    assert corpus_reference_date(Dataset("d", docs[2:], [])) == FIXED_REFERENCE_DATE


def test_build_key_follows_corpus_settings_and_embedder_only():
    docs = [EvalDocument("a", "a", "x"), EvalDocument("b", "b", "y")]
    ds = Dataset("d", docs, [])
    s = Settings(reference_date="2025-01-01")
    key, parts = build_key(ds, s, "none", None)
    assert build_key(Dataset("d", list(reversed(docs)), []), s, "none", None)[0] == key  # order-free
    assert build_key(ds, s.override(bm25_weight=0.1), "none", None)[0] == key  # query-time setting
    assert build_key(ds, s.override(similarity_threshold=0.3), "none", None)[0] != key
    assert build_key(ds, s, "wordllama", "wordllama:x")[0] != key
    changed = Dataset("d", [EvalDocument("a", "a", "x!"), docs[1]], [])
    assert corpus_fingerprint(changed) != parts["corpus"]
    assert atlas_directory(__import__("pathlib").Path("/c"), "MuSiQue+unanswerable", key).name == \
        f"musique-unanswerable-{key}"


# ---------------------------------------------------------------------- formatting and jobs


def test_values_print_as_the_paper_prints_them():
    assert fmt("hits@4", 0.8966) == "89.7%" and fmt("mrr@10", 0.7912) == "0.791"
    assert fmt("null_abstention", None) == "–" and fmt("latency_ms_p50", 12.34) == "12.3"
    table = markdown_table([{"config": "full", "hits@4": 0.5}], [("config", "config"), ("hits@4", "Hits@4")])
    assert table.splitlines() == ["| config | Hits@4 |", "|---|---|", "| full | 50.0% |"]


def test_paper_tables_are_found_by_dataset_family():
    assert paper.paper_table("qasper-leval")["full"]["hits@4"] == 0.22
    assert paper.paper_table("multihop-rag+unanswerable")["full"]["null_abstention"] == 0.456
    assert paper.paper_table("musique") == {}


def test_reproduce_jobs_cover_every_notebook_and_select_by_prefix():
    assert {j.notebook for j in FULL_JOBS} == set(NOTEBOOKS) == {j.notebook for j in QUICK_JOBS}
    assert [j.label for j in select_jobs(FULL_JOBS, "02")] == ["02_retrieval_matrix/musique",
                                                               "02_retrieval_matrix/qasper-leval"]
    with pytest.raises(UsageError, match="unknown notebook"):
        select_jobs(FULL_JOBS, "09")
    paper = full_jobs(["multihop-rag", "qasper"])
    assert [j.label for j in select_jobs(paper, "05")] == ["05_decomposition/qasper"]
    assert all(j.parameters["dataset"] == j.dataset for j in paper)
    with pytest.raises(UsageError, match="unknown dataset"):
        full_jobs(["hotpotqa"])


def test_squad_answer_metrics_by_hand():
    assert squad_normalise("The  Anglican Communion!") == "anglican communion"
    assert short_em("the Anglican Communion", ["Anglican Communion"]) == 1.0
    assert short_em("Anglican Church", ["Anglican Communion"]) == 0.0 and short_em(None, ["x"]) == 0.0
    # "Fulda River" against "Fulda": precision 1/2, recall 1/1 -> F1 2/3
    assert abs(short_f1("Fulda River", ["Fulda"]) - 2 / 3) < 1e-9
    assert short_f1("Fulda River", ["Kassel", "Fulda River"]) == 1.0  # the best alias counts
    assert short_f1(None, ["Fulda"]) == 0.0


def test_answer_contains_whole_words_and_ignores_markers():
    assert contains_answer("He was born in Bergen [2].", ["Bergen"])
    assert not contains_answer("Bergenfield is a borough [1].", ["Bergen"])  # a word, not a substring
    assert not contains_answer("See [1].", ["1"])  # a citation marker is no answer
    assert contains_answer("In 1998 [1].", ["NYC", "1998"])
    assert answer_words("Bergen [1]. He was born there [1] [2].") == 5
