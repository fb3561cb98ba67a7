"""The runner's own logic on a stub atlas: hit mapping, top-5 Principal, latency, errors, skips, comparisons."""
from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, field
from types import SimpleNamespace

import pytest

from ohara_lab.errors import OharaError, UsageError
from ohara_lab.eval.build import BuildInfo, BuiltAtlas
from ohara_lab.eval.configs import CONFIGS, EvalConfig
from ohara_lab.eval.dataset import Dataset, EvalDocument, EvalQuery
from ohara_lab.eval.runner import (
    TOPK_PRINCIPAL, compare_with, run_config, run_matrix, skip_reason, variant,
)
from ohara_lab.eval.subset import subset


@dataclass
class _Hit:
    id: str
    document_id: str
    score: float = 1.0  # a fused hit's score, which the TREC run writes


@dataclass
class _Result:
    results: list
    principal: list
    views: dict = field(default_factory=dict)

    @property
    def tiers(self):
        return SimpleNamespace(principal=self.principal)


class _StubAtlas:
    """Answers each query with a fixed ranking of store documents; records the overrides it got."""

    def __init__(self, rankings: dict[str, list[str]], principal: dict[str, list[str]], fail: set[str] = frozenset()):
        self.rankings, self.principal_ids, self.fail = rankings, principal, fail
        self.calls: list[dict] = []
        self.store = SimpleNamespace(vector_models=lambda: {"stub": 1})
        self.cleared = 0
        self.engine = SimpleNamespace(clear_query_cache=self._clear)

    def _clear(self):
        self.cleared += 1

    def query(self, text, **overrides):
        self.calls.append({"text": text, **overrides})
        if text in self.fail:
            raise RuntimeError("boom")
        hits = [_Hit(f"paragraphs/{d}-{i}", f"documents/{d}") for i, d in enumerate(self.rankings[text])]
        views = {h.id: SimpleNamespace(content=f"text of {h.document_id}", document_title=h.document_id) for h in hits}
        chosen = [h for h in hits if h.document_id.split("/")[1] in self.principal_ids.get(text, [])]
        return _Result(hits[: overrides["result_limit"]], chosen, views)

    def close(self):
        pass


def _dataset() -> Dataset:
    docs = [EvalDocument(id=d, title=d, text=f"# {d}\n\nbody") for d in ("a", "b", "c", "d", "e", "f")]
    queries = [
        EvalQuery("q1", "first", "single", ["a"]),
        EvalQuery("q2", "second", "multi", ["b", "c"]),
        EvalQuery("q3", "third", "null", unanswerable=True),
    ]
    return Dataset("stub", docs, queries)


def _built(atlas) -> BuiltAtlas:
    info = BuildInfo(dataset="stub", key="k", directory="/nowhere", embedder="none", vector_model=None,
                     reference_date="2025-01-01", n_documents=6)
    # store doc "xa" is dataset doc "a" etc.: the runner must go through this table
    return BuiltAtlas(atlas, info, {f"documents/x{d}": d for d in "abcdef"})


def _atlas(fail=frozenset()):
    rankings = {"first": ["xf", "xe", "xa", "xb", "xc", "xd"], "second": ["xc", "xa", "xb", "xd", "xe", "xf"],
                "third": ["xa", "xb", "xc", "xd", "xe", "xf"]}
    principal = {"first": ["xf"], "second": ["xc"], "third": []}
    return _StubAtlas(rankings, principal, fail)


def test_hits_map_back_to_dataset_ids_and_are_scored():
    ds = _dataset()
    run = run_config(_built(_atlas()), ds, CONFIGS["full"])
    rows = {r["id"]: r for r in run.rows}
    assert rows["q1"]["top_docs"][:3] == ["f", "e", "a"]
    assert rows["q1"]["hit_ranks"] == [2] and rows["q1"]["mrr@10"] == pytest.approx(1 / 3)
    assert rows["q2"]["hit_ranks"] == [0, 2] and rows["q2"]["recall@2"] == 0.5
    assert rows["q1"]["principal_hit"] == 0.0 and rows["q2"]["principal_hit"] == 1.0
    assert rows["q3"]["null_abstention"] == 1.0 and rows["q3"]["abstained"] is True
    assert all(r["latency_ms"] >= 0 and r["config"] == "full" for r in run.rows)
    assert run.aggregate["latency_ms_p50"] is not None


def test_each_config_starts_with_a_cold_query_cache_after_its_warm_up():
    atlas = _atlas()
    run_matrix(_dataset(), _built(atlas), "bm25_only,no_corroboration", n_resamples=100, progress=False)
    assert atlas.cleared == 3  # full, bm25_only, no_corroboration
    # warm-up query first, then the three timed ones
    assert [c["text"] for c in atlas.calls[:4]] == ["first", "first", "second", "third"]


def test_result_limit_and_config_overrides_reach_the_query():
    atlas = _atlas()
    run_config(_built(atlas), _dataset(), CONFIGS["bm25_only"], overrides={"rrf_k": 7}, result_limit=4)
    call = atlas.calls[-1]
    assert call["result_limit"] == 4 and call["rrf_k"] == 7 and call["vector_weight"] == 0.0


def test_topk_configs_read_principal_as_the_top_five():
    run = run_config(_built(_atlas()), _dataset(), CONFIGS["no_corroboration"])
    rows = {r["id"]: r for r in run.rows}
    assert CONFIGS["no_corroboration"].principal_topk
    assert rows["q1"]["principal_count"] == TOPK_PRINCIPAL
    assert rows["q1"]["principal_hit"] == 1.0  # gold "a" is at rank 3, inside the top 5
    assert rows["q3"]["null_abstention"] == 0.0  # top-k never abstains


def test_a_failing_query_is_an_empty_result_but_all_failing_is_an_error():
    run = run_config(_built(_atlas(fail={"second"})), _dataset(), CONFIGS["full"])
    row = {r["id"]: r for r in run.rows}["q2"]
    assert row["error"].startswith("RuntimeError") and row["hits@10"] == 0.0
    assert run.aggregate["n_errors"] == 1
    with pytest.raises(OharaError, match="every query failed"):
        run_config(_built(_atlas(fail={"first", "second", "third"})), _dataset(), CONFIGS["full"])


def test_query_ids_select_a_split():
    run = run_config(_built(_atlas()), _dataset(), CONFIGS["full"], query_ids=["q2"])
    assert [r["id"] for r in run.rows] == ["q2"]
    with pytest.raises(UsageError):
        run_config(_built(_atlas()), _dataset(), CONFIGS["full"], query_ids=["nope"])


def test_matrix_adds_the_baseline_and_compares_every_config_with_it():
    run = run_matrix(_dataset(), _built(_atlas()), "bm25_only,no_corroboration", n_resamples=200, progress=False)
    assert list(run.runs) == ["full", "bm25_only", "no_corroboration"]
    assert set(run.comparisons) == {"bm25_only", "no_corroboration"}
    c = run.comparisons["no_corroboration"]["principal_hit"]
    assert c.diff == pytest.approx(0.5) and c.n == 2  # q1 gains a Principal hit, q2 keeps its own
    assert run.comparisons["no_corroboration"]["null_abstention"].diff == pytest.approx(-1.0)


def test_a_metric_no_query_has_is_not_compared():
    ds = _dataset()
    answerable = Dataset("stub", ds.documents, ds.queries[:2])
    runs = {n: run_config(_built(_atlas()), answerable, CONFIGS[n]) for n in ("full", "bm25_only")}
    out = compare_with(runs, n_resamples=200)
    assert out["bm25_only"]["null_abstention"] is None
    assert out["bm25_only"]["mrr@10"] is not None


def test_skip_for_covers_dataset_families():
    cfg = CONFIGS["no_temporal"]
    assert skip_reason(cfg, "qasper") and skip_reason(cfg, "qasper-leval")
    assert skip_reason(cfg, "qasper-leval+unanswerable")
    assert skip_reason(cfg, "musique") is None and skip_reason(cfg, "qasperish") is None


def test_variant_names_and_merges_overrides():
    v = variant(CONFIGS["bm25_only"], {"principal_min_families": 3})
    assert v.name == "bm25_only[principal_min_families=3]"
    assert v.overrides["principal_min_families"] == 3 and v.overrides["bm25_weight"] == 1.0
    assert CONFIGS["bm25_only"].overrides.get("principal_min_families") is None  # the original is untouched


def test_subset_keeps_gold_and_samples_distractors_reproducibly():
    ds = _dataset()
    small = subset(ds, limit=1, distractors=2, seed=3)
    assert [q.id for q in small.queries] == ["q1"]
    ids = {d.id for d in small.documents}
    assert "a" in ids and len(ids) == 3
    assert {d.id for d in subset(ds, limit=1, distractors=2, seed=3).documents} == ids
    assert subset(ds) is ds
    assert len(subset(ds, limit=2).documents) == 6  # no distractors asked: the corpus stays whole
    with pytest.raises(UsageError):
        subset(ds, limit=0)


def test_unknown_config_in_a_matrix_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown config"):
        run_matrix(_dataset(), _built(_atlas()), "full,bogus")


def test_eval_config_records_are_frozen():
    with pytest.raises(FrozenInstanceError):
        CONFIGS["full"].name = "x"  # type: ignore[misc]
    assert isinstance(CONFIGS["full"], EvalConfig)
