"""Entity curation and analytics storage of `ArangoStore`, mirroring `sqlite_curation` step for step.

`CurationQueries` reads routes and the curation log (usable on the database or
inside a stream transaction); `CurationSteps` persists a `CurationWrite` inside
one transaction: the records, MENTIONS, node_entities, co-occurrence rows, names
and document rollups it carries, then the RELATED_TO and entity counts re-derived
from those rows. What a step writes is decided in Python
(`ohara_lab.entities.changeset`). Every value travels as a bind variable.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..ids import entity_id
from ..records import LINK_RELATIONS, MENTIONS, Edge, Entity, EntityChange, EntityOp, NodeEntities, from_dict, utc_now
from .arango_aql import bump, chunks, first, hashed_key, key_of, next_seq, record, rows
from .arango_aql import rows as aql  # where a parameter is called `rows`
from .protocol import CurationReads, CurationState, CurationStep, CurationWrite, RouteRow

TEXT_NODE_COLLECTIONS = ("paragraphs", "tables")
CURATION_COLLECTIONS = ("entity_merges", "entity_routes", "routed_nodes")


def route_key(node_id: str, from_slug: str) -> str:
    """One route per (node, slug), as SQLite's primary key."""
    return hashed_key("route", node_id, from_slug)


class CurationQueries:
    """Reads of the curation tables; `db` is a database or a stream transaction."""

    db: Any

    def routed_slugs(self, slugs: set[str]) -> set[str]:
        """Those of `slugs` that some curation step routes (in any node)."""
        if not slugs:
            return set()
        return set(rows(self.db, "FOR r IN entity_routes FILTER r.from_slug IN @slugs RETURN DISTINCT r.from_slug",
                        {"slugs": sorted(slugs)}))

    def routes_leaving(self, slugs: list[str]) -> list[RouteRow]:
        """The routes whose from slug is one of `slugs`."""
        return [tuple(r) for r in rows(self.db, """
            FOR r IN entity_routes FILTER r.from_slug IN @slugs
              RETURN [r.op_id, r.node_id, r.from_slug, r.to_slug]""", {"slugs": slugs})]

    def variant_routes(self, pairs: list[tuple[str, str]]) -> list[RouteRow]:
        """For (slug, norm_key) pairs whose slug is no entity, the routes leaving other slugs with that norm_key."""
        if not pairs:
            return []
        return [tuple(r) for r in rows(self.db, """
            FOR x IN @pairs
              FILTER LENGTH(FOR e IN entities FILTER e._key == x.slug LIMIT 1 RETURN 1) == 0
              FOR r IN entity_routes FILTER r.from_key == x.key AND r.from_slug != x.slug
                SORT r.op_id
                RETURN [r.op_id, r.node_id, x.slug, r.to_slug]""",
            {"pairs": [{"slug": s, "key": k} for s, k in pairs]})]

    def slugs_routed_by_key(self, keys: set[str]) -> set[str]:
        """From slugs of the routes whose from norm_key is one of `keys`."""
        if not keys:
            return set()
        return set(rows(self.db, "FOR r IN entity_routes FILTER r.from_key IN @keys RETURN r.from_slug",
                        {"keys": sorted(keys)}))

    def slugs_by_key(self, keys: set[str]) -> dict[str, list[str]]:
        """norm_key -> slugs of the entities with it, oldest first (the first is where ingest maps a new spelling)."""
        if not keys:
            return {}
        return dict(rows(self.db, """
            FOR k IN @keys
              LET slugs = (FOR e IN entities FILTER e.norm_key == k SORT e.seq, e._key RETURN e._key)
              FILTER LENGTH(slugs) > 0
              RETURN [k, slugs]""", {"keys": sorted(keys)}))

    def entity_records(self, slugs: set[str]) -> dict[str, Entity]:
        """Current records of those entities (the ones the atlas has)."""
        wanted = sorted(slugs)
        if not wanted:
            return {}
        return {d["slug"]: from_dict(Entity, record(d))
                for d in rows(self.db, "FOR e IN entities FILTER e._key IN @slugs RETURN e", {"slugs": wanted})}

    def record_routed(self, before: dict[int, list[NodeEntities]]) -> None:
        docs = [{"_key": hashed_key("routed", str(op), n.node_id), "op_id": op, "node_id": n.node_id,
                 "document_id": n.document_id, "data": n.to_dict()} for op, nodes in before.items() for n in nodes]
        for chunk in chunks(docs):
            rows(self.db, 'FOR d IN @docs INSERT d INTO routed_nodes OPTIONS {overwriteMode: "replace"}',
                 {"docs": chunk})

    def links_of(self, doc_id: str) -> list[Edge]:
        """The cross-document links touching a document (what a re-ingest rewrites)."""
        found = rows(self.db, """
            FOR e IN UNION_DISTINCT(
                (FOR e IN edges FILTER e._from == @doc AND e.relation IN @rels RETURN e),
                (FOR e IN edges FILTER e._to == @doc AND e.relation IN @rels RETURN e))
              SORT e.seq, e._key
              RETURN [e._from, e._to, e.relation, e.attrs]""", {"doc": doc_id, "rels": list(LINK_RELATIONS)})
        return [Edge(f, t, r, a or {}) for f, t, r, a in found]

    def record_links(self, ops: set[int], doc_id: str, old: list[Edge], new: list[Edge]) -> None:
        """Keep the links a document had before the first re-ingest under each step, and the latest ones it got."""
        docs = [{"_key": hashed_key("links", str(op), doc_id), "op_id": op, "document_id": doc_id,
                 "old": [e.to_dict() for e in old], "new": [e.to_dict() for e in new], "seq": next_seq()}
                for op in sorted(ops)]
        rows(self.db, """
            FOR d IN @docs
              UPSERT {_key: d._key} INSERT d UPDATE {new: d.new} IN routed_links OPTIONS {mergeObjects: false}""",
             {"docs": docs})

    def curation_state(self, reads: CurationReads) -> CurationState:
        """The entity lists and co-occurrence pairs of the documents (all when None), the slugs' norm_keys, every slug."""
        docs = list(reads.documents) if reads.documents is not None else rows(self.db, "FOR d IN documents RETURN d._id")
        found = rows(self.db, """
            FOR doc IN @docs
              RETURN {
                doc: doc,
                present: DOCUMENT(doc) != null,
                lists: APPEND((FOR n IN paragraphs FILTER n.document_id == doc SORT n.doc_position
                               RETURN [n.id, n.entity_slugs]),
                              (FOR n IN tables FILTER n.document_id == doc SORT n.doc_position
                               RETURN [n.id, n.entity_slugs])),
                pairs: (FOR c IN cooccur FILTER c.document_id == doc RETURN [c.a, c.b])
              }""", {"docs": sorted(set(docs))})
        wanted = sorted(set(reads.slugs))
        keys = dict(rows(self.db, "FOR e IN entities FILTER e._key IN @slugs RETURN [e._key, e.norm_key]",
                         {"slugs": wanted})) if wanted else {}
        everything = rows(self.db, "RETURN UNION_DISTINCT((FOR e IN entities RETURN e._key),"
                                   " (FOR n IN node_entities RETURN n.slug))") if reads.every_slug else []
        return CurationState(
            docs, {r["doc"] for r in found if r["present"]},
            {r["doc"]: [(nid, list(s or [])) for nid, s in r["lists"]] for r in found},
            {r["doc"]: [(a, b) for a, b in r["pairs"]] for r in found},
            keys, set(everything[0]) if everything else set())

    def bump_graph(self) -> None:
        """Every change to nodes, edges or entities moves `graph_version` (analytics compare against it)."""
        bump(self.db, "graph_version")


class CurationSteps(CurationQueries):
    """One `EntityChange` applied inside a stream transaction (`steps` provides the shared write steps)."""

    def __init__(self, db: Any, steps: Any):
        self.db, self.steps = db, steps

    def apply(self, step: CurationStep) -> int:
        write = step.plan(self.curation_state(step.reads()))
        change = write.change
        places = self._places(change.undo) if change.undo is not None else {}
        op_id = self._log(change)
        for ent in change.entities:
            self._put_entity(ent, write.names.get(ent.slug, []), places.get(ent.slug))
        if write.nodes:
            self._set_nodes(write)
        self.write_documents(write)
        self.steps.refresh_related(write.related)
        self.steps.refresh_entities(write.counted)
        if change.links_remove or change.links_restore:
            self._swap_links(change.links_remove, change.links_restore)
        if change.entity_edges:
            self._restore_edges(change.entity_edges)
        routes = [{"_key": route_key(node, src), "op_id": op_id, "node_id": node, "from_slug": src,
                   "from_key": key, "to_slug": dst} for node, src, key, dst in write.routes]
        if routes:
            rows(self.db, 'FOR r IN @routes INSERT r INTO entity_routes OPTIONS {overwriteMode: "replace"}',
                 {"routes": routes})
        self.bump_graph()
        return op_id

    def _log(self, change: EntityChange) -> int:
        if change.undo is not None:
            rows(self.db, "UPDATE @key WITH {undone_at: @at, undone_by: @by} IN entity_merges",
                 {"key": str(change.undo), "at": utc_now(), "by": change.actor})
            for coll in ("entity_routes", "routed_nodes", "routed_links"):
                rows(self.db, "FOR r IN @@coll FILTER r.op_id == @op REMOVE r IN @@coll", {"@coll": coll, "op": change.undo})
            return change.undo
        op = change.op
        if op is None:
            return 0
        last = first(self.db, "RETURN MAX(FOR o IN entity_merges RETURN o.op_id)", None, None) or 0
        op_id = int(last) + 1
        doc = {**op.to_dict(), "_key": str(op_id), "op_id": op_id, "ts": op.ts or utc_now()}
        doc.pop("id", None)
        # Where each entity sits in insertion order (see SqliteStore), so an undo puts it back in its place.
        slugs = [e["slug"] for e in op.before.get("entities", [])]
        doc["before"] = {**op.before, "seqs": dict(rows(
            self.db, "FOR e IN entities FILTER e._key IN @slugs RETURN [e._key, e.seq]", {"slugs": slugs}))}
        rows(self.db, "INSERT @doc INTO entity_merges", {"doc": doc})
        return op_id

    def _swap_links(self, remove: list[Edge], restore: list[Edge]) -> None:
        rows(self.db, """
            FOR x IN @gone
              FOR e IN edges FILTER e._from == x.f AND e._to == x.t AND e.relation == x.r
              REMOVE e IN edges""", {"gone": [{"f": e.from_id, "t": e.to_id, "r": e.relation} for e in remove]})
        ends = sorted({i for e in restore for i in (e.from_id, e.to_id)})
        present = set(rows(self.db, "FOR i IN @ids FILTER DOCUMENT(i) != null RETURN i", {"ids": ends})) if ends else set()
        self.steps.insert_edges([e for e in restore if e.from_id in present and e.to_id in present], None)
        self.steps.refresh_indegree({i for e in [*remove, *restore] for i in (e.from_id, e.to_id)})

    def _restore_edges(self, edges: list[Edge]) -> None:
        """Upsert atlas-level edges whose two ends exist (an entity the undo did not bring back keeps none)."""
        ends = sorted({i for e in edges for i in (e.from_id, e.to_id)})
        present = set(rows(self.db, "FOR i IN @ids FILTER DOCUMENT(i) != null RETURN i", {"ids": ends}))
        self.steps.insert_edges([e for e in edges if e.from_id in present and e.to_id in present], None)
        self.steps.refresh_indegree(set(ends))

    def _places(self, op_id: int) -> dict[str, int]:
        """The seqs a step's entities had when it was applied (none for steps logged before they were kept)."""
        found = rows(self.db, "FOR o IN entity_merges FILTER o._key == @key RETURN o.before.seqs", {"key": str(op_id)})
        return dict(found[0] or {}) if found else {}

    def _put_entity(self, ent: Entity, keys: list[str], seq: int | None = None) -> None:
        data = {**ent.to_dict(), "_key": ent.slug}
        rows(self.db, """
            UPSERT {_key: @key}
            INSERT MERGE(@data, {seq: @seq})
            UPDATE UNSET(@data, "mention_count", "document_ids")
            IN entities OPTIONS {mergeObjects: false}""", {"key": ent.slug, "data": data, "seq": seq or next_seq()})
        rows(self.db, "FOR n IN entity_names FILTER n.slug == @slug REMOVE n IN entity_names", {"slug": ent.slug})
        names = [{"_key": hashed_key(k, ent.slug), "norm_key": k, "slug": ent.slug} for k in keys]
        if names:
            rows(self.db, 'FOR d IN @docs INSERT d INTO entity_names OPTIONS {overwriteMode: "ignore"}', {"docs": names})

    def _set_nodes(self, write: CurationWrite) -> None:
        """The nodes' new entity lists, their mention rows and MENTIONS edges."""
        nodes = write.nodes
        for coll in TEXT_NODE_COLLECTIONS:
            mine = [n for n in nodes if n.node_id.startswith(coll + "/")]
            if not mine:
                continue
            rows(self.db, """
                FOR u IN @rows
                  UPDATE u.key WITH {entity_slugs: u.slugs, entity_types: u.types} IN @@coll
                  OPTIONS {mergeObjects: false}""",
                 {"@coll": coll, "rows": [{"key": key_of(n.node_id), "slugs": n.slugs, "types": n.types} for n in mine]})
        ids = [n.node_id for n in nodes]
        rows(self.db, "FOR n IN node_entities FILTER n.node_id IN @ids REMOVE n IN node_entities", {"ids": ids})
        mentions = [{"node_id": nid, "document_id": doc, "slug": slug, "type": kind}
                    for n in nodes for nid, doc, slug, kind in write.mentions.get(n.node_id, [])]
        for chunk in chunks(mentions):
            rows(self.db, "FOR d IN @docs INSERT d INTO node_entities", {"docs": chunk})
        rows(self.db, f"""
            FOR i IN @ids
              FOR e IN edges FILTER e._from == i AND e.relation == "{MENTIONS}"
              REMOVE e IN edges""", {"ids": ids})
        base = next_seq(sum(len(n.slugs) for n in nodes) or 1)
        edges: list[dict[str, Any]] = [{"_from": n.node_id, "_to": entity_id(s), "relation": MENTIONS, "type": MENTIONS,
                  "document_id": n.document_id, "attrs": n.mention}
                 for n in nodes for s in dict.fromkeys(n.slugs)]
        for i, e in enumerate(edges):
            e["seq"] = base + i
        for chunk in chunks(edges):
            rows(self.db, "FOR e IN @rows INSERT e INTO edges", {"rows": chunk})

    def write_documents(self, write: CurationWrite) -> None:
        """Each document's co-occurrence rows, and the entity rollup of those the atlas holds."""
        for doc_id, counted in sorted(write.cooccurrence.items()):
            rows(self.db, "FOR c IN cooccur FILTER c.document_id == @doc REMOVE c IN cooccur", {"doc": doc_id})
            docs = [{"document_id": doc_id, "a": a, "b": b, "n": n} for (a, b), n in counted.items()]
            for chunk in chunks(docs):
                rows(self.db, "FOR d IN @docs INSERT d INTO cooccur", {"docs": chunk})
            order = write.rollups.get(doc_id, [])
            rows(self.db, """
                FOR d IN documents FILTER d._key == @key
                  UPDATE d WITH {entity_slugs: @slugs, entity_count: @n} IN documents OPTIONS {mergeObjects: false}""",
                 {"key": key_of(doc_id), "slugs": order, "n": len(order)})


class ArangoCurationMixin(CurationQueries):
    """The curation and analytics primitives of `ArangoStore` (the curation reads, `routes_leaving` among them, on `db`)."""

    db: Any
    evergreen_threshold: int

    def transaction(self, collections: Iterable[str] = ()) -> Any:  # provided by ArangoStore
        raise NotImplementedError

    def _write_steps(self, txn: Any) -> Any:  # provided by ArangoStore (arango_write builds on this module)
        raise NotImplementedError

    def _steps(self, txn: Any) -> CurationSteps:
        return CurationSteps(txn, self._write_steps(txn))

    def entity_nodes(self, *, slugs: Iterable[str] | None = None,
                     node_ids: Iterable[str] | None = None) -> list[NodeEntities]:
        """Entity lists of the paragraphs and tables mentioning any of `slugs` (or listed in `node_ids`)."""
        ids = set(node_ids or ())
        wanted = sorted(set(slugs or ()))
        if wanted:
            ids |= set(rows(self.db, "FOR n IN node_entities FILTER n.slug IN @slugs RETURN DISTINCT n.node_id",
                            {"slugs": wanted}))
        out: list[NodeEntities] = []
        for coll in TEXT_NODE_COLLECTIONS:
            keys = [key_of(i) for i in sorted(ids) if i.startswith(coll + "/")]
            if not keys:
                continue
            for nid, doc, slugs_, types, attrs in rows(self.db, f"""
                    FOR n IN @@coll FILTER n._key IN @keys
                      LET m = FIRST(FOR e IN edges FILTER e._from == n.id AND e.relation == "{MENTIONS}" LIMIT 1
                                    RETURN e.attrs)
                      RETURN [n.id, n.document_id, n.entity_slugs, n.entity_types, m]""", {"@coll": coll, "keys": keys}):
                out.append(NodeEntities(nid, doc, list(slugs_ or []), list(types or []), dict(attrs or {})))
        return sorted(out, key=lambda n: n.node_id)

    def entity_ops(self) -> list[EntityOp]:
        """The `entity_merges` log, oldest first (undone steps included, marked by `undone_at`)."""
        found = rows(self.db, "FOR o IN entity_merges SORT o.op_id RETURN o")
        return [from_dict(EntityOp, {**record(o), "id": o["op_id"],
                                            "before": {k: v for k, v in (o.get("before") or {}).items() if k != "seqs"}})
                for o in found]

    def entity_routes(self) -> list[tuple[int, str, str, str | None]]:
        """Active routes as (op id, node id or '', from slug, to slug or None)."""
        return [tuple(r) for r in rows(self.db, """
            FOR r IN entity_routes SORT r.op_id, r.node_id, r.from_slug
              RETURN [r.op_id, r.node_id, r.from_slug, r.to_slug]""")]

    def routed_links(self, op_id: int) -> list[tuple[list[Edge], list[Edge]]]:
        """(links before, links after) of each document re-ingested while step `op_id` routed its mentions, in order."""
        found = rows(self.db, "FOR r IN routed_links FILTER r.op_id == @op SORT r.seq RETURN [r.old, r.new]",
                     {"op": op_id})
        return [([Edge(**e) for e in old], [Edge(**e) for e in new]) for old, new in found]

    def routed_nodes(self, op_id: int) -> list[NodeEntities]:
        """Entity lists, as extracted, of nodes written after step `op_id` whose mentions it routed."""
        found = rows(self.db, "FOR r IN routed_nodes FILTER r.op_id == @op SORT r.node_id RETURN r.data", {"op": op_id})
        return [from_dict(NodeEntities, d) for d in found]

    def write_curation(self, step: CurationStep) -> int:
        """Persist one curation step atomically, its reads answered in the same transaction; returns the id
        of the log entry written (or undone)."""
        with self.transaction() as txn:
            return self._steps(txn).apply(step)

    def put_analytics(self, kind: str, rows: dict[str, Any], info: dict[str, Any]) -> None:
        """Replace every row of one analytics kind, and its run info, in one transaction."""
        docs = [{"_key": hashed_key("analytics", kind, str(k)), "kind": kind, "key": str(k), "value": v}
                for k, v in rows.items()]
        with self.transaction(["analytics", "meta"]) as txn:
            aql(txn, "FOR a IN analytics FILTER a.kind == @kind REMOVE a IN analytics", {"kind": kind})
            for chunk in chunks(docs):
                aql(txn, "FOR d IN @docs INSERT d INTO analytics", {"docs": chunk})
            aql(txn, 'INSERT {_key: @key, key: @name, value: @value} INTO meta OPTIONS {overwriteMode: "replace"}',
                {"key": "analytics." + kind, "name": "analytics." + kind, "value": info})

    def get_analytics(self, kind: str, keys: Iterable[str] | None = None) -> dict[str, Any]:
        """Rows of one analytics kind (all, or those with the given keys)."""
        if keys is None:
            found = rows(self.db, "FOR a IN analytics FILTER a.kind == @kind RETURN [a.key, a.value]", {"kind": kind})
        else:
            found = rows(self.db, "FOR a IN analytics FILTER a.kind == @kind AND a.key IN @keys RETURN [a.key, a.value]",
                         {"kind": kind, "keys": sorted(set(keys))})
        return dict(found)
