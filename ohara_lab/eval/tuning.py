"""Weight tuning done honestly, and REFEED's weight suggestions from stored feedback.

Grid search: the paper chose its tuned weights (BM25 0.6, vector 1.0) on 75 QASPER
queries and reported them on the same queries. Here the grid is searched on a tuning
split and the chosen weights are reported on a disjoint, seeded test split, next to
the default weights on the same test queries with a paired significance test.

REFEED (spec §4, the original's `scripts/tune_weights.js`): from feedback rows
`{rank, signal}` compute per-rank positive rates and the overall accuracy
`acc = 100·positive/total`; `acc < 50` suggests `OHARA_ENTITY_PIVOT_WEIGHT=0.4` and
`OHARA_PRINCIPAL_SCORE_PCTL=0.85`, `acc > 80` suggests `OHARA_CROSS_DOC_WEIGHT=0.6`
and `OHARA_CROSS_DOC_EXPAND_DEPTH=2`, anything else suggests nothing. There is no
per-phase attribution, exactly as in the original.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..ids import query_hash
from .build import BuiltAtlas
from .configs import CONFIGS
from .dataset import Dataset
from .matchers import matcher_for
from .runner import DEFAULT_SEED, ConfigRun, recompute, run_config, variant
from .significance import DEFAULT_RESAMPLES, compare
from .splits import split_queries as split_queries  # re-exported: notebook 04 reaches the splits here

GRID_BM25: tuple[float, ...] = (0.2, 0.4, 0.6, 0.8, 1.0)
GRID_VECTOR: tuple[float, ...] = (0.25, 0.5, 1.0)
GRID_METRICS: tuple[str, ...] = ("hits@4", "mrr@10", "recall@5", "principal_hit", "null_abstention")

LOW_ACCURACY = 50.0
HIGH_ACCURACY = 80.0
LOW_SUGGESTIONS = {"OHARA_ENTITY_PIVOT_WEIGHT": "0.4", "OHARA_PRINCIPAL_SCORE_PCTL": "0.85"}
HIGH_SUGGESTIONS = {"OHARA_CROSS_DOC_WEIGHT": "0.6", "OHARA_CROSS_DOC_EXPAND_DEPTH": "2"}


# ---------------------------------------------------------------------- splits and grid


def weight_grid(
    built: BuiltAtlas,
    dataset: Dataset,
    query_ids: Sequence[str],
    bm25_weights: Sequence[float] = GRID_BM25,
    vector_weights: Sequence[float] = GRID_VECTOR,
    base: str = "full",
    progress: bool = False,
) -> list[dict[str, Any]]:
    """`base` with each (bm25_weight, vector_weight), scored on `query_ids` only."""
    rows = []
    for b in bm25_weights:
        for v in vector_weights:
            cfg = variant(CONFIGS[base], {"bm25_weight": b, "vector_weight": v})
            run = run_config(built, dataset, cfg, query_ids=query_ids, progress=progress, keep_results=False)
            agg = run.aggregate
            rows.append({"bm25_weight": b, "vector_weight": v, **{m: agg.get(m) for m in GRID_METRICS},
                         "n": agg["n_queries"]})
    return rows


def best_weights(rows: Sequence[Mapping[str, Any]], metric: str = "mrr@10") -> dict[str, float]:
    """The grid point with the highest `metric`; ties go to the earlier point (grid order)."""
    scored = [r for r in rows if r.get(metric) is not None]
    if not scored:
        raise UsageError(f"no grid point has {metric!r}")
    best = max(scored, key=lambda r: r[metric])  # max keeps the first of equal values
    return {"bm25_weight": best["bm25_weight"], "vector_weight": best["vector_weight"]}


@dataclass
class HeldOut:
    """Chosen weights vs the defaults on the test split."""

    chosen: dict[str, float]
    rows: list[dict[str, Any]]  # one per system: default, chosen, (paper's tuned)
    comparisons: list[dict[str, Any]]  # chosen − default per metric, with p-value and CI
    runs: dict[str, ConfigRun] = field(default_factory=dict, repr=False)


def held_out_report(
    built: BuiltAtlas,
    dataset: Dataset,
    test_ids: Sequence[str],
    chosen: Mapping[str, float],
    metrics: Sequence[str] = GRID_METRICS,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
    base: str = "full",
    progress: bool = False,
) -> HeldOut:
    """Default weights, the grid's choice and the paper's `tuned`, all on the test split."""
    systems = {"default": CONFIGS[base], "grid_choice": variant(CONFIGS[base], dict(chosen), name="grid_choice"),
               "paper_tuned": CONFIGS["tuned"]}
    runs = {name: run_config(built, dataset, cfg, query_ids=test_ids, progress=progress, name=name)
            for name, cfg in systems.items()}
    aggregates = {name: recompute(run, test_ids) for name, run in runs.items()}
    rows = [{"system": name, **{m: agg.get(m) for m in metrics}, "n": len(test_ids)}
            for name, agg in aggregates.items()]
    comparisons = []
    for name in ("grid_choice", "paper_tuned"):
        for m in metrics:
            try:
                c = compare(runs[name].rows, runs["default"].rows, m, n_resamples, seed)
            except UsageError:  # no test query has this metric (e.g. abstention without null queries)
                continue
            comparisons.append({"system": name, "metric": m, "diff": round(c.diff, 4), "ci_low": round(c.ci_low, 4),
                                "ci_high": round(c.ci_high, 4), "p_value": round(c.p_value, 4), "n": c.n})
    return HeldOut(dict(chosen), rows, comparisons, runs)


# ---------------------------------------------------------------------- REFEED


@dataclass
class RefeedReport:
    per_rank: list[dict[str, Any]]  # {rank, positive, total, rate}
    positive: int
    total: int
    accuracy: float | None  # percent, as the original prints it
    suggestions: dict[str, str]


def feedback_from_run(run: ConfigRun, dataset: Dataset, top_k: int = 5) -> list[dict[str, Any]]:
    """Feedback a reader who knows the gold would give on each query's top `top_k` results.

    A result is positive iff it matches the query's gold (any result of an unanswerable
    query is negative). Rows have the shape `store.feedback()` returns; ranks are 1-based.
    Stands in for real thumbs up/down when none are stored, and is labelled so.
    """
    if not run.results:
        raise UsageError("feedback_from_run needs a ConfigRun that kept its results (keep_results=True)")
    rows = []
    for q in dataset.queries:
        result = run.results.get(q.id)
        if result is None:
            continue
        matcher = matcher_for(q, dataset.matcher)
        for rank, item in enumerate(result.ranked[:top_k], start=1):
            hit = (not q.is_null) and matcher(item) is not None
            rows.append({"query": q.text, "query_hash": query_hash(q.text), "node_id": item.doc_id, "rank": rank,
                         "signal": "positive" if hit else "negative", "simulated": True})
    return rows


def tune_weights(feedback: Iterable[Mapping[str, Any]]) -> RefeedReport:
    """Per-rank positive rates, overall accuracy and the original's threshold suggestions."""
    by_rank: dict[Any, list[int]] = {}
    positive = total = 0
    for row in feedback:
        signal = row.get("signal")
        if signal not in ("positive", "negative"):
            continue
        good = signal == "positive"
        stats = by_rank.setdefault(row.get("rank"), [0, 0])
        stats[0] += good
        stats[1] += 1
        positive += good
        total += 1
    per_rank = [{"rank": r, "positive": p, "total": t, "rate": round(p / t, 4)}
                for r, (p, t) in sorted(by_rank.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))]
    accuracy = round(100.0 * positive / total, 2) if total else None
    if accuracy is None:
        suggestions: dict[str, str] = {}
    elif accuracy < LOW_ACCURACY:
        suggestions = dict(LOW_SUGGESTIONS)
    elif accuracy > HIGH_ACCURACY:
        suggestions = dict(HIGH_SUGGESTIONS)
    else:
        suggestions = {}
    return RefeedReport(per_rank, positive, total, accuracy, suggestions)


def apply_suggestions(suggestions: Mapping[str, str], env_path: str | Path = ".env") -> Path:
    """The original's `--apply`: rewrite the suggested lines of a .env file, append the missing ones."""
    path = Path(env_path)
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    done: set[str] = set()
    out = []
    for line in lines:
        m = re.match(r"^\s*(?:export\s+)?([A-Z0-9_]+)\s*=", line)
        if m and m.group(1) in suggestions:
            out.append(f"{m.group(1)}={suggestions[m.group(1)]}")
            done.add(m.group(1))
        else:
            out.append(line)
    out += [f"{k}={v}" for k, v in suggestions.items() if k not in done]
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def feedback_for_refeed(built: BuiltAtlas, dataset: Dataset, query_ids: Sequence[str] | None = None,
                        top_k: int = 5, base: str = "full") -> tuple[list[dict[str, Any]], str]:
    """(feedback rows, where they came from): the atlas's stored feedback when there is any,
    else gold-simulated judgments of `base`'s top `top_k` on `query_ids` (see `feedback_from_run`)."""
    stored = built.atlas.store.feedback()
    if stored:
        return stored, f"{len(stored)} stored feedback rows"
    run = run_config(built, dataset, CONFIGS[base], query_ids=query_ids)
    rows = feedback_from_run(run, dataset, top_k)
    return rows, (f"no stored feedback: {len(rows)} judgments simulated from gold on the top {top_k} "
                  f"of {base} over {len({r['query_hash'] for r in rows})} queries")
