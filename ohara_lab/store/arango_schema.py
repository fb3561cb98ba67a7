"""The ArangoDB atlas schema (spec §1.1–1.3): collections, indexes and the `ohara_search` view.

`ensure_schema` is idempotent and safe to race: every step either finds its
object already there or creates it, and ArangoDB answers an identical index
definition with the existing index. Collection names here are the only names
that ever appear in AQL text.
"""
from __future__ import annotations

import re
from typing import Any, cast

from arango.database import StandardDatabase
from arango.exceptions import ArangoError, ArangoServerError

from ..errors import StoreError

NODE_COLLECTIONS = ("documents", "sections", "paragraphs", "tables", "entities")
EDGES = "edges"
# Side collections: what SQLite keeps in side tables, so every primitive is one indexed AQL query.
SIDE_COLLECTIONS = ("entity_names", "node_tags", "node_entities", "node_questions", "cooccur", "vectors", "meta",
                    "feedback", "crawl", "entity_merges", "entity_routes", "routed_nodes", "routed_links", "analytics")
DOCUMENT_COLLECTIONS = NODE_COLLECTIONS + SIDE_COLLECTIONS
# Everything a document write or delete may touch (taken exclusively: one writer at a time, like SQLite).
WRITE_COLLECTIONS = NODE_COLLECTIONS + (EDGES, "entity_names", "node_tags", "node_entities", "node_questions",
                                        "cooccur", "vectors", "meta", "entity_merges", "entity_routes", "routed_nodes",
                                        "routed_links")

VIEW = "ohara_search"
TEXT_FIELDS = {"paragraphs": "content", "sections": "title", "tables": "markdown_representation"}
VIEW_LINKS: dict[str, Any] = {
    "paragraphs": {"includeAllFields": False, "fields": {
        "content": {"analyzers": ["text_en"]},
        "sumo_tags": {"analyzers": ["identity"]},
        "entity_slugs": {"analyzers": ["identity"]}}},
    "sections": {"includeAllFields": False, "fields": {"title": {"analyzers": ["text_en"]}}},
    "tables": {"includeAllFields": False, "fields": {"markdown_representation": {"analyzers": ["text_en"]}}},
}

# In a cluster a unique index must contain the shard key, so these two shard by a field of it.
CLUSTER_SHARD_KEYS = {EDGES: ["_from"], "vectors": ["node_id"]}

# (collection, fields, unique, sparse)
INDEXES: tuple[tuple[str, tuple[str, ...], bool, bool], ...] = (
    ("documents", ("file_hash",), False, False),
    ("documents", ("origin_path",), False, False),
    ("documents", ("published_date",), False, True),
    ("sections", ("document_id", "doc_position"), False, False),
    ("paragraphs", ("document_id", "doc_position"), False, False),
    ("tables", ("document_id", "doc_position"), False, False),
    ("entities", ("norm_key",), False, False),
    ("entities", ("document_ids[*]",), False, False),
    ("entity_names", ("norm_key",), False, False),
    ("entity_names", ("slug",), False, False),
    # Edge-level idempotency: the same (from, to, relation) can never be stored twice.
    (EDGES, ("_from", "_to", "relation"), True, False),
    # Vertex-centric indexes: traversals filtered by relation read only matching edges.
    (EDGES, ("_from", "relation"), False, False),
    (EDGES, ("_to", "relation"), False, False),
    (EDGES, ("relation",), False, False),
    (EDGES, ("document_id",), False, False),
    ("node_tags", ("tag",), False, False),
    ("node_tags", ("document_id",), False, False),
    ("node_tags", ("node_id",), False, False),
    ("node_entities", ("slug", "document_id"), False, False),
    ("node_entities", ("document_id",), False, False),
    ("node_entities", ("node_id", "type"), False, False),
    ("node_questions", ("norm",), False, False),
    ("node_questions", ("document_id",), False, False),
    ("cooccur", ("a", "b"), False, False),
    ("cooccur", ("document_id",), False, False),
    ("vectors", ("node_id", "model"), True, False),
    ("vectors", ("model",), False, False),
    ("vectors", ("document_id",), False, False),
    ("feedback", ("node_id",), False, False),
    ("crawl", ("run", "state"), False, False),
    ("crawl", ("host",), False, False),
    ("entity_merges", ("op_id",), True, False),
    ("entity_routes", ("from_slug",), False, False),
    ("entity_routes", ("from_key",), False, False),
    ("entity_routes", ("op_id",), False, False),
    ("routed_nodes", ("op_id",), False, False),
    ("routed_nodes", ("document_id",), False, False),
    ("routed_links", ("op_id", "document_id"), True, False),
    ("analytics", ("kind", "key"), True, False),
)


def ensure_schema(db: StandardDatabase) -> None:
    """Create whatever collection, index or view of the atlas is missing."""
    try:
        _ensure_collections(db)
        for collection, fields, unique, sparse in INDEXES:
            name = "idx_" + collection + "_" + re.sub(r"[^A-Za-z0-9]+", "_", "_".join(fields)).strip("_")
            db.collection(collection).add_index({"type": "persistent", "fields": list(fields), "unique": unique,
                                                 "sparse": sparse, "name": name})
        _ensure_view(db)
    except ArangoError as e:
        raise StoreError(f"cannot set up the atlas schema in ArangoDB database {db.name!r}: {e}") from e


def _ensure_collections(db: StandardDatabase) -> None:
    existing = {c["name"] for c in cast("list[dict[str, Any]]", db.collections())}  # a plain database: no jobs
    missing = [c for c in (*DOCUMENT_COLLECTIONS, EDGES) if c not in existing]
    if not missing:
        return
    cluster = db.role() == "COORDINATOR"
    for name in missing:
        shard_fields = CLUSTER_SHARD_KEYS.get(name) if cluster else None
        try:
            db.create_collection(name, edge=(name == EDGES), shard_fields=shard_fields)
        except ArangoServerError as e:
            if e.error_code != 1207:  # created concurrently by another process
                raise


def _ensure_view(db: StandardDatabase) -> None:
    if not any(v["name"] == VIEW for v in cast("list[dict[str, Any]]", db.views())):
        try:
            db.create_arangosearch_view(VIEW, properties={"links": VIEW_LINKS})
            return
        except ArangoServerError as e:
            if e.error_code != 1207:
                raise
    if not view_links_ok(cast("dict[str, Any]", db.view(VIEW)).get("links", {})):
        # An atlas made by an older version: bring its links up to date (the server re-indexes).
        db.update_arangosearch_view(VIEW, {"links": VIEW_LINKS})


def view_links_ok(links: dict[str, Any]) -> bool:
    """Does the view index every text field the BM25 primitive searches, with `text_en`?"""
    for collection, field in TEXT_FIELDS.items():
        spec = (links.get(collection) or {}).get("fields", {}).get(field) or {}
        if "text_en" not in spec.get("analyzers", []):
            return False
    return True
