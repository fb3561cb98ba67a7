"""The static matplotlib view (Agg backend, set in conftest.py)."""
from __future__ import annotations

import io

import pytest
from matplotlib.figure import Figure

from ohara_lab.errors import UsageError
from ohara_lab.layout import MapInput, build_layout, plot_map
from ohara_lab.layout.static_plot import label_box
from ohara_lab.layout.synthetic import TreeOntology, synthetic_map_input, synthetic_ontology


@pytest.fixture(scope="module")
def small_map():
    corpus = synthetic_map_input(12, seed=7)
    corpus.documents[0] = type(corpus.documents[0])(corpus.documents[0].id, "no date")  # force an undated slab
    return build_layout(corpus, synthetic_ontology())


def test_3d_view_labels_time(small_map) -> None:
    fig = plot_map(small_map, projection="3d")
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_zticklabels()]
    assert labels[0] == "undated"
    assert set(labels) <= set(small_map.timeline.tick_labels)
    assert 2 <= len(labels) <= 12
    assert ax.get_zlabel() == "time"
    assert len(ax.texts) == len(small_map.guides.names)  # one label per topic column
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=40)
    assert buffer.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"


def test_side_view_on_given_axes(small_map) -> None:
    fig = Figure()
    ax = fig.add_subplot()
    assert plot_map(small_map, ax=ax, projection="xz") is fig
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[0] == "undated" and set(labels) <= set(small_map.timeline.tick_labels)
    assert ax.get_xlabel() == "time"
    assert len(ax.collections) >= 2  # edges and points


def test_projection_checks(small_map) -> None:
    with pytest.raises(UsageError, match="top"):
        plot_map(small_map, projection="top")
    ax = Figure().add_subplot()
    with pytest.raises(UsageError, match="3d"):
        plot_map(small_map, ax=ax, projection="3d")


def test_empty_map_still_draws() -> None:
    layout = build_layout(MapInput(), TreeOntology(parents={"Only": None}))
    assert len(layout) == 0
    assert isinstance(plot_map(layout, projection="xz"), Figure)
    assert isinstance(plot_map(layout, projection="3d"), Figure)


@pytest.mark.parametrize("projection", ["3d", "xz"])
def test_no_two_shown_topic_labels_overlap(projection) -> None:
    """A crowded map (many topic columns) prints each name readably or not at all (eval/map's figure
    printed 'Abstract', 'Attribute', 'Relation', ... over each other)."""
    layout = build_layout(synthetic_map_input(60, seed=3), synthetic_ontology())
    fig = plot_map(layout, projection=projection)
    ax = fig.axes[0]
    fig.draw_without_rendering()
    shown = [label_box(ax, t) for t in ax.texts if t.get_visible()]
    assert len(shown) >= 3
    clashes = [(i, j) for i, a in enumerate(shown) for j, b in enumerate(shown[i + 1:], i + 1) if a.overlaps(b)]
    assert clashes == []


def test_the_committed_map_figure_shows_no_overlapping_labels() -> None:
    """The layout notebook 07 saved beside eval/map/space_time_map.png (the shipped sample corpus)."""
    from pathlib import Path

    from ohara_lab.layout.maplayout import MapLayout

    layout = MapLayout.from_npz(Path(__file__).resolve().parents[2] / "eval" / "map" / "space_time_map.npz")
    fig = plot_map(layout, projection="3d")
    ax = fig.axes[0]
    fig.draw_without_rendering()
    shown = [label_box(ax, t) for t in ax.texts if t.get_visible()]
    assert len(shown) >= 3
    assert not [(a, b) for i, a in enumerate(shown) for b in shown[i + 1:] if a.overlaps(b)]
