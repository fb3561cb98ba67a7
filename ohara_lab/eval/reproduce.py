"""`ohara reproduce`: run every paper notebook through papermill, in order.

Each job is one notebook on one dataset. It writes the executed notebook and its
tables and figures into `<out>/<notebook>/<dataset>/` (`<dataset>-quick/` with
`quick=True`, so a smoke run never overwrites the committed full results). Full
jobs use the whole corpus and every query; quick jobs use the notebook's own small
defaults. A failing notebook is reported and the next one still runs.

A full run also draws the space-time map (`07_space_time_map`, no paper table): the
shipped samples, no embedder (`--embedder` does not apply), about 15 s. Its PNGs and layout go to `map/` next to
`<out>` (eval/results -> eval/map), its executed notebook to `<out>/07_space_time_map/samples/`
without widget state (the 3D widget's state is over a megabyte and useless offline).

Two reproductions give the same numbers: retrieval breaks every tie by name and the
temporal prior's "today" is pinned, so nothing depends on the process or its hash seed
(tests/test_determinism.py).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .paths import REPO_ROOT, default_data_dir

NOTEBOOKS: tuple[str, ...] = (
    "01_build_atlas", "02_retrieval_matrix", "03_abstention", "04_weight_tuning", "05_decomposition", "06_generation",
)
# Full runs: every query, the whole corpus, the best installed embedder. MuSiQue gets its
# unanswerable queries from the seeded hold-out (25%, like MultiHop-RAG's 125 of 500), and
# every MuSiQue notebook uses that one corpus, so they share one atlas. MultiHop-RAG brings
# its own null queries; QASPER has none (the paper measured no abstention on it).
_FULL = {"limit": None, "distractors": None, "embedder": "auto"}
_GRID = {"bm25_weights": [0.2, 0.4, 0.6, 0.8, 1.0], "vector_weights": [0.25, 0.5, 1.0]}
_TESTS = {"n_resamples": 10_000}  # the significance default of `ohara eval`
# dataset -> (its parameters, the notebooks that apply to it)
DATASET_JOBS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "musique": ({**_FULL, "dataset": "musique", "unanswerable": 0.25},
                ("01_build_atlas", "02_retrieval_matrix", "03_abstention", "04_weight_tuning", "06_generation")),
    "qasper-leval": ({**_FULL, "dataset": "qasper-leval", "unanswerable": None},
                     ("01_build_atlas", "02_retrieval_matrix", "05_decomposition")),
    "multihop-rag": ({**_FULL, "dataset": "multihop-rag", "unanswerable": None},
                     ("01_build_atlas", "02_retrieval_matrix", "03_abstention", "04_weight_tuning", "06_generation")),
    "qasper": ({**_FULL, "dataset": "qasper", "unanswerable": None},
               ("01_build_atlas", "02_retrieval_matrix", "04_weight_tuning", "05_decomposition")),
}
# What runs on this machine; the paper's own corpora need their official files (`--datasets`).
DEFAULT_DATASETS: tuple[str, ...] = ("musique", "qasper-leval")
_EXTRA: dict[str, dict[str, Any]] = {
    "02_retrieval_matrix": {**_TESTS, "configs": ""}, "04_weight_tuning": {**_GRID, **_TESTS},
    "03_abstention": {"foreign_nulls": None},  # every foreign question of the test half (249)
    "05_decomposition": _TESTS,
}


@dataclass(frozen=True)
class Job:
    notebook: str
    dataset: str
    parameters: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.notebook}/{self.dataset}"


def full_jobs(datasets: Sequence[str] = DEFAULT_DATASETS) -> tuple[Job, ...]:
    """The full-run jobs for `datasets`, notebook by notebook (so atlases are built by 01 first)."""
    unknown = [d for d in datasets if d not in DATASET_JOBS]
    if unknown:
        raise UsageError(f"unknown dataset(s) {', '.join(unknown)}; choose from: {', '.join(DATASET_JOBS)}")
    return tuple(Job(nb, d, {**DATASET_JOBS[d][0], **_EXTRA.get(nb, {})})
                 for nb in NOTEBOOKS for d in datasets if nb in DATASET_JOBS[d][1])


FULL_JOBS: tuple[Job, ...] = full_jobs()
# The space-time map is dataset-independent: one job per full run, kept out of NOTEBOOKS (whose
# notebooks take dataset/data_dir/seed and run once per corpus).
MAP_NOTEBOOK = "07_space_time_map"
MAP_JOB = Job(MAP_NOTEBOOK, "samples", {"corpus": "samples", "embedder": "none"})
# Quick runs: each notebook once at its defaults (small MuSiQue / QASPER-leval, wordllama).
QUICK_JOBS: tuple[Job, ...] = tuple(Job(nb, "quick") for nb in NOTEBOOKS)


@dataclass
class NotebookRun:
    label: str
    status: str  # ok | failed
    seconds: float
    output: Path
    error: str | None = None


def select_jobs(jobs: Sequence[Job], only: str | Sequence[str] | None) -> list[Job]:
    """Jobs whose notebook name starts with one of `only` (comma-separated or a list)."""
    if not only:
        return list(jobs)
    wanted = [w.strip() for w in (only.split(",") if isinstance(only, str) else only) if w.strip()]
    known = (*NOTEBOOKS, MAP_NOTEBOOK)
    unknown = [w for w in wanted if not any(nb.startswith(w) for nb in known)]
    if unknown:
        raise UsageError(f"unknown notebook(s) {', '.join(unknown)}; choose from: {', '.join(known)}")
    return [j for j in jobs if any(j.notebook.startswith(w) for w in wanted)]


def job_output_dir(out: Path, job: Job, quick: bool) -> Path:
    return out / job.notebook / (job.dataset if not quick else "quick")


def map_output_dir(out: Path) -> Path:
    """Where the space-time map's PNGs and layout go: `map/` beside the results root."""
    return out.parent / "map"


def reproduce(
    data_dir: str | Path | None = None,
    out: str | Path = "eval/results",
    *,
    quick: bool = False,
    only: str | Sequence[str] | None = None,
    atlas_dir: str | Path | None = None,
    embedder: str | None = None,
    notebooks_dir: str | Path | None = None,
    kernel: str | None = None,
    extra_parameters: dict[str, Any] | None = None,
    on_start: Callable[[Job], None] | None = None,
    datasets: Sequence[str] = DEFAULT_DATASETS,
) -> list[NotebookRun]:
    """Execute the notebooks with papermill; returns one `NotebookRun` per job, in order.

    `datasets` picks the full-run corpora (musique, qasper-leval, multihop-rag, qasper); `quick`
    ignores it and runs each notebook once at its own small defaults. A full run ends with the
    space-time map (`MAP_JOB`), unless `only` leaves it out.
    """
    try:
        import papermill as pm  # noqa: PLC0415 - the lab extra
    except ImportError:
        raise UsageError("ohara reproduce needs papermill: pip install 'ohara-lab[lab]'") from None
    src = Path(notebooks_dir) if notebooks_dir else REPO_ROOT / "notebooks"
    missing = [nb for nb in NOTEBOOKS if not (src / f"{nb}.ipynb").is_file()]
    if missing:
        raise UsageError(f"notebooks not found in {src}: {', '.join(missing)}")
    out = Path(out).resolve()
    data = str(Path(data_dir).resolve()) if data_dir else str(default_data_dir())
    runs: list[NotebookRun] = []
    jobs = select_jobs(QUICK_JOBS if quick else (*full_jobs(datasets), MAP_JOB), only)
    for job in jobs:
        runs.append(_run_job(pm, src, job, out, quick, data, atlas_dir, embedder, kernel, extra_parameters, on_start))
    return runs


def _run_job(pm: Any, src: Path, job: Job, out: Path, quick: bool, data: str, atlas_dir: str | Path | None,
             embedder: str | None, kernel: str | None, extra_parameters: dict[str, Any] | None,
             on_start: Callable[[Job], None] | None) -> NotebookRun:
    target = job_output_dir(out, job, quick)
    target.mkdir(parents=True, exist_ok=True)
    engine: dict[str, Any] = {}
    if job.notebook == MAP_NOTEBOOK:  # its own parameters only (its atlas lives in the default cache)
        params = {**job.parameters, "out_dir": str(map_output_dir(out))}
        engine["store_widget_state"] = False
    else:
        params = {**job.parameters, "data_dir": data, "out_dir": str(target), **(extra_parameters or {})}
        if atlas_dir:
            params["cache_dir"] = str(Path(atlas_dir).resolve())
        if embedder:
            params["embedder"] = embedder
    if on_start:
        on_start(job)
    output = target / f"{job.notebook}.ipynb"
    t0 = time.perf_counter()
    try:
        pm.execute_notebook(str(src / f"{job.notebook}.ipynb"), str(output), parameters=params, cwd=str(src),
                            kernel_name=kernel, progress_bar=False, log_output=False, **engine)
    except Exception as e:  # noqa: BLE001 - papermill raises several types; report and go on
        return NotebookRun(job.label, "failed", time.perf_counter() - t0, output, _first_line(e))
    return NotebookRun(job.label, "ok", time.perf_counter() - t0, output)


def _first_line(e: Exception) -> str:
    """`Name: first line` of the error raised inside the notebook (papermill keeps ename/evalue)."""
    name = getattr(e, "ename", None) or type(e).__name__
    value = str(getattr(e, "evalue", None) or e).strip()
    return f"{name}: {value.splitlines()[0] if value else ''}"
