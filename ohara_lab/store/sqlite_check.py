"""Integrity checks of an SQLite atlas (`ohara check`).

Each check is one SQL question whose answer must be empty in a sound atlas.
"""
from __future__ import annotations

import sqlite3

from ..ids import ENTITIES
from ..records import BELONGS_TO, HAS_CHILD, MENTIONS, RELATED_TO, Problem

_NODE_UNION = ("SELECT id FROM documents UNION ALL SELECT id FROM sections UNION ALL SELECT id FROM paragraphs"
               " UNION ALL SELECT id FROM tables UNION ALL SELECT id FROM entities")

# (code, severity, SQL returning offending rows, how to describe one row)
_CHECKS: list[tuple[str, str, str, str]] = [
    ("DANGLING_EDGE", "error",
     f"SELECT relation, from_id, to_id FROM edges WHERE from_id NOT IN ({_NODE_UNION})"
     f" OR to_id NOT IN ({_NODE_UNION}) LIMIT 50",
     "{0} edge {1} -> {2} has a missing endpoint"),
    ("DUPLICATE_EDGE", "error",
     "SELECT relation, from_id, to_id, COUNT(*) FROM edges GROUP BY from_id, to_id, relation HAVING COUNT(*) > 1 LIMIT 50",
     "{0} edge {1} -> {2} stored {3} times"),
    ("ORPHANED_NODE", "error",
     "SELECT id, document_id FROM paragraphs WHERE document_id NOT IN (SELECT id FROM documents)"
     " UNION ALL SELECT id, document_id FROM sections WHERE document_id NOT IN (SELECT id FROM documents)"
     " UNION ALL SELECT id, document_id FROM tables WHERE document_id NOT IN (SELECT id FROM documents) LIMIT 50",
     "{0} belongs to missing document {1}"),
    ("MISSING_BELONGS_TO", "error",
     "SELECT id, document_id FROM paragraphs p WHERE NOT EXISTS (SELECT 1 FROM edges e WHERE e.from_id = p.id"
     f" AND e.to_id = p.document_id AND e.relation = '{BELONGS_TO}')"
     " UNION ALL SELECT id, document_id FROM tables t WHERE NOT EXISTS (SELECT 1 FROM edges e WHERE e.from_id = t.id"
     f" AND e.to_id = t.document_id AND e.relation = '{BELONGS_TO}') LIMIT 50",
     "{0} has no BELONGS_TO edge to {1}"),
    ("MISSING_PARENT", "error",
     "SELECT id, COALESCE(parent_section_id, document_id) FROM sections s WHERE NOT EXISTS (SELECT 1 FROM edges e"
     f" WHERE e.to_id = s.id AND e.relation = '{HAS_CHILD}') LIMIT 50",
     "section {0} has no HAS_CHILD edge from {1}"),
    ("FTS_MISSING", "error",
     "SELECT id FROM (SELECT id FROM sections UNION ALL SELECT id FROM paragraphs UNION ALL SELECT id FROM tables)"
     " WHERE id NOT IN (SELECT node_id FROM fts) LIMIT 50",
     "{0} is not in the full-text index"),
    ("FTS_STALE", "error",
     "SELECT node_id FROM fts WHERE node_id NOT IN (SELECT id FROM sections UNION ALL SELECT id FROM paragraphs"
     " UNION ALL SELECT id FROM tables) LIMIT 50",
     "full-text row {0} has no node"),
    ("FTS_DUPLICATE", "error",
     "SELECT node_id, COUNT(*) FROM fts GROUP BY node_id HAVING COUNT(*) > 1 LIMIT 50",
     "{0} is indexed {1} times"),
    ("FTS_TEXT_MISMATCH", "error",
     "SELECT f.node_id FROM fts f JOIN paragraphs p ON p.id = f.node_id WHERE f.text != p.content LIMIT 50",
     "indexed text of {0} differs from its content"),
    ("ENTITY_COUNT_MISMATCH", "error",
     "SELECT e.slug, e.mention_count, (SELECT COUNT(*) FROM node_entities n WHERE n.slug = e.slug) AS m"
     " FROM entities e WHERE e.mention_count != m LIMIT 50",
     "entity {0} says {1} mentions, MENTIONS has {2}"),
    ("MENTIONS_MISMATCH", "error",
     "SELECT n.node_id, n.slug FROM node_entities n WHERE NOT EXISTS (SELECT 1 FROM edges e WHERE e.from_id = n.node_id"
     f" AND e.to_id = '{ENTITIES}/' || n.slug AND e.relation = '{MENTIONS}') LIMIT 50",
     "{0} lists entity {1} without a MENTIONS edge"),
    ("RELATED_TO_MISMATCH", "error",
     "SELECT a, b, SUM(n) AS total FROM cooccur GROUP BY a, b HAVING total != COALESCE((SELECT json_extract(attrs, '$.count')"
     f" FROM edges WHERE from_id = '{ENTITIES}/' || a AND to_id = '{ENTITIES}/' || b AND relation = '{RELATED_TO}'), 0) LIMIT 50",
     "RELATED_TO {0} -> {1} should count {2}"),
    ("ENTITY_SLUGS_MISMATCH", "error",
     "SELECT p.id, j.value, 'lists' FROM paragraphs p, json_each(p.data, '$.entity_slugs') j WHERE NOT EXISTS"
     " (SELECT 1 FROM node_entities n WHERE n.node_id = p.id AND n.slug = j.value)"
     " UNION ALL SELECT t.id, j.value, 'lists' FROM tables t, json_each(t.data, '$.entity_slugs') j WHERE NOT EXISTS"
     " (SELECT 1 FROM node_entities n WHERE n.node_id = t.id AND n.slug = j.value)"
     " UNION ALL SELECT n.node_id, n.slug, 'does not list' FROM node_entities n"
     " JOIN (SELECT id, data FROM paragraphs UNION ALL SELECT id, data FROM tables) x ON x.id = n.node_id"
     " WHERE NOT EXISTS (SELECT 1 FROM json_each(x.data, '$.entity_slugs') j WHERE j.value = n.slug) LIMIT 50",
     "{0} {2} entity {1} in its entity_slugs but MENTIONS disagrees"),
    ("ENTITY_TYPES_MISALIGNED", "error",
     "SELECT id, json_array_length(data, '$.entity_slugs'), json_array_length(data, '$.entity_types') FROM"
     " (SELECT id, data FROM paragraphs UNION ALL SELECT id, data FROM tables)"
     " WHERE json_array_length(data, '$.entity_slugs') != json_array_length(data, '$.entity_types') LIMIT 50",
     "{0} lists {1} entity slugs but {2} entity types"),
    ("ENTITY_DOCS_MISMATCH", "error",
     "SELECT e.slug, json_array_length(e.data, '$.document_ids') AS k,"
     " (SELECT COUNT(DISTINCT n.document_id) FROM node_entities n WHERE n.slug = e.slug) AS m"
     " FROM entities e WHERE k != m LIMIT 50",
     "entity {0} lists {1} documents, its mentions are in {2}"),
    ("ROLLUP_STALE", "warning",
     "SELECT d.id, json_array_length(d.data, '$.entity_slugs') AS k,"
     " (SELECT COUNT(DISTINCT n.slug) FROM node_entities n WHERE n.document_id = d.id) AS m FROM documents d"
     " WHERE k != m OR EXISTS (SELECT 1 FROM json_each(d.data, '$.entity_slugs') j WHERE NOT EXISTS"
     " (SELECT 1 FROM node_entities n WHERE n.document_id = d.id AND n.slug = j.value)) LIMIT 50",
     "document {0} rolls up {1} entities, its nodes mention {2}: `ohara check --fix` re-derives it"),
    ("VECTOR_ORPHAN", "error",
     "SELECT node_id, model FROM vectors WHERE node_id NOT IN (SELECT id FROM paragraphs UNION ALL SELECT id FROM sections"
     " UNION ALL SELECT id FROM tables UNION ALL SELECT id FROM documents) LIMIT 50",
     "vector of missing node {0} ({1})"),
    ("PARTIAL_DOCUMENT", "warning",
     "SELECT id, ingestion_status FROM documents WHERE ingestion_status != 'complete'",
     "{0} is {1}: re-run ingest to complete it"),
    ("LEVEL_GAP", "warning",
     "SELECT id, title FROM documents WHERE structure_needs_review = 1",
     "{0} ({1}) has heading levels that jump by more than one"),
]


def run_checks(conn: sqlite3.Connection) -> list[Problem]:
    """All integrity problems, errors first."""
    problems: list[Problem] = []
    status = conn.execute("PRAGMA integrity_check").fetchone()[0]
    if status != "ok":
        problems.append(Problem("SQLITE_CORRUPT", "error", status))
    for code, severity, sql, template in _CHECKS:
        for row in conn.execute(sql).fetchall():
            problems.append(Problem(code, severity, template.format(*row)))
    return problems
