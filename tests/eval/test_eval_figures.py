"""Figures a reader can read (issue 25, point 6): legends off the data, legible cell values, no empty
legend entries; and the committed figures redrawn from their committed tables."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

matplotlib = pytest.importorskip("matplotlib", reason="figures need matplotlib (lab extra)")
matplotlib.use("Agg")

from ohara_lab.eval import plots  # noqa: E402
from ohara_lab.eval.redraw import read_rows, redraw  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MATRIX = ROOT / "eval" / "results" / "02_retrieval_matrix" / "musique"
METRICS = ("recall@5", "mrr@10", "principal_hit", "null_abstention")


def _boxes_overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_the_matrix_legend_is_outside_the_data():
    rows = read_rows(MATRIX / "summary.csv")  # the committed run: tall bars up to the last config
    fig = plots.config_bars(rows, METRICS, title="musique")
    fig.canvas.draw()
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    assert not _boxes_overlap(ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer))


def test_a_metric_no_row_has_gets_no_legend_entry_and_zeros_are_written():
    rows = [{"config": "a", "recall@5": 0.5, "principal_hit": 0.0, "null_abstention": None},
            {"config": "b", "recall@5": 0.7, "principal_hit": 0.4, "null_abstention": None}]
    ax = plots.config_bars(rows, ("recall@5", "principal_hit", "null_abstention")).axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["recall@5", "principal_hit"]
    assert [t.get_text() for t in ax.texts] == ["0"]  # a's principal_hit is a measured 0, not a missing bar


def _luminance(rgb) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_heat_map_values_are_legible_on_their_cells():
    """Every cell's number has a WCAG contrast of at least 3:1 with the cell (white on viridis' yellow was ~1.1)."""
    from matplotlib.colors import to_rgb

    rows = [{"bm25_weight": b, "vector_weight": v, "mrr@10": 0.5 + 0.05 * i + 0.01 * j}
            for i, b in enumerate((0.2, 0.6, 1.0)) for j, v in enumerate((0.25, 0.5, 1.0))]
    ax = plots.grid_heatmap(rows).axes[0]
    image = ax.images[0]
    assert len(ax.texts) == len(rows)  # one number per cell, so the loop below checks every cell
    for text in ax.texts:
        cell = image.cmap(image.norm(float(text.get_text())))
        lum = sorted((_luminance(to_rgb(text.get_color())), _luminance(cell)))
        assert (lum[1] + 0.05) / (lum[0] + 0.05) >= 3, text.get_text()


def test_redraw_draws_the_committed_figures_from_their_tables(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(MATRIX, results / "02_retrieval_matrix" / "musique",
                    ignore=shutil.ignore_patterns("*.png", "beyond*", "per_query.csv"))
    written = redraw(results)
    assert written == [results / "02_retrieval_matrix" / "musique" / "matrix.png"]
    assert written[0].stat().st_size > 10_000
