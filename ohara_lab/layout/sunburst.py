"""The ontology plane: sunburst partition of the SUMO category tree, document (x, y).

Source: OHARA spec §6 "Sunburst partition" and "Coordinates"; the original's
`scripts/build_sunburst_layout.js` (royalgarter/doc_ohara) for the floor rule.

    W(c) = sqrt(tagCount[c] or 1) + Σ_children W(child)      (sqrt damping: Artifact must not starve Abstract)

Partition recursively from the virtual root over [0, 2π): children by W
descending (ties keep category order), span_i = W_i/ΣW · span. When
span ≥ k·8° (k children), spans below 8° are raised to 8° and the deficit is
taken from every span still above 8° in proportion s_j / Σ(spans not raised)
— one pass, as in the original. Children take consecutive intervals, so
siblings stay adjacent. Each category stores {theta: midpoint, a0, a1} in
radians rounded to 4 decimals. The layout depends only on the ontology, so a
category keeps its angle whatever the corpus.

Document position: r = 700·sqrt(depth/5) (depth 2 when unknown or 0),
θ = theta of category(doc.sumo_tags[0]); a document without a placed category
goes to the origin. Documents sharing (x, y, Z) fan out by 80·(cos, sin)(2πi/n).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ohara_lab.layout.inputs import OntologyCategories

MIN_SLICE = math.radians(8.0)
PLANE_RADIUS = 700.0
MAX_DEPTH = 5
DEFAULT_DEPTH = 2
COLLISION_RADIUS = 80.0
ROOT = None  # key of the virtual root in a children map


@dataclass(frozen=True)
class Slice:
    theta: float  # midpoint angle, radians
    a0: float
    a1: float


def category_children(ontology: OntologyCategories) -> dict[str | None, list[str]]:
    """Children lists of the category tree, in `ontology.categories` order; key None is the root."""
    children: dict[str | None, list[str]] = {ROOT: []}
    for cat in ontology.categories:
        children.setdefault(ontology.category_parent(cat), []).append(cat)
    return children


def subtree_weights(children: Mapping[str | None, Sequence[str]], tag_counts: Mapping[str, int]) -> dict[str, float]:
    """W(c) for every category reachable from the root (cycles are unreachable, hence unweighted)."""
    weights: dict[str, float] = {}

    def weigh(cat: str) -> float:
        w = math.sqrt(tag_counts.get(cat) or 1)
        for child in children.get(cat, ()):
            w += weigh(child)
        weights[cat] = w
        return w

    for top in children.get(ROOT, ()):
        weigh(top)
    return weights


def split_span(weights: Sequence[float], span: float) -> list[float]:
    """Spans of k siblings sharing `span`, with the 8° floor when the span allows it."""
    total = sum(weights)
    spans = [w / total * span for w in weights]
    if span >= len(spans) * MIN_SLICE:
        deficit = sum(MIN_SLICE - s for s in spans if s < MIN_SLICE)
        flexible = sum(s for s in spans if s >= MIN_SLICE)
        spans = [max(s, MIN_SLICE) for s in spans]
        if deficit > 0 and flexible > 0:
            spans = [s - deficit * s / flexible if s > MIN_SLICE else s for s in spans]
    return spans


def partition_tree(children: Mapping[str | None, Sequence[str]], tag_counts: Mapping[str, int]) -> dict[str, Slice]:
    weights = subtree_weights(children, tag_counts)
    layout: dict[str, Slice] = {}

    def partition(cat: str | None, a0: float, a1: float) -> None:
        if cat is not ROOT:
            layout[cat] = Slice(round((a0 + a1) / 2, 4), round(a0, 4), round(a1, 4))
        # sorted() is stable, so equal weights keep the ontology's category order
        kids = sorted(children.get(cat, ()), key=lambda c: -weights[c])
        if not kids:
            return
        cursor = a0
        for kid, span in zip(kids, split_span([weights[k] for k in kids], a1 - a0)):
            partition(kid, cursor, cursor + span)
            cursor += span

    partition(ROOT, 0.0, 2 * math.pi)
    return layout


def sunburst_layout(ontology: OntologyCategories) -> dict[str, Slice]:
    """cat_layout of the spec: category -> Slice."""
    return partition_tree(category_children(ontology), ontology.category_tag_counts)


def depth_radius(depth: int | None) -> float:
    """r = 700·sqrt(depth/5); depth 2 when unknown (the original's `cat_depth[c] || 2`)."""
    return PLANE_RADIUS * math.sqrt((depth or DEFAULT_DEPTH) / MAX_DEPTH)


def document_category(sumo_tags: Sequence[str], ontology: OntologyCategories) -> str | None:
    """Category of a document's dominant tag (index 0), if the ontology knows it."""
    return ontology.category(sumo_tags[0]) if sumo_tags else None


def category_xy(category: str | None, ontology: OntologyCategories, layout: Mapping[str, Slice]) -> tuple[float, float]:
    if category is None or category not in layout:
        return 0.0, 0.0
    r = depth_radius(ontology.category_depth(category))
    theta = layout[category].theta
    return r * math.cos(theta), r * math.sin(theta)


def fan_out_collisions(xyz: np.ndarray, radius: float = COLLISION_RADIUS) -> np.ndarray:
    """Offset documents that share exactly the same (x, y, Z): the i-th of n moves by r·(cos, sin)(2πi/n)."""
    out = np.array(xyz, dtype=np.float64, copy=True)
    groups: dict[tuple[float, float, float], list[int]] = {}
    for i, key in enumerate(map(tuple, out.tolist())):
        groups.setdefault(key, []).append(i)
    for members in groups.values():
        n = len(members)
        if n < 2:
            continue
        angles = 2 * np.pi * np.arange(n) / n
        out[members, 0] += radius * np.cos(angles)
        out[members, 1] += radius * np.sin(angles)
    return out
