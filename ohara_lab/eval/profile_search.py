"""The written procedure that chooses the `default` profile: a coordinate search on a tuning split.

    python -m ohara_lab.eval.profile_search --dataset musique --unanswerable 0.25 --seed 42 \\
        --out eval/results/profile_search/musique

Start from the literature's values (HippoRAG 2: damping 0.5, passage reset 0.05,
synonymy τ 0.8; Bruch et al. 2023: min–max normalisation; the graph walk as the ranker,
every other family off). Then, stage by stage in the order of `STAGES`, score each grid
point of that stage with every other setting held at its current choice, on the
*tuning split's answerable queries only* (`tuning.split_queries`, seeded, stratified by
hop count), and keep the best point only if it beats the current choice by more than
one query's worth of the objective (1/n) — otherwise the earlier, literature or simpler
value stays. The objective is Recall@5 + MRR@10. The test split is never read here: the
caller reports the chosen profile on it afterwards (`report_profile`).

Synonymy τ changes the atlas (SYNONYM_OF edges are relinked for each value, then
relinked at the chosen one).
"""
from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .build import BuiltAtlas, build_atlas
from .configs import EvalConfig
from .dataset import Dataset
from .runner import DEFAULT_SEED, prepare_dataset, run_config
from .tuning import split_queries

OBJECTIVE = ("recall@5", "mrr@10")

# The literature's starting point; every key is a setting.
START: dict[str, Any] = {
    "normalisation": "minmax", "ppr_weight": 1.0, "vector_weight": 0.0, "bm25_weight": 0.0,
    "sumo_weight": 0.0, "entity_pivot_weight": 0.0, "cross_doc_weight": 0.0, "struct_weight": 0.0,
    "bridge_weight": 0.0, "ppr_damping": 0.5, "ppr_passage_reset": 0.05, "ppr_seed_passages": 1,
    "ppr_first_pass_bm25": 0.0, "synonymy_threshold": 0.8,
}
SPEC_GRAPH = ("sumo_weight", "entity_pivot_weight", "cross_doc_weight", "struct_weight")


@dataclass(frozen=True)
class Stage:
    name: str
    points: tuple[dict[str, Any], ...]


def _grid(**axes: Sequence[Any]) -> tuple[dict[str, Any], ...]:
    out: list[dict[str, Any]] = [{}]
    for key, values in axes.items():
        out = [{**p, key: v} for p in out for v in values]
    return tuple(out)


STAGES: tuple[Stage, ...] = (
    Stage("normalisation", _grid(normalisation=("minmax", "zscore"))),
    Stage("dense and BM25 beside the walk", _grid(vector_weight=(0.0, 0.1, 0.2, 0.4), bm25_weight=(0.0, 0.1, 0.2))),
    Stage("the spec's graph phases", tuple(dict.fromkeys(SPEC_GRAPH, w) for w in (0.0, 0.05, 0.1))),
    Stage("walk damping and passage reset", _grid(ppr_damping=(0.5, 0.7), ppr_passage_reset=(0.05, 0.1))),
    Stage("walk seeds", _grid(ppr_seed_passages=(0, 1, 3))),
    Stage("BM25 in the walk's first pass", _grid(ppr_first_pass_bm25=(0.0, 0.1, 0.2, 0.3, 0.5))),
    Stage("synonymy threshold", _grid(synonymy_threshold=(0.8, 0.85, 0.9, 1.01))),
    Stage("bridge hop", _grid(bridge_weight=(0.0, 0.1, 0.2, 0.3))),
)


def objective(aggregate: dict[str, Any]) -> float:
    return float(sum(aggregate[m] or 0.0 for m in OBJECTIVE))


def evaluate(built: BuiltAtlas, dataset: Dataset, query_ids: Sequence[str], settings: dict[str, Any],
             relink: Callable[[float], None]) -> dict[str, Any]:
    """Aggregate metrics of one point (relinking synonyms first when τ changed)."""
    relink(settings["synonymy_threshold"])
    run = run_config(built, dataset, EvalConfig("point", settings), query_ids=query_ids, keep_results=False)
    return run.aggregate


def search_profile(built: BuiltAtlas, dataset: Dataset, tune_ids: Sequence[str],
                   stages: Sequence[Stage] = STAGES, start: dict[str, Any] | None = None,
                   log: Callable[[str], None] = print) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(chosen settings, one row per evaluated point) by the procedure in the module docstring."""
    answerable = [q for q in dataset.select(tune_ids) if not q.is_null]
    ids = [q.id for q in answerable]
    margin = 1.0 / len(ids)
    linked: dict[str, float] = {}

    def relink(tau: float) -> None:
        if linked.get("tau") != tau:
            built.atlas.link_synonyms(built.atlas.settings.override(synonymy_threshold=tau))
            linked["tau"] = tau

    current = dict(start or START)
    best = objective(evaluate(built, dataset, ids, current, relink))
    rows: list[dict[str, Any]] = [{"stage": "start", **current, "objective": round(best, 4), "kept": True}]
    log(f"start: objective {best:.4f}")
    for stage in stages:
        scored = []
        for point in stage.points:
            settings = {**current, **point}
            agg = evaluate(built, dataset, ids, settings, relink)
            score = objective(agg)
            scored.append((score, point))
            rows.append({"stage": stage.name, **settings, "objective": round(score, 4),
                         **{m: agg[m] for m in OBJECTIVE}, "kept": False})
            log(f"  {stage.name}: {point} -> {score:.4f}")
        top_score, top_point = max(scored, key=lambda sp: sp[0])  # first of equals: the grid lists simpler first
        if top_score > best + margin:
            current.update(top_point)
            best = top_score
            rows[-len(scored) + [p for _, p in scored].index(top_point)]["kept"] = True
        log(f"{stage.name}: keep {({k: current[k] for k in top_point})} (objective {best:.4f})")
    relink(current["synonymy_threshold"])
    return current, rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="musique")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--unanswerable", type=float, default=0.25)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--out", default="eval/results/profile_search/musique")
    parser.add_argument("--stage", action="append", default=None,
                        help="run only the stage(s) of this name, from the chosen point in OUT/chosen.json, and "
                             "write OUT/stage-<n>.md (a stage added after the search ran: nothing else moves)")
    args = parser.parse_args(argv)
    ds = prepare_dataset(args.dataset, args.data_dir, unanswerable=args.unanswerable, seed=args.seed)
    tune_ids, _ = split_queries(ds, 0.5, args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from .report import write_table  # noqa: PLC0415

    if args.stage:
        stages = [s for s in STAGES if s.name in args.stage]
        start = {**START, **json.loads((out / "chosen.json").read_text(encoding="utf-8"))}
        with build_atlas(ds, embedder=args.embedder, progress=False) as built:
            chosen, rows = search_profile(built, ds, tune_ids, stages=stages, start=start)
        name = "stage-" + "-".join(s.name.split()[0].lower() for s in stages)
        write_table(rows, out, name, title=f"Later stage(s) {', '.join(args.stage)} from the chosen point "
                                           f"({args.dataset} tuning split, seed {args.seed})")
        (out / "chosen.json").write_text(json.dumps(chosen, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        return
    with build_atlas(ds, embedder=args.embedder, progress=False) as built:
        chosen, rows = search_profile(built, ds, tune_ids)

    write_table(rows, out, "search", title=f"Profile search on the {args.dataset} tuning split "
                                            f"({len(tune_ids)} queries, seed {args.seed})")
    (out / "chosen.json").write_text(json.dumps(chosen, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(chosen, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
