"""MuSiQue-style unanswerable construction: hand-checked fixpoint, invariants, determinism."""
from __future__ import annotations

import pytest

from ohara_lab.errors import UsageError
from ohara_lab.eval.dataset import Dataset, EvalDocument, EvalQuery
from ohara_lab.eval.holdout import make_unanswerable, settle_holdout

GOLD = {
    "q1": {"d1", "d2"},
    "q2": {"d2", "d3"},
    "q3": {"d4"},
    "q4": {"d5"},
    "q7": {"d3"},
}
ANSWERABLE = ["q1", "q2", "q3", "q4", "q7"]


def test_settle_returns_queries_whose_gold_a_kept_query_needs():
    # q2 (kept) needs d2, so q1 cannot lose d2: q1 goes back; q3 is free
    held, returned = settle_holdout({"q1", "q3"}, GOLD, ANSWERABLE)
    assert held == {"q3"} and returned == ["q1"]


def test_settle_runs_to_a_fixpoint():
    # q7 (kept) pins d3 -> q2 returns; now kept q2 pins d2 -> q1 returns
    held, returned = settle_holdout({"q1", "q2", "q4"}, GOLD, ANSWERABLE)
    assert held == {"q4"} and returned == ["q2", "q1"]


def test_settle_keeps_queries_sharing_gold_only_with_other_held_queries():
    held, returned = settle_holdout({"q1", "q2", "q7"}, GOLD, ANSWERABLE)
    assert held == {"q1", "q2", "q7"} and returned == []


def _dataset() -> Dataset:
    docs = [EvalDocument(id=f"d{i}", title=f"D{i}", text=f"# D{i}") for i in range(1, 9)]
    queries = [EvalQuery(qid, "?", "2hop", gold_doc_ids=sorted(g)) for qid, g in GOLD.items()]
    queries.append(EvalQuery("q5", "?", "null", unanswerable=True))
    queries.append(EvalQuery("q6", "?", "2hop", gold_doc_ids=["d6", "d7"]))
    return Dataset(name="toy", documents=docs, queries=queries)


def _check_invariants(before: Dataset, after: Dataset) -> None:
    left = {d.id for d in after.documents}
    for q in after.queries:
        if q.meta.get("held_out"):
            assert q.unanswerable and q.type == "null" and not q.gold_doc_ids
            assert not set(q.meta["removed_gold_doc_ids"]) & left
        elif not q.unanswerable:
            assert set(q.gold_doc_ids) <= left
    removed = {d.id for d in before.documents} - left
    held_gold = {g for q in after.queries if q.meta.get("held_out") for g in q.meta["removed_gold_doc_ids"]}
    assert removed == held_gold  # nothing else is deleted


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("fraction", [0.2, 0.5, 1.0])
def test_invariants_hold_for_any_draw(seed, fraction):
    ds = _dataset()
    _check_invariants(ds, make_unanswerable(ds, fraction, seed))


def test_everything_held_out_removes_all_gold_and_keeps_distractors():
    ds = _dataset()
    out = make_unanswerable(ds, 1.0, seed=0)
    assert [d.id for d in out.documents] == ["d8"]
    assert sum(q.unanswerable for q in out.queries) == 7
    held = next(q for q in out.queries if q.id == "q6")
    assert held.meta["original_type"] == "2hop" and held.meta["removed_gold_doc_ids"] == ["d6", "d7"]
    assert "held out" in out.notes[-1]


def test_fraction_zero_changes_nothing_but_the_name():
    ds = _dataset()
    out = make_unanswerable(ds, 0.0, seed=3)
    assert [d.id for d in out.documents] == [d.id for d in ds.documents]
    assert out.queries == ds.queries and out.name == "toy+unanswerable"


def test_deterministic_for_a_seed():
    ds = _dataset()
    runs = [make_unanswerable(ds, 0.5, seed=11) for _ in range(2)]
    assert runs[0].queries == runs[1].queries and runs[0].documents == runs[1].documents


def test_fraction_outside_unit_interval_is_refused():
    with pytest.raises(UsageError):
        make_unanswerable(_dataset(), 1.5, seed=0)


def test_real_musique(shared_datasets):
    from ohara_lab.eval.datasets.musique import load_musique

    ds = load_musique(shared_datasets)
    out = make_unanswerable(ds, 0.2, seed=7)
    _check_invariants(ds, out)
    n_held = sum(1 for q in out.queries if q.meta.get("held_out"))
    assert 0 < n_held <= 20 and len(out.queries) == 100
    assert out.summary()["question_types"]["null"] == n_held
