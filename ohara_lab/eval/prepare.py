"""The setup every evaluation notebook shares, as one call: dataset, built atlas, summary table.

    ds, built, summary = prepare("musique", limit=20, distractors=150, unanswerable=0.25, embedder="none")

`prepare_dataset` loads and cuts the dataset (and holds queries out as unanswerable),
`build_atlas` opens the cached atlas or ingests it, and the summary is one table of what
both did, so a notebook shows where its numbers come from without pasting the same cell.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from ..settings import Settings
from .build import BuiltAtlas, build_atlas
from .dataset import Dataset
from .runner import DEFAULT_SEED, prepare_dataset


class Prepared(NamedTuple):
    """What `prepare` returns; unpacks as `ds, built, summary`."""

    dataset: Dataset
    built: BuiltAtlas
    summary: pd.DataFrame  # one row per fact, one `value` column


def prepare(
    dataset: str | Path,
    data_dir: str | Path | None = None,
    *,
    limit: int | None = None,
    distractors: int | None = None,
    unanswerable: float | None = None,
    seed: int = DEFAULT_SEED,
    cache_dir: str | Path | None = None,
    embedder: str = "auto",
    rebuild: bool = False,
    batch_size: int | None = 64,
    progress: bool = True,
    profile: str | None = None,
    **dataset_kw: Any,
) -> Prepared:
    """Load and cut `dataset`, build (or reuse) its atlas, and tabulate both.

    The arguments are `prepare_dataset`'s and `build_atlas`'s (`dataset_kw` goes to the
    dataset loader); `profile` (default | original) is the engine every query on the atlas
    starts from (None: `OHARA_PROFILE`). The caller closes `built` when done with the atlas.
    """
    ds = prepare_dataset(
        dataset, data_dir, limit=limit, distractors=distractors, unanswerable=unanswerable, seed=seed, **dataset_kw
    )
    settings = Settings.from_env(profile=profile) if profile else None
    built = build_atlas(
        ds, cache_dir, embedder=embedder, settings=settings, rebuild=rebuild, batch_size=batch_size, progress=progress
    )
    return Prepared(ds, built, summary_frame(ds, built))


def summary_frame(ds: Dataset, built: BuiltAtlas) -> pd.DataFrame:
    """The dataset's counts, then how its atlas was built (embedder, reuse, time, outcomes)."""
    info = built.info
    facts: dict[str, Any] = {
        **ds.summary(),
        "embedder": info.embedder,
        "vector_model": info.vector_model,
        "reference_date": info.reference_date,
        "reused": info.reused,
        "stale_code": info.stale_code,
        "build_seconds": info.seconds,
        "batch_size": info.batch_size,
        "outcomes": info.outcomes,
        "failures": len(info.failures),
        "atlas": info.directory,
        "profile": built.atlas.settings.profile,
    }
    return pd.DataFrame({"value": pd.Series(facts, dtype=object)})
