"""Where evaluation data and cached atlases live unless the caller says otherwise."""
from __future__ import annotations

import os
from pathlib import Path

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
