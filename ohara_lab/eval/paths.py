"""Where evaluation data and cached atlases live unless the caller says otherwise."""
from __future__ import annotations

import os
from pathlib import Path

from ..errors import UsageError

DATA_ENV = "OHARA_EVAL_DATA"
CACHE_ENV = "OHARA_EVAL_CACHE"
REPO_ROOT = Path(__file__).resolve().parents[2]


def default_data_dir() -> Path:
    """`$OHARA_EVAL_DATA`, else `shared/datasets` next to the repository (this workspace's layout)."""
    env = os.environ.get(DATA_ENV)
    return Path(env).expanduser() if env else REPO_ROOT.parent / "shared" / "datasets"


def default_cache_dir() -> Path:
    """`$OHARA_EVAL_CACHE`, else `~/.cache/ohara-lab/eval-atlases` (outside any repository)."""
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "ohara-lab" / "eval-atlases"


NOTEBOOKS_DIR = REPO_ROOT / "notebooks"


def notebook_path(path: str | Path) -> Path:
    """A path from a notebook's parameters, read as the notebook's author wrote it: a relative path
    (`../eval/results/...`) is relative to `notebooks/`, whatever directory papermill or Jupyter was started
    from — resolved against the working directory, outputs landed outside the repository (issue 25)."""
    p = Path(path).expanduser()
    if p.is_absolute():
        return p
    if not NOTEBOOKS_DIR.is_dir():
        raise UsageError(f"{path}: a relative path is read from the repository's notebooks/ folder, and this "
                         f"installation has none ({NOTEBOOKS_DIR}); give an absolute path")
    return (NOTEBOOKS_DIR / p).resolve()
