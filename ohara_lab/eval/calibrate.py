"""`ohara calibrate`: fit the answerability model on labelled answerable and unanswerable queries.

    rows  = one (features, answerable?) per query, each query run with OHARA_ABSTAIN=features
    model = logistic regression (scikit-learn, L2, C = 1, balanced class weights) on standardised features
    calibration scores = out-of-fold scores (stratified 5-fold, seeded) of the answerable queries

so the conformal threshold (`retrieval/answerability/model.py`) is set on scores of queries
each fold's model did not see. The final coefficients are fitted on every row. Fewer than
`MIN_PER_CLASS` queries of either class is an error (`allow_small` turns it into a warning
that states what the keep guarantee is then worth).

`default_training_set` + `fit` is the procedure behind the shipped model
(`python -m ohara_lab.eval.calibrate --default`, refs/abstention.md): MuSiQue's tuning split
only — its answerable queries and held-out nulls on the main hold-out atlas, more held-out
nulls from two further hold-outs drawn among the tuning split's own queries, and the
tuning half of the foreign (MultiHop-RAG) queries.
"""
from __future__ import annotations

import argparse
import json
import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import UsageError
from ..retrieval.answerability import FEATURES, AnswerabilityModel, meta_key
from ..retrieval.answerability.features import LEXICAL_FEATURES
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


@dataclass
class Row:
    """One query's features and label (`kind`: answerable | heldout | foreign | other)."""

    query_id: str
    kind: str
    features: dict[str, float]
    principal_hit: bool | None = None

    @property
    def answerable(self) -> bool:
        return self.kind == "answerable"


def collect(atlas: Any, queries: Sequence[EvalQuery], overrides: dict[str, Any] | None = None,
            progress: bool = False, lexical: bool = False) -> list[Row]:
    """Run each query with the answerability features reported (no model needed) and keep them;
    `lexical`: as an atlas without vectors would (no query vector, the walk resets from BM25)."""
    from tqdm.auto import tqdm  # noqa: PLC0415

    rows = []
    extra = {"embedder": "none"} if lexical else {}
    for q in tqdm(queries, desc="features", unit="q", disable=not progress, leave=False):
        result = atlas.query(q.text, **{**dated(q, overrides or {}), **extra, "abstain": "features"})
        rows.append(Row(q.id, null_kind(q) or "answerable", result.answerability.features))
    return rows


def _matrix(rows: Sequence[Row], features: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray([[r.features[f] for f in features] for r in rows], dtype=np.float64)
    y = np.asarray([1 if r.answerable else 0 for r in rows], dtype=np.int64)
    return x, y


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


def fit(rows: Sequence[Row], *, seed: int = DEFAULT_SEED, folds: int = FOLDS, allow_small: bool = False,
        provenance: dict[str, Any] | None = None, lexical: bool = False) -> AnswerabilityModel:
    """The model and its out-of-fold calibration scores (see the module docstring); `lexical` leaves
    the dense features out (rows collected without vectors)."""
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415
    from sklearn.model_selection import StratifiedKFold  # noqa: PLC0415
    from sklearn.preprocessing import StandardScaler  # noqa: PLC0415

    check_classes(rows, allow_small)
    features = LEXICAL_FEATURES if lexical else FEATURES
    x, y = _matrix(rows, features)

    def model() -> LogisticRegression:
        return LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000)

    oof = np.zeros(len(y))
    k = max(2, min(folds, int(min(y.sum(), len(y) - y.sum()))))
    for train, held in StratifiedKFold(n_splits=k, shuffle=True, random_state=seed).split(x, y):
        scaler = StandardScaler().fit(x[train])
        clf = model().fit(scaler.transform(x[train]), y[train])
        oof[held] = clf.predict_proba(scaler.transform(x[held]))[:, 1]
    scaler = StandardScaler().fit(x)
    clf = model().fit(scaler.transform(x), y)
    scale = [float(s) if s > 0 else 1.0 for s in scaler.scale_]
    counts = {kind: sum(1 for r in rows if r.kind == kind) for kind in sorted({r.kind for r in rows})}
    return AnswerabilityModel(
        features=list(features), mean=[float(m) for m in scaler.mean_], scale=scale,
        coef=[float(c) for c in clf.coef_[0]], intercept=float(clf.intercept_[0]),
        calibration_scores=sorted(float(s) for s in oof[y == 1]),
        provenance={"fitted_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "rows": counts,
                    "folds": k, "seed": seed, "method": "LogisticRegression(C=1, class_weight=balanced)",
                    **(provenance or {})})


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


def default_training_set(seed: int = DEFAULT_SEED, data_dir: str | None = None, progress: bool = True,
                         lexical: bool = False) -> list[Row]:
    """Every training row of a shipped model; nothing from the test split (see the module docstring)."""
    ds, tune, _ = tuning_split(seed, data_dir)
    rows: list[Row] = []
    with build_atlas(ds, embedder="minilm", progress=progress) as built:
        rows += collect(built.atlas, ds.select(tune), progress=progress, lexical=lexical)
        foreign_tune, _ = foreign_split(seed, data_dir)
        rows += collect(built.atlas, foreign_tune, progress=progress, lexical=lexical)
    for extra in extra_holdouts(tune, data_dir=data_dir):
        with build_atlas(extra, embedder="minilm", progress=progress) as built:
            tagged = [replace(q, id=f"{q.id}@{extra.notes[-1][:40]}") for q in extra.queries]
            found = collect(built.atlas, extra.queries, progress=progress, lexical=lexical)
            rows += [replace(r, query_id=t.id) for r, t in zip(found, tagged)]
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fit the shipped answerability model (refs/abstention.md).")
    parser.add_argument("--default", action="store_true",
                        help="write ohara_lab/retrieval/answerability/default_model.json (and _lexical.json)")
    parser.add_argument("--lexical", action="store_true", help="only the model for queries without vectors")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--rows", default=None, help="also write the training rows to this JSON file")
    args = parser.parse_args(argv)
    if not args.default:
        parser.error("nothing to do: pass --default")
    for lexical in ([True] if args.lexical else [False, True]):
        rows = default_training_set(args.seed, args.data_dir, lexical=lexical)
        if args.rows:
            Path(f"{args.rows}{'.lexical' if lexical else ''}.json").write_text(
                json.dumps([r.__dict__ for r in rows], indent=1), encoding="utf-8")
        model = fit(rows, seed=args.seed, lexical=lexical, provenance={
            "name": "default-lexical" if lexical else "default",
            "trained_on": "MuSiQue tuning split (seed 42): answerable + held-out nulls on the 25% hold-out atlas, "
                          "held-out nulls of two further hold-outs among the split's queries (seeds 1, 2), and half "
                          "the MultiHop-RAG queries as foreign nulls" + ("; queries run without vectors" if lexical
                                                                         else "")})
        name = "default_model_lexical.json" if lexical else "default_model.json"
        target = Path(__file__).resolve().parents[1] / "retrieval" / "answerability" / name
        target.write_text(json.dumps(model.to_dict(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {target}: {model.provenance['rows']}")


if __name__ == "__main__":
    main()
