"""Run the config matrix of spec §5 over a dataset and compare every config with `full`.

    ds = prepare_dataset("musique", data_dir, unanswerable=0.25, seed=42)
    with build_atlas(ds, cache_dir, embedder="minilm") as built:
        run = run_matrix(ds, built, get_configs("bm25_only,full,no_many_angle"))
    run.aggregate("full")["mrr@10"], run.comparisons["no_many_angle"]["principal_hit"].p_value

Each query runs as `atlas.query(text, result_limit=20, **config.overrides)`, timed on
the wall clock. Hits map back to dataset documents through the atlas's
`origin_path` (build.py), become `RankedItem`s, and are scored by `evaluate`.
Configs flagged `principal_topk` (−corroboration) read Principal as the top 5
results, as the paper did. Every config is then compared with `full` on the main
metrics by a paired randomization test and a bootstrap CI (fixed seed).
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from ..errors import OharaError, UsageError
from .build import BuildInfo, BuiltAtlas, build_atlas, ensure_analytics
from .configs import CONFIGS, EvalConfig, get_configs
from .dataset import Dataset, EvalQuery, in_family
from .datasets.registry import load_dataset
from .evaluate import EvalReport, QueryResult, aggregate, evaluate
from .holdout import make_unanswerable
from .matchers import RankedItem
from .significance import DEFAULT_RESAMPLES, Comparison, compare, paired_scores
from .splits import half
from .subset import subset

BASELINE = "full"
RESULT_LIMIT = 20  # spec §5: query(q, {limit: 20})
TOPK_PRINCIPAL = 5  # the paper's −corroboration row: Principal := top-5 results
DEFAULT_SEED = 42
# Metrics every config is tested on against `full` (the paper's headline columns + ours).
SIGNIFICANCE_METRICS: tuple[str, ...] = (
    "hits@4", "hits@10", "mrr@10", "map@10", "recall@5", "principal_hit", "null_abstention",
)


@dataclass
class ConfigRun:
    """One config over the queries: scored rows (with latency), results and timings."""

    name: str
    config: EvalConfig
    overrides: dict[str, Any]
    report: EvalReport
    results: dict[str, QueryResult] = field(repr=False, default_factory=dict)
    latency_ms: dict[str, float] = field(default_factory=dict)

    @property
    def rows(self) -> list[dict[str, Any]]:
        return self.report.rows

    @property
    def aggregate(self) -> dict[str, Any]:
        """Report aggregate plus the median per-query latency."""
        lat = list(self.latency_ms.values())
        return {**self.report.aggregate, "latency_ms_p50": round(statistics.median(lat), 3) if lat else None}

    def by_type(self) -> dict[str, dict[str, Any]]:
        out = {}
        for t, agg in self.report.by_type.items():
            lat = [r["latency_ms"] for r in self.rows if r["question_type"] == t and r.get("latency_ms") is not None]
            out[t] = {**agg, "latency_ms_p50": round(statistics.median(lat), 3) if lat else None}
        return out


@dataclass
class MatrixRun:
    """A config matrix over one dataset: per-config runs and their comparison with the baseline."""

    dataset: Dataset
    runs: dict[str, ConfigRun]
    comparisons: dict[str, dict[str, Comparison | None]]
    build: BuildInfo | None = None
    skipped: dict[str, str] = field(default_factory=dict)
    seed: int = DEFAULT_SEED
    baseline: str = BASELINE
    n_resamples: int = DEFAULT_RESAMPLES
    notes: list[str] = field(default_factory=list)

    @property
    def n_queries(self) -> int:
        return len(self.dataset.queries)

    @property
    def n_unanswerable(self) -> int:
        return sum(1 for q in self.dataset.queries if q.is_null)

    def aggregate(self, name: str) -> dict[str, Any]:
        return self.runs[name].aggregate


# ---------------------------------------------------------------------- dataset


def prepare_dataset(
    name_or_path: str | Path,
    data_dir: str | Path | None = None,
    *,
    limit: int | None = None,
    distractors: int | None = None,
    unanswerable: float | None = None,
    seed: int = DEFAULT_SEED,
    nulls: str | None = None,
    **loader_kw: Any,
) -> Dataset:
    """Load a dataset, optionally cut it (`subset`), optionally hold queries out as unanswerable.

    `unanswerable` is the fraction of answerable queries turned into null queries the
    MuSiQue way (`holdout.make_unanswerable`: their gold documents leave the corpus),
    drawn with `seed`. It is applied after the cut, so it holds out among the kept queries.
    """
    if data_dir is None and not Path(str(name_or_path)).is_dir():
        from .paths import default_data_dir  # noqa: PLC0415

        data_dir = default_data_dir()
    ds = load_dataset(name_or_path, data_dir, **loader_kw)
    ds = subset(ds, limit=limit, distractors=distractors, seed=seed)
    if nulls in (None, "heldout"):
        return make_unanswerable(ds, unanswerable, seed) if unanswerable else ds
    from .nulls import NullKind, with_nulls  # noqa: PLC0415

    fraction = unanswerable if unanswerable is not None else (0.25 if nulls == "both" else 0.0)
    kind = cast(NullKind, nulls)  # with_nulls refuses a kind it does not know
    return with_nulls(ds, kind, fraction, seed, str(data_dir) if data_dir else None)


# ---------------------------------------------------------------------- one config


def to_ranked(result: Any, built: BuiltAtlas, hits: Sequence[Any]) -> list[RankedItem]:
    """Fused hits -> RankedItem(dataset doc id, node text); unknown documents get doc id ''."""
    out = []
    for f in hits:
        view = result.views.get(f.id)
        out.append(RankedItem(built.dataset_doc_id(f.document_id) or "", view.content if view else "", f.id,
                              (view.document_title or "") if view else "", f.score))
    return out


def run_query(built: BuiltAtlas, text: str, overrides: Mapping[str, Any], principal_topk: bool = False,
              result_limit: int = RESULT_LIMIT) -> tuple[QueryResult, float, Any]:
    """(scored result, wall-clock ms, raw RetrievalResult or None on failure) for one query.

    A failing query is scored as an empty result and its error kept, as the original's
    harness did; `run_config` raises if every query of a config fails.
    """
    t0 = time.perf_counter()
    try:
        result = built.atlas.query(text, **{**overrides, "result_limit": result_limit})
    except Exception as e:  # noqa: BLE001 - one failure must not abort a matrix; it is recorded per query
        return QueryResult(error=f"{type(e).__name__}: {e}"), (time.perf_counter() - t0) * 1000, None
    ms = (time.perf_counter() - t0) * 1000
    ranked = to_ranked(result, built, result.results)
    principal = ranked[:TOPK_PRINCIPAL] if principal_topk else to_ranked(result, built, result.tiers.principal)
    return QueryResult(ranked=ranked, principal=principal), ms, result


def dated(query: EvalQuery, overrides: Mapping[str, Any]) -> Mapping[str, Any]:
    """`overrides` plus the query's `as_of`, when it has one: a dated query sees the corpus of its date."""
    return {**overrides, "as_of": query.as_of} if query.as_of else overrides


def run_config(
    built: BuiltAtlas,
    dataset: Dataset,
    config: EvalConfig,
    *,
    overrides: Mapping[str, Any] | None = None,
    name: str | None = None,
    query_ids: Iterable[str] | None = None,
    result_limit: int = RESULT_LIMIT,
    progress: bool = False,
    keep_results: bool = True,
) -> ConfigRun:
    """Run `config` (plus `overrides`) over the dataset's queries (or `query_ids` of them)."""
    merged = {**config.overrides, **(overrides or {})}
    queries = dataset.select(query_ids)
    if not queries:
        raise UsageError(f"{dataset.name}: no queries to run")
    if config.needs_analytics:
        ensure_analytics(built.atlas)
    # One untimed query first, so loading the query embedder is not charged to a query.
    run_query(built, queries[0].text, merged, config.principal_topk, result_limit)
    cold_query_cache(built)
    results: dict[str, QueryResult] = {}
    latency: dict[str, float] = {}
    from tqdm.auto import tqdm  # noqa: PLC0415

    for q in tqdm(queries, desc=name or config.name, unit="q", disable=not progress, leave=False):
        results[q.id], latency[q.id], _ = run_query(built, q.text, dated(q, merged), config.principal_topk,
                                                    result_limit)
    errors = [r.error for r in results.values() if r.error]
    if len(errors) == len(queries):
        raise OharaError(f"config {name or config.name}: every query failed, e.g. {errors[0]}")
    report = evaluate(dataset, results, query_ids=[q.id for q in queries])
    for row in report.rows:
        row["config"] = name or config.name
        row["latency_ms"] = round(latency[row["id"]], 3)
        row["top_docs"] = [i.doc_id for i in results[row["id"]].ranked[:10]]
        row["abstained"] = not results[row["id"]].principal
    return ConfigRun(name or config.name, config, merged, report, results if keep_results else {}, latency)


def cold_query_cache(built: BuiltAtlas) -> None:
    """Forget the engine's cached query vectors, so each config pays for its own query embeddings.

    The engine caches query vectors (CoR and sweeps repeat queries); without this, every
    config after the first would be timed without embedding its query and latencies
    would depend on the order configs run in.
    """
    built.atlas.engine.clear_query_cache()


def variant(config: EvalConfig, overrides: Mapping[str, Any], name: str | None = None) -> EvalConfig:
    """`config` with extra overrides, named `config[key=value,...]` unless `name` is given."""
    label = name or f"{config.name}[{','.join(f'{k}={v}' for k, v in overrides.items())}]"
    return replace(config, name=label, overrides={**config.overrides, **overrides})


# ---------------------------------------------------------------------- matrix


def skip_reason(config: EvalConfig, dataset_name: str) -> str | None:
    """Why `config` is not run on this dataset (the paper ran no_temporal on MultiHop only).

    `skip_for` names dataset families: "qasper" covers "qasper" and "qasper-leval".
    """
    for family in config.skip_for:
        if in_family(dataset_name, family):
            return f"not run on {family} (as in the paper)"
    return None


def compare_with(
    runs: Mapping[str, ConfigRun],
    baseline: str = BASELINE,
    metrics: Sequence[str] = SIGNIFICANCE_METRICS,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, dict[str, Comparison | None]]:
    """config − baseline per metric; None where no query has the metric in both runs."""
    if baseline not in runs:
        return {}
    base = runs[baseline]
    out: dict[str, dict[str, Comparison | None]] = {}
    for name, run in runs.items():
        if name == baseline:
            continue
        out[name] = {}
        for metric in metrics:
            paired, _, _ = paired_scores(run.rows, base.rows, metric)
            out[name][metric] = compare(run.rows, base.rows, metric, n_resamples, seed) if paired.size else None
    return out


def run_matrix(
    dataset: Dataset,
    built: BuiltAtlas,
    configs: Sequence[EvalConfig] | str | None = None,
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = DEFAULT_RESAMPLES,
    result_limit: int = RESULT_LIMIT,
    metrics: Sequence[str] = SIGNIFICANCE_METRICS,
    baseline: str = BASELINE,
    progress: bool = True,
    profile: str | None = None,
) -> MatrixRun:
    """Every config over every query, then each compared with `baseline` (default `full`).

    The baseline runs even when not asked for, since every comparison needs it. `profile`
    (default | original) is the engine every config starts from (None: the atlas's settings);
    a config that names its own profile (`original`, `tuned`) keeps it.
    """
    chosen = get_configs(configs) if configs is None or isinstance(configs, str) else list(configs)
    if profile is not None:
        chosen = [replace(c, overrides={"profile": profile, **c.overrides}) for c in chosen]
    names = [c.name for c in chosen]
    if baseline not in names and baseline in CONFIGS:
        base = CONFIGS[baseline]
        chosen = [replace(base, overrides={"profile": profile, **base.overrides}) if profile else base, *chosen]
    notes = list(dataset.notes)
    if not built.atlas.store.vector_models():
        notes.append("the atlas has no vectors (embedder none): every config ran without the vector phase, "
                     "so vector_only and rrf rank nothing or BM25 alone")
    if built.info.stale_code:
        notes.append(f"the cached atlas {built.info.directory} was built by other ingest code than today's; "
                     "rebuild it (`ohara eval --rebuild`, build_atlas(..., rebuild=True)) before quoting these numbers")
    if built.info.failures:
        notes.append(f"{len(built.info.failures)} document(s) failed to ingest: "
                     f"{', '.join(f['document'] for f in built.info.failures[:5])}")
    runs: dict[str, ConfigRun] = {}
    skipped: dict[str, str] = {}
    for config in chosen:
        why = skip_reason(config, dataset.name)
        if why:
            skipped[config.name] = why
            continue
        runs[config.name] = run_config(built, dataset, config, result_limit=result_limit, progress=progress)
    comparisons = compare_with(runs, baseline, metrics, n_resamples, seed)
    return MatrixRun(dataset, runs, comparisons, built.info, skipped, seed, baseline, n_resamples, notes)


def evaluate_dataset(
    name_or_path: str | Path,
    data_dir: str | Path | None = None,
    *,
    configs: Sequence[EvalConfig] | str | None = None,
    limit: int | None = None,
    distractors: int | None = None,
    unanswerable: float | None = None,
    seed: int = DEFAULT_SEED,
    nulls: str | None = None,
    atlas_dir: str | Path | None = None,
    embedder: str = "auto",
    reference_date: str | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    progress: bool = True,
    rebuild: bool = False,
    profile: str | None = None,
    split: str | None = None,
    **loader_kw: Any,
) -> MatrixRun:
    """Load, build (or reuse the cached atlas), run the matrix: what `ohara eval` does. `split` (tune | test)
    keeps one half of the queries (`tuning.split_queries(seed)`, the halves notebook 04 and the profile
    procedure use) on the whole corpus."""
    chosen = get_configs(configs) if configs is None or isinstance(configs, str) else list(configs)
    ds = prepare_dataset(name_or_path, data_dir, limit=limit, distractors=distractors, unanswerable=unanswerable,
                         seed=seed, nulls=nulls, **loader_kw)
    with build_atlas(ds, atlas_dir, embedder=embedder, reference_date=reference_date, progress=progress,
                     rebuild=rebuild) as built:
        return run_matrix(half(ds, split, seed), built, chosen, seed=seed, n_resamples=n_resamples,
                          progress=progress, profile=profile)


def recompute(run: ConfigRun, query_ids: Iterable[str]) -> dict[str, Any]:
    """Aggregate of `run` restricted to `query_ids` (e.g. a test split), latency included."""
    ids = set(query_ids)
    rows = [r for r in run.rows if r["id"] in ids]
    lat = [r["latency_ms"] for r in rows if r.get("latency_ms") is not None]
    return {**aggregate(rows), "latency_ms_p50": round(statistics.median(lat), 3) if lat else None}
