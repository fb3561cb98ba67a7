"""Integrity checks of an ArangoDB atlas (`ohara check`), with the SQLite store's Problem codes.

Each check is one AQL question whose answer must be empty in a sound atlas.
The SQLite-only checks have no counterpart here: `SQLITE_CORRUPT` (the server
guards its own storage) and `FTS_STALE` / `FTS_DUPLICATE` / `FTS_TEXT_MISMATCH`
(the view indexes the stored documents themselves, so it cannot hold stale or
duplicate copies); `FTS_MISSING` checks the view's definition and its coverage.
"""
from __future__ import annotations

from typing import Any

from ..ids import ENTITIES
from ..records import BELONGS_TO, HAS_CHILD, MENTIONS, RELATED_TO, Problem
from .arango_aql import rows
from .arango_schema import VIEW, view_links_ok

_NODES = ("sections", "paragraphs", "tables")
_TEXT_NODES = ("paragraphs", "tables")

# (code, severity, AQL returning offending rows as arrays, how to describe one row,
#  collections bound in turn to @@coll, or () for a query that names its own)
_CHECKS: list[tuple[str, str, str, str, tuple[str, ...]]] = [
    ("DANGLING_EDGE", "error",
     "FOR e IN edges FILTER DOCUMENT(e._from) == null OR DOCUMENT(e._to) == null LIMIT 50"
     " RETURN [e.relation, e._from, e._to]",
     "{0} edge {1} -> {2} has a missing endpoint", ()),
    ("DUPLICATE_EDGE", "error",
     "FOR e IN edges COLLECT f = e._from, t = e._to, r = e.relation WITH COUNT INTO n FILTER n > 1 LIMIT 50"
     " RETURN [r, f, t, n]",
     "{0} edge {1} -> {2} stored {3} times", ()),
    ("ORPHANED_NODE", "error",
     "FOR n IN @@coll FILTER DOCUMENT(n.document_id) == null LIMIT 50 RETURN [n.id, n.document_id]",
     "{0} belongs to missing document {1}", _NODES),
    ("MISSING_BELONGS_TO", "error",
     "FOR n IN @@coll FILTER LENGTH(FOR e IN edges FILTER e._from == n._id AND e._to == n.document_id"
     f" AND e.relation == \"{BELONGS_TO}\" LIMIT 1 RETURN 1) == 0 LIMIT 50 RETURN [n.id, n.document_id]",
     "{0} has no BELONGS_TO edge to {1}", _TEXT_NODES),
    ("MISSING_PARENT", "error",
     f"FOR s IN sections FILTER LENGTH(FOR e IN edges FILTER e._to == s._id AND e.relation == \"{HAS_CHILD}\""
     " LIMIT 1 RETURN 1) == 0 LIMIT 50 RETURN [s.id, NOT_NULL(s.parent_section_id, s.document_id)]",
     "section {0} has no HAS_CHILD edge from {1}", ()),
    ("ENTITY_COUNT_MISMATCH", "error",
     "FOR e IN entities LET m = LENGTH(FOR n IN node_entities FILTER n.slug == e.slug RETURN 1)"
     " FILTER e.mention_count != m LIMIT 50 RETURN [e.slug, e.mention_count, m]",
     "entity {0} says {1} mentions, MENTIONS has {2}", ()),
    ("MENTIONS_MISMATCH", "error",
     "FOR n IN node_entities FILTER LENGTH(FOR e IN edges FILTER e._from == n.node_id"
     f" AND e._to == CONCAT(\"{ENTITIES}/\", n.slug) AND e.relation == \"{MENTIONS}\" LIMIT 1 RETURN 1) == 0"
     " LIMIT 50 RETURN [n.node_id, n.slug]",
     "{0} lists entity {1} without a MENTIONS edge", ()),
    ("RELATED_TO_MISMATCH", "error",
     "FOR c IN cooccur COLLECT a = c.a, b = c.b AGGREGATE total = SUM(c.n)"
     f" LET stored = FIRST(FOR e IN edges FILTER e._from == CONCAT(\"{ENTITIES}/\", a)"
     f" AND e._to == CONCAT(\"{ENTITIES}/\", b) AND e.relation == \"{RELATED_TO}\" RETURN e.attrs.count)"
     " FILTER total != NOT_NULL(stored, 0) LIMIT 50 RETURN [a, b, total]",
     "RELATED_TO {0} -> {1} should count {2}", ()),
    ("ENTITY_SLUGS_MISMATCH", "error",
     "FOR n IN @@coll LET listed = UNIQUE(NOT_NULL(n.entity_slugs, []))"
     " LET mentioned = (FOR m IN node_entities FILTER m.node_id == n.id RETURN m.slug)"
     " LET odd = APPEND(MINUS(listed, mentioned), MINUS(mentioned, listed))"
     " FILTER LENGTH(odd) > 0 LIMIT 50 RETURN [n.id, odd[0], 'disagrees on']",
     "{0} {2} entity {1} in its entity_slugs but MENTIONS disagrees", _TEXT_NODES),
    ("ENTITY_TYPES_MISALIGNED", "error",
     "FOR n IN @@coll FILTER LENGTH(NOT_NULL(n.entity_slugs, [])) != LENGTH(NOT_NULL(n.entity_types, []))"
     " LIMIT 50 RETURN [n.id, LENGTH(n.entity_slugs), LENGTH(n.entity_types)]",
     "{0} lists {1} entity slugs but {2} entity types", _TEXT_NODES),
    ("ENTITY_DOCS_MISMATCH", "error",
     "FOR e IN entities LET m = LENGTH(UNIQUE(FOR n IN node_entities FILTER n.slug == e.slug RETURN n.document_id))"
     " FILTER LENGTH(NOT_NULL(e.document_ids, [])) != m LIMIT 50 RETURN [e.slug, LENGTH(e.document_ids), m]",
     "entity {0} lists {1} documents, its mentions are in {2}", ()),
    ("ROLLUP_STALE", "warning",
     "FOR d IN documents LET listed = UNIQUE(NOT_NULL(d.entity_slugs, []))"
     " LET mentioned = UNIQUE(FOR n IN node_entities FILTER n.document_id == d._id RETURN n.slug)"
     " FILTER LENGTH(listed) != LENGTH(NOT_NULL(d.entity_slugs, [])) OR LENGTH(MINUS(listed, mentioned)) > 0"
     " OR LENGTH(MINUS(mentioned, listed)) > 0"
     " LIMIT 50 RETURN [d.id, LENGTH(listed), LENGTH(mentioned)]",
     "document {0} rolls up {1} entities, its nodes mention {2}: `ohara check --fix` re-derives it", ()),
    ("VECTOR_ORPHAN", "error",
     "FOR v IN vectors FILTER DOCUMENT(v.node_id) == null LIMIT 50 RETURN [v.node_id, v.model]",
     "vector of missing node {0} ({1})", ()),
    ("PARTIAL_DOCUMENT", "warning",
     "FOR d IN documents FILTER d.ingestion_status != \"complete\" RETURN [d.id, d.ingestion_status]",
     "{0} is {1}: re-run ingest to complete it", ()),
    ("LEVEL_GAP", "warning",
     "FOR d IN documents FILTER d.structure_needs_review == true RETURN [d.id, d.title]",
     "{0} ({1}) has heading levels that jump by more than one", ()),
]


def run_checks(db: Any) -> list[Problem]:
    """All integrity problems, errors first (the search view's coverage leads)."""
    problems = _view_problems(db)
    for code, severity, query, template, collections in _CHECKS:
        found = []
        for collection in collections:
            found += rows(db, query, {"@coll": collection})
        if not collections:
            found = rows(db, query)
        problems += [Problem(code, severity, template.format(*row)) for row in found[:50]]
    return problems


def _view_problems(db: Any) -> list[Problem]:
    """FTS_MISSING when the view is gone, misses a text field, or indexes fewer nodes than exist."""
    if not any(v["name"] == VIEW for v in db.views()):
        return [Problem("FTS_MISSING", "error", f"search view {VIEW} does not exist")]
    if not view_links_ok(db.view(VIEW).get("links", {})):
        return [Problem("FTS_MISSING", "error", f"search view {VIEW} does not index every text field with text_en")]
    counts = rows(db, """
        LET indexed = LENGTH(FOR n IN ohara_search OPTIONS {waitForSync: true} RETURN 1)
        RETURN [indexed, LENGTH(sections) + LENGTH(paragraphs) + LENGTH(tables)]""")
    if counts and counts[0][0] < counts[0][1]:
        return [Problem("FTS_MISSING", "error",
                        f"search view {VIEW} indexes {counts[0][0]} of {counts[0][1]} text nodes")]
    return []
