"""What the map's inspector shows for one node: metadata, text, section outline, neighbours.

`NodeInspector` reads the atlas lazily, one node at a time (the map
itself only carries ids, positions and labels), and returns HTML plus the
neighbour list the map draws lines to. Without an atlas (a map built from a
bare `MapInput`, as in benchmarks) it falls back to what the input holds.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ohara_lab.ids import split_id
from ohara_lab.layout.inputs import MapInput, SectionInput
from ohara_lab.layout.scene import TAG_PREFIX
from ohara_lab.render import shorten

from .html import chips, esc

if TYPE_CHECKING:
    from ohara_lab.atlas import Atlas

TEXT_CHARS = 2000
NEIGHBOURS_PER_RELATION = 25


@dataclass(frozen=True)
class Neighbour:
    id: str
    relation: str
    outgoing: bool  # True: node → neighbour
    label: str


@dataclass
class Inspection:
    node_id: str
    kind: str  # document | section | paragraph | table | entity | tag | unknown
    title: str  # the heading the inspector shows (document title, section title, entity name, ...)
    html: str
    neighbours: list[Neighbour]


class NodeInspector:
    """Builds inspector pages for nodes of one map snapshot."""

    def __init__(self, map_input: MapInput, atlas: Atlas | None = None, labels: Mapping[str, str] | None = None):
        self.atlas = atlas
        self.map_input = map_input
        self.labels = labels or {}
        self.sections = {s.id: s for s in map_input.sections}
        self.documents = {d.id: d for d in map_input.documents}
        self._outline: dict[str, list[SectionInput]] = {}
        for s in sorted(map_input.sections, key=lambda s: s.doc_position):
            self._outline.setdefault(s.document_id, []).append(s)

    # ------------------------------------------------------------------ data
    def _row(self, node_id: str) -> dict[str, Any] | None:
        if self.atlas is None or node_id.startswith(TAG_PREFIX):
            return None
        return self.atlas.nodes([node_id]).get(node_id)

    def section_path(self, section_id: str | None) -> list[str]:
        """Titles from the top section down to `section_id`."""
        path: list[str] = []
        seen: set[str] = set()
        while section_id and section_id in self.sections and section_id not in seen:
            seen.add(section_id)
            s = self.sections[section_id]
            path.append(s.title or s.id)
            section_id = s.parent_section_id
        return path[::-1]

    def neighbours(self, node_id: str) -> list[Neighbour]:
        """Edges touching the node, both directions, at most 25 per relation (read lazily)."""
        if node_id.startswith(TAG_PREFIX):
            edges = [(node_id, holder, "TAG_TETHER") for holder in self._tag_holders(node_id[len(TAG_PREFIX):])]
        elif self.atlas is not None:
            edges = [(e.from_id, e.to_id, e.relation) for e in self.atlas.edges(from_ids=[node_id])]
            edges += [(e.from_id, e.to_id, e.relation) for e in self.atlas.edges(to_ids=[node_id])]
        else:
            edges = [(e.from_id, e.to_id, e.relation) for e in self.map_input.edges
                     if node_id in (e.from_id, e.to_id)]
        per_relation: dict[str, int] = {}
        picked: list[tuple[str, str, bool]] = []
        for a, b, rel in edges:
            other, outgoing = (b, True) if a == node_id else (a, False)
            if other == node_id or per_relation.get(rel, 0) >= NEIGHBOURS_PER_RELATION:
                continue
            per_relation[rel] = per_relation.get(rel, 0) + 1
            picked.append((other, rel, outgoing))
        missing = [o for o, _, _ in picked if o not in self.labels]
        fetched = self.atlas.nodes(missing) if (self.atlas is not None and missing) else {}
        return [Neighbour(o, rel, out, self.labels.get(o) or _row_label(fetched.get(o)) or o)
                for o, rel, out in picked]

    def _tag_holders(self, tag: str) -> list[str]:
        """Sections (or documents, for text outside any section) holding text nodes tagged `tag`,
        the same tethers the layout draws."""
        holders = (t.section_id if t.section_id in self.sections else t.document_id
                   for t in self.map_input.text_nodes if tag in t.sumo_tags)
        return list(dict.fromkeys(holders))

    def title(self, node_id: str) -> str:
        """One line naming a node in full (the hover tooltip), from the snapshot: no atlas read."""
        doc = self.documents.get(node_id)
        if doc is not None:
            return f"{doc.title} ({doc.published_date or doc.coverage_start or 'undated'})"
        section = self.sections.get(node_id)
        label = section.title if section is not None and section.title else self.labels.get(node_id, node_id)
        owner = self.documents.get(section.document_id) if section is not None else None
        return f"{label} — {owner.title}" if owner is not None else label

    # ------------------------------------------------------------------ page
    def inspect(self, node_id: str) -> Inspection:
        row = self._row(node_id)
        kind = _kind(node_id, row)
        neighbours = self.neighbours(node_id)
        if kind == "tag":
            title, body = node_id[len(TAG_PREFIX):], self._tag_body(node_id)
        elif kind == "entity":
            title, body = self._entity(node_id, row)
        elif kind == "document":
            title, body = self._document(node_id, row)
        elif kind == "section":
            title, body = self._section(node_id, row)
        elif kind in ("paragraph", "table", "figure"):
            title, body = self._text(node_id, row, kind)
        else:
            title, body = self.labels.get(node_id, node_id), '<div class="ohara-muted">no details stored</div>'
        page = (f'<div class="ohara-card" data-node-id="{esc(node_id)}">'
                f'<div class="ohara-muted">{esc(kind)} · <code>{esc(node_id)}</code></div>'
                f'<h4 class="ohara-inspector-title">{esc(title)}</h4>{body}{_neighbour_html(neighbours)}</div>')
        return Inspection(node_id, kind, title, page, neighbours)

    def _doc_line(self, document_id: str | None) -> str:
        doc = self.documents.get(document_id or "")
        if doc is None:
            return ""
        date = doc.published_date or doc.coverage_start or "undated"
        return f'<div>in <b>{esc(doc.title)}</b> <span class="ohara-muted">({esc(date)})</span></div>'

    def outline_html(self, document_id: str | None, current: str | None) -> str:
        sections = self._outline.get(document_id or "", [])
        if not sections:
            return ""
        items = []
        for s in sections:
            cls = ' class="current"' if s.id == current else ""
            pad = max(0, s.level - 1) * 12
            items.append(f'<li{cls} style="padding-left:{pad}px">{esc(s.title or s.id)}</li>')
        return f'<details open><summary>Outline ({len(sections)} sections)</summary>' \
               f'<ul class="ohara-outline">{"".join(items)}</ul></details>'

    def _document(self, node_id: str, row: dict[str, Any] | None) -> tuple[str, str]:
        doc = self.documents.get(node_id)
        title = (row or {}).get("title") or (doc.title if doc else node_id)
        r = row or {}
        meta = [
            ("published", r.get("published_date") or (doc.published_date if doc else None) or "undated"),
            ("coverage", " – ".join(x for x in (r.get("temporal_coverage_start"), r.get("temporal_coverage_end")) if x)),
            ("decay class", r.get("effective_decay_class") or (doc.effective_decay_class if doc else None)),
            ("sections", len(self._outline.get(node_id, []))),
            ("entities", r.get("entity_count")),
        ]
        body = _meta_table(meta)
        if r.get("description"):
            body += f'<div class="ohara-text">{esc(r["description"])}</div>'
        tags = r.get("sumo_tags") or (list(doc.sumo_tags) if doc else [])
        body += f"<div>{chips(tags, 'tag')}</div>" if tags else ""
        return title, body + self.outline_html(node_id, None)

    def _section(self, node_id: str, row: dict[str, Any] | None) -> tuple[str, str]:
        s = self.sections.get(node_id)
        r = row or {}
        title = r.get("title") or (s.title if s else node_id)
        doc_id = r.get("document_id") or (s.document_id if s else None)
        path = self.section_path(node_id)
        body = self._doc_line(doc_id)
        if len(path) > 1:
            body += f'<div class="ohara-muted">{esc(" › ".join(path))}</div>'
        body += _meta_table([("level", r.get("level", s.level if s else None)), ("type", r.get("node_type")),
                             ("page", r.get("page"))])
        if r.get("summary"):
            body += f'<div class="ohara-text">{esc(r["summary"])}</div>'
        tags = r.get("sumo_tags") or (list(s.sumo_tags) if s else [])
        body += f"<div>{chips(tags, 'tag')}</div>" if tags else ""
        return title, body + self.outline_html(doc_id, node_id)

    def _text(self, node_id: str, row: dict[str, Any] | None, kind: str) -> tuple[str, str]:
        r = row or {}
        text_input = next((t for t in self.map_input.text_nodes if t.id == node_id), None) if row is None else None
        doc_id = r.get("document_id") or (text_input.document_id if text_input else None)
        section_id = r.get("section_id") or (text_input.section_id if text_input else None)
        content = r.get("content") or r.get("markdown_representation") or (text_input.label if text_input else "")
        path = self.section_path(section_id)
        title = path[-1] if path else (self.documents[doc_id].title if doc_id in self.documents else node_id)
        body = self._doc_line(doc_id)
        if path:
            body += f'<div class="ohara-muted">{esc(" › ".join(path))}</div>'
        body += _meta_table([("type", r.get("node_type") or kind), ("page", r.get("page"))])
        body += f'<div class="ohara-text">{esc(shorten(content, TEXT_CHARS) if len(content) > TEXT_CHARS else content)}</div>'
        tags = r.get("sumo_tags") or (list(text_input.sumo_tags) if text_input else [])
        if tags:
            body += f"<div>SUMO {chips(tags, 'tag')}</div>"
        if r.get("entity_slugs"):
            body += f"<div>entities {chips(r['entity_slugs'], 'entity')}</div>"
        return title, body + self.outline_html(doc_id, section_id)

    def _entity(self, node_id: str, row: dict[str, Any] | None) -> tuple[str, str]:
        entity = next((e for e in self.map_input.entities if e.id == node_id), None)
        r = row or {}
        name = r.get("name") or (entity.name if entity else node_id)
        doc_ids = r.get("document_ids") or (list(entity.document_ids) if entity else [])
        titles = [self.documents[d].title for d in doc_ids if d in self.documents]
        body = _meta_table([("type", r.get("type")), ("mentions", r.get("mention_count", entity.mention_count if entity else None)),
                            ("aliases", ", ".join(r.get("aliases") or []))])
        if titles:
            body += f"<div>in {chips(titles, '', 8)}</div>"
        return name, body

    def _tag_body(self, node_id: str) -> str:
        tag = node_id[len(TAG_PREFIX):]
        carriers = sum(1 for t in self.map_input.text_nodes if tag in t.sumo_tags)
        return _meta_table([("SUMO tag", tag), ("text nodes carrying it", carriers)])


def _kind(node_id: str, row: dict[str, Any] | None) -> str:
    collection = split_id(node_id)[0]
    if collection == "tags":
        return "tag"
    if collection == "paragraphs":
        node_type = ((row or {}).get("node_type") or "").lower()
        return "figure" if node_type == "figure" else "paragraph"
    return {"documents": "document", "sections": "section", "tables": "table", "entities": "entity"}.get(
        collection, "unknown")


def _row_label(row: dict[str, Any] | None) -> str:
    if not row:
        return ""
    return shorten(row.get("title") or row.get("name") or row.get("content") or row.get("markdown_representation"), 80)


def _meta_table(pairs: Sequence[tuple[str, object]]) -> str:
    cells = "".join(f'<tr><td class="ohara-muted">{esc(k)}</td><td>{esc(v)}</td></tr>'
                    for k, v in pairs if v not in (None, "", []))
    return f"<table>{cells}</table>" if cells else ""


def _neighbour_html(neighbours: Sequence[Neighbour]) -> str:
    if not neighbours:
        return '<div class="ohara-muted">no neighbours</div>'
    groups: dict[str, list[Neighbour]] = {}
    for n in neighbours:
        groups.setdefault(("→ " if n.outgoing else "← ") + n.relation, []).append(n)
    parts = [f'<div><b>{esc(rel)}</b> ({len(ns)}): '
             + "; ".join(f'<span title="{esc(n.id)}">{esc(shorten(n.label, 60))}</span>' for n in ns) + "</div>"
             for rel, ns in groups.items()]
    return f'<details><summary>Neighbours ({len(neighbours)})</summary>{"".join(parts)}</details>'
