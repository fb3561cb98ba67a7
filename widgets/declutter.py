"""Label decluttering: which labels to show so that none covers another on the canvas.

A greedy screen-space collision test (the placement rule of map labelling,
e.g. Christensen, Marks & Shieber 1995, "An empirical study of algorithms for
point-feature label placement", ACM TOG 14(3), the greedy baseline):

    for each label, most important first:
        box   = its on-screen rectangle (centre ± size/2), grown by `pad` pixels
        show  = it lies in front of the camera, its box is on the canvas,
                and it overlaps no box already shown

Pure numpy over projected points (`geometry.project`), so the widget can run it
on every camera change the browser sends back, and tests can run it without one.
"""
from __future__ import annotations

import numpy as np

LABEL_PAD_PX = 3.0


def label_boxes(centers_px: np.ndarray, sizes_px: np.ndarray) -> np.ndarray:
    """(n, 4) boxes (x0, y0, x1, y1) of labels centred on `centers_px` with (w, h) `sizes_px`."""
    c = np.asarray(centers_px, dtype=np.float64).reshape(-1, 2)
    half = np.asarray(sizes_px, dtype=np.float64).reshape(-1, 2) / 2
    return np.column_stack([c - half, c + half])


def overlaps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) bool: which boxes of `a` intersect which of `b` (touching edges do not)."""
    a = np.asarray(a, dtype=np.float64).reshape(-1, 1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(1, -1, 4)
    return (a[..., 0] < b[..., 2]) & (b[..., 0] < a[..., 2]) & (a[..., 1] < b[..., 3]) & (b[..., 1] < a[..., 3])


def declutter(centers_px: np.ndarray, sizes_px: np.ndarray, depth: np.ndarray, priority: np.ndarray,
              width: int, height: int, pad: float = LABEL_PAD_PX) -> np.ndarray:
    """(n,) bool: the labels to show (see the module docstring); ties in priority keep input order."""
    boxes = label_boxes(centers_px, sizes_px)
    grown = boxes + np.array([-pad, -pad, pad, pad])
    depth = np.asarray(depth, dtype=np.float64).reshape(-1)
    with np.errstate(invalid="ignore"):
        inside = (depth > 0) & (boxes[:, 0] >= 0) & (boxes[:, 1] >= 0) & (boxes[:, 2] <= width) \
            & (boxes[:, 3] <= height) & np.isfinite(boxes).all(axis=1)
    order = np.lexsort((np.arange(len(boxes)), -np.asarray(priority, dtype=np.float64)))
    shown = np.zeros(len(boxes), dtype=bool)
    taken = np.zeros((0, 4))
    for i in order:
        if not inside[i] or (len(taken) and overlaps(grown[i], taken).any()):
            continue
        shown[i] = True
        taken = np.vstack([taken, grown[i]])
    return shown
