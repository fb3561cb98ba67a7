"""Score a system's ranked lists against a `Dataset`: per-query rows, aggregate, per type.

Per-query rows are kept (as ranx does) so that configs can be compared query by
query with `ohara_lab.eval.significance`. Which queries each number averages over
follows spec §5:

* hits@k, mrr@10, map@10, principal_hit — every non-null query;
* recall@k (gold-recall), ndcg@10 — non-null queries with gold_count > 0 (nDCG's gains are the
  graded relevance of BEIR/TREC qrels, 1 for binary gold);
* null_abstention — null queries only (None on a dataset without any);
* doc_hit@10 — paragraph-matched queries that name a gold document (QASPER);
* oracle_hits@k — those of them whose gold paper is in the top 10.

A metric with no query to average over is `None`, never 0. A dataset whose `rank_unit` is
"document" (BEIR) is scored on each document once, at its best item (`matchers.first_per_document`).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from . import metrics as m
from .dataset import Dataset, EvalQuery, MatcherKind, RankUnit
from .matchers import RankedItem, first_per_document, gold_hits, matcher_for

HITS_KS: tuple[int, ...] = (4, 10)
RECALL_KS: tuple[int, ...] = (2, 5, 10)
ORACLE_KS: tuple[int, ...] = (4, 10)
CUTOFF = 10  # MRR@10, MAP@10, doc_hit@10 (spec §5)


@dataclass
class QueryResult:
    """What a system returned for one query: ranked results and its Principal tier."""

    ranked: list[RankedItem] = field(default_factory=list)
    principal: list[RankedItem] = field(default_factory=list)
    error: str | None = None  # a failed query is scored as an empty result, as the original did


@dataclass
class EvalReport:
    rows: list[dict[str, Any]]
    aggregate: dict[str, Any]
    by_type: dict[str, dict[str, Any]]


def score_query(
    query: EvalQuery,
    result: QueryResult,
    matcher_kind: MatcherKind,
    hits_ks: Sequence[int] = HITS_KS,
    recall_ks: Sequence[int] = RECALL_KS,
    oracle_ks: Sequence[int] = ORACLE_KS,
    rank_unit: RankUnit = "item",
) -> dict[str, Any]:
    """One per-query row; metrics that do not apply to this query are None."""
    matcher = matcher_for(query, matcher_kind)
    ranked = [] if result.error else result.ranked
    if rank_unit == "document":
        ranked = first_per_document(ranked)
    principal = [] if result.error else result.principal
    hits = gold_hits(ranked, matcher)
    ranks = [r for r, _ in hits]
    null = query.is_null
    row: dict[str, Any] = {
        "id": query.id,
        "question_type": query.type,
        "is_null": null,
        "gold_count": matcher.gold_count,
        "hit_ranks": ranks,
        "first_hit_rank": m.first_hit_rank(ranks),
        "principal_count": len(principal),
        "error": result.error,
    }
    if query.as_of:
        row["as_of"] = query.as_of
    for k in hits_ks:
        row[f"hits@{k}"] = None if null else m.hit_at_k(ranks, k)
    row[f"mrr@{CUTOFF}"] = None if null else m.reciprocal_rank_at_k(ranks, CUTOFF)
    row[f"map@{CUTOFF}"] = None if null else m.average_precision_at_k(ranks, matcher.gold_count, CUTOFF)
    for k in recall_ks:
        row[f"recall@{k}"] = None if null else m.gold_recall_at_k(ranks, matcher.gold_count, k)
    if matcher_kind == "doc":
        gains = m.gains_of(query.gold_doc_ids, query.gold_grades)
        hit_gains = [(r, float(query.gold_grades.get(g, 1))) for r, g in hits]
    else:  # paragraph gold is binary: every evidence string counts once, as in the recall denominator
        gains = [1.0] * matcher.gold_count
        hit_gains = [(r, 1.0) for r in ranks]
    row[f"ndcg@{CUTOFF}"] = None if null else m.ndcg_at_k(hit_gains, gains, CUTOFF)
    row["principal_hit"] = None if null else m.principal_hit(principal, matcher)
    row["null_abstention"] = m.abstained(principal) if null else None

    paragraph_with_doc = matcher_kind == "paragraph" and bool(query.gold_doc_ids) and not null
    doc_hit = m.doc_hit_at_k(ranked, query.gold_doc_ids, CUTOFF) if paragraph_with_doc else None
    row[f"doc_hit@{CUTOFF}"] = doc_hit
    row["oracle_rank"] = m.oracle_rank(ranked, matcher, query.gold_doc_ids) if paragraph_with_doc else None
    for k in oracle_ks:
        if doc_hit:
            r = row["oracle_rank"]
            row[f"oracle_hits@{k}"] = 1.0 if r is not None and r < k else 0.0
        else:
            row[f"oracle_hits@{k}"] = None
    return row


METRIC_PREFIXES = ("hits@", "mrr@", "map@", "recall@", "ndcg@", "doc_hit@", "oracle_hits@")
RATE_KEYS = ("principal_hit", "null_abstention")


def metric_names(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The metric columns of `rows`, in row order."""
    if not rows:
        return []
    return [k for k in rows[0] if k.startswith(METRIC_PREFIXES) or k in RATE_KEYS]


def aggregate(rows: Sequence[Mapping[str, Any]], ndigits: int | None = 4) -> dict[str, Any]:
    """Mean of each metric over the rows where it applies (None if none do); counts.

    Rounded to `ndigits` decimals (4, as the paper's tables) unless `ndigits` is None.
    """
    out: dict[str, Any] = {
        "n_queries": len(rows),
        "n_scored": sum(1 for r in rows if not r["is_null"]),
        "n_null": sum(1 for r in rows if r["is_null"]),
        "n_errors": sum(1 for r in rows if r.get("error")),
    }
    for name in metric_names(rows):
        values = [r[name] for r in rows if r.get(name) is not None]
        if not values:
            out[name] = None
            continue
        mean = sum(values) / len(values)
        out[name] = round(mean, ndigits) if ndigits is not None else mean
    out["n_oracle"] = sum(1 for r in rows if r.get(f"doc_hit@{CUTOFF}"))
    return out


def evaluate(
    dataset: Dataset,
    results: Mapping[str, QueryResult],
    hits_ks: Sequence[int] = HITS_KS,
    recall_ks: Sequence[int] = RECALL_KS,
    oracle_ks: Sequence[int] = ORACLE_KS,
    ndigits: int | None = 4,
    query_ids: Iterable[str] | None = None,
) -> EvalReport:
    """Score `results` (query id -> QueryResult) on `dataset` (or on `query_ids` of it).

    Every selected query must have a result and every result a query: a mismatch is a
    bug in the caller, not a miss to average in.
    """
    queries = dataset.select(query_ids)
    selected = {q.id for q in queries}
    missing = [q.id for q in queries if q.id not in results]
    extra = [qid for qid in results if qid not in selected]
    if missing or extra:
        raise UsageError(
            f"results do not match the queries of {dataset.name}: "
            f"{len(missing)} without a result (e.g. {missing[:3]}), {len(extra)} unknown (e.g. {extra[:3]})"
        )
    rows = [score_query(q, results[q.id], dataset.matcher, hits_ks, recall_ks, oracle_ks, dataset.rank_unit)
            for q in queries]
    types = list(dict.fromkeys(r["question_type"] for r in rows))
    by_type = {t: aggregate([r for r in rows if r["question_type"] == t], ndigits) for t in types}
    return EvalReport(rows=rows, aggregate=aggregate(rows, ndigits), by_type=by_type)
