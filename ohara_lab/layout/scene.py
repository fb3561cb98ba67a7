"""`build_layout`: wires the layout steps into one `MapLayout` (spec §6).

Order of work: time (Z) → ontology plane (x, y) → collisions → discs →
satellites → colours → auras → edges → guides → camera. Each step lives in its
own module with its formula; this module only gathers inputs and outputs.

Rows of the result follow node kinds in `NODE_KINDS` order (documents,
sections, paragraphs/figures/tables in input order, entities, tags). Sections
and text nodes whose document is absent are skipped, and so are edges whose
ends are not drawn. A tag node's id is `tags/<tag>`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

from ohara_lab.errors import UsageError
from ohara_lab.layout import colors as palette
from ohara_lab.layout import time_axis
from ohara_lab.layout.auras import DECAY_CLASSES, build_auras, class_colors, decay_class
from ohara_lab.layout.camera import bounds, fit_camera
from ohara_lab.layout.colors import NodeStyleKey, node_colors
from ohara_lab.layout.discs import place_discs
from ohara_lab.layout.guides import build_guides
from ohara_lab.layout.inputs import NODE_KINDS, EdgeTable, MapInput, OntologyCategories
from ohara_lab.layout.maplayout import Discs, MapLayout
from ohara_lab.layout.satellites import place_entities, place_tags, satellite_distance, top_tags
from ohara_lab.layout.sunburst import category_xy, document_category, fan_out_collisions, sunburst_layout
from ohara_lab.layout.time_axis import date_units, document_date, place_in_time

from ..records import HAS_CHILD, SIMILAR_TO

TAG_TETHER = "TAG_TETHER"  # derived edge: tag node → section holding a text node tagged with it
TETHER_TAGS = 3  # a text node tethers its first 3 tags (spec §6 "Tethers")
DEFAULT_EDGE_KINDS: tuple[str, ...] = (HAS_CHILD, SIMILAR_TO, TAG_TETHER)
NODE_SIZES = {"document": 12.0, "section": 6.0, "paragraph": 4.0, "figure": 4.0, "table": 5.0}
TAG_PREFIX = "tags/"
LABEL_TITLE_CHARS = 30


@dataclass
class _Rows:
    """Node rows accumulated kind by kind before they become arrays."""

    xyz: list[np.ndarray] = field(default_factory=list)
    sizes: list[np.ndarray] = field(default_factory=list)
    kinds: list[int] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    document: list[int] = field(default_factory=list)
    style: list[NodeStyleKey] = field(default_factory=list)

    def add(
        self,
        kind: str,
        xyz: np.ndarray,
        sizes: np.ndarray,
        ids: list[str],
        labels: list[str],
        document: list[int],
        style: list[NodeStyleKey],
    ) -> None:
        self.xyz.append(np.asarray(xyz, dtype=np.float64).reshape(-1, 3))
        self.sizes.append(np.broadcast_to(np.asarray(sizes, dtype=np.float64), (len(ids),)))
        self.kinds += [NODE_KINDS.index(kind)] * len(ids)
        self.ids += ids
        self.labels += labels
        self.document += document
        self.style += style


def _document_label(title: str, date: str | None) -> str:
    year = f"[{date[:4]}]" if date_units(date) is not None else "[undated]"
    return f"{clip_words(title, LABEL_TITLE_CHARS)}  {year}"


def clip_words(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters at a word boundary, with an ellipsis when cut."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    head = flat[: limit - 1]
    if flat[limit - 1] != " " and " " in head[limit // 2 :]:  # no mid-word cut unless one word is that long
        head = head.rsplit(" ", 1)[0]
    cut = head
    return cut.rstrip(" ,;:-–") + "…"


def _check_kinds(include: Collection[str]) -> set[str]:
    unknown = set(include) - set(NODE_KINDS)
    if unknown:
        raise UsageError(f"unknown node kinds {sorted(unknown)}; choose from {list(NODE_KINDS)}")
    return set(include)


def build_layout(
    map_input: MapInput,
    ontology: OntologyCategories,
    resolution: str = "year",
    color_mode: str = "by_document",
    edge_kinds: Collection[str] | None = DEFAULT_EDGE_KINDS,
    include: Collection[str] = NODE_KINDS,
) -> MapLayout:
    """Lay out the corpus as the space-time map.

    `edge_kinds` selects relations (plus the derived `TAG_TETHER`); None keeps
    every relation present. `include` selects node kinds to draw; hidden kinds
    still shape the layout (sections keep their rings, tags still come from
    the visible text nodes only).
    """
    time_axis.resolution(resolution)  # fail fast on a bad name, before any work
    palette.color_mode(color_mode)
    shown = _check_kinds(include)
    docs = map_input.documents
    doc_row = {d.id: i for i, d in enumerate(docs)}

    # Z, then the ontology plane, then collisions (which need both).
    dates = [document_date(d.published_date, d.coverage_start) for d in docs]
    doc_z, timeline = place_in_time(dates, resolution)
    cat_layout = sunburst_layout(ontology)
    doc_xyz = np.zeros((len(docs), 3))
    for i, d in enumerate(docs):
        doc_xyz[i, :2] = category_xy(document_category(d.sumo_tags, ontology), ontology, cat_layout)
    doc_xyz[:, 2] = doc_z
    doc_xyz = fan_out_collisions(doc_xyz)

    # Discs.
    sections = [s for s in map_input.sections if s.document_id in doc_row]
    texts = [t for t in map_input.text_nodes if t.document_id in doc_row]
    sec_doc = np.array([doc_row[s.document_id] for s in sections], dtype=np.int64)
    txt_doc_rows = [doc_row[t.document_id] for t in texts]  # plain ints: indexed per node below
    txt_doc = np.array(txt_doc_rows, dtype=np.int64)
    discs = place_discs(
        doc_xyz,
        sec_doc,
        np.array([s.level for s in sections], dtype=np.int64),
        np.array([s.doc_position for s in sections], dtype=np.int64),
        txt_doc,
        np.array([t.doc_position for t in texts], dtype=np.int64),
    )
    distance = satellite_distance(float(discs.disc_radius.max()) if len(docs) else 0.0)

    # Satellites: entities, then the top tags of the visible text nodes.
    entities = map_input.entities
    ent = place_entities(
        doc_xyz,
        [[doc_row[d] for d in e.document_ids if d in doc_row] for e in entities],
        [e.id for e in entities],
        [e.mention_count for e in entities],
        distance,
    )
    visible = [t for t in texts if t.kind in shown]
    ranked = top_tags([t.sumo_tags for t in visible])
    tag_names = [t for t, _ in ranked]
    # A text node is held by its section, or by its document when it has none.
    anchor = {s.id: discs.section_xyz[i] for i, s in enumerate(sections)}
    anchor.update((d.id, doc_xyz[i]) for i, d in enumerate(docs))
    holder = {t.id: t.section_id if t.section_id in anchor else t.document_id for t in visible}
    holders: dict[str, dict[str, None]] = {t: {} for t in tag_names}  # dicts: ordered, deduplicated
    for t in visible:
        for tag in t.sumo_tags:
            if tag in holders:
                holders[tag][holder[t.id]] = None
    tags = place_tags(
        tag_names,
        [c for _, c in ranked],
        [np.array([anchor[h] for h in holders[t]]) for t in tag_names],
        doc_xyz[:, :2].mean(axis=0) if len(docs) else np.zeros(2),
        distance,
    )
    tethers = [(TAG_PREFIX + tag, holder[t.id]) for t in visible for tag in t.sumo_tags[:TETHER_TAGS] if tag in holders]

    # Rows, kind by kind.
    doc_tag = [_first(d.sumo_tags) for d in docs]
    doc_keys = [NodeStyleKey("document", None, tag, tag) for tag in doc_tag]
    rows = _Rows()
    if "document" in shown:
        rows.add(
            "document",
            doc_xyz,
            NODE_SIZES["document"],
            [d.id for d in docs],
            [_document_label(d.title, dates[i]) for i, d in enumerate(docs)],
            list(range(len(docs))),
            doc_keys,
        )
    if "section" in shown:
        rows.add(
            "section",
            discs.section_xyz,
            NODE_SIZES["section"],
            [s.id for s in sections],
            [s.title or s.id for s in sections],
            sec_doc.tolist(),
            [NodeStyleKey("section", s.level, _first(s.sumo_tags), doc_tag[doc_row[s.document_id]]) for s in sections],
        )
    for kind in ("paragraph", "figure", "table"):
        if kind not in shown:
            continue
        picked = [i for i, t in enumerate(texts) if t.kind == kind]
        rows.add(
            kind,
            discs.text_xyz[picked],
            NODE_SIZES[kind],
            [texts[i].id for i in picked],
            [texts[i].label or kind for i in picked],
            [txt_doc_rows[i] for i in picked],
            [
                NodeStyleKey(kind, None, _first(texts[i].sumo_tags), doc_tag[txt_doc_rows[i]], texts[i].community)
                for i in picked
            ],
        )
    if "entity" in shown:
        rows.add(
            "entity",
            ent.xyz,
            ent.sizes,
            [e.id for e in entities],
            [e.name for e in entities],
            [-1] * len(entities),
            [NodeStyleKey("entity", community=e.community) for e in entities],
        )
    if "tag" in shown:
        rows.add(
            "tag",
            tags.xyz,
            tags.sizes,
            [TAG_PREFIX + t for t in tag_names],
            list(tag_names),
            [-1] * len(tag_names),
            [NodeStyleKey("tag", None, t) for t in tag_names],
        )

    positions = (np.concatenate(rows.xyz) if rows.xyz else np.zeros((0, 3))).astype(np.float32)
    styles, style_index = _distinct([*rows.style, *doc_keys])
    doc_style_index = style_index[len(rows.style) :]
    style_index = style_index[: len(rows.style)]
    style_colors = node_colors(color_mode, styles, ontology)
    colors = style_colors[style_index] if len(style_index) else np.zeros((0, 3), np.float32)
    ids = rows.ids
    row_of = {node_id: i for i, node_id in enumerate(ids)}

    auras = build_auras(
        doc_xyz,
        discs.disc_radius,
        [decay_class(d.effective_decay_class, d.decay_class) for d in docs],
        _aura_colors(color_mode, style_colors, doc_style_index),
    )

    tether_table = EdgeTable()
    for a, b in tethers:
        tether_table.add(a, b, TAG_TETHER)
    edges, edge_codes, edge_names = _edges((map_input.edges, tether_table), row_of, edge_kinds)
    box = bounds(positions)
    max_z = float(doc_xyz[:, 2].max()) if len(docs) else 0.0
    return MapLayout(
        positions=positions,
        colors=colors,
        sizes=np.concatenate(rows.sizes).astype(np.float32) if rows.sizes else np.zeros(0, np.float32),
        kinds=np.array(rows.kinds, dtype=np.uint8),
        ids=ids,
        labels=rows.labels,
        node_document=np.array(rows.document, dtype=np.int32),
        edges=edges,
        edge_kinds=edge_codes,
        edge_kind_names=edge_names,
        discs=Discs(
            document_ids=[d.id for d in docs],
            node_index=np.array([row_of.get(d.id, -1) for d in docs], dtype=np.int32),
            centers=doc_xyz.astype(np.float32),
            radii=discs.disc_radius.astype(np.float32),
        ),
        auras=auras,
        timeline=timeline,
        guides=build_guides(ontology, cat_layout, max_z, timeline.undated_z),
        bounds=box,
        camera=fit_camera(box),
        color_mode=color_mode,
        styles=[[k.kind, k.level, k.first_tag, k.document_tag] for k in styles],
        style_index=style_index,
        document_style_index=doc_style_index,
    )


def recolor(layout: MapLayout, ontology: OntologyCategories, color_mode: str) -> MapLayout:
    """The same layout in another colour mode: node and aura colours change, nothing moves.

    Equal to `build_layout(..., color_mode=color_mode)` of the same input, at the cost of
    one palette lookup per distinct style key (the widget's colour control uses it).
    """
    palette.color_mode(color_mode)
    style_colors = node_colors(color_mode, [NodeStyleKey(*k) for k in layout.styles], ontology)
    colors = style_colors[layout.style_index] if len(layout.style_index) else np.zeros((0, 3), np.float32)
    aura_colors = _aura_colors(color_mode, style_colors, layout.document_style_index)
    if aura_colors is None:
        aura_colors = class_colors([DECAY_CLASSES[c] for c in layout.auras.classes])
    auras = dataclasses.replace(layout.auras, colors=aura_colors)
    return dataclasses.replace(layout, colors=colors, auras=auras, color_mode=color_mode)


def _aura_colors(color_mode: str, style_colors: np.ndarray, doc_style_index: np.ndarray) -> np.ndarray | None:
    """Auras follow the document colours in by-document mode (spec §6); None = their class colours."""
    if color_mode != "by_document":
        return None
    return style_colors[doc_style_index] if len(doc_style_index) else np.zeros((0, 3), np.float32)


def _distinct(keys: Sequence[NodeStyleKey]) -> tuple[list[NodeStyleKey], np.ndarray]:
    """The distinct keys in first-seen order and each key's index among them."""
    table: dict[NodeStyleKey, int] = {}
    index = np.fromiter((table.setdefault(k, len(table)) for k in keys), dtype=np.int32, count=len(keys))
    return list(table), index


def _first(tags: Sequence[str]) -> str | None:
    return tags[0] if tags else None


def _edges(
    tables: Sequence[EdgeTable],
    row_of: dict[str, int],
    edge_kinds: Collection[str] | None,
) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """(from, to) rows, kind codes and kind names of the drawable, wanted, distinct edges.

    Column arithmetic over the tables (no object per edge): each node id is looked up once,
    duplicates keep their first occurrence, and the result keeps the tables' order.
    """
    wanted = None if edge_kinds is None else tuple(dict.fromkeys(edge_kinds))
    kinds = list(dict.fromkeys(name for t in tables for name in t.relation_names))
    parts = []
    for t in tables:
        node_row = np.fromiter((row_of.get(n, -1) for n in t.node_ids), dtype=np.int64, count=len(t.node_ids))
        f, to, rel = t.columns()
        unified = np.array([kinds.index(n) for n in t.relation_names], dtype=np.int64)
        parts.append(
            np.column_stack([node_row[f], node_row[to], unified[rel]]) if len(t) else np.zeros((0, 3), np.int64)
        )
    rows = np.concatenate(parts) if parts else np.zeros((0, 3), np.int64)
    allowed = np.array([wanted is None or k in wanted for k in kinds], dtype=bool)
    rows = rows[(rows[:, 0] >= 0) & (rows[:, 1] >= 0) & allowed[rows[:, 2]]] if len(rows) else rows
    key = (rows[:, 0] * max(len(row_of), 1) + rows[:, 1]) * max(len(kinds), 1) + rows[:, 2]
    rows = rows[np.sort(np.unique(key, return_index=True)[1])]  # first occurrence of each (from, to, kind)
    names = wanted if wanted is not None else tuple(kinds[k] for k in dict.fromkeys(rows[:, 2].tolist()))
    code = np.array([names.index(k) if k in names else 0 for k in kinds], dtype=np.uint8)
    return rows[:, :2].astype(np.int32).reshape(-1, 2), code[rows[:, 2]] if len(rows) else np.zeros(0, np.uint8), names
