"""The 3D space-time map's layout, as pure numpy (spec §6; ARCHITECTURE rule 7).

Z is time, the (x, y) plane is the SUMO category sunburst, and each document is
a disc of its structure. `build_layout(map_input, ontology)` returns a
`MapLayout` of plain arrays that `ohara_lab.widgets` turns into pythreejs
objects and `plot_map` draws with matplotlib. Nothing here imports Jupyter.
"""

from __future__ import annotations

from typing import Any

from ohara_lab.layout.colors import COLOR_MODES
from ohara_lab.layout.from_atlas import MAP_RELATIONS, map_input_from_atlas
from ohara_lab.layout.inputs import (
    NODE_KINDS,
    TEXT_KINDS,
    DocumentInput,
    EdgeInput,
    EntityInput,
    MapInput,
    OntologyCategories,
    SectionInput,
    TextNodeInput,
    text_kind,
)
from ohara_lab.layout.maplayout import MapLayout
from ohara_lab.layout.scene import DEFAULT_EDGE_KINDS, TAG_TETHER, build_layout
from ohara_lab.layout.synthetic import TreeOntology
from ohara_lab.layout.time_axis import RESOLUTIONS

__all__ = [
    "COLOR_MODES",
    "DEFAULT_EDGE_KINDS",
    "NODE_KINDS",
    "RESOLUTIONS",
    "TAG_TETHER",
    "TEXT_KINDS",
    "DocumentInput",
    "EdgeInput",
    "EntityInput",
    "MapInput",
    "MapLayout",
    "OntologyCategories",
    "SectionInput",
    "TextNodeInput",
    "TreeOntology",
    "build_layout",
    "plot_map",
    "text_kind",
    "MAP_RELATIONS",
    "map_input_from_atlas",
]


def __getattr__(name: str) -> Any:
    # matplotlib loads only when a static plot is asked for, not with the layout.
    if name == "plot_map":
        from ohara_lab.layout.static_plot import plot_map

        return plot_map
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
