"""Open (or build once and then reuse) the atlas a workbench notebook explores.

Notebooks hold no logic (ARCHITECTURE rule 8), so the choice "open this
atlas, or build one from a named corpus" lives here as one call:

    atlas = open_workbench_atlas(corpus="samples")             # the shipped licence texts
    atlas = open_workbench_atlas(corpus="musique", max_documents=100)
    atlas = open_workbench_atlas(corpus="../shared/samples")    # any files or directories
    atlas = open_workbench_atlas(atlas_dir="./my_atlas")        # an existing atlas as it is

Built atlases live in the evaluation cache (`$OHARA_EVAL_CACHE`, else
~/.cache/ohara-lab/eval-atlases), never inside the repository; ingest is
idempotent, so a second call only opens them.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ohara_lab.atlas import Atlas
from ohara_lab.errors import UsageError

MUSIQUE_DEFAULT_DOCUMENTS = 200


def _cache(cache_dir: str) -> Path:
    from ohara_lab.eval.paths import default_cache_dir  # noqa: PLC0415

    return Path(cache_dir).expanduser() if cache_dir else default_cache_dir()


def open_workbench_atlas(
    atlas_dir: str = "",
    corpus: str = "samples",
    *,
    max_documents: int = 0,
    embedder: str = "none",
    data_dir: str = "",
    cache_dir: str = "",
    **settings: Any,
) -> Atlas:
    """An atlas for the workbench: `atlas_dir` if given, else one built from `corpus`.

    `corpus`: "samples" (the licence texts shipped in `ohara_lab.samples`),
    "musique" (the first `max_documents` titles of the MuSiQue corpus under
    `data_dir`, default 200), or paths to files/directories, comma-separated.
    With `atlas_dir` and a corpus, the corpus is ingested into that atlas.
    """
    corpus = corpus.strip()
    if corpus == "musique":
        if atlas_dir:
            raise UsageError("corpus='musique' builds its own cached atlas; leave atlas_dir empty")
        return _musique(max_documents or MUSIQUE_DEFAULT_DOCUMENTS, embedder, data_dir, cache_dir)
    if corpus == "samples":
        from ohara_lab.samples import corpus_dir  # noqa: PLC0415

        paths = [corpus_dir()]
    elif corpus:
        paths = [Path(p.strip()).expanduser() for p in corpus.split(",") if p.strip()]
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise UsageError(f"corpus paths not found: {', '.join(missing)}")
    else:
        paths = []
    if not atlas_dir and not paths:
        raise UsageError("give an atlas_dir, a corpus, or both")
    location = Path(atlas_dir).expanduser() if atlas_dir else _cache(cache_dir) / f"workbench-{_slug(corpus)}"
    atlas = Atlas.open(location, embedder=embedder, **settings)
    if paths:
        report = atlas.ingest(paths, progress=False)
        if not atlas.documents():
            reasons = "; ".join(f"{o.path}: {o.reason}" for o in report.failed[:3])
            raise UsageError(f"nothing could be ingested from {corpus!r} ({reasons})")
    return atlas


def _musique(n: int, embedder: str, data_dir: str, cache_dir: str) -> Atlas:
    from ohara_lab.eval.build import build_atlas  # noqa: PLC0415
    from ohara_lab.eval.dataset import Dataset  # noqa: PLC0415
    from ohara_lab.eval.datasets.musique import load_musique  # noqa: PLC0415
    from ohara_lab.eval.paths import default_data_dir  # noqa: PLC0415

    full = load_musique(Path(data_dir).expanduser() if data_dir else default_data_dir())
    # Queries are not needed to draw a map; a subset with none always validates.
    subset = Dataset(name="musique", documents=full.documents[:n], queries=[])
    return build_atlas(subset, _cache(cache_dir), embedder=embedder, progress=False).atlas


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "atlas"
