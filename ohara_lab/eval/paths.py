"""Where evaluation data and cached atlases live unless the caller says otherwise."""
from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..settings import environ_value

DATA_ENV = "OHARA_EVAL_DATA"
CACHE_ENV = "OHARA_EVAL_CACHE"
REPO_ROOT = Path(__file__).resolve().parents[2]


def default_data_dir() -> Path:
    """`$OHARA_EVAL_DATA`, else `shared/datasets` next to the repository (this workspace's layout)."""
    env = environ_value(DATA_ENV)
    return Path(env).expanduser() if env else REPO_ROOT.parent / "shared" / "datasets"


def default_cache_dir() -> Path:
    """`$OHARA_EVAL_CACHE`, else `~/.cache/ohara-lab/eval-atlases` (outside any repository)."""
    env = environ_value(CACHE_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "ohara-lab" / "eval-atlases"


NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
SESSION_ENV = "JPY_SESSION_NAME"  # set by jupyter_server in a kernel it starts: the notebook's own path


def notebook_dir() -> Path:
    """The folder a running notebook's relative paths are read from.

    In JupyterLab the kernel is told its notebook (`$JPY_SESSION_NAME`, an absolute path, and Jupyter
    starts the kernel in that notebook's folder); papermill, nbclient and plain Python say nothing, and
    their working directory is wherever they were started — there the repository's `notebooks/`.
    """
    session = environ_value(SESSION_ENV)
    if session:
        where = Path(session).expanduser()
        return where.parent if where.is_absolute() else Path.cwd()
    if not NOTEBOOKS_DIR.is_dir():
        raise UsageError(f"relative notebook paths are read from the repository's notebooks/ folder, and this "
                         f"installation has none ({NOTEBOOKS_DIR}); give an absolute path")
    return NOTEBOOKS_DIR


def notebook_path(path: str | Path) -> Path:
    """A path from a notebook's parameters, read as the notebook's author wrote it: a relative path
    (`../eval/results/...`) is relative to the notebook's folder (`notebook_dir`), whatever directory
    papermill was started from — resolved against the working directory, outputs landed outside the
    repository (issue 25)."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else (notebook_dir() / p).resolve()
