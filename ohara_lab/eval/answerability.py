"""How well the answerability score separates answerable from unanswerable queries.

* AUROC per null kind (held-out, foreign) with a 95% percentile bootstrap CI (queries resampled
  within each class, seeded; Efron & Tibshirani 1993) — scikit-learn's `roc_auc_score`;
* operating points: for each keep k, the threshold τ(k) the model's conformal calibration gives,
  then the abstention on each null kind and the Principal-hit on answerable queries, against
  the same engine without abstention;
* the risk–coverage curve (El-Yaniv & Wiener, JMLR 2010): answerable queries ranked by score,
  the share kept (coverage) against the Principal-miss rate among the kept (risk).

Rows come from `score_queries`: one per query with its score, its kind and whether its
Principal tier (before abstaining) holds a gold item, and the atlas's twin scores (`profile.py`), so
each row's threshold is its own atlas's: τ_atlas(keep) = Q_twins(u*(keep)) (`model.py`). A query the
vacuity check stops (`vacuous.py`) abstains whatever its score.

`transfer_table` is the cross-corpus protocol (refs/abstention.md): one model, every corpus its
training never read, each with its own held-out nulls, per corpus the abstention on nulls against the
Principal-hit it costs.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

from ..retrieval.answerability import AnswerabilityModel
from .build import BuiltAtlas, build_atlas
from .dataset import Dataset
from .matchers import matcher_for
from .nulls import null_kind
from .runner import dated, to_ranked

KEEPS: tuple[float, ...] = (0.90, 0.92, 0.95)


@dataclass
class Scored:
    query_id: str
    kind: str  # answerable | heldout | foreign
    score: float
    features: dict[str, float | None]
    principal_hit: bool  # before abstaining (answerable queries; False for nulls)
    reason: str | None = None
    twins: list[float] | None = field(default=None, repr=False)  # its atlas's sorted twin scores (None: raw τ)
    vacuous: bool = False  # stopped by the vacuity check: abstains at every threshold

    def abstains(self, model: AnswerabilityModel, keep: float) -> bool:
        return self.vacuous or self.score < model.threshold(keep, self.twins)


def score_queries(built: BuiltAtlas, dataset: Dataset, query_ids: Sequence[str], overrides: dict[str, Any],
                  model: AnswerabilityModel, keep: float = 0.92, progress: bool = False) -> list[Scored]:
    """Each query once with abstention reported but not applied (`abstain=features`), scored by `model` on the
    atlas's own scale (its probe profile: relative features, twin scores).

    Held-out nulls of further hold-outs are scored only as nulls (their answerable twins are the test
    split's answerable queries, scored once on the main atlas)."""
    from tqdm.auto import tqdm  # noqa: PLC0415

    from ..retrieval.answerability import vacuous  # noqa: PLC0415
    from ..retrieval.answerability.profile import MIN_TWINS  # noqa: PLC0415
    from .calibrate import query_profile  # noqa: PLC0415

    profile = query_profile(built.atlas, overrides, lexical=model.lexical and bool(built.atlas.store.vector_models()))
    twins = profile.twin_scores(model.score, model.key) if profile and profile.n_twins >= MIN_TWINS else None
    out = []
    for q in tqdm(dataset.select(query_ids), desc="answerability", unit="q", disable=not progress, leave=False):
        extra = {"embedder": "none"} if model.lexical and built.atlas.store.vector_models() else {}
        result = built.atlas.query(q.text, **{**dated(q, overrides), **extra, "abstain": "features",
                                             "result_limit": 20})
        values = dict(result.answerability.features)
        if profile is not None:
            values.update(profile.relative_values(values))
        matcher = matcher_for(q, dataset.matcher)
        hit = any(matcher(i) is not None for i in to_ranked(result, built, result.tiers.principal))
        score = model.score(values)
        dense = values.get("dense_top1_rel")
        empty = vacuous.check(q.text, built.atlas.store, dense).reason
        row = Scored(q.id, null_kind(q) or "answerable", score, values, hit and not q.is_null, None, twins,
                     empty is not None)
        row.reason = empty or ("below threshold" if row.abstains(model, keep) else None)
        out.append(row)
    return out


def auroc(rows: Sequence[Scored], kind: str) -> float | None:
    from sklearn.metrics import roc_auc_score  # noqa: PLC0415

    pos = [r.score for r in rows if r.kind == "answerable"]
    neg = [r.score for r in rows if r.kind == kind]
    if not pos or not neg:
        return None
    return float(roc_auc_score([1] * len(pos) + [0] * len(neg), pos + neg))


def auroc_ci(rows: Sequence[Scored], kind: str, resamples: int = 2000, seed: int = 42
             ) -> tuple[float | None, float | None, float | None]:
    """(AUROC, 2.5th, 97.5th percentile) over stratified bootstrap resamples of the queries."""
    from sklearn.metrics import roc_auc_score  # noqa: PLC0415

    pos = [r.score for r in rows if r.kind == "answerable"]
    neg = [r.score for r in rows if r.kind == kind]
    point = auroc(rows, kind)
    if point is None:
        return None, None, None
    rng = random.Random(seed)
    stats = []
    for _ in range(resamples):
        p = [rng.choice(pos) for _ in pos]
        n = [rng.choice(neg) for _ in neg]
        stats.append(roc_auc_score([1] * len(p) + [0] * len(n), p + n))
    lo, hi = np.percentile(stats, [2.5, 97.5])
    return point, float(lo), float(hi)


def operating_points(rows: Sequence[Scored], model: AnswerabilityModel, keeps: Sequence[float] = KEEPS
                     ) -> list[dict[str, Any]]:
    """Per keep: the calibration-scale threshold (each row is decided on its own atlas's scale), abstention per
    null kind, Principal-hit with and without abstaining."""
    answerable = [r for r in rows if r.kind == "answerable"]
    base_hit = float(np.mean([r.principal_hit for r in answerable])) if answerable else None
    out = []
    for keep in keeps:
        t = model.threshold(keep)
        row: dict[str, Any] = {"keep": keep, "threshold": None if t == -np.inf else round(t, 4)}
        for kind in sorted({r.kind for r in rows} - {"answerable"}):
            nulls = [r for r in rows if r.kind == kind]
            row[f"abstention_{kind}"] = float(np.mean([r.abstains(model, keep) for r in nulls]))
            row[f"n_{kind}"] = len(nulls)
        kept = [r.principal_hit and not r.abstains(model, keep) for r in answerable]
        row.update({"answerable_kept": float(np.mean([not r.abstains(model, keep) for r in answerable]))
                    if answerable else None,
                    "principal_hit": float(np.mean(kept)) if answerable else None,
                    "principal_hit_without_abstention": base_hit, "n_answerable": len(answerable)})
        out.append(row)
    return out


def risk_coverage(rows: Sequence[Scored]) -> list[dict[str, float]]:
    """(coverage, risk) as answerable queries are kept from the highest score down."""
    ranked = sorted((r for r in rows if r.kind == "answerable"), key=lambda r: -r.score)
    out, misses = [], 0
    for i, r in enumerate(ranked, start=1):
        misses += 0 if r.principal_hit else 1
        out.append({"coverage": i / len(ranked), "risk": misses / i, "score": r.score})
    return out


def auroc_table(rows: Sequence[Scored], resamples: int = 2000, seed: int = 42) -> list[dict[str, Any]]:
    """One row per null kind present: its size, AUROC against the answerable queries and the bootstrap CI."""
    out = []
    for kind in sorted({r.kind for r in rows} - {"answerable"}):
        point, lo, hi = auroc_ci(rows, kind, resamples, seed)
        out.append({"null_kind": kind, "n_null": sum(r.kind == kind for r in rows),
                    "n_answerable": sum(r.kind == "answerable" for r in rows),
                    "auroc": point, "ci_low": lo, "ci_high": hi})
    return out


def coefficients(model: AnswerabilityModel) -> list[dict[str, Any]]:
    """The model's standardised coefficients, largest effect first (what moves the score)."""
    rows = [{"feature": f, "coefficient": round(c, 4), "mean": round(m, 4), "scale": round(s, 4)}
            for f, c, m, s in zip(model.features, model.coef, model.mean, model.scale)]
    return sorted(rows, key=lambda r: -abs(r["coefficient"]))


def model_for(built: BuiltAtlas) -> AnswerabilityModel:
    """The model the engine uses on this atlas (asked of the engine, so the choice is made in one place): its own
    (`ohara calibrate`), else the shipped one — the lexical one without vectors or with vectors it never read."""
    vectors = built.info.vector_model if built.atlas.store.vector_models() else None
    settings = built.atlas.settings.override(abstain="model")  # in model mode the engine always has one
    return cast(AnswerabilityModel, built.atlas.engine.answerability_model(settings, vectors))


def split_rows(built: BuiltAtlas, dataset: Dataset, model: AnswerabilityModel, *, seed: int = 42,
               data_dir: str | None = None, foreign_limit: int | None = None, split: str = "test",
               profile: str = "default", progress: bool = False) -> list[Scored]:
    """The queries of `dataset`'s test half (split="test") or all of them, then the test half of the foreign
    queries (at most `foreign_limit`; 0 = none), scored on `built` under `profile`: `test_set` for any cut."""
    from .calibrate import foreign_split  # noqa: PLC0415
    from .splits import split_queries  # noqa: PLC0415

    overrides = {"profile": profile}
    ids = split_queries(dataset, 0.5, seed)[1] if split == "test" else [q.id for q in dataset.queries]
    rows = score_queries(built, dataset, ids, overrides, model, progress=progress)
    own = dataset.name.startswith("multihop")  # MultiHop-RAG's questions are not foreign to its own corpus
    foreign = foreign_split(seed, data_dir)[1][:foreign_limit] if foreign_limit != 0 and not own else []
    if foreign:
        foreign_ds = Dataset(name="foreign", documents=dataset.documents, queries=foreign, matcher=dataset.matcher)
        rows += score_queries(built, foreign_ds, [q.id for q in foreign], overrides, model, progress=progress)
    return rows


def extra_holdout_rows(test_ids: Sequence[str], model: AnswerabilityModel, *, data_dir: str | None = None,
                       cache_dir: str | None = None, embedder: str = "minilm", profile: str = "default",
                       progress: bool = False) -> list[Scored]:
    """Held-out nulls of two further MuSiQue hold-outs drawn among `test_ids` (each on its own atlas)."""
    from .calibrate import extra_holdouts  # noqa: PLC0415

    rows: list[Scored] = []
    for extra in extra_holdouts(test_ids, data_dir=data_dir):
        with build_atlas(extra, cache_dir, embedder=embedder, progress=progress) as built:
            nulls = [q.id for q in extra.queries if q.is_null]
            rows += score_queries(built, extra, nulls, {"profile": profile}, model, progress=progress)
    return rows


def as_rows(rows: Sequence[Scored]) -> list[dict[str, Any]]:
    """Scored queries as flat table rows (features prefixed `f_`), for CSV and DataFrames."""
    return [{"query_id": r.query_id, "kind": r.kind, "score": round(r.score, 6), "principal_hit": r.principal_hit,
             "below_threshold": r.reason is not None,
             **{f"f_{k}": None if v is None else round(v, 6) for k, v in r.features.items()}}
            for r in rows]


def test_set(seed: int = 42, data_dir: str | None = None, progress: bool = False,
             cache_dir: str | None = None) -> tuple[list[Scored], Any]:
    """The shipped model scored on everything its training never saw: the MuSiQue test split's answerable
    queries and held-out nulls (main hold-out and two further hold-outs among the test split's queries) and
    the test half of the foreign queries. Returns (rows, model)."""
    from ..retrieval.answerability.model import default_model  # noqa: PLC0415
    from .calibrate import tuning_split  # noqa: PLC0415

    model = default_model()
    ds, _, test = tuning_split(seed, data_dir)
    with build_atlas(ds, cache_dir, embedder="minilm", progress=progress) as built:
        rows = split_rows(built, ds, model, seed=seed, data_dir=data_dir, progress=progress)
    return rows + extra_holdout_rows(test, model, data_dir=data_dir, cache_dir=cache_dir, progress=progress), model


# ---------------------------------------------------------------------- across corpora

TRANSFER_FRACTION = 0.3  # nulls held out of a generic corpus (two draws, seeds 42 and 1)
TRANSFER_SEEDS = (42, 1)


def corpus_rows(corpus: str, model: AnswerabilityModel | None = None, *, data_dir: str | None = None,
                cache_dir: str | None = None, embedder: str = "minilm", distractors: int | None = None,
                seed: int = 42, profile: str = "default", progress: bool = False) -> list[Scored]:
    """Every scored query of one corpus under one model (the engine's own choice when None):
    `musique` — its test split as `test_set` reads it; `qasper-leval` — its answerable questions on
    their papers, then the same questions with their gold paragraphs removed (`without_gold_paragraphs`);
    a generic folder — all its queries on a hold-out of 30% (seed 42), and the nulls of a second (seed 1)."""
    from .calibrate import tuning_split  # noqa: PLC0415
    from .holdout import make_unanswerable, without_gold_paragraphs  # noqa: PLC0415
    from .runner import prepare_dataset  # noqa: PLC0415
    from .subset import subset  # noqa: PLC0415

    over = {"profile": profile}
    if corpus == "musique":
        ds, _, test = tuning_split(seed, data_dir)
        with build_atlas(ds, cache_dir, embedder=embedder, progress=progress) as built:
            chosen = model or model_for(built)
            found = split_rows(built, ds, chosen, seed=seed, data_dir=data_dir, profile=profile, progress=progress)
        return found + extra_holdout_rows(test, chosen, data_dir=data_dir, cache_dir=cache_dir, embedder=embedder,
                                         profile=profile, progress=progress)
    base = prepare_dataset(corpus, data_dir)
    if distractors is not None:
        base = subset(base, distractors=distractors, seed=seed)
    if corpus == "qasper-leval":
        pairs = [(base, [q.id for q in base.queries]), (nulls := without_gold_paragraphs(base),
                                                        [q.id for q in nulls.queries])]
    else:
        held = [make_unanswerable(base, TRANSFER_FRACTION, s) for s in TRANSFER_SEEDS]
        pairs = [(held[0], [q.id for q in held[0].queries])] + \
            [(h, [q.id for q in h.queries if q.is_null]) for h in held[1:]]
    rows: list[Scored] = []
    for ds, ids in pairs:
        with build_atlas(ds, cache_dir, embedder=embedder, progress=progress) as built:
            model = model or model_for(built)
            rows += score_queries(built, ds, ids, over, model, progress=progress)
    return rows


def transfer_table(rows_by_corpus: dict[str, list[Scored]], model: AnswerabilityModel, keep: float = 0.92
                   ) -> list[dict[str, Any]]:
    """Per corpus: AUROC per null kind, abstention on its nulls, answerable queries kept and the Principal-hit
    with and without abstaining (each query decided on its own atlas's scale)."""
    out = []
    for corpus, rows in rows_by_corpus.items():
        ans = [r for r in rows if r.kind == "answerable"]
        row: dict[str, Any] = {"corpus": corpus, "n_answerable": len(ans)}
        for kind in sorted({r.kind for r in rows} - {"answerable"}):
            nulls = [r for r in rows if r.kind == kind]
            row[f"n_{kind}"] = len(nulls)
            row[f"abstention_{kind}"] = round(float(np.mean([r.abstains(model, keep) for r in nulls])), 4)
            row[f"auroc_{kind}"] = None if not ans else round(cast(float, auroc(rows, kind)), 4)
        if ans:
            hit = float(np.mean([r.principal_hit for r in ans]))
            kept_hit = float(np.mean([r.principal_hit and not r.abstains(model, keep) for r in ans]))
            row.update({"answerable_kept": round(float(np.mean([not r.abstains(model, keep) for r in ans])), 4),
                        "principal_hit": round(kept_hit, 4), "principal_hit_without_abstention": round(hit, 4),
                        "delta_points": round(100 * (kept_hit - hit), 1)})
        out.append(row)
    return out


def transfer(corpora: Sequence[str], out_dir: str | Path, *, lexical: bool = False, data_dir: str | None = None,
             cache_dir: str | None = None, keeps: Sequence[float] = KEEPS, progress: bool = False
             ) -> list[dict[str, Any]]:
    """The cross-corpus table for the shipped model (`lexical`: the one read without vectors), one row per
    corpus and keep, written as `transfer[_lexical].{md,csv}`. A corpus is `musique`, `qasper-leval` or a
    generic folder, optionally `:N` for its gold documents plus N others."""
    from ..retrieval.answerability.model import default_model  # noqa: PLC0415
    from .report import write_table  # noqa: PLC0415

    if not corpora:
        return []
    model = default_model(lexical)
    rows: dict[str, list[Scored]] = {}
    for spec in corpora:
        name, _, cut = spec.partition(":")
        label = Path(name).name if Path(name).is_dir() else name
        rows[label] = corpus_rows(name, model, data_dir=data_dir, cache_dir=cache_dir,
                                  distractors=int(cut) if cut else None, progress=progress)
    table = [{"keep": keep, **row} for keep in keeps for row in transfer_table(rows, model, keep)]
    kind = "lexical" if lexical else "dense"
    write_table(table, out_dir, "transfer" + ("_lexical" if lexical else ""),
                title=f"Abstention across corpora, the shipped {kind} model ({model.provenance.get('name')})")
    return table


def main(argv: Sequence[str] | None = None) -> None:
    import argparse  # noqa: PLC0415

    parser = argparse.ArgumentParser(description="Abstention across corpora (refs/abstention.md).")
    parser.add_argument("corpora", nargs="+", help="musique | qasper-leval | a generic folder[:N distractors]")
    parser.add_argument("--out", required=True, help="folder for transfer[_lexical].{md,csv}")
    parser.add_argument("--lexical", action="store_true", help="the model read without vectors")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    for row in transfer(args.corpora, args.out, lexical=args.lexical, data_dir=args.data_dir, progress=True):
        print(row)


if __name__ == "__main__":
    main()
