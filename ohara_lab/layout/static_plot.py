"""A static matplotlib view of a `MapLayout`, for papers, CI artefacts and browser-less runs.

Two projections:
* "3d": the map as laid out, time going up (matplotlib's vertical axis),
  topic columns as vertical spines at their category angle, depth rings on the floor;
* "xz": a side view, time along the horizontal axis and the ontology-plane x
  vertical, topic columns as horizontal lines.

Time ticks carry the timeline's labels, thinned to a readable count (the
undated slab's label, first on the ruler, is always kept); a topic label that would cover another is
hidden (greedy, in column order, as `widgets/declutter.py` does on the canvas). Uses the object-oriented API only (no
pyplot), so it needs no GUI backend and leaves global matplotlib state alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from ohara_lab.errors import UsageError
from ohara_lab.layout.maplayout import MapLayout

PROJECTIONS = ("3d", "xz")
MAX_TICK_LABELS = 12
MAX_EDGES = 20_000  # beyond this the lines only grey the picture out
EDGE_COLOR = (0.45, 0.45, 0.45)
MARKER_SCALE = 1.5  # map size units → points² of marker area


def _segments(layout: MapLayout, axes: tuple[int, ...]) -> np.ndarray:
    edges = layout.edges[:MAX_EDGES]
    return layout.positions[edges][:, :, list(axes)]


def _title(layout: MapLayout) -> str:
    return (
        f"{len(layout.discs.document_ids)} documents · {len(layout)} nodes · "
        f"{layout.timeline.resolution} · {layout.color_mode}"
    )


def _plot_3d(layout: MapLayout, ax: Axes) -> None:
    from mpl_toolkits.mplot3d.art3d import Line3DCollection

    p = layout.positions
    if len(layout.edges):
        ax.add_collection3d(
            Line3DCollection(_segments(layout, (0, 1, 2)), colors=[EDGE_COLOR], linewidths=0.3, alpha=0.2)
        )
    g = layout.guides
    gx, gy = g.radii * np.cos(g.angles), g.radii * np.sin(g.angles)
    spines = [[(x, y, g.z0), (x, y, g.z1)] for x, y in zip(gx, gy)]
    if spines:
        ax.add_collection3d(Line3DCollection(spines, colors=g.colors, linewidths=0.8, alpha=0.6))
    for x, y, name, color in zip(gx, gy, g.names, g.colors):
        ax.text(x, y, g.z1, name, fontsize=5, color=color)
    circle = np.linspace(0, 2 * np.pi, 97)
    for r in g.ring_radii:
        ax.plot(r * np.cos(circle), r * np.sin(circle), np.full_like(circle, g.z0), color=EDGE_COLOR, lw=0.4, alpha=0.4)
    ax.scatter(
        p[:, 0], p[:, 1], p[:, 2], c=layout.colors, s=layout.sizes * MARKER_SCALE, depthshade=False, linewidths=0
    )
    ticks, labels = layout.timeline.thinned(MAX_TICK_LABELS)
    ax.set_zticks(ticks)
    ax.set_zticklabels(labels, fontsize=6)
    ax.set_xlabel("x (ontology plane)")
    ax.set_ylabel("y (ontology plane)")
    ax.set_zlabel("time")
    ax.view_init(elev=18, azim=-58)


def _plot_xz(layout: MapLayout, ax: Axes) -> None:
    p = layout.positions
    if len(layout.edges):
        ax.add_collection(LineCollection(_segments(layout, (2, 0)), colors=[EDGE_COLOR], linewidths=0.3, alpha=0.2))
    g = layout.guides
    gx = g.radii * np.cos(g.angles)
    for x, name, color in zip(gx, g.names, g.colors):
        ax.plot([g.z0, g.z1], [x, x], color=color, lw=0.6, alpha=0.5)
        ax.text(g.z1, x, f" {name}", fontsize=5, color=color, va="center")
    ax.scatter(p[:, 2], p[:, 0], c=layout.colors, s=layout.sizes * MARKER_SCALE, linewidths=0)
    ticks, labels = layout.timeline.thinned(MAX_TICK_LABELS)
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels, fontsize=6, rotation=45, ha="right")
    ax.set_xlabel("time")
    ax.set_ylabel("x (ontology plane)")


def plot_map(layout: MapLayout, ax: Axes | None = None, projection: str = "3d") -> Figure:
    """Draw the map onto `ax` (or a new figure) and return the figure."""
    if projection not in PROJECTIONS:
        raise UsageError(f"unknown projection {projection!r}; choose one of {list(PROJECTIONS)}")
    is_3d = projection == "3d"
    if ax is None:
        fig = Figure(figsize=(10, 8) if is_3d else (12, 6))
        ax = fig.add_subplot(projection="3d" if is_3d else None)
    elif (ax.name == "3d") != is_3d:
        raise UsageError(f"projection {projection!r} needs {'a 3d' if is_3d else 'a 2d'} Axes, got {ax.name!r}")
    (_plot_3d if is_3d else _plot_xz)(layout, ax)
    ax.set_title(_title(layout), fontsize=9)
    fig = ax.figure
    root = fig if isinstance(fig, Figure) else fig.figure  # an Axes on a SubFigure: its root figure
    _declutter_labels(root, ax)
    return root


def _declutter_labels(fig: Figure, ax: Axes) -> None:
    """Hide topic labels that would cover one drawn before them, as the widget's `declutter` does on the
    canvas (greedy, in column order): crowded columns printed their names over each other."""
    texts = list(ax.texts)
    if len(texts) < 2:
        return
    fig.draw_without_rendering()  # lays the texts out where they will be drawn
    kept: list = []
    for text in texts:
        box = label_box(ax, text)
        if any(box.overlaps(other) for other in kept):
            text.set_visible(False)
        else:
            kept.append(box)


def label_box(ax: Axes, text: Any) -> Bbox:
    """A label's box on the canvas in pixels. A 3D label's own extent is that of its unprojected (x, y)
    (matplotlib projects it only while drawing), so its size is moved to its projected anchor."""
    box = text.get_window_extent()
    if ax.name != "3d":
        return box
    from mpl_toolkits.mplot3d import proj3d

    x, y, _ = proj3d.proj_transform(*text.get_position_3d(), ax.get_proj())
    px, py = ax.transData.transform((x, y))
    return Bbox.from_bounds(px, py - box.height / 2, box.width, box.height)
