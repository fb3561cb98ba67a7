"""Node colours for the three colour modes of the map (spec §6 "Rendering/colours").

    category colour = hsl(round(idx/N · 360 · 1.6180339887) mod 360, 55%, 62%)
                      idx = the category's index in `ontology.categories`, N = their count
    by_document  every node of a document: colour of its dominant tag's category;
                 tags #b58900, entities #d33682
    by_type      document #268bd2, paragraph #586e75, figure #657b83, table #cb4b16,
                 entity #d33682, tag #b58900, section of level L:
                 [#268bd2, #586e75, #657b83, #839496, #93a1a1, #cb4b16, #d33682][(L−1) mod 7]
    by_sumo      category colour of the node's first tag; else HASH_PALETTE[hash16(tag) mod 8];
                 else by type
    by_community entities: hsl(community · 137.508° (the golden angle) mod 360, 65%, 55%); text nodes
                 the colour of the community most of their entities belong to; without one
                 #93a1a1; documents, sections and tags by type (not in the spec: `ohara analyze`)

Choices the spec leaves open, made here: a level-0 section (Part) counts as
level 1, as the original's `level || 1` did; a document whose dominant tag has
no category keeps by-type colours in by_document mode; the 8-colour hash
palette is the Solarized accent set the rest of the palette comes from.
`round` is JavaScript's Math.round (halves go up).
"""

from __future__ import annotations

import colorsys
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ohara_lab.errors import UsageError
from ohara_lab.layout.hashing import string_hash16
from ohara_lab.layout.inputs import OntologyCategories

RGB = tuple[float, float, float]

GOLDEN_RATIO = 1.6180339887
TAG_COLOR = "#b58900"
ENTITY_COLOR = "#d33682"
TYPE_COLORS = {
    "document": "#268bd2",
    "paragraph": "#586e75",
    "figure": "#657b83",
    "table": "#cb4b16",
    "entity": ENTITY_COLOR,
    "tag": TAG_COLOR,
}
LEVEL_COLORS = ("#268bd2", "#586e75", "#657b83", "#839496", "#93a1a1", "#cb4b16", "#d33682")
HASH_PALETTE = ("#b58900", "#cb4b16", "#dc322f", "#d33682", "#6c71c4", "#268bd2", "#2aa198", "#859900")


def hex_to_rgb(color: str) -> RGB:
    value = color.lstrip("#")
    return (int(value[0:2], 16) / 255, int(value[2:4], 16) / 255, int(value[4:6], 16) / 255)


def hsl_to_rgb(hue_degrees: float, saturation: float, lightness: float) -> RGB:
    r, g, b = colorsys.hls_to_rgb((hue_degrees % 360) / 360, lightness, saturation)
    return (r, g, b)


def category_hue(idx: int, n: int) -> int:
    return math.floor(idx / n * 360 * GOLDEN_RATIO + 0.5) % 360


def category_color(idx: int, n: int) -> RGB:
    return hsl_to_rgb(category_hue(idx, n), 0.55, 0.62)


def type_color(kind: str, level: int | None = None) -> RGB:
    if kind == "section":
        lvl = level if level else 1
        return hex_to_rgb(LEVEL_COLORS[(lvl - 1) % len(LEVEL_COLORS)])
    return hex_to_rgb(TYPE_COLORS[kind])


@dataclass(frozen=True)
class NodeStyleKey:
    """What a node's colour can depend on, in any mode."""

    kind: str
    level: int | None = None  # sections only
    first_tag: str | None = None  # the node's own first SUMO tag (the tag itself for tag nodes)
    document_tag: str | None = None  # dominant tag of the node's document
    community: int | None = None  # entity community (entities, text nodes) for by_community


class Palette:
    """Colour lookups for one ontology, cached per distinct key (many nodes share one)."""

    def __init__(self, ontology: OntologyCategories):
        self._ontology = ontology
        self._index = {cat: i for i, cat in enumerate(ontology.categories)}

    def tag_category_color(self, tag: str | None) -> RGB | None:
        if not tag:
            return None
        cat = self._ontology.category(tag)
        if cat is None or cat not in self._index:
            return None
        return category_color(self._index[cat], len(self._index))

    def by_document(self, key: NodeStyleKey) -> RGB:
        if key.kind in ("entity", "tag"):
            return type_color(key.kind)
        return self.tag_category_color(key.document_tag) or type_color(key.kind, key.level)

    def by_type(self, key: NodeStyleKey) -> RGB:
        return type_color(key.kind, key.level)

    def by_sumo(self, key: NodeStyleKey) -> RGB:
        if not key.first_tag:
            return type_color(key.kind, key.level)
        known = self.tag_category_color(key.first_tag)
        if known is not None:
            return known
        return hex_to_rgb(HASH_PALETTE[string_hash16(key.first_tag) % len(HASH_PALETTE)])

    def by_community(self, key: NodeStyleKey) -> RGB:
        if key.kind not in ("entity", "paragraph", "figure", "table"):
            return type_color(key.kind, key.level)
        return community_color(key.community)


GOLDEN_ANGLE = 137.508
NO_COMMUNITY = "#93a1a1"


def community_color(community: int | None) -> RGB:
    """Distinct hues for community ids in any number (golden-angle steps); grey without a community."""
    if community is None:
        return hex_to_rgb(NO_COMMUNITY)
    return hsl_to_rgb((community * GOLDEN_ANGLE) % 360, 0.65, 0.55)


COLOR_MODES: dict[str, Callable[[Palette, NodeStyleKey], RGB]] = {
    "by_document": Palette.by_document,
    "by_type": Palette.by_type,
    "by_sumo": Palette.by_sumo,
    "by_community": Palette.by_community,
}


def color_mode(name: str) -> Callable[[Palette, NodeStyleKey], RGB]:
    try:
        return COLOR_MODES[name]
    except KeyError:
        raise UsageError(f"unknown colour mode {name!r}; choose one of {list(COLOR_MODES)}") from None


def node_colors(mode: str, keys: Sequence[NodeStyleKey], ontology: OntologyCategories) -> np.ndarray:
    """(n, 3) float32 RGB for the nodes described by `keys`."""
    rule = color_mode(mode)
    palette = Palette(ontology)
    cache: dict[NodeStyleKey, RGB] = {}
    rows = []
    for key in keys:
        rgb = cache.get(key)
        if rgb is None:
            rgb = cache[key] = rule(palette, key)
        rows.append(rgb)
    return np.array(rows, dtype=np.float32).reshape(-1, 3)
