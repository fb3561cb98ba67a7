"""The abstention trade-off: sweep the corroboration rule, measure both sides of it.

A Principal tier that is empty on an unanswerable query is the engine abstaining; one
that holds a gold item on an answerable query is a Principal hit. The rule that decides
both is `principal_min_families` (distinct signal families a node needs) and
`principal_score_pctl` (the score percentile it must reach). Sweeping the two gives the
curve on which the paper's single point (45.6% abstention, 91.5% Principal-hit on
MultiHop-RAG) and top-k's 0% abstention sit.

Speed without approximation: the rule only decides which fused nodes enter the tier, so
each query is retrieved once per base config and the tier is recomputed for every grid
point with the engine's own `retrieval.tiers.principal`. That is exactly what a full
query would return unless the rule also changes the fused scores: the temporal prior
shields corroborated nodes, which matters when the prior is non-zero for some document
in the list, so such queries are re-run at every grid point. If an LLM hook may rewrite
the tier (self-RAG, rerank, integrity verification) every point runs as full queries
(`exact=True` forces that too).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import UsageError
from ..retrieval.temporal import prior, prior_applies, reference_day
from ..retrieval.tiers import principal
from ..settings import Settings
from .build import BuiltAtlas
from .configs import CONFIGS, EvalConfig
from .dataset import Dataset
from .evaluate import QueryResult, evaluate
from .matchers import RankedItem
from .runner import ConfigRun, dated, run_config, run_query, to_ranked, variant

# Settings under which an LLM hook may rewrite the Principal tier after it is computed.
_TIER_REWRITERS = ("self_rag_verify", "rerank", "integrity_llm_verify")
DEFAULT_FAMILIES: tuple[int, ...] = (1, 2, 3, 4, 5)
DEFAULT_PCTLS: tuple[float, ...] = (0.0, 0.5, 0.75, 0.9)
# Many-angle corroboration (H1) changes how many families a node collects, so the rule
# is swept with it on (`full`) and off (`no_many_angle`, the original's behaviour).
DEFAULT_BASES: tuple[str, ...] = ("full", "no_many_angle")


def sweep_point(run: ConfigRun, **params: Any) -> dict[str, Any]:
    agg = run.aggregate
    return {**params, "principal_hit": agg.get("principal_hit"), "null_abstention": agg.get("null_abstention"),
            "hits@4": agg.get("hits@4"), "mrr@10": agg.get("mrr@10"), "n_scored": agg.get("n_scored"),
            "n_null": agg.get("n_null"),
            "mean_principal_size": _mean([r["principal_count"] for r in run.rows])}


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def abstention_sweep(
    built: BuiltAtlas,
    dataset: Dataset,
    families: Sequence[int] = DEFAULT_FAMILIES,
    pctls: Sequence[float] = DEFAULT_PCTLS,
    bases: Sequence[str] = DEFAULT_BASES,
    progress: bool = False,
    exact: bool = False,
) -> list[dict[str, Any]]:
    """One row per (base config, min_families, score_pctl): Principal-hit, abstention and the rest.

    Rows carry `is_default` for the engine's own settings, so the operating point is
    visible on the curve.
    """
    if not any(q.is_null for q in dataset.queries):
        raise UsageError(f"{dataset.name} has no unanswerable queries: hold some out with unanswerable=FRACTION")
    defaults = built.atlas.settings  # the profile the atlas was opened with marks its own operating point
    rows = []
    for base in bases:
        points = [(fam, pctl) for fam in families for pctl in pctls]
        runs = None if exact else _retiered(built, dataset, CONFIGS[base], points)
        for fam, pctl in points:
            if runs is not None:
                run = runs[(fam, pctl)]
            else:
                cfg = variant(CONFIGS[base], {"principal_min_families": fam, "principal_score_pctl": pctl})
                run = run_config(built, dataset, cfg, progress=progress, keep_results=False)
            rows.append(sweep_point(run, base=base, min_families=fam, score_pctl=pctl,
                                    is_default=(fam == defaults.principal_min_families
                                                and pctl == defaults.principal_score_pctl)))
    return rows


def _retiered(built: BuiltAtlas, dataset: Dataset, config: EvalConfig,
              points: Sequence[tuple[int, float]]) -> dict[tuple[int, float], ConfigRun] | None:
    """Every grid point from one retrieval per query; None when an LLM hook may rewrite tiers.

    Queries whose fused scores could depend on the rule (the temporal prior may fire for
    them) are retrieved again at every grid point, so every row is exact.
    """
    settings = built.atlas.settings.override(**config.overrides)
    if any(getattr(settings, name) for name in _TIER_REWRITERS):
        return None
    run_query(built, dataset.queries[0].text, config.overrides)  # warm-up, as run_config does
    raw: dict[str, Any] = {}
    scored: dict[str, QueryResult] = {}
    latency: dict[str, float] = {}
    for q in dataset.queries:
        scored[q.id], latency[q.id], raw[q.id] = run_query(built, q.text, dated(q, config.overrides))
    dynamic = {q.id for q in dataset.queries if raw[q.id] is not None and _prior_can_fire(built, raw[q.id], settings)}
    out = {}
    for fam, pctl in points:
        overrides = {**config.overrides, "principal_min_families": fam, "principal_score_pctl": pctl}
        s = settings.override(principal_min_families=fam, principal_score_pctl=pctl)
        results = {}
        for q in dataset.queries:
            r = raw[q.id]
            if q.id in dynamic:
                results[q.id] = run_query(built, q.text, dated(q, overrides), config.principal_topk)[0]
            elif r is None:  # the query failed: score it empty, as run_config does
                results[q.id] = scored[q.id]
            else:
                chosen, _ = principal(r.fused, s)
                results[q.id] = QueryResult(ranked=scored[q.id].ranked, principal=_items(built, r, chosen))
        report = evaluate(dataset, results)
        for row in report.rows:
            row["latency_ms"] = round(latency[row["id"]], 3)
        name = f"{config.name}[principal_min_families={fam},principal_score_pctl={pctl}]"
        out[(fam, pctl)] = ConfigRun(name, config, overrides, report, {}, latency)
    return out


def _prior_can_fire(built: BuiltAtlas, result: Any, settings: Settings) -> bool:
    """Whether the temporal prior could add to any fused node of this query under some rule.

    The rule decides which nodes the prior skips ("principal_immune"); it matters only if
    the prior is non-zero for some document in the list (never, e.g., on an undated corpus).
    """
    intent = result.query.temporal_intent
    if not prior_applies(intent, settings):
        return False
    docs = built.atlas.store.get_nodes({f.document_id for f in result.fused if f.document_id})
    today = reference_day(settings)
    return any(prior(doc, intent, result.query.date_range, settings, today) for doc in docs.values())


def _items(built: BuiltAtlas, result: Any, chosen: Sequence[Any]) -> list[RankedItem]:
    """Re-tiered nodes as RankedItems; nodes outside the returned views get their text from the store."""
    missing = [f.id for f in chosen if f.id not in result.views]
    nodes = built.atlas.store.get_nodes(missing) if missing else {}
    items = to_ranked(result, built, [f for f in chosen if f.id in result.views])
    by_id = {f.id: item for f, item in zip([f for f in chosen if f.id in result.views], items)}
    out = []
    for f in chosen:
        if f.id in by_id:
            out.append(by_id[f.id])
        else:
            n = nodes.get(f.id, {})
            text = n.get("content") or n.get("markdown_representation") or n.get("title") or ""
            out.append(RankedItem(built.dataset_doc_id(f.document_id) or "", text))
    return out


def topk_point(built: BuiltAtlas, dataset: Dataset, progress: bool = False) -> dict[str, Any]:
    """The −corroboration row (Principal := top 5): never abstains, by construction."""
    run = run_config(built, dataset, CONFIGS["no_corroboration"], progress=progress, keep_results=False)
    return sweep_point(run, base="no_corroboration", min_families=None, score_pctl=None, is_default=False,
                       label="top-5")


def pareto_front(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows no other row beats on both Principal-hit and abstention, by abstention ascending.

    Of several rows at the same point only the first is kept.
    """
    pts = [r for r in rows if r.get("principal_hit") is not None and r.get("null_abstention") is not None]
    front = [r for r in pts if not any(
        o["principal_hit"] >= r["principal_hit"] and o["null_abstention"] >= r["null_abstention"]
        and (o["principal_hit"] > r["principal_hit"] or o["null_abstention"] > r["null_abstention"]) for o in pts)]
    unique = list({(r["principal_hit"], r["null_abstention"]): r for r in reversed(front)}.values())[::-1]
    return sorted(unique, key=lambda r: (r["null_abstention"], -r["principal_hit"]))
