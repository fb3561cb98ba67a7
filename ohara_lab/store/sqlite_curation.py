"""Entity curation and analytics storage of `SqliteStore`.

`write_curation` persists one curation step's `CurationWrite` in one transaction:
the log entry, the entity records and their names, the nodes' new entity lists with
their mention rows and MENTIONS edges, the documents' co-occurrence rows and rollups,
then the RELATED_TO and mention counts re-derived from those rows. What a step changes
and every value it implies are decided in Python (`ohara_lab.entities.curation`,
`ohara_lab.entities.changeset`), identical for every backend, from the reads
`curation_state` answers in one call.
"""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

from ..ids import entity_id
from ..records import (
    LINK_RELATIONS,
    MENTIONS,
    Document,
    Edge,
    Entity,
    EntityChange,
    EntityOp,
    NodeEntities,
    fields_dict,
    from_dict,
    utc_now,
)
from .protocol import CurationReads, CurationState, CurationStep, CurationWrite, RouteRow

TEXT_NODE_TABLES = ("paragraphs", "tables")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class SqliteCurationMixin:
    conn: sqlite3.Connection
    _lock: Any

    def transaction(self) -> Any:  # provided by SqliteStore
        raise NotImplementedError

    def _q(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:  # provided by SqliteStore
        raise NotImplementedError

    def _refresh_related(self, pairs: Iterable[tuple[str, str]]) -> None:  # provided by SqliteStore
        raise NotImplementedError

    def _refresh_entities(self, slugs: Iterable[str]) -> None:  # provided by SqliteStore
        raise NotImplementedError

    def _refresh_indegree(self, ids: Iterable[str]) -> None:  # provided by SqliteStore
        raise NotImplementedError

    def _set_meta(self, key: str, value: Any) -> None:  # provided by SqliteStore
        raise NotImplementedError

    def _bump(self, key: str) -> None:  # provided by SqliteStore
        raise NotImplementedError

    def get_meta(self, key: str, default: Any = None) -> Any:  # provided by SqliteStore
        raise NotImplementedError

    def get_nodes(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]:  # provided by SqliteStore
        raise NotImplementedError

    # ------------------------------------------------------------------ versions
    def _bump_graph(self) -> None:
        """Every change to nodes, edges or entities moves `graph_version` (analytics compare against it)."""
        self._bump("graph_version")

    # ------------------------------------------------------------------ reading the entity layer
    def entity_nodes(self, *, slugs: Iterable[str] | None = None,
                     node_ids: Iterable[str] | None = None) -> list[NodeEntities]:
        """Entity lists of the paragraphs and tables mentioning any of `slugs` (or listed in `node_ids`)."""
        ids: set[str] = set(node_ids or ())
        for chunk in _chunks(sorted(set(slugs or ())), 900):
            marks = ",".join("?" * len(chunk))
            ids |= {r[0] for r in self._q(f"SELECT node_id FROM node_entities WHERE slug IN ({marks})", chunk)}
        return self._node_lists(sorted(ids))

    def _node_lists(self, ids: list[str]) -> list[NodeEntities]:
        out: list[NodeEntities] = []
        for table in TEXT_NODE_TABLES:
            members = [i for i in ids if i.startswith(table + "/")]
            for chunk in _chunks(members, 900):
                marks = ",".join("?" * len(chunk))
                for nid, doc, data in self._q(f"SELECT id, document_id, data FROM {table} WHERE id IN ({marks})",
                                              chunk):
                    row = json.loads(data)
                    out.append(NodeEntities(nid, doc, list(row.get("entity_slugs") or []),
                                            list(row.get("entity_types") or []), self._mention_attrs(nid)))
        return sorted(out, key=lambda n: n.node_id)

    def _mention_attrs(self, node_id: str) -> dict[str, Any]:
        row = self.conn.execute(f"SELECT attrs FROM edges WHERE from_id=? AND relation='{MENTIONS}' LIMIT 1",
                                (node_id,)).fetchone()
        return json.loads(row[0]) if row else {}

    def entity_ops(self) -> list[EntityOp]:
        """The `entity_merges` log, oldest first (undone steps included, marked by `undone_at`)."""
        rows = self._q("SELECT id, op, ts, actor, reason, target, sources, before, undone_at, undone_by"
                       " FROM entity_merges ORDER BY id")
        return [EntityOp(op=r[1], actor=r[3], reason=r[4], target=r[5], sources=json.loads(r[6]),
                         before=_public(json.loads(r[7])), id=r[0], ts=r[2], undone_at=r[8], undone_by=r[9]) for r in rows]

    def entity_routes(self) -> list[tuple[int, str, str, str | None]]:
        """Active routes as (op id, node id or '', from slug, to slug or None)."""
        return [(r[0], r[1], r[2], r[3]) for r in
                self._q("SELECT op_id, node_id, from_slug, to_slug FROM entity_routes ORDER BY op_id, node_id, from_slug")]

    def routed_nodes(self, op_id: int) -> list[NodeEntities]:
        """Entity lists, as extracted, of nodes written after step `op_id` whose mentions it routed."""
        rows = self._q("SELECT data FROM routed_nodes WHERE op_id=? ORDER BY node_id", (op_id,))
        return [from_dict(NodeEntities, json.loads(r[0])) for r in rows]

    # ------------------------------------------------------------------ routing at ingest
    def routed_slugs(self, slugs: set[str]) -> set[str]:
        """Those of `slugs` that some curation step routes (in any node)."""
        out: set[str] = set()
        for chunk in _chunks(sorted(slugs), 900):
            marks = ",".join("?" * len(chunk))
            out |= {r[0] for r in self.conn.execute(f"SELECT DISTINCT from_slug FROM entity_routes"
                                                     f" WHERE from_slug IN ({marks})", chunk)}
        return out

    def _slugs_routed_by_key(self, keys: set[str]) -> set[str]:
        """From slugs of the routes whose from norm_key is one of `keys`."""
        found: set[str] = set()
        for chunk in _chunks(sorted(keys), 900):
            marks = ",".join("?" * len(chunk))
            found |= {r[0] for r in self.conn.execute(f"SELECT from_slug FROM entity_routes WHERE from_key IN ({marks})",
                                                       chunk)}
        return found

    def routes_leaving(self, slugs: list[str]) -> list[RouteRow]:
        """The routes whose from slug is one of `slugs`."""
        out: list[RouteRow] = []
        for chunk in _chunks(slugs, 900):
            out += [tuple(r) for r in self._q(f"SELECT op_id, node_id, from_slug, to_slug FROM entity_routes"
                                              f" WHERE from_slug IN ({','.join('?' * len(chunk))})", chunk)]
        return out

    def variant_routes(self, pairs: list[tuple[str, str]]) -> list[RouteRow]:
        """For (slug, norm_key) pairs whose slug is no entity, the routes leaving other slugs with that norm_key."""
        out: list[RouteRow] = []
        if not self.conn.execute("SELECT 1 FROM entity_routes LIMIT 1").fetchone():
            return out  # nothing curated: ingest pays one query
        for slug, key in pairs:
            if self.conn.execute("SELECT 1 FROM entities WHERE slug=?", (slug,)).fetchone():
                continue
            out += [(op, node, slug, dst) for op, node, dst in self.conn.execute(
                "SELECT op_id, node_id, to_slug FROM entity_routes WHERE from_key=? AND from_slug != ?"
                " ORDER BY op_id", (key, slug))]
        return out

    def _entity_records(self, slugs: set[str]) -> dict[str, Entity]:
        """Current records of those entities (the ones the atlas has)."""
        wanted = sorted(slugs)
        found: dict[str, Entity] = {}
        for chunk in _chunks(wanted, 900):
            marks = ",".join("?" * len(chunk))
            found.update({r[0]: from_dict(Entity, json.loads(r[1])) for r in self.conn.execute(
                f"SELECT slug, data FROM entities WHERE slug IN ({marks})", chunk)})
        return found

    def _slugs_by_key(self, keys: set[str]) -> dict[str, list[str]]:
        """norm_key -> slugs of the entities with it, oldest first (the first is where ingest maps a new spelling)."""
        out: dict[str, list[str]] = {}
        for chunk in _chunks(sorted(keys), 900):
            marks = ",".join("?" * len(chunk))
            for key, slug in self.conn.execute(f"SELECT norm_key, slug FROM entities WHERE norm_key IN ({marks})"
                                               f" ORDER BY rowid", chunk):
                out.setdefault(key, []).append(slug)
        return out

    def _norm_keys(self, slugs: set[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for chunk in _chunks(sorted(slugs), 900):
            marks = ",".join("?" * len(chunk))
            out.update({r[0]: r[1] for r in self.conn.execute(
                f"SELECT slug, norm_key FROM entities WHERE slug IN ({marks})", chunk)})
        return out

    def _record_routed(self, before: dict[int, list[NodeEntities]]) -> None:
        self.conn.executemany(
            "INSERT OR REPLACE INTO routed_nodes(op_id, node_id, document_id, data) VALUES (?,?,?,?)",
            [(op, n.node_id, n.document_id, _dumps(n.to_dict())) for op, nodes in before.items() for n in nodes])

    def _links_of(self, doc_id: str) -> list[Edge]:
        return [Edge(r[0], r[1], r[2], json.loads(r[3])) for r in self.conn.execute(
            f"SELECT from_id, to_id, relation, attrs FROM edges WHERE (from_id=? OR to_id=?) AND relation IN"
            f" ({','.join('?' * len(LINK_RELATIONS))}) ORDER BY rowid", (doc_id, doc_id, *LINK_RELATIONS))]

    def _record_links(self, ops: set[int], doc_id: str, old: list[Edge], new: list[Edge]) -> None:
        """Keep the links a document had before the first re-ingest under each step, and the latest ones it got."""
        self.conn.executemany(
            "INSERT INTO routed_links(op_id, document_id, old, new) VALUES (?,?,?,?)"
            " ON CONFLICT(op_id, document_id) DO UPDATE SET new=excluded.new",
            [(op, doc_id, _dumps([e.to_dict() for e in old]), _dumps([e.to_dict() for e in new])) for op in sorted(ops)])

    def routed_links(self, op_id: int) -> list[tuple[list[Edge], list[Edge]]]:
        """(links before, links after) of each document re-ingested while step `op_id` routed its mentions, in the order of those re-ingests."""
        rows = self._q("SELECT old, new FROM routed_links WHERE op_id=? ORDER BY rowid", (op_id,))
        return [([Edge(**e) for e in json.loads(r[0])], [Edge(**e) for e in json.loads(r[1])]) for r in rows]

    def _swap_links(self, remove: list[Edge], restore: list[Edge]) -> None:
        for e in remove:
            self.conn.execute("DELETE FROM edges WHERE from_id=? AND to_id=? AND relation=?", (e.from_id, e.to_id, e.relation))
        ends = {i for e in restore for i in (e.from_id, e.to_id)}
        present = {r[0] for r in self.conn.execute(
            f"SELECT id FROM documents WHERE id IN ({','.join('?' * len(ends))})", sorted(ends))} if ends else set()
        self.conn.executemany(
            "INSERT INTO edges(from_id, to_id, relation, document_id, attrs) VALUES (?,?,?,NULL,?)"
            " ON CONFLICT(from_id, to_id, relation) DO UPDATE SET attrs=excluded.attrs",
            [(e.from_id, e.to_id, e.relation, _dumps(e.attrs)) for e in restore
             if e.from_id in present and e.to_id in present])
        self._refresh_indegree({i for e in [*remove, *restore] for i in (e.from_id, e.to_id)})

    def _restore_edges(self, edges: list[Edge]) -> None:
        """Upsert atlas-level edges whose two ends exist (an entity the undo did not bring back keeps none)."""
        present = set(self.get_nodes({i for e in edges for i in (e.from_id, e.to_id)}))
        self.conn.executemany(
            "INSERT INTO edges(from_id, to_id, relation, document_id, attrs) VALUES (?,?,?,NULL,?)"
            " ON CONFLICT(from_id, to_id, relation) DO UPDATE SET attrs=excluded.attrs",
            [(e.from_id, e.to_id, e.relation, _dumps(e.attrs)) for e in edges
             if e.from_id in present and e.to_id in present])
        self._refresh_indegree({i for e in edges for i in (e.from_id, e.to_id)})

    # ------------------------------------------------------------------ reads a step declares
    def curation_state(self, reads: CurationReads) -> CurationState:
        """The entity lists and co-occurrence pairs of the documents (all when None), the slugs' norm_keys, every slug."""
        with self._lock:
            docs = list(reads.documents) if reads.documents is not None else \
                [r[0] for r in self.conn.execute("SELECT id FROM documents ORDER BY id")]
            present: set[str] = set()
            lists: dict[str, list[tuple[str, list[str]]]] = {}
            pairs: dict[str, list[tuple[str, str]]] = {}
            for doc_id in sorted(set(docs)):
                if self.conn.execute("SELECT 1 FROM documents WHERE id=?", (doc_id,)).fetchone():
                    present.add(doc_id)
                lists[doc_id] = self._document_lists(doc_id)
                pairs[doc_id] = [(r[0], r[1]) for r in
                                 self.conn.execute("SELECT a, b FROM cooccur WHERE document_id=?", (doc_id,))]
            everything = {r[0] for r in self.conn.execute(
                "SELECT slug FROM entities UNION SELECT slug FROM node_entities")} if reads.every_slug else set()
            return CurationState(docs, present, lists, pairs, self._norm_keys(set(reads.slugs)), everything)

    # ------------------------------------------------------------------ persisting a step
    def write_curation(self, step: CurationStep) -> int:
        """Persist one curation step atomically, its reads answered in the same transaction; returns the id
        of the log entry written (or undone)."""
        with self.transaction():
            write = step.plan(self.curation_state(step.reads()))
            change = write.change
            places = self._places(change.undo) if change.undo is not None else {}
            op_id = self._log(change)
            for ent in change.entities:
                self._put_entity(ent, write.names.get(ent.slug, []), places.get(ent.slug))
            for node in write.nodes:
                self._set_node(node, write.mentions.get(node.node_id, []))
            self._write_documents(write)
            self._refresh_related(write.related)
            self._refresh_entities(write.counted)
            if change.links_remove or change.links_restore:
                self._swap_links(change.links_remove, change.links_restore)
            if change.entity_edges:
                self._restore_edges(change.entity_edges)
            self.conn.executemany(
                "INSERT OR REPLACE INTO entity_routes(op_id, node_id, from_slug, from_key, to_slug) VALUES (?,?,?,?,?)",
                [(op_id, node, src, key, dst) for node, src, key, dst in write.routes])
            self._bump_graph()
        return op_id

    def _log(self, change: EntityChange) -> int:
        if change.undo is not None:
            self.conn.execute("UPDATE entity_merges SET undone_at=?, undone_by=? WHERE id=?",
                              (utc_now(), change.actor, change.undo))
            self.conn.execute("DELETE FROM entity_routes WHERE op_id=?", (change.undo,))
            self.conn.execute("DELETE FROM routed_nodes WHERE op_id=?", (change.undo,))
            self.conn.execute("DELETE FROM routed_links WHERE op_id=?", (change.undo,))
            return change.undo
        op = change.op
        if op is None:
            return 0
        before = dict(op.before)
        # Where each entity sits in insertion order (ingest sends a new spelling to the oldest entity with its
        # norm_key), so an undo puts an entity the step removed back in its place.
        slugs = [e["slug"] for e in before.get("entities", [])]
        before["rowids"] = {r[0]: r[1] for r in self._q(
            f"SELECT slug, rowid FROM entities WHERE slug IN ({','.join('?' * len(slugs))})", slugs)} if slugs else {}
        cur = self.conn.execute(
            "INSERT INTO entity_merges(op, ts, actor, reason, target, sources, before) VALUES (?,?,?,?,?,?,?)",
            (op.op, op.ts or utc_now(), op.actor, op.reason, op.target, _dumps(op.sources), _dumps(before)))
        return int(cur.lastrowid or 0)

    def _places(self, op_id: int) -> dict[str, int]:
        """The rowids a step's entities had when it was applied (none for steps logged before they were kept)."""
        row = self.conn.execute("SELECT before FROM entity_merges WHERE id=?", (op_id,)).fetchone()
        return dict(json.loads(row[0]).get("rowids") or {}) if row else {}

    def _put_entity(self, ent: Entity, names: list[str], rowid: int | None = None) -> None:
        """Write an entity record as given (counts are re-derived) and the norm_keys it is found by.

        `rowid`: the place a new record takes, when free (an entity an undo brings back)."""
        if rowid is not None and self.conn.execute("SELECT 1 FROM entities WHERE rowid=?", (rowid,)).fetchone():
            rowid = None
        self.conn.execute(
            "INSERT INTO entities(rowid, id, slug, norm_key, name, type, mention_count, data) VALUES (?,?,?,?,?,?,?,?)"
            " ON CONFLICT(slug) DO UPDATE SET norm_key=excluded.norm_key, name=excluded.name, type=excluded.type,"
            " data=excluded.data",
            (rowid, ent.id, ent.slug, ent.norm_key, ent.name, ent.type, ent.mention_count, _dumps(ent.to_dict())))
        self.conn.execute("DELETE FROM entity_names WHERE slug=?", (ent.slug,))
        self.conn.executemany("INSERT OR IGNORE INTO entity_names(norm_key, slug) VALUES (?,?)",
                              [(k, ent.slug) for k in names])

    def _set_node(self, node: NodeEntities, mentions: list[tuple[str, str, str, str]]) -> None:
        """Give one node its new entity list, mention rows and MENTIONS edges."""
        table = node.node_id.partition("/")[0]
        row = self.conn.execute(f"SELECT data FROM {table} WHERE id=?", (node.node_id,)).fetchone()
        data = json.loads(row[0])
        data["entity_slugs"], data["entity_types"] = list(node.slugs), list(node.types)
        self.conn.execute(f"UPDATE {table} SET data=? WHERE id=?", (_dumps(data), node.node_id))
        self.conn.execute("DELETE FROM node_entities WHERE node_id=?", (node.node_id,))
        self.conn.executemany("INSERT INTO node_entities(node_id, document_id, slug, type) VALUES (?,?,?,?)", mentions)
        self.conn.execute(f"DELETE FROM edges WHERE from_id=? AND relation='{MENTIONS}'", (node.node_id,))
        self.conn.executemany(
            f"INSERT INTO edges(from_id, to_id, relation, document_id, attrs) VALUES (?,?,'{MENTIONS}',?,?)",
            [(node.node_id, entity_id(s), node.document_id, _dumps(node.mention)) for s in dict.fromkeys(node.slugs)])

    def _write_documents(self, write: CurationWrite) -> None:
        """Each document's co-occurrence rows, and the entity rollup of those the atlas holds."""
        for doc_id, counted in sorted(write.cooccurrence.items()):
            self.conn.execute("DELETE FROM cooccur WHERE document_id=?", (doc_id,))
            self.conn.executemany("INSERT INTO cooccur(document_id, a, b, n) VALUES (?,?,?,?)",
                                  [(doc_id, a, b, n) for (a, b), n in counted.items()])
            if doc_id not in write.rollups:
                continue
            row = self.conn.execute("SELECT data FROM documents WHERE id=?", (doc_id,)).fetchone()
            doc = from_dict(Document, json.loads(row[0]))
            doc.entity_slugs = list(write.rollups[doc_id])
            doc.entity_count = len(doc.entity_slugs)
            self.conn.execute("UPDATE documents SET data=? WHERE id=?", (_dumps(fields_dict(doc)), doc_id))

    def _document_lists(self, doc_id: str) -> list[tuple[str, list[str]]]:
        """(node id, entity slugs) of a document's paragraphs then tables, in reading order."""
        lists: list[tuple[str, list[str]]] = []
        for table in TEXT_NODE_TABLES:
            for nid, data in self.conn.execute(f"SELECT id, data FROM {table} WHERE document_id=? ORDER BY doc_position",
                                               (doc_id,)):
                lists.append((nid, list(json.loads(data).get("entity_slugs") or [])))
        return lists

    # ------------------------------------------------------------------ analytics
    def put_analytics(self, kind: str, rows: dict[str, Any], info: dict[str, Any]) -> None:
        """Replace every row of one analytics kind, and its run info, in one transaction."""
        with self.transaction() as c:
            c.execute("DELETE FROM analytics WHERE kind=?", (kind,))
            c.executemany("INSERT INTO analytics(kind, key, value) VALUES (?,?,?)",
                          [(kind, str(k), _dumps(v)) for k, v in rows.items()])
            self._set_meta("analytics." + kind, info)

    def get_analytics(self, kind: str, keys: Iterable[str] | None = None) -> dict[str, Any]:
        """Rows of one analytics kind (all, or those with the given keys)."""
        if keys is None:
            found = self._q("SELECT key, value FROM analytics WHERE kind=?", (kind,))
        else:
            found = []
            for chunk in _chunks(sorted(set(keys)), 900):
                found += self._q(f"SELECT key, value FROM analytics WHERE kind=? AND key IN ({','.join('?' * len(chunk))})",
                                 [kind, *chunk])
        return {r[0]: json.loads(r[1]) for r in found}


def _public(before: dict[str, Any]) -> dict[str, Any]:
    """A logged step's `before` without the store's own bookkeeping (rowids)."""
    return {k: v for k, v in before.items() if k != "rowids"}


def _chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
