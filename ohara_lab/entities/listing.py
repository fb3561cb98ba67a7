"""Read-only views of the entity layer for curation: search, one entity in full, the log."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ids import entity_id, norm_key
from ..records import RELATED_TO, Entity, EntityOp
from ..render import shorten

if TYPE_CHECKING:
    from ..store.protocol import GraphStore

SNIPPET_CHARS = 160


def search(store: GraphStore, text: str | None = None, *, kind: str | None = None, limit: int = 50) -> list[Entity]:
    """Entities whose name, alias or slug contains `text` (normalised), most mentioned first."""
    key = norm_key(text) if text else ""
    out = []
    for e in store.get_entities():
        if kind and e.type != kind.upper():
            continue
        if key and not any(key in norm_key(n) for n in (e.name, e.slug, *e.aliases)):
            continue
        out.append(e)
    out.sort(key=lambda e: (-e.mention_count, e.slug))
    return out[:limit] if limit else out


def show(store: GraphStore, slug: str, *, mentions: int = 5, related: int = 10) -> dict[str, Any] | None:
    """One entity: its record, strongest co-occurring entities, a few mentions, its community, its log entries."""
    found = store.get_entities([slug])
    if not found:
        return None
    ent = found[0]
    eid = entity_id(slug)
    edges = store.edges(from_ids=[eid], relations=[RELATED_TO]) + store.edges(to_ids=[eid], relations=[RELATED_TO])
    pairs = sorted(((e.to_id if e.from_id == eid else e.from_id, int(e.attrs.get("count", 0))) for e in edges),
                   key=lambda p: (-p[1], p[0]))[:related]
    nodes = store.entity_nodes(slugs=[slug])[:mentions]
    texts = store.get_nodes([n.node_id for n in nodes])
    community = store.get_analytics("entity_community", [slug]).get(slug)
    return {
        "entity": ent.to_dict(),
        "related": [{"slug": other.partition("/")[2], "count": n} for other, n in pairs],
        "mentions": [{"node_id": n.node_id, "document_id": n.document_id,
                      "text": _snippet(texts.get(n.node_id, {}))} for n in nodes],
        "community": community,
        "log": [op_summary(o) for o in store.entity_ops() if slug in o.sources or slug == o.target],
    }


def op_summary(op: EntityOp) -> dict[str, Any]:
    """A log entry without its before-state (which can be large)."""
    return {"id": op.id, "op": op.op, "ts": op.ts, "actor": op.actor, "reason": op.reason, "target": op.target,
            "sources": op.sources, "nodes": len(op.before.get("nodes", [])), "undone_at": op.undone_at,
            "undone_by": op.undone_by}


def _snippet(row: dict[str, Any]) -> str:
    return shorten(row.get("content") or row.get("markdown_representation"), SNIPPET_CHARS)
