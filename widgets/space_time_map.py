"""`SpaceTimeMap`: the 3D sunburst tunnel of an atlas as one ipywidgets widget.

    display(SpaceTimeMap(atlas))

Time runs along Z, the SUMO category plane is (x, y), each document is a disc
of its sections and text nodes (spec §6; the arithmetic is `ohara_lab.layout`).
The widget is a VBox of controls, the pythreejs renderer and an inspector.
Every interaction has a Python method doing the same thing, so it can be
driven (and tested) without a browser: `select_node(id)` is what a
double-click on a node does, `highlight(result)` marks a query's tiers,
the control widgets' `.value` rebuild the scene when set.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w
import numpy as np
import pythreejs as p3

from ohara_lab.layout import (
    COLOR_MODES,
    DEFAULT_EDGE_KINDS,
    RESOLUTIONS,
    TAG_TETHER,
    MapInput,
    MapLayout,
    OntologyCategories,
    build_layout,
)
from ohara_lab.layout.colors import hex_to_rgb
from ohara_lab.layout.detail import DEFAULT_BUDGET, detail_rows, slab_focus, slabs, text_mask
from ohara_lab.layout.from_atlas import map_input_from_atlas
from ohara_lab.layout.scene import recolor

from . import geometry as geo
from . import scene as sc
from .declutter import declutter, label_boxes
from .html import STYLE, esc
from .inspector import Inspection, NodeInspector
from .payload import StateBytes, close_tree, state_bytes

if TYPE_CHECKING:
    from ohara_lab.atlas import Atlas

BACKGROUND = "#0f1419"
TIER_COLORS = {  # highlight classes, strongest first
    "principal": "#ffd166",
    "integrity": "#06d6a0",
    "explorer": "#4cc9f0",
    "result": "#f4f1de",
}
SELECTED_COLOR = "#ffffff"
NEIGHBOUR_LINE_COLOR = "#2aa198"
PICK_TOLERANCE_PX = 6.0  # how far from a node's centre a click still selects it
SELECTED_SCALE, RELATED_SCALE = 1.6, 1.2  # spec §6: selected ×1.6, related ×1.2
HIGHLIGHT_PX = 11.0
NEAR, FAR_FACTOR = 5.0, 40.0
AUTO_DETAIL = "auto (near the orbit target)"
# Above this many documents the decay auras start hidden (the checkbox shows them): a thousand overlapping
# translucent shells cover the canvas and cost ~40 % of each orbit frame (eval/map/benchmark.md).
AURAS_AUTO_MAX_DOCUMENTS = 1000
TOOLTIP_STYLE = ("position:absolute;pointer-events:none;z-index:20;max-width:420px;padding:3px 7px;"
                 "border-radius:4px;background:rgba(15,20,25,0.92);color:#e6edf3;font-size:12px;"
                 "border:1px solid #3b4a57;white-space:normal")
_NARROW = {"description_width": "64px"}
_SMALL = {"width": "220px"}  # a dict, not a Layout: each control needs its own Layout widget


class SpaceTimeMap(w.VBox):
    """The space-time map of an atlas (or of a bare `MapInput`), with its controls and inspector.

    Options: `documents` (ids to show; None = all), `resolution` (day … century),
    `color_mode` (by_document | by_type | by_sumo), `edge_kinds` (relations to
    draw, plus TAG_TETHER), `auras` (None: shown up to AURAS_AUTO_MAX_DOCUMENTS
    documents), `labels`, `width`/`height` of the canvas in
    pixels, `pick_event` ('dblclick' or 'click'), `point_scale` (map size → pixels),
    `view` (entrance = the spec's tunnel-mouth camera | oblique | side),
    `time_scale` (display-only stretch of Z; 1.0 draws the layout as computed),
    `ontology` (default: the packaged SUMO categories), `detail_budget` (most
    paragraphs/figures/tables drawn at once: above it only the time slabs nearest
    the orbit target, or the slab chosen in the "detail" control, show theirs;
    see `ohara_lab.layout.detail`), `hover` (a tooltip with the full title of
    the node under the mouse).
    """

    def __init__(
        self,
        source: Atlas | MapInput,
        *,
        ontology: OntologyCategories | None = None,
        documents: Iterable[str] | None = None,
        resolution: str = "year",
        color_mode: str = "by_document",
        edge_kinds: Collection[str] = DEFAULT_EDGE_KINDS,
        auras: bool | None = None,
        labels: bool = True,
        width: int = 900,
        height: int = 600,
        pick_event: str = "dblclick",
        point_scale: float = 0.75,
        view: str = "entrance",
        time_scale: float = 1.0,
        detail_budget: int = DEFAULT_BUDGET,
        hover: bool = True,
    ):
        if ontology is None:
            from ohara_lab.ontology import load_ontology  # noqa: PLC0415 - loads data files once

            ontology = load_ontology()
        self.ontology = ontology
        self.atlas: Atlas | None
        if isinstance(source, MapInput):
            self.atlas, self.map_input = None, source
        else:
            self.atlas = source
            self.map_input = map_input_from_atlas(source)
        self.width, self.height, self.point_scale = int(width), int(height), float(point_scale)
        self.detail_budget = int(detail_budget)
        self._building = True  # camera observers wait until the scene exists
        self.timings_ms: dict[str, float] = {}
        self.selected: str | None = None
        self.neighbour_ids: list[str] = []
        self.highlighted: dict[str, str] = {}  # node id -> highlight class
        self._select_callbacks: list[Callable[[Inspection], None]] = []

        if auras is None:
            auras = len(self.map_input.documents) <= AURAS_AUTO_MAX_DOCUMENTS
        self._build_controls(documents, resolution, color_mode, edge_kinds, auras, labels, view, time_scale)
        self._build_stage(pick_event, hover)
        self.layout_data: MapLayout = self._compute_layout()
        self._content: list[Any] = []
        self._populate(refit=True)
        super().__init__(children=[
            w.HTML(STYLE),
            w.HBox([self.documents_control,
                    w.VBox([self.resolution_control, self.color_control,
                            w.HBox([self.auras_control, self.labels_control])]),
                    self.edges_control,
                    w.VBox([self.view_control, self.stretch_control, self.detail_control,
                            w.HBox([self.fit_button, self.clear_button])])],
                   layout=w.Layout(flex_flow="row wrap")),
            self.status,
            w.HBox([w.VBox([self.hover_box, self.renderer], layout=w.Layout(flex="0 0 auto")), self.inspector],
                   layout=w.Layout(align_items="flex-start")),
        ])
        self._wire()
        self._building = False

    # ------------------------------------------------------------------ construction
    def _build_controls(self, documents: Iterable[str] | None, resolution: str, color_mode: str,
                        edge_kinds: Collection[str], auras: bool, labels: bool, view: str, time_scale: float) -> None:
        docs = self.map_input.documents
        chosen = [d.id for d in docs] if documents is None else list(documents)
        unknown = set(chosen) - {d.id for d in docs}
        if unknown:
            raise KeyError(f"documents not in the map: {sorted(unknown)[:5]}")
        present = list(self.map_input.edges.relation_names)
        edge_options = list(dict.fromkeys([*present, *edge_kinds, TAG_TETHER]))
        self.documents_control = w.SelectMultiple(
            options=[(_doc_option(d), d.id) for d in docs], value=tuple(chosen), rows=6, description="documents",
            layout=w.Layout(width="380px"), style=_NARROW)
        self.resolution_control = w.Dropdown(options=list(RESOLUTIONS), value=resolution, description="time",
                                             layout=_SMALL, style=_NARROW)
        self.color_control = w.Dropdown(options=list(COLOR_MODES), value=color_mode, description="colour",
                                        layout=_SMALL, style=_NARROW)
        self.edges_control = w.SelectMultiple(options=edge_options, value=tuple(k for k in edge_options if k in edge_kinds),
                                              rows=6, description="edges", layout=w.Layout(width="210px"),
                                              style=_NARROW)
        self.auras_control = w.Checkbox(value=auras, description="decay auras", indent=False)
        self.labels_control = w.Checkbox(value=labels, description="labels", indent=False)
        if view not in geo.VIEWS:
            raise ValueError(f"unknown view {view!r}; choose one of {list(geo.VIEWS)}")
        self.view_control = w.Dropdown(options=list(geo.VIEWS), value=view, description="view", layout=_SMALL,
                                       style=_NARROW)
        self.stretch_control = w.FloatSlider(value=time_scale, min=0.05, max=2.0, step=0.05, description="time ×",
                                             continuous_update=False, readout_format=".2f", layout=_SMALL,
                                             style=_NARROW)
        self.detail_control = w.Dropdown(options=[AUTO_DETAIL], value=AUTO_DETAIL, description="detail",
                                         layout={"width": "320px"}, style=_NARROW,  # its options are long
                                         tooltip="which time slab's paragraphs are drawn")
        self.fit_button = w.Button(description="fit", icon="expand", layout=w.Layout(width="100px"))
        self.clear_button = w.Button(description="clear", icon="eraser", layout=w.Layout(width="100px"))
        self.status = w.HTML()
        # Zero height: its content is positioned over the canvas just below it.
        self.hover_box = w.HTML(layout=w.Layout(height="0px", overflow="visible", margin="0"))
        self.inspector = w.HTML(value='<div class="ohara-muted">Double-click a node to inspect it.</div>',
                                layout=w.Layout(width="380px", max_height=f"{self.height}px", overflow="auto"))

    def _build_stage(self, pick_event: str, hover: bool) -> None:
        self.dot_texture = sc.point_texture()
        self.camera = p3.PerspectiveCamera(fov=55, aspect=self.width / self.height, near=NEAR, far=1e5,
                                           position=(0, 0, 1000), up=(0, 1, 0))
        self.orbit = p3.OrbitControls(controlling=self.camera, target=(0, 0, 0))
        self.nodes = p3.Group(name="nodes")
        self.picker = p3.Picker(controlling=self.nodes, event=pick_event, pointThreshold=10.0)
        self.hover_picker = p3.Picker(controlling=self.nodes, event="mousemove", pointThreshold=10.0) if hover else None
        empty = np.zeros((0, 3), np.float32)
        self.highlight_points = sc.points(empty, empty, HIGHLIGHT_PX, self.dot_texture, on_top=True)
        self.related_points = sc.points(empty, empty, 8.0, self.dot_texture, on_top=True)
        self.selected_points = sc.points(empty, empty, 16.0, sc.point_texture(ring=True), on_top=True)
        self.neighbour_lines = sc.line_segments(empty, empty, opacity=0.9)
        self.overlays = [self.highlight_points, self.related_points, self.selected_points, self.neighbour_lines]
        # Everything drawn hangs off one group whose Z scale is the display's time stretch.
        self.world = p3.Group(name="world", scale=(1.0, 1.0, float(self.stretch_control.value)))
        self.scene = p3.Scene(children=[self.camera, self.world], background=BACKGROUND)
        controls = [self.orbit, self.picker, *([self.hover_picker] if self.hover_picker is not None else [])]
        self.renderer = p3.Renderer(camera=self.camera, scene=self.scene, controls=controls,
                                    width=self.width, height=self.height, antialias=True)

    def _wire(self) -> None:
        for control in (self.documents_control, self.resolution_control, self.edges_control):
            control.observe(self._on_option, names="value")
        self.color_control.observe(lambda _: self.recolor(), names="value")
        self.detail_control.observe(lambda _: self.refresh_detail(), names="value")
        self.auras_control.observe(self._on_toggle, names="value")
        self.labels_control.observe(self._on_toggle, names="value")
        self.view_control.observe(lambda _: self.fit(), names="value")
        self.stretch_control.observe(self._on_stretch, names="value")
        self.fit_button.on_click(lambda _: self.fit())
        self.clear_button.on_click(lambda _: self.clear())
        self.picker.observe(self._on_pick, names=["point", "index", "object"])
        if self.hover_picker is not None:
            self.hover_picker.observe(self._on_hover, names=["point", "index", "object"])
        self.camera.observe(self._on_camera, names=["position", "quaternion"])
        self.orbit.observe(self._on_camera, names=["target"])

    # ------------------------------------------------------------------ layout and scene
    def _current_input(self) -> MapInput:
        chosen = self.documents_control.value
        if len(chosen) == len(self.map_input.documents):
            return self.map_input
        return self.map_input.subset(chosen)

    def _compute_layout(self) -> MapLayout:
        t0 = time.perf_counter()
        view = self._current_input()
        layout = build_layout(view, self.ontology, resolution=self.resolution_control.value,
                              color_mode=self.color_control.value, edge_kinds=tuple(self.edges_control.value))
        self.timings_ms["layout"] = (time.perf_counter() - t0) * 1e3
        self._view_input = view
        return layout

    def _populate(self, refit: bool) -> None:
        """(Re)build the scene's content from `layout_data`; closes what it replaces."""
        t0 = time.perf_counter()
        layout = self.layout_data
        old = [*self._content, *getattr(self, "node_objects", [])]
        building, self._building = self._building, True
        self.buckets = geo.node_buckets(layout)
        self._is_text = text_mask(layout)
        self.slabs = slabs(layout)
        self._set_detail_options()
        if refit:
            self._fit_camera_only()
        self.detail = self._detail_rows()
        self.drawn = [self._drawn_rows(b) for b in self.buckets]
        self.node_objects = sc.node_points(layout, self.buckets, self.drawn, self.point_scale, self.dot_texture)
        self._bucket_of = {id(obj): i for i, obj in enumerate(self.node_objects)}
        self.edge_lines = sc.line_segments(*self._edge_arrays(), opacity=0.35)
        self.guides = sc.guide_lines(layout)
        self.discs = sc.disc_lines(layout)
        self.aura_objects = sc.aura_meshes(layout)
        self.aura_group = p3.Group(children=self.aura_objects, visible=self.auras_control.value)
        self.labels = sc.label_set(layout, self.height, self.camera.fov,
                                   full_titles=[d.title for d in self._view_input.documents])
        self.label_group = p3.Group(children=[*self.labels.plates, *self.labels.sprites], visible=self.labels_control.value)
        self.nodes.children = tuple(self.node_objects)
        self._content = [self.edge_lines, self.guides, self.discs, self.aura_group, self.label_group]
        self.world.children = tuple([self.nodes, *self._content, *self.overlays])
        self.inspector_source = NodeInspector(self._view_input, self.atlas, labels=_LayoutLabels(layout))
        keep = {id(x) for x in (self.dot_texture, self.camera, self.nodes, self.world, *self.overlays)}
        for obj in old:
            close_tree(obj, keep)
        self._building = building
        self._declutter_labels()
        self._reapply_marks()
        self.timings_ms["scene"] = (time.perf_counter() - t0) * 1e3
        self._update_status()

    # ------------------------------------------------------------------ level of detail
    def _set_detail_options(self) -> None:
        options = [AUTO_DETAIL, *(f"slab {s.label} ({s.text_nodes:,} text nodes)" for s in self.slabs)]
        keep = self.detail_control.value if self.detail_control.value in options else AUTO_DETAIL
        with self.detail_control.hold_trait_notifications():
            self.detail_control.options = options
            self.detail_control.value = keep

    def _focus(self) -> np.ndarray:
        """The layout point detail gathers around: the chosen slab, else the orbit target (time stretch undone)."""
        choice = self.detail_control.value
        if choice != AUTO_DETAIL:
            index = list(self.detail_control.options).index(choice) - 1
            return slab_focus(self.layout_data, self.slabs[index].label)
        target = np.asarray(self.orbit.target, dtype=np.float64)
        return target / np.array([1.0, 1.0, max(self.time_scale, 1e-9)])

    def _edge_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """All edges, or under the level of detail those within the detail's documents, entities and tags.

        Lines between far documents (their sections, SIMILAR_TO, tag tethers) cost as much of each
        frame as the auras on a 120k-node map (`eval/map/benchmark.md`); they come with their slab.
        """
        L = self.layout_data
        if len(self.detail) == int(self._is_text.sum()):
            return geo.edge_arrays(L)
        near = np.zeros(len(L.discs.document_ids) + 1, dtype=bool)
        near[np.unique(L.node_document[self.detail])] = True
        near[-1] = True  # node_document −1 (entities, tags) indexes this last slot: always drawn
        drawn = near[L.node_document] & ~self._is_text
        drawn[self.detail] = True
        return geo.edge_arrays(L, drawn=drawn)

    def _detail_rows(self) -> np.ndarray:
        return detail_rows(self.layout_data, self._focus(), self.detail_budget)

    def _drawn_rows(self, bucket: geo.NodeBucket) -> np.ndarray:
        """The bucket's rows that are drawn now: all of them, or for text nodes those in the detail."""
        if not self._is_text[bucket.rows[0]]:
            return bucket.rows
        return bucket.rows[np.isin(bucket.rows, self.detail, assume_unique=True)]

    def refresh_detail(self) -> bool:
        """Draw the text nodes around the current focus; True when the drawn set changed.

        Only the text-node batches' arrays are re-sent; every other object stays as it is.
        """
        rows = self._detail_rows()
        if np.array_equal(rows, self.detail):
            return False
        self.detail = rows
        moved = [i for i, bucket in enumerate(self.buckets) if self._is_text[bucket.rows[0]]]
        for i in moved:
            self.drawn[i] = self._drawn_rows(self.buckets[i])
        self._reapply_marks(moved=set(moved))
        sc.set_lines(self.edge_lines, *self._edge_arrays())
        self._update_status()
        return True

    def show_slab(self, label: str) -> None:
        """Draw the text nodes of the time slab `label` (e.g. "2007"); "auto" follows the orbit target again."""
        if label == "auto":
            self.detail_control.value = AUTO_DETAIL
            return
        for option, slab in zip(self.detail_control.options[1:], self.slabs):
            if slab.label == label:
                self.detail_control.value = option
                return
        raise KeyError(f"no slab {label!r}; the slabs are {[s.label for s in self.slabs][:12]}")

    # ------------------------------------------------------------------ colours
    def recolor(self, color_mode: str | None = None) -> None:
        """Switch the colour mode: rewrites the colour arrays of nodes, disc outlines and auras, nothing else."""
        if color_mode is not None and color_mode != self.color_control.value:
            self.color_control.value = color_mode  # observed: calls recolor() again
            return
        t0 = time.perf_counter()
        self.layout_data = recolor(self.layout_data, self.ontology, self.color_control.value)
        self._reapply_marks()
        sc.set_colors(self.discs, geo.disc_outline_colors(self.layout_data))
        for mesh in self.aura_objects:
            code = sc.DECAY_CLASSES.index(mesh.name.split()[-1])
            sc.set_colors(mesh, geo.aura_mesh_colors(self.layout_data, code))
        self.timings_ms["recolor"] = (time.perf_counter() - t0) * 1e3
        self._update_status()

    # ------------------------------------------------------------------ labels
    def _declutter_labels(self) -> None:
        """Show the most important labels that fit on the canvas without covering each other."""
        if not self.labels_control.value or not self.labels.sprites:
            return
        px, depth = geo.project(geo.stretched(self.labels.anchors, self.time_scale), self.camera.position,
                                self.camera.quaternion, self.camera.fov, self.width, self.height)
        self.label_visible = declutter(px, self.labels.sizes_px, depth, self.labels.priority, self.width, self.height)
        for sprite, plate, show in zip(self.labels.sprites, self.labels.plates, self.label_visible.tolist()):
            if sprite.visible != show:
                sprite.visible = plate.visible = show

    def label_screen_boxes(self) -> list[tuple[str, tuple[float, float, float, float]]]:
        """(text, (x0, y0, x1, y1)) of every label shown, in canvas pixels for the current camera."""
        px, _ = geo.project(geo.stretched(self.labels.anchors, self.time_scale), self.camera.position,
                            self.camera.quaternion, self.camera.fov, self.width, self.height)
        boxes = label_boxes(px, self.labels.sizes_px)
        return [(sprite.material.map.string, tuple(float(v) for v in boxes[i]))
                for i, sprite in enumerate(self.labels.sprites) if sprite.visible]

    # ------------------------------------------------------------------ hover
    def _on_hover(self, _: dict[str, Any]) -> None:
        obj, index = self.hover_picker.object, self.hover_picker.index
        i = self._bucket_of.get(id(obj)) if obj is not None else None
        if i is None or index is None or not (0 <= index < len(self.drawn[i])):
            self.hover_box.value = ""
            return
        self.hover(self.layout_data.ids[int(self.drawn[i][index])])

    def hover(self, node_id: str) -> str:
        """Show the tooltip for a node (what moving the mouse onto it does); returns its text."""
        text = self.inspector_source.title(node_id)
        xy = self.screen_position(node_id)
        if xy is None:
            self.hover_box.value = ""
            return text
        # The tooltip's box starts at the canvas's top-left corner (it sits right above the canvas).
        x, y = min(xy[0] + 12, self.width - 160), max(0.0, xy[1] - 34)
        self.hover_box.value = (f'<div style="position:relative;height:0"><div class="ohara-tooltip" '
                              f'style="{TOOLTIP_STYLE};left:{x:.0f}px;top:{y:.0f}px">{esc(text)}</div></div>')
        return text

    def rebuild(self, refit: bool = False) -> None:
        """Recompute the layout from the controls' values and redraw."""
        self.layout_data = self._compute_layout()
        self._populate(refit=refit)

    def _update_status(self) -> None:
        L = self.layout_data
        texts = int(self._is_text.sum())
        detail = "" if len(self.detail) == texts else f" · {len(self.detail):,} of {texts:,} text nodes drawn"
        self.status.value = (
            f'<span class="ohara-muted">{len(L.discs.document_ids)} documents · {len(L):,} nodes in '
            f'{len(self.buckets)} batches{detail} · {len(L.edges):,} edges · time {esc(L.timeline.resolution)} · '
            f'layout {self.timings_ms.get("layout", 0):.0f} ms, scene {self.timings_ms.get("scene", 0):.0f} ms · '
            f'double-click a node to inspect it</span>')

    def _on_option(self, change: dict[str, Any]) -> None:
        self.rebuild(refit=change["owner"] is self.documents_control)

    def _on_toggle(self, _: dict[str, Any]) -> None:
        self.aura_group.visible = self.auras_control.value
        self.label_group.visible = self.labels_control.value
        self._declutter_labels()

    # ------------------------------------------------------------------ camera
    @property
    def time_scale(self) -> float:
        return float(self.stretch_control.value)

    def world_positions(self) -> np.ndarray:
        """Node positions as drawn (Z times the time stretch)."""
        return geo.stretched(self.layout_data.positions, self.time_scale)

    def fit(self, view: str | None = None) -> None:
        """Move the camera to a named view of the current layout (default: the view control's)."""
        if view is not None and view != self.view_control.value:
            self.view_control.value = view  # observed: calls fit() again
            return
        self._building = True  # one camera move: detail and labels follow once, below
        try:
            self._fit_camera_only()
        finally:
            self._building = False
        self._on_camera({})

    def _fit_camera_only(self) -> None:
        position, target = geo.view_camera(self.layout_data, self.view_control.value, self.time_scale,
                                           self.width / self.height)
        extent = float(np.linalg.norm(position - target)) + float(np.max(self.layout_data.bounds[1] - self.layout_data.bounds[0]))
        self.camera.far = max(1e4, FAR_FACTOR * extent)
        self.orbit.target = tuple(float(v) for v in target)
        self.camera.position = tuple(float(v) for v in position)
        self.camera.quaternion = geo.look_at_quaternion(position, target)
        self._update_threshold()

    def _on_stretch(self, _: dict[str, Any]) -> None:
        self.world.scale = (1.0, 1.0, self.time_scale)
        self.fit()

    def _on_camera(self, _: dict[str, Any]) -> None:
        if self._building:
            return
        self.hover_box.value = ""  # the node it pointed at has moved
        self._update_threshold()
        self._declutter_labels()
        if self.detail_control.value == AUTO_DETAIL:
            self.refresh_detail()

    def _update_threshold(self) -> None:
        # The picker's threshold is in world units; keep it a few pixels wide at the orbit target.
        distance = float(np.linalg.norm(np.subtract(self.camera.position, self.orbit.target)))
        self.picker.pointThreshold = max(1.0, PICK_TOLERANCE_PX * geo.units_per_pixel(distance, self.camera.fov,
                                                                                       self.height))

    def screen_positions(self) -> tuple[np.ndarray, np.ndarray]:
        """Canvas pixel (x, y) and view depth of every node, for the current camera."""
        return geo.project(self.world_positions(), self.camera.position, self.camera.quaternion,
                           self.camera.fov, self.width, self.height)

    def screen_position(self, node_id: str) -> tuple[float, float] | None:
        """Where a node appears on the canvas (pixels from the top-left), or None when off-screen."""
        px, depth = self.screen_positions()
        row = self.layout_data.index_of(node_id)
        x, y = px[row]
        if depth[row] <= 0 or not (0 <= x < self.width and 0 <= y < self.height):
            return None
        return float(x), float(y)

    def clear_pick_target(self, kinds: Sequence[str] = ("document",), margin_px: float = 12.0) -> str | None:
        """A node of `kinds` that is on screen with no other node drawn within `margin_px` of it.

        What a person (or the browser test) can click without ambiguity.
        """
        px, depth = self.screen_positions()
        L = self.layout_data
        onscreen = (depth > 0) & (px[:, 0] >= margin_px) & (px[:, 0] < self.width - margin_px) \
            & (px[:, 1] >= margin_px) & (px[:, 1] < self.height - margin_px)
        candidates = [r for r in np.flatnonzero(onscreen) if L.kind_names[L.kinds[r]] in kinds]
        best, best_gap = None, margin_px
        visible = px[depth > 0]
        for r in candidates:
            gaps = np.hypot(*(visible - px[r]).T)
            gap = np.partition(gaps, 1)[1] if len(gaps) > 1 else np.inf
            if gap > best_gap:
                best, best_gap = L.ids[r], gap
        return best

    # ------------------------------------------------------------------ picking and inspection
    def _on_pick(self, _: dict[str, Any]) -> None:
        obj, index, point = self.picker.object, self.picker.index, tuple(self.picker.point)
        if obj is None or index is None:
            return
        # Forget the pick at once: traitlets only notify on change, so a second double-click on the
        # same spot would otherwise go unheard. The reset re-enters here with None and returns.
        with self.picker.hold_trait_notifications():
            self.picker.object, self.picker.index = None, None
        i = self._bucket_of.get(id(obj))
        if i is None or not (0 <= index < len(self.drawn[i])):
            return
        row = int(self.drawn[i][index])
        # Settle on the node nearest the ray in angle (the picker takes the first within a world threshold).
        tolerance = PICK_TOLERANCE_PX * 2 * np.tan(np.radians(self.camera.fov) / 2) / self.height
        nearest = geo.angular_nearest(self.world_positions(), self.camera.position, point, tolerance)
        self.select_node(self.layout_data.ids[nearest if nearest is not None else row])

    def on_select(self, callback: Callable[[Inspection], None]) -> None:
        """Call `callback(inspection)` after every selection (a pick or `select_node`)."""
        self._select_callbacks.append(callback)

    def select_node(self, node_id: str) -> Inspection:
        """Do what a double-click on the node does: inspect it and draw lines to its neighbours."""
        self.layout_data.index_of(node_id)  # KeyError for a node that is not drawn
        inspection = self.inspector_source.inspect(node_id)
        self.selected = node_id
        self.inspector.value = inspection.html
        self.neighbour_ids = list(dict.fromkeys(n.id for n in inspection.neighbours if n.id in self.layout_data))
        self._draw_selection()
        for callback in self._select_callbacks:
            callback(inspection)
        return inspection

    def _draw_selection(self) -> None:
        """Selection ring (×1.6), related nodes (×1.2) and lines to them, at the current layout's positions."""
        L = self.layout_data
        row = L.index_of(self.selected)
        pos = L.positions
        self.neighbour_ids = [n for n in self.neighbour_ids if n in self.layout_data]
        rows = np.array([L.index_of(n) for n in self.neighbour_ids], dtype=np.int64)
        pairs = np.column_stack([np.full(len(rows), row), rows]) if len(rows) else np.zeros((0, 2), np.int64)
        sc.set_lines(self.neighbour_lines, geo.segments(pos, pairs),
                     np.tile(np.array(hex_to_rgb(NEIGHBOUR_LINE_COLOR), np.float32), (2 * len(rows), 1)))
        sc.set_points(self.related_points, pos[rows], L.colors[rows])
        related_size = float(np.median(L.sizes[rows])) if len(rows) else 6.0
        self.related_points.material.size = sc.pixel_size(related_size, self.point_scale) * RELATED_SCALE
        sc.set_points(self.selected_points, pos[[row]], np.array([hex_to_rgb(SELECTED_COLOR)], np.float32))
        self.selected_points.material.size = max(12.0, sc.pixel_size(float(L.sizes[row]), self.point_scale)
                                                 * SELECTED_SCALE + 6)

    # ------------------------------------------------------------------ highlighting
    def highlight(self, result: Any) -> dict[str, str]:
        """Mark a query's nodes: Principal, Integrity, Explorer documents, other results.

        `result` is a `RetrievalResult` (or anything with `.tiers` and
        `.results`), or an iterable of node ids (all marked as results).
        Returns {node id: class} for the nodes drawn on the map.
        """
        classes: dict[str, str] = {}
        if hasattr(result, "tiers"):
            tiers = result.tiers
            for item in getattr(result, "results", []):
                classes[item.id] = "result"
            for x in tiers.explorer:
                classes[x.node_id or x.document_id] = "explorer"
                classes.setdefault(x.document_id, "explorer")
            for item in tiers.integrity:
                classes[item.id] = "integrity"
            for item in tiers.principal:
                classes[item.id] = "principal"
        else:
            classes = {node_id: "result" for node_id in result}
        self.highlighted = {k: v for k, v in classes.items() if k in self.layout_data}
        self._reapply_marks()
        return dict(self.highlighted)

    def clear(self) -> None:
        """Remove highlights, selection and neighbour lines."""
        self.highlighted = {}
        self.selected = None
        self.neighbour_ids = []
        empty = np.zeros((0, 3), np.float32)
        for overlay in (self.related_points, self.selected_points):
            sc.set_points(overlay, empty, empty)
        sc.set_lines(self.neighbour_lines, empty, empty)
        self._reapply_marks()

    def _reapply_marks(self, moved: Collection[int] = ()) -> None:
        """Rewrite the node batches' colours for the marks; the batches in `moved` get their rows re-sent too."""
        L = self.layout_data
        self.highlighted = {k: v for k, v in self.highlighted.items() if k in self.layout_data}
        rows = np.array([L.index_of(k) for k in self.highlighted], dtype=np.int64)
        keep = np.zeros(len(L), dtype=bool)
        keep[rows] = True
        base = geo.dimmed(L.colors, keep) if len(rows) else L.colors
        for i, (obj, drawn) in enumerate(zip(self.node_objects, self.drawn)):
            if i in moved:
                sc.set_points(obj, L.positions[drawn], base[drawn])
            else:
                sc.set_colors(obj, base[drawn])
        colors = np.array([hex_to_rgb(TIER_COLORS[c]) for c in self.highlighted.values()], np.float32).reshape(-1, 3)
        sc.set_points(self.highlight_points, L.positions[rows], colors)
        if self.selected is not None:
            if self.selected in self.layout_data:
                self._draw_selection()  # a rebuild moved the nodes: redraw the selection where they are now
            else:
                self.clear()

    # ------------------------------------------------------------------ measuring
    def payload_bytes(self) -> StateBytes:
        """Bytes this widget tree sends to the browser when displayed (buffers + JSON state)."""
        return state_bytes(self)

    def set_documents(self, document_ids: Iterable[str]) -> None:
        self.documents_control.value = tuple(document_ids)


class _LayoutLabels(Mapping[str, str]):
    """Node id -> label read from the layout's arrays (no second dict of every node)."""

    def __init__(self, layout: MapLayout):
        self._layout = layout

    def __getitem__(self, node_id: str) -> str:
        return self._layout.labels[self._layout.index_of(node_id)]

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._layout

    def __iter__(self) -> Iterator[str]:
        return iter(self._layout.ids)

    def __len__(self) -> int:
        return len(self._layout)


def _doc_option(doc: Any) -> str:
    date = (doc.published_date or doc.coverage_start or "undated")[:10]
    return f"{doc.title[:48]} ({date})"
