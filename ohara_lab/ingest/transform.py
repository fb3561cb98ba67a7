"""Collection transform (spec §2.9): DoCO node dicts -> sections, text nodes,
tables and their structural edges.

Fixes over the original: `structure_needs_review` is recorded *before* the level
clamp (the original clamped first, so the flag could never fire); a repeated
heading re-activates a section only when it continues the current one (the
original re-attached every later "Introduction" to the first); fragments are
reattached before tagging, so they lose no tags or entities.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .. import records
from ..ids import child_key, node_id, split_id
from ..records import (
    ADJACENT_TO,
    BELONGS_TO,
    HAS_CHILD,
    NEXT_PARA,
    NEXT_SIBLING,
    Chunk,
    Edge,
    Paragraph,
    Section,
    Table,
)
from .artifacts import is_artifact_paragraph, is_artifact_section

SECTION_TYPES = frozenset(records.SECTION_TYPES)
DEFAULT_LEVEL = {"Part": 0, "Chapter": 1, "Section": 2, "Subsection": 3}
# Text node types whose content is plain text (the others have their own shape: tables, figures, authors...).
TEXT_TYPES = frozenset(records.TEXT_NODE_TYPES) - {"Paragraph", "ListItem", "Code", "Figure", "Table", "Authors",
                                                   "Bibliography"}


@dataclass
class ChunkNodes:
    """A chunk and the nodes structuring produced for it."""

    chunk: Chunk
    nodes: list[dict[str, Any]]
    llm_pending: bool = False
    llm_error: str | None = None


@dataclass
class Structure:
    sections: list[Section] = field(default_factory=list)
    paragraphs: list[Paragraph] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    needs_review: bool = False
    # Entities an LLM structurer proposed, by paragraph id (validated at tagging, never stored as such).
    candidate_entities: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


@dataclass
class _Item:
    kind: str  # section | text | table
    node: Any
    section: Section | None  # the section a text node or table sits in; a section's own node
    parent: Section | None = None  # a section's parent section
    candidate_entities: list[dict[str, Any]] = field(default_factory=list)


def transform(doc_id: str, chunks: list[ChunkNodes], *, next_para: bool = True,
              adjacent_to: bool = True) -> Structure:
    """Build the document's nodes and structural edges from structured chunks."""
    doc_key = split_id(doc_id)[1]
    out = Structure()
    stack: list[Section] = []
    items: list[_Item] = []
    for cn in chunks:
        for i, raw in enumerate(cn.nodes):
            page = _page(raw, cn.chunk)
            kind = raw.get("type", "Paragraph")
            if kind in SECTION_TYPES:
                found = _section(raw, cn.chunk if i == 0 else None, doc_id, stack, out, page)
                if found is not None:
                    section, parent = found
                    items.append(_Item("section", section, section, parent=parent))
                continue
            current = stack[-1] if stack else None
            item = _text_item(raw, doc_id, current, page, cn)
            if item is not None:
                items.append(item)
    _reattach_fragments(items)
    _assign_ids(items, doc_key)
    _collect(items, out)
    _structural_edges(doc_id, out, items, next_para=next_para, adjacent_to=adjacent_to)
    return out


# ---------------------------------------------------------------------- sections


def _section(raw: dict[str, Any], first_of_chunk: Chunk | None, doc_id: str, stack: list[Section],
             out: Structure, page: int | None) -> tuple[Section, Section | None] | None:
    """A new section and its parent, or None for an artifact or a repeated heading."""
    kind = raw.get("type", "Section")
    title = str(raw.get("title") or (raw.get("content") or "").split("\n")[0]).strip()
    if is_artifact_section(title):
        return None
    meta = raw.get("metadata") or {}
    level = meta.get("level")
    if not isinstance(level, int) and first_of_chunk is not None and first_of_chunk.heading_level:
        level = first_of_chunk.heading_level
    if not isinstance(level, int):
        level = DEFAULT_LEVEL.get(kind, 2)
    if kind == "Part":
        level = min(level, 0)
    while stack and stack[-1].level >= level:
        popped = stack.pop()
        if popped.level == level and popped.title.lower() == title.lower():
            stack.append(popped)  # a chunk repeating the heading it continues
            return None
    parent = stack[-1] if stack else None
    if parent is not None and level > parent.level + 1:
        out.needs_review = True  # recorded before the clamp, so it can fire
        level = parent.level + 1
    node_type = "Part" if kind == "Part" else {1: "Chapter", 2: "Section"}.get(level, "Subsection")
    section = Section(id="", document_id=doc_id, title=title, level=level, node_type=node_type, page=page,
                      page_source=(first_of_chunk.page_source if first_of_chunk else "virtual"),
                      parent_section_id=None, part=raw.get("part") or "body_matter", summary=raw.get("summary"))
    stack.append(section)
    return section, parent


# ---------------------------------------------------------------------- text nodes


def _text_item(raw: dict[str, Any], doc_id: str, section: Section | None, page: int | None,
               cn: ChunkNodes) -> _Item | None:
    kind = raw.get("type", "Paragraph")
    part = raw.get("part") or "body_matter"
    common: dict[str, Any] = {"document_id": doc_id, "page": page, "part": part, "page_source": cn.chunk.page_source}
    if kind == "Table":
        matrix = _matrix(raw)
        if matrix:
            return _Item("table", Table(id="", matrix_data=matrix, markdown_representation=raw.get("markdown")
                                        or to_markdown_table(matrix), caption=raw.get("caption") or raw.get("label"),
                                        document_id=doc_id, page=page, part=part), section)
        content = _first_text(raw, "caption", "label", "markdown", "content")
    elif kind == "Figure":
        figure = raw.get("figure")
        fig: dict[str, Any] = figure if isinstance(figure, dict) else {}
        content = _first_text(raw, "caption") or _first_text(fig, "description", "url") \
            or (raw["figure"] if isinstance(raw.get("figure"), str) else "") \
            or _first_text(raw, "label", "description", "content")
    elif kind == "Authors":
        agents = ((raw.get("agents_group") or {}).get("agents")) or []
        content = ", ".join(a.get("name", "") for a in agents if isinstance(a, dict)) or _first_text(raw, "content")
    elif kind == "Bibliography":
        refs = raw.get("references") or []
        content = "\n".join(r.get("citation_text", "") for r in refs if isinstance(r, dict)) \
            or _first_text(raw, "content")
    elif kind in ("Paragraph", "ListItem", "Code") or kind in TEXT_TYPES:
        content = _first_text(raw, "content", "text") or (" ".join(raw.get("sentences") or [])) \
            or _first_text(raw, "title")
    else:
        return None
    content = (content or "").strip()
    if kind != "Code" and not cn.llm_pending and is_artifact_paragraph(content):
        return None  # a pending chunk is raw text kept whole, never filtered
    if not content:
        return None
    para = Paragraph(id="", content=content, node_type=kind, is_latex=bool(re.search(r"\\[a-zA-Z]+|\$[^$]+\$", content)),
                     llm_pending=cn.llm_pending, llm_error=cn.llm_error, **common)
    para.sumo_candidate_tags_raw = [str(t) for t in raw.get("sumo_candidate_tags") or []]
    return _Item("text", para, section, candidate_entities=list(raw.get("candidate_entities") or []))


def _first_text(raw: dict[str, Any], *keys: str) -> str:
    for key in keys:
        value = raw.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _matrix(raw: dict[str, Any]) -> list[list[str]]:
    table = raw.get("table")
    data = (table or {}).get("content_data") if isinstance(table, dict) else table
    data = data or (raw.get("metadata") or {}).get("table_cells")
    if not isinstance(data, list) or not data or not all(isinstance(r, list) for r in data):
        return []
    rows = [[str(c if c is not None else "").strip() for c in r] for r in data if r]
    return rows if rows and any(any(c for c in r) for r in rows) else []


def to_markdown_table(matrix: list[list[str]]) -> str:
    """GFM table: row 0 is the header."""
    width = max(len(r) for r in matrix)
    rows = [r + [""] * (width - len(r)) for r in matrix]

    def esc(c: str) -> str:
        return c.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(esc(c) for c in rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows[1:]]
    return "\n".join(lines)


def _page(raw: dict[str, Any], chunk: Chunk) -> int | None:
    page = (raw.get("metadata") or {}).get("page")
    if isinstance(page, int) and chunk.start_page <= page <= chunk.end_page:
        return page
    return chunk.start_page


# ---------------------------------------------------------------------- fragments and ids


def _reattach_fragments(items: list[_Item]) -> None:
    """Append short or lower-case-initial Paragraph fragments to the previous Paragraph of their section."""
    keep: list[_Item] = []
    for item in items:
        para = item.node if item.kind == "text" else None
        if para is not None and para.node_type == "Paragraph" and not para.llm_pending and _is_fragment(para.content):
            target = _previous_paragraph(keep, item.section)
            if target is not None:
                target.node.content = target.node.content.rstrip() + " " + para.content.lstrip()
                target.node.sumo_candidate_tags_raw += para.sumo_candidate_tags_raw
                target.candidate_entities += item.candidate_entities
                continue
        keep.append(item)
    items[:] = keep


def _is_fragment(text: str) -> bool:
    return (len(text) < 120 and text[:1].islower()) or len(text) < 60


def _previous_paragraph(items: list[_Item], section: Section | None) -> _Item | None:
    """The immediately preceding item, when it is a Paragraph of the same section.

    The original scanned back past tables, figures and lists; text after a table
    is not a fragment of the text before it.
    """
    if not items:
        return None
    last = items[-1]
    if last.section is section and last.kind == "text" and last.node.node_type == "Paragraph":
        return last
    return None


def _assign_ids(items: list[_Item], doc_key: str) -> None:
    for position, item in enumerate(items, start=1):
        collection = {"section": "sections", "text": "paragraphs", "table": "tables"}[item.kind]
        item.node.id = node_id(collection, child_key(doc_key, position))
        item.node.doc_position = position
    for item in items:
        if item.kind == "section":
            item.node.parent_section_id = item.parent.id if item.parent is not None else None
        else:
            item.node.section_id = item.section.id if item.section is not None else None


def _collect(items: list[_Item], out: Structure) -> None:
    for item in items:
        if item.kind == "section":
            out.sections.append(item.node)
        elif item.kind == "table":
            out.tables.append(item.node)
        else:
            out.paragraphs.append(item.node)
            if item.candidate_entities:
                out.candidate_entities[item.node.id] = item.candidate_entities


# ---------------------------------------------------------------------- edges


def _structural_edges(doc_id: str, out: Structure, items: list[_Item], *, next_para: bool, adjacent_to: bool) -> None:
    edges = out.edges
    last_child: dict[str | None, Section] = {}
    for s in out.sections:
        edges.append(Edge(s.parent_section_id or doc_id, s.id, HAS_CHILD))
        prev = last_child.get(s.parent_section_id)
        if prev is not None:
            edges.append(Edge(prev.id, s.id, NEXT_SIBLING))
        last_child[s.parent_section_id] = s
    text_nodes: list[Paragraph | Table] = [*out.paragraphs, *out.tables]
    for node in text_nodes:
        edges.append(Edge(node.section_id or doc_id, node.id, HAS_CHILD))
        edges.append(Edge(node.id, doc_id, BELONGS_TO))
    previous: dict[str | None, Any] = {}
    last_para: dict[str | None, Paragraph] = {}
    for item in items:
        if item.kind == "section":
            continue
        node, key = item.node, item.node.section_id
        before = previous.get(key)
        if adjacent_to and before is not None and (_is_visual(node) or _is_visual(before)):
            edges.append(Edge(before.id, node.id, ADJACENT_TO))
            edges.append(Edge(node.id, before.id, ADJACENT_TO))
        if next_para and item.kind == "text" and node.node_type in ("Paragraph", "ListItem"):
            if key in last_para:
                edges.append(Edge(last_para[key].id, node.id, NEXT_PARA))
            last_para[key] = node
        previous[key] = node


def _is_visual(node: Any) -> bool:
    return isinstance(node, Table) or getattr(node, "node_type", "") in ("Figure", "Table")
