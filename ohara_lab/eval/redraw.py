"""Redraw the committed figures of `eval/results` from the tables committed beside them.

`python -m ohara_lab.eval.redraw [RESULTS_DIR]` (default: the repository's `eval/results`). A figure is
drawn by the same `plots` function and `report.save_figure` the notebook uses, from the CSV the notebook
wrote with it, so a change to how a figure looks reaches the committed PNGs without re-running an
evaluation (hours on the real datasets). Figures whose inputs are not all in a table (the abstention
trade-off, the ingest stages) are left to the notebooks.
"""
from __future__ import annotations

import csv
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import plots, report
from .decomposition import COLUMNS as DECOMPOSITION_COLUMNS
from .paths import REPO_ROOT


def _number(text: str) -> Any:
    if text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        return text
    return int(value) if value.is_integer() and "." not in text else value


def read_rows(path: Path) -> list[dict[str, Any]]:
    """A committed CSV table, numbers as numbers and empty cells as None."""
    with path.open(encoding="utf-8", newline="") as fh:
        return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def _heading(path: Path) -> str:
    """What follows the last ': ' of a Markdown table's `# ...` heading: the dataset's name."""
    first = path.read_text(encoding="utf-8").splitlines()[0]
    return first.rsplit(": ", 1)[-1].strip()


def _parameter(notebook: Path, name: str, default: Any) -> Any:
    """A parameter papermill injected into an executed notebook (`name = value` in the injected cell)."""
    import json  # noqa: PLC0415

    if not notebook.is_file():
        return default
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        if "injected-parameters" in cell.get("metadata", {}).get("tags", []):
            for line in "".join(cell["source"]).splitlines():
                key, _, value = line.partition(" = ")
                if key.strip() == name:
                    return _number(value.strip().strip("\"'"))
    return default


def _matrix(d: Path) -> Any:
    rows = read_rows(d / "summary.csv")
    n = (rows[0].get("n_scored") or 0) + (rows[0].get("n_null") or 0)
    return plots.config_bars(rows, ("recall@5", "mrr@10", "principal_hit", "null_abstention"),
                             title=f"{_heading(d / 'report.md')}: {n} queries")


def _decomposition(d: Path) -> Any:
    return plots.config_bars(read_rows(d / "decomposition.csv"), DECOMPOSITION_COLUMNS,
                             title=f"{_heading(d / 'decomposition.md')}: routing vs ranking")


def _accuracy(d: Path) -> Any:
    top_k = _parameter(d / "06_generation.ipynb", "top_k", 10)
    return plots.config_bars(read_rows(d / "accuracy.csv"), ("accuracy", "context_has_answer"),
                             title=f"{_heading(d / 'accuracy.md')}: answers from top {top_k}")


def _grid(d: Path) -> Any:
    metric = _parameter(d / "04_weight_tuning.ipynb", "select_metric", "mrr@10")
    return plots.grid_heatmap(read_rows(d / "grid_tuning_split.csv"), metric)


def _refeed(d: Path) -> Any:
    return plots.rank_rates(read_rows(d / "refeed_per_rank.csv"))


# figure name -> (notebook folder, the tables it needs, how it is drawn)
FIGURES: dict[str, tuple[str, tuple[str, ...], Callable[[Path], Any]]] = {
    "matrix": ("02_retrieval_matrix", ("summary.csv", "report.md"), _matrix),
    "decomposition": ("05_decomposition", ("decomposition.csv", "decomposition.md"), _decomposition),
    "accuracy": ("06_generation", ("accuracy.csv", "accuracy.md"), _accuracy),
    "grid": ("04_weight_tuning", ("grid_tuning_split.csv",), _grid),
    "refeed_per_rank": ("04_weight_tuning", ("refeed_per_rank.csv",), _refeed),
}


def redraw(results: Path) -> list[Path]:
    """Every figure of `FIGURES` under `results/<notebook>/<run>/` whose tables are there; the paths written."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    written = []
    for name, (notebook, needs, draw) in FIGURES.items():
        for d in sorted(p for p in (results / notebook).glob("*") if p.is_dir()):
            if all((d / f).is_file() for f in needs):
                fig = draw(d)
                written.append(report.save_figure(fig, d, name))
                plt.close(fig)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO_ROOT / "eval" / "results"
    for path in redraw(target):
        print(path)
