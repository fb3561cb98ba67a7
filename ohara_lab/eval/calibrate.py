"""`ohara calibrate`: fit the answerability model on labelled answerable and unanswerable queries.

    rows  = one (features, answerable?) per query, each query run with OHARA_ABSTAIN=features; the score
            features also read on its atlas's probe profile (`answerability/profile.py`)
    model = logistic regression (L2, C = 1, balanced class weights) on standardised features, an
            undefined feature imputed with its mean, every coefficient but `fused_spread`'s held ≥ 0
            (`SIGNS`: more coverage, closeness or agreement never argues against an answer — a sign a
            corpus's collinear features can flip, and one that does not travel to another corpus)
    calibration = out-of-fold (stratified 5-fold, seeded) scores of the answerable queries, and their
            u's: the share of their own atlas's probe twins that score below them

so the conformal threshold (`retrieval/answerability/model.py`) is set on scores of queries
each fold's model did not see, both on the calibration corpus's scale and on the atlas's own.
The final coefficients are fitted on every row (scipy's L-BFGS-B, bounds for the signs). Fewer
than `MIN_PER_CLASS` queries of either class is an error (`allow_small` turns it into a warning
that states what the keep guarantee is then worth).

`default_training_set` + `fit` is the procedure behind the shipped model
(`python -m ohara_lab.eval.calibrate --default --also DIR`, refs/abstention.md): MuSiQue's tuning
split — its answerable queries and held-out nulls on the main hold-out atlas, more held-out nulls
from two further hold-outs drawn among the tuning split's own queries, the tuning half of the
foreign (MultiHop-RAG) queries — and every query of the generic corpora named by `--also`
(2WikiMultihopQA in the shipped model), each with 30% of its queries held out twice (seeds 42, 1).
Nothing of MuSiQue's test split, of HotpotQA or of QASPER is read: those are what the model is
reported on.
"""
from __future__ import annotations

import argparse
import bisect
import json
import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast

import numpy as np

from ..errors import UsageError
from ..retrieval.answerability import AnswerabilityModel, meta_key
from ..retrieval.answerability.features import DENSE_FEATURES, RELATIVE, relative_name
from ..retrieval.answerability.profile import MIN_TWINS, AtlasProfile
from .build import build_atlas
from .dataset import Dataset, EvalQuery
from .holdout import make_unanswerable
from .nulls import foreign_queries, null_kind
from .runner import DEFAULT_SEED, dated, prepare_dataset
from .tuning import split_queries

log = logging.getLogger(__name__)

MIN_PER_CLASS = 20
FOLDS = 5
EXTRA_HOLDOUT_SEEDS = (1, 2)  # further hold-outs among the tuning split's queries, for more held-out nulls
EXTRA_HOLDOUT_FRACTION = 0.5
FOREIGN_TUNE_SHARE = 0.5


# The shipped model's features: the score features on the atlas's own scale, the shares and coverages raw.
MODEL_FEATURES: tuple[str, ...] = (*RELATIVE, "family_agreement", "term_coverage", "idf_coverage", "entity_coverage",
                                   "name_is_title", "hop_completeness", "answer_type_found")
# Coefficient signs the fit keeps (+1: never below 0); a feature not named is free.
SIGNS: dict[str, int] = {f: 1 for f in MODEL_FEATURES if f != relative_name("fused_spread")}


@dataclass
class Row:
    """One query's features and label (`kind`: answerable | heldout | foreign | other), and the atlas it ran on."""

    query_id: str
    kind: str
    features: dict[str, float | None]
    principal_hit: bool | None = None
    atlas: str = ""  # the key of its atlas's profile in `fit(profiles=...)`

    @property
    def answerable(self) -> bool:
        return self.kind == "answerable"


def query_profile(atlas: Any, overrides: dict[str, Any] | None = None, lexical: bool = False) -> AtlasProfile | None:
    """The atlas's probe profile for the configuration the queries run under (computed, or read back)."""
    extra = {"embedder": "none"} if lexical else {}
    settings = atlas.settings.override(**{**(overrides or {}), **extra, "abstain": "model"})
    no_vectors = lexical or not atlas.store.vector_models()
    return cast(AtlasProfile | None, atlas.engine.answerability_profile(settings, no_vectors))


def collect(atlas: Any, queries: Sequence[EvalQuery], overrides: dict[str, Any] | None = None,
            progress: bool = False, lexical: bool = False, label: str = "") -> tuple[list[Row], AtlasProfile | None]:
    """Run each query with the answerability features reported (no model needed) and keep them, with the
    relative ones read on the atlas's profile, which is returned too; `lexical`: as an atlas without
    vectors would (no query vector, the walk resets from BM25)."""
    from tqdm.auto import tqdm  # noqa: PLC0415

    profile = query_profile(atlas, overrides, lexical)
    rows = []
    extra = {"embedder": "none"} if lexical else {}
    for q in tqdm(queries, desc="features", unit="q", disable=not progress, leave=False):
        result = atlas.query(q.text, **{**dated(q, overrides or {}), **extra, "abstain": "features"})
        values = dict(result.answerability.features)
        if profile is not None:
            values.update(profile.relative_values(values))
        rows.append(Row(q.id, null_kind(q) or "answerable", values, atlas=label))
    return rows, profile


def _matrix(rows: Sequence[Row], features: Sequence[str], means: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x with undefined values imputed by `means` — their own means when None —, y, the means)."""
    x = np.asarray([[np.nan if r.features.get(f) is None else r.features[f] for f in features] for r in rows],
                   dtype=np.float64)
    if means is None:
        defined = ~np.isnan(x)
        sums = np.where(defined, x, 0.0).sum(axis=0) if len(x) else np.zeros(len(features))
        counts = defined.sum(axis=0) if len(x) else np.zeros(len(features))
        means = np.divide(sums, counts, out=np.zeros(len(features)), where=counts > 0)  # never defined: 0
    x = np.where(np.isnan(x), means, x) if len(x) else x.reshape(0, len(features))
    y = np.asarray([1 if r.answerable else 0 for r in rows], dtype=np.int64)
    return x, y, np.asarray(means, dtype=np.float64)


def check_classes(rows: Sequence[Row], allow_small: bool = False) -> None:
    """Both classes present, and at least MIN_PER_CLASS of each unless `allow_small`."""
    n_pos = sum(r.answerable for r in rows)
    n_neg = len(rows) - n_pos
    if n_pos == 0 or n_neg == 0:
        raise UsageError(f"calibration needs answerable and unanswerable queries; got {n_pos} answerable and "
                         f"{n_neg} unanswerable (add nulls: --nulls heldout|foreign|both)")
    if min(n_pos, n_neg) < MIN_PER_CLASS:
        msg = (f"only {n_pos} answerable and {n_neg} unanswerable queries (fewer than {MIN_PER_CLASS} of one class): "
               f"with n answerable calibration scores the threshold for keep k is the ⌊(n+1)(1−k)⌋-th smallest, "
               f"so keep is honoured only in steps of 1/{n_pos + 1}")
        if not allow_small:
            raise UsageError(msg + "; pass --allow-small to fit anyway")
        log.warning(msg)


@dataclass
class _Fit:
    """A logistic regression on standardised features (what `AnswerabilityModel` stores)."""

    features: tuple[str, ...]
    means: np.ndarray
    mu: np.ndarray
    sd: np.ndarray
    coef: np.ndarray
    intercept: float

    def model(self, calibration: list[float], twins: list[float], provenance: dict[str, Any]) -> AnswerabilityModel:
        return AnswerabilityModel(
            features=list(self.features), mean=[float(m) for m in self.mu], scale=[float(s) for s in self.sd],
            coef=[float(c) for c in self.coef], intercept=float(self.intercept),
            calibration_scores=sorted(calibration), twin_calibration=sorted(twins), provenance=provenance)


def _logistic(rows: Sequence[Row], features: Sequence[str], signs: dict[str, int], c: float = 1.0) -> _Fit:
    """L2-penalised logistic regression with balanced class weights and sign bounds (L-BFGS-B), as
    scikit-learn's `LogisticRegression(C=c, class_weight="balanced")` minimises it, plus the bounds."""
    from scipy.optimize import minimize  # noqa: PLC0415

    x, y, means = _matrix(rows, features)
    mu, sd = x.mean(axis=0), x.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    z = (x - mu) / sd
    weight = np.where(y == 1, len(y) / (2.0 * max(1, y.sum())), len(y) / (2.0 * max(1, len(y) - y.sum())))

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        t = theta[0] + z @ theta[1:]
        p = 1.0 / (1.0 + np.exp(-t))
        g = weight * (p - y)
        value = float(np.sum(weight * (np.logaddexp(0.0, t) - y * t)) + 0.5 / c * theta[1:] @ theta[1:])
        return value, np.concatenate([[g.sum()], z.T @ g + theta[1:] / c])

    bounds = [(None, None)] + [(0.0, None) if signs.get(f, 0) > 0 else (None, 0.0) if signs.get(f, 0) < 0
                               else (None, None) for f in features]
    found = minimize(loss, np.zeros(len(features) + 1), jac=True, method="L-BFGS-B", bounds=bounds)
    return _Fit(tuple(features), means, mu, sd, found.x[1:], float(found.x[0]))


def fit(rows: Sequence[Row], *, seed: int = DEFAULT_SEED, folds: int = FOLDS, allow_small: bool = False,
        provenance: dict[str, Any] | None = None, lexical: bool = False,
        profiles: dict[str, AtlasProfile | None] | None = None, features: Sequence[str] | None = None,
        signs: dict[str, int] | None = None) -> AnswerabilityModel:
    """The model and its out-of-fold calibration (see the module docstring); `lexical` leaves the dense
    features out (rows collected without vectors); `profiles` (row.atlas -> its profile) give the u's."""
    from sklearn.model_selection import StratifiedKFold  # noqa: PLC0415

    check_classes(rows, allow_small)
    chosen = tuple(f for f in (features or MODEL_FEATURES) if not (lexical and f in DENSE_FEATURES))
    signs = SIGNS if signs is None else signs
    _, y, _ = _matrix(rows, chosen)
    scores: list[float] = []
    twins: list[float] = []
    k = max(2, min(folds, int(min(y.sum(), len(y) - y.sum()))))
    for train, held in StratifiedKFold(n_splits=k, shuffle=True, random_state=seed).split(np.zeros(len(y)), y):
        fold = _logistic([rows[i] for i in train], chosen, signs)
        fold_model = fold.model([], [], {})
        for i in (i for i in held if y[i] == 1):
            score = fold_model.score(rows[i].features)  # an undefined feature reads as the fold's mean
            scores.append(score)
            profile = (profiles or {}).get(rows[i].atlas)
            if profile is not None and profile.n_twins >= MIN_TWINS:
                twins.append(_below(profile.twin_scores(fold_model.score, fold_model.key), score))
    counts = {kind: sum(1 for r in rows if r.kind == kind) for kind in sorted({r.kind for r in rows})}
    return _logistic(rows, chosen, signs).model(scores, twins, {
        "fitted_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "rows": counts, "folds": k,
        "seed": seed, "twin_calibrated": len(twins),
        "method": "logistic regression (C=1, balanced classes, L-BFGS-B with sign bounds SIGNS)", **(provenance or {})})


def _below(sorted_scores: list[float], score: float) -> float:
    """Mid-rank share of `sorted_scores` below `score` (ties count half)."""
    lo, hi = bisect.bisect_left(sorted_scores, score), bisect.bisect_right(sorted_scores, score)
    return (lo + 0.5 * (hi - lo)) / len(sorted_scores)


def save_to_atlas(atlas: Any, model: AnswerabilityModel) -> None:
    """Store the model as JSON in the atlas's meta (never a pickle); the engine reads it from there."""
    atlas.store.set_meta(meta_key(model.lexical), model.to_dict())
    atlas._after_write()


# ---------------------------------------------------------------------- the shipped model's training set


def tuning_split(seed: int = DEFAULT_SEED, data_dir: str | None = None) -> tuple[Dataset, list[str], list[str]]:
    """MuSiQue with the matrix's held-out nulls (25%, `seed`), and its (tune, test) query ids."""
    ds = prepare_dataset("musique", data_dir, unanswerable=0.25, seed=seed)
    tune, test = split_queries(ds, 0.5, seed)
    return ds, tune, test


def extra_holdouts(split_ids: Sequence[str], seeds: Sequence[int] = EXTRA_HOLDOUT_SEEDS,
                   data_dir: str | None = None) -> list[Dataset]:
    """Further MuSiQue hold-outs drawn among `split_ids` only (their answerable originals): more held-out nulls."""
    base = prepare_dataset("musique", data_dir)
    wanted = set(split_ids)
    mine = Dataset(name="musique-split", documents=base.documents,
                   queries=[q for q in base.queries if q.id in wanted], matcher=base.matcher, notes=base.notes)
    return [make_unanswerable(mine, EXTRA_HOLDOUT_FRACTION, s) for s in seeds]


def foreign_split(seed: int = DEFAULT_SEED, data_dir: str | None = None) -> tuple[list[EvalQuery], list[EvalQuery]]:
    """The foreign queries split in two halves (tune, test), seeded."""
    queries = foreign_queries(data_dir)
    tune_ids = set(random.Random(seed).sample([q.id for q in queries], round(FOREIGN_TUNE_SHARE * len(queries))))
    return [q for q in queries if q.id in tune_ids], [q for q in queries if q.id not in tune_ids]


ALSO_FRACTION = 0.3  # held out of each further corpus, as the cross-corpus tables of refs/abstention.md do
ALSO_SEEDS = (42, 1)


def also_holdouts(path: str, distractors: int | None = None) -> list[Dataset]:
    """A further corpus (a generic folder) cut to its gold + `distractors` others, held out twice."""
    from .subset import subset  # noqa: PLC0415

    base = subset(prepare_dataset(path), distractors=distractors, seed=DEFAULT_SEED) if distractors else \
        prepare_dataset(path)
    return [make_unanswerable(base, ALSO_FRACTION, s) for s in ALSO_SEEDS]


TrainingSet = tuple[list[Row], dict[str, AtlasProfile | None]]


def default_training_set(seed: int = DEFAULT_SEED, data_dir: str | None = None, progress: bool = True,
                         lexical: bool = False, also: Sequence[str] = (),
                         also_distractors: int | None = None) -> TrainingSet:
    """Every training row of a shipped model and the profile of each atlas they ran on; nothing from
    MuSiQue's test split (see the module docstring)."""
    ds, tune, _ = tuning_split(seed, data_dir)
    rows: list[Row] = []
    profiles: dict[str, AtlasProfile | None] = {}

    def run(dataset: Dataset, queries: Sequence[EvalQuery], label: str, built: Any) -> None:
        found, profiles[label] = collect(built.atlas, queries, progress=progress, lexical=lexical, label=label)
        rows.extend(replace(r, query_id=f"{r.query_id}@{label}") for r in found)

    with build_atlas(ds, embedder="minilm", progress=progress) as built:
        run(ds, ds.select(tune), "musique", built)
        run(ds, foreign_split(seed, data_dir)[0], "musique", built)
    for n, extra in enumerate(extra_holdouts(tune, data_dir=data_dir), 1):
        with build_atlas(extra, embedder="minilm", progress=progress) as built:
            run(extra, extra.queries, f"musique-extra-{n}", built)
    for path in also:
        for n, held in enumerate(also_holdouts(path, also_distractors)):
            with build_atlas(held, embedder="minilm", progress=progress) as built:
                run(held, held.queries, f"{Path(path).name}-{ALSO_SEEDS[n]}", built)
    return rows, profiles


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fit the shipped answerability model (refs/abstention.md).")
    parser.add_argument("--default", action="store_true",
                        help="write ohara_lab/retrieval/answerability/default_model.json (and _lexical.json)")
    parser.add_argument("--lexical", action="store_true", help="only the model for queries without vectors")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--also", action="append", default=[], help="a further corpus (generic folder) to fit on")
    parser.add_argument("--also-distractors", type=int, default=None, help="cut each --also corpus to its gold "
                                                                            "and this many other documents")
    parser.add_argument("--rows", default=None, help="also write the training rows to this JSON file")
    args = parser.parse_args(argv)
    if not args.default:
        parser.error("nothing to do: pass --default")
    also = ", ".join(f"{Path(a).name} (all its queries, {ALSO_FRACTION:.0%} held out twice, seeds "
                     f"{', '.join(map(str, ALSO_SEEDS))})" for a in args.also)
    for lexical in ([True] if args.lexical else [False, True]):
        rows, profiles = default_training_set(args.seed, args.data_dir, lexical=lexical, also=args.also,
                                              also_distractors=args.also_distractors)
        if args.rows:
            Path(f"{args.rows}{'.lexical' if lexical else ''}.json").write_text(
                json.dumps([r.__dict__ for r in rows], indent=1), encoding="utf-8")
        model = fit(rows, seed=args.seed, lexical=lexical, profiles=profiles, provenance={
            "name": "default-lexical" if lexical else "default",
            "trained_on": "MuSiQue tuning split (seed 42): answerable + held-out nulls on the 25% hold-out atlas, "
                          "held-out nulls of two further hold-outs among the split's queries (seeds 1, 2), and half "
                          "the MultiHop-RAG queries as foreign nulls" + (f"; {also}" if also else "")
                          + ("; queries run without vectors" if lexical else "")})
        name = "default_model_lexical.json" if lexical else "default_model.json"
        target = Path(__file__).resolve().parents[1] / "retrieval" / "answerability" / name
        target.write_text(json.dumps(model.to_dict(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {target}: {model.provenance['rows']}, {model.provenance['twin_calibrated']} twin-calibrated")


if __name__ == "__main__":
    main()
