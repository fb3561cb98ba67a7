"""A `MatrixRun` as the `--json` contract, table rows, Markdown, CSV files.

The JSON contract (`contract`) is what scripts parse:
    {"dataset", "n_queries", "n_unanswerable",
     "configs": {NAME: {"hits@4", "hits@10", "mrr@10", "map@10", "recall@10", "recall@2",
                        "recall@5", "principal_hit", "null_abstention", "latency_ms_p50"}}}
Rates are fractions in [0, 1]; a metric that does not apply (e.g. abstention on a
dataset without null queries) is null; a BEIR dataset's configs also carry "ndcg@10". Extra
top-level keys (`significance`, `skipped_configs`, `notes`, ...) may be added; the keys above keep
their names.
"""
from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .runner import MatrixRun

CONTRACT_METRICS: tuple[str, ...] = (
    "hits@4", "hits@10", "mrr@10", "map@10", "recall@10", "recall@2", "recall@5",
    "principal_hit", "null_abstention", "latency_ms_p50",
)
# Columns of the printed / Markdown table, with their headers as in the paper.
TABLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("hits@4", "Hits@4"), ("hits@10", "Hits@10"), ("mrr@10", "MRR@10"), ("map@10", "MAP@10"),
    ("recall@2", "R@2"), ("recall@5", "R@5"), ("recall@10", "R@10"),
    ("principal_hit", "Principal-hit"), ("null_abstention", "Abstention"), ("latency_ms_p50", "p50 ms"),
)
# Shown as percentages; the rest (MRR, MAP, ms) as plain numbers, as the paper prints them.
PERCENT = frozenset({"hits@4", "hits@10", "recall@2", "recall@5", "recall@10", "principal_hit", "null_abstention",
                     "doc_hit@10", "oracle_hits@4", "oracle_hits@10", "accuracy", "context_has_answer",
                     "insufficient", "short_em", "short_f1", "short_given", "answer_contains",
                     "support_precision"})
FILES = ("summary.csv", "significance.csv", "by_type.csv", "per_query.csv", "report.md", "results.json")


def _clean(value: Any) -> Any:
    """JSON-safe: NaN/inf -> None, so the contract never carries a non-JSON number."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def comparison_dict(c: Any) -> dict[str, Any] | None:
    if c is None:
        return None
    return {"diff": round(c.diff, 4), "ci_low": round(c.ci_low, 4), "ci_high": round(c.ci_high, 4),
            "p_value": round(c.p_value, 4), "n": c.n, "exact": c.exact, "mean_config": round(c.mean_a, 4),
            "mean_baseline": round(c.mean_b, 4)}


def contract_metrics(run: MatrixRun) -> tuple[str, ...]:
    """CONTRACT_METRICS, plus `ndcg@10` on a dataset ranked by document (BEIR), whose headline number it is."""
    return ("ndcg@10", *CONTRACT_METRICS) if run.dataset.rank_unit == "document" else CONTRACT_METRICS


def contract(run: MatrixRun) -> dict[str, Any]:
    """The `ohara eval --json` object (see the module docstring)."""
    return {
        "dataset": run.dataset.name,
        "n_queries": run.n_queries,
        "n_unanswerable": run.n_unanswerable,
        "configs": {name: {k: _clean(r.aggregate.get(k)) for k in contract_metrics(run)}
                    for name, r in run.runs.items()},
        "baseline": run.baseline,
        "significance": {name: {m: comparison_dict(c) for m, c in by_metric.items()}
                         for name, by_metric in run.comparisons.items()},
        "skipped_configs": run.skipped,
        "seed": run.seed,
        "n_resamples": run.n_resamples,
        "embedder": run.build.embedder if run.build else None,
        "vector_model": run.build.vector_model if run.build else None,
        "reference_date": run.build.reference_date if run.build else None,
        "notes": run.notes,
    }


def full_json(run: MatrixRun) -> dict[str, Any]:
    """The contract plus per-type aggregates, per-query rows and the build record."""
    return {
        **contract(run),
        "dataset_summary": run.dataset.summary(),
        "by_type": {name: r.by_type() for name, r in run.runs.items()},
        "per_query": per_query_rows(run),
        "configs_detail": {name: {"description": r.config.description, "overrides": r.overrides,
                                  "aggregate": r.aggregate} for name, r in run.runs.items()},
        "build": run.build.to_dict() if run.build else None,
    }


# ---------------------------------------------------------------------- rows


def summary_rows(run: MatrixRun, metrics: Sequence[str] = ("mrr@10", "recall@5", "principal_hit", "null_abstention")
                 ) -> list[dict[str, Any]]:
    """One row per config: every contract metric, then Δ and p vs the baseline for `metrics`."""
    rows = []
    for name, r in run.runs.items():
        row: dict[str, Any] = {"config": name, **{k: r.aggregate.get(k) for k in CONTRACT_METRICS},
                               "n_scored": r.aggregate.get("n_scored"), "n_null": r.aggregate.get("n_null"),
                               "n_errors": r.aggregate.get("n_errors")}
        for m in metrics:
            c = run.comparisons.get(name, {}).get(m)
            row[f"{m} diff"] = None if c is None else round(c.diff, 4)
            row[f"{m} p"] = None if c is None else round(c.p_value, 4)
        rows.append(row)
    return rows


def significance_rows(run: MatrixRun) -> list[dict[str, Any]]:
    """config × metric: means, difference, 95% bootstrap CI, randomization p-value."""
    rows = []
    for name, by_metric in run.comparisons.items():
        for metric, c in by_metric.items():
            if c is None:
                continue
            rows.append({"config": name, "baseline": run.baseline, "metric": metric, **(comparison_dict(c) or {})})
    return rows


def against_rows(run: MatrixRun, baseline: str,
                 metrics: Sequence[str] = ("recall@5", "mrr@10", "recall@10", "map@10")) -> list[dict[str, Any]]:
    """Every other config − `baseline` (e.g. vector_only, rrf) per metric: paired randomization test and
    bootstrap CI, with the run's seed and resamples; empty when the baseline did not run."""
    from .runner import compare_with  # noqa: PLC0415

    rows = []
    for name, by_metric in compare_with(run.runs, baseline, metrics, run.n_resamples, run.seed).items():
        for metric, c in by_metric.items():
            d = comparison_dict(c)
            if d is not None:
                rows.append({"config": name, "baseline": baseline, "metric": metric, **d})
    return rows


def by_type_rows(run: MatrixRun) -> list[dict[str, Any]]:
    rows = []
    for name, r in run.runs.items():
        for qtype, agg in r.by_type().items():
            rows.append({"config": name, "question_type": qtype, "n": agg["n_queries"],
                         **{k: agg.get(k) for k in CONTRACT_METRICS}})
    return rows


def by_type_comparison_rows(per_query: Sequence[Mapping[str, Any]], baseline: str,
                            metrics: Sequence[str] = ("recall@5", "mrr@10"), n_resamples: int = 10000,
                            seed: int = 42) -> list[dict[str, Any]]:
    """Per question type (MuSiQue: hop count), every other config − `baseline` on `metrics`: the paired
    randomization test and bootstrap CI over that type's queries only, from per-query rows (`per_query`
    of `full_json`, each with `config`, `id`, `question_type`); types with no query in the baseline skip."""
    from .significance import compare  # noqa: PLC0415

    by: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for row in per_query:
        by.setdefault((row["config"], row["question_type"]), []).append(row)
    types = sorted({t for c, t in by if c == baseline})
    rows = []
    for name in dict.fromkeys(c for c, _ in by):
        if name == baseline:
            continue
        for qtype in types:
            a, b = by.get((name, qtype), []), by[(baseline, qtype)]
            for metric in metrics:
                c = compare(a, b, metric, n_resamples, seed)
                rows.append({"config": name, "baseline": baseline, "question_type": qtype, "metric": metric,
                             **(comparison_dict(c) or {})})
    return rows


def per_query_rows(run: MatrixRun) -> list[dict[str, Any]]:
    return [dict(row) for r in run.runs.values() for row in r.rows]


# ---------------------------------------------------------------------- text


def fmt(metric: str, value: Any) -> str:
    """A value as the paper prints it: rates as 12.3%, MRR/MAP as 0.123, ms as 12.3."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    if metric in PERCENT:
        return f"{100 * value:.1f}%"
    if metric.startswith("latency") or metric == "answer_words":
        return f"{value:.1f}"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def markdown_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str]]) -> str:
    """A GitHub Markdown table of `rows` with (key, header) `columns`, values via `fmt`."""
    head = "| " + " | ".join(h for _, h in columns) + " |"
    rule = "|" + "|".join("---" for _ in columns) + "|"
    body = ["| " + " | ".join(fmt(k, row.get(k)) if not isinstance(row.get(k), str) else row[k]
                              for k, _ in columns) + " |" for row in rows]
    return "\n".join([head, rule, *body])


def p_cell(c: Any) -> str:
    """Δ vs baseline with its p-value, e.g. '−2.0pp (p=0.41)' for rates, '−0.012 (p=0.41)' otherwise."""
    if c is None:
        return "–"
    sign = "+" if c.diff >= 0 else "−"
    size = f"{sign}{abs(100 * c.diff):.1f}pp" if c.metric in PERCENT else f"{sign}{abs(c.diff):.3f}"
    return f"{size} (p={c.p_value:.3g})"


def main_table(run: MatrixRun) -> str:
    """The metrics table; a dataset ranked by document (BEIR) adds nDCG@10, its benchmark's headline number."""
    rows = [{"config": name, **r.aggregate} for name, r in run.runs.items()]
    extra = [("ndcg@10", "nDCG@10")] if run.dataset.rank_unit == "document" else []
    return markdown_table(rows, [("config", "config"), *extra, *TABLE_COLUMNS])


def significance_table(run: MatrixRun, metrics: Sequence[str] = ("hits@4", "mrr@10", "recall@5", "principal_hit",
                                                                  "null_abstention")) -> str:
    head = "| config | " + " | ".join(f"Δ {m}" for m in metrics) + " |"
    rule = "|" + "|".join("---" for _ in range(len(metrics) + 1)) + "|"
    body = [f"| {name} | " + " | ".join(p_cell(by.get(m)) for m in metrics) + " |"
            for name, by in run.comparisons.items()]
    return "\n".join([head, rule, *body])


def by_type_table(run: MatrixRun) -> str:
    cols = [("config", "config"), ("question_type", "type"), ("n", "n"), ("hits@4", "Hits@4"),
            ("mrr@10", "MRR@10"), ("recall@5", "R@5"), ("principal_hit", "Principal-hit"),
            ("null_abstention", "Abstention")]
    return markdown_table(by_type_rows(run), cols)


def markdown_report(run: MatrixRun, title: str | None = None) -> str:
    s = run.dataset.summary()
    build = run.build
    lines = [f"# {title or 'Retrieval matrix: ' + run.dataset.name}", "",
             f"- queries: {run.n_queries} ({run.n_unanswerable} unanswerable); documents: {s['documents']}; "
             f"matcher: {s['matcher']}",
             f"- seed {run.seed}; significance vs `{run.baseline}`: paired randomization test and 95% bootstrap CI, "
             f"{run.n_resamples} resamples"]
    if build:
        lines.append(f"- atlas: embedder `{build.embedder}` ({build.vector_model or 'no vectors'}), "
                     f"reference date {build.reference_date}, {build.n_documents} documents")
    for n in run.notes:
        lines.append(f"- {n}")
    for name, why in run.skipped.items():
        lines.append(f"- `{name}` skipped: {why}")
    lines += ["", "## Metrics", "", main_table(run), "",
              f"## Difference from `{run.baseline}` (p-value)", "", significance_table(run), "",
              "## By question type", "", by_type_table(run), ""]
    return "\n".join(lines)


def text_table(run: MatrixRun) -> str:
    """What `ohara eval` prints: the metrics table, then the significance table."""
    return main_table(run) + "\n\n" + significance_table(run)


# ---------------------------------------------------------------------- files


def write_csv(path: str | Path, rows: Iterable[Mapping[str, Any]]) -> Path:
    rows = list(rows)
    path = Path(path)
    fields: list[str] = []
    for r in rows:
        for k in r:
            if k not in fields:
                fields.append(k)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in r.items()})
    return path


def write_outputs(run: MatrixRun, out_dir: str | Path, title: str | None = None) -> dict[str, Path]:
    """summary.csv, significance.csv, by_type.csv, per_query.csv, report.md, results.json in `out_dir`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "summary.csv": write_csv(out / "summary.csv", summary_rows(run)),
        "significance.csv": write_csv(out / "significance.csv", significance_rows(run)),
        "by_type.csv": write_csv(out / "by_type.csv", by_type_rows(run)),
        "per_query.csv": write_csv(out / "per_query.csv", per_query_rows(run)),
    }
    (out / "report.md").write_text(markdown_report(run, title), encoding="utf-8")
    paths["report.md"] = out / "report.md"
    (out / "results.json").write_text(json.dumps(full_json(run), indent=1, default=str, ensure_ascii=False),
                                      encoding="utf-8")
    paths["results.json"] = out / "results.json"
    return paths


def write_table(rows: Sequence[Mapping[str, Any]], out_dir: str | Path, name: str,
                columns: Sequence[tuple[str, str]] | None = None, title: str | None = None) -> dict[str, Path]:
    """`<name>.csv` (raw values) and `<name>.md` (formatted as the paper prints them) in `out_dir`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = list(rows)
    cols = list(columns) if columns else [(k, k) for k in dict.fromkeys(k for r in rows for k in r)]
    md = markdown_table(rows, cols) if rows else "(no rows)"
    (out / f"{name}.md").write_text((f"# {title}\n\n" if title else "") + md + "\n", encoding="utf-8")
    return {"csv": write_csv(out / f"{name}.csv", rows), "md": out / f"{name}.md"}


def save_figure(fig: Any, out_dir: str | Path, name: str) -> Path:
    """`<name>.png` at 120 dpi in `out_dir`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.png"
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return path


PAPER_METRICS: tuple[str, ...] = ("hits@4", "hits@10", "mrr@10", "map@10", "recall@10", "principal_hit",
                                  "null_abstention")


def paper_rows(run: MatrixRun, metrics: Sequence[str] = PAPER_METRICS) -> list[dict[str, Any]]:
    """Ours next to the paper's published row, config by config (configs the paper lacks: paper = None).

    The paper's numbers are for its own corpus (`ohara_lab.eval.paper`); they are context for
    reading ours, not a target. For MuSiQue there is no published row, so every paper cell is None.
    """
    from .paper import paper_table  # noqa: PLC0415

    published = paper_table(run.dataset.name)
    rows = []
    for name, r in run.runs.items():
        rows.append({"config": name, "source": "ours", **{m: r.aggregate.get(m) for m in metrics}})
        if name in published:
            rows.append({"config": name, "source": "paper", **{m: published[name].get(m) for m in metrics}})
    return rows
