"""The write side of `ArangoStore`: every step of writing or deleting a document, run
against one stream transaction.

The steps mirror `SqliteStore` one for one (the WriteSet's entity records, names and
rows, RELATED_TO from per-document co-occurrence, derived entity counts, SIMILAR_TO
in-degree and EVERGREEN promotion, vectors per model); only the query language differs. Each
AQL query modifies at most one collection and reads it only before writing,
which is what ArangoDB allows inside one query.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..dates import date_span
from ..errors import StoreError
from ..ids import DOCUMENTS, entity_id, in_collection, split_id
from ..records import RELATED_TO, SIMILAR_TO, Document, DocumentGraph, Edge, Entity, effective_decay_class, from_dict
from .arango_aql import bump, chunks, first, hashed_key, key_of, next_seq, record, rows, valid_key
from .arango_curation import CurationQueries
from .protocol import DuplicateDocument, KnownState, Overlap, WriteRows, WriteSet, jaccard

VECTOR_OWNERS = ("documents", "sections", "paragraphs", "tables")


def check_keys(graph: DocumentGraph) -> None:
    """Refuse, before any transaction starts, ids that ArangoDB cannot store as keys."""
    ids = graph.node_ids() + [e.id for e in graph.entities]
    ids += [i for e in graph.edges for i in (e.from_id, e.to_id)]
    for nid in ids:
        if not valid_key(key_of(nid)):
            raise StoreError(f"{nid!r} cannot be stored in ArangoDB (keys are at most 254 characters"
                             " of letters, digits and _-:.@()+,=;$!*'%)")


class WriteSteps(CurationQueries):
    """Document writes and deletes inside one transaction (`db` is a `TransactionDatabase`)."""

    def __init__(self, db: Any, evergreen_threshold: int):
        self.db = db
        self.evergreen_threshold = evergreen_threshold

    # ------------------------------------------------------------------ write
    def write(self, writeset: WriteSet) -> None:
        graph, replaces = writeset.graph, writeset.replaces
        state = self.known_state(writeset)
        old_links = self.links_of(graph.document.id) if graph.document.id in replaces else []
        for doc_id in replaces:
            self.delete(doc_id)
        doc = graph.document
        taken = first(self.db, "RETURN LENGTH(FOR d IN documents FILTER d._key == @key LIMIT 1 RETURN 1)"
                               " + LENGTH(FOR d IN documents FILTER d.file_hash == @hash LIMIT 1 RETURN 1)",
                      {"key": key_of(doc.id), "hash": doc.file_hash}, 0)
        if taken:
            raise DuplicateDocument(doc.id)
        routed = writeset.curate(self, state)
        found = writeset.rows()
        self._insert_nodes(graph)
        self._upsert_entities(found)
        self.insert_edges(graph.edges, doc.id)
        self._insert_side_rows(doc.id, found)
        self._link_questions(writeset, found)
        self._insert("cooccur", [{"document_id": doc.id, "a": a, "b": b, "n": n}
                                 for (a, b), n in found.cooccurrence.items()])
        self.refresh_related(found.cooccurrence)
        self.refresh_entities({e.slug for e in graph.entities})
        touched = {doc.id}
        links: list[Edge] = []
        if writeset.linker is not None:
            links = writeset.linker(graph, LinkView(self.db, doc.id))
            self.insert_edges(links, None)
            touched |= {e.to_id for e in links} | {e.from_id for e in links}
        self.refresh_indegree(touched)
        if graph.vectors and graph.vector_model:
            self.put_vectors(graph.vector_model, graph.vectors, doc.id)
        self.record_routed(routed)
        if routed and doc.id in replaces:
            self.record_links(set(routed), doc.id, old_links, links)
        self.bump_graph()

    def known_state(self, writeset: WriteSet) -> KnownState:
        """The records a write reads before the documents it replaces take entities along with them."""
        return writeset.known_state(self)

    def entity_mapping(self, entities: list[Entity]) -> dict[str, str]:
        """Incoming slug -> the oldest existing slug with the same norm_key (atlas-level dedup)."""
        if not entities:
            return {}
        found = rows(self.db, """
            FOR ent IN @ents
              FILTER LENGTH(FOR e IN entities FILTER e._key == ent.slug LIMIT 1 RETURN 1) == 0
              LET other = FIRST(FOR e IN entities FILTER e.norm_key == ent.norm_key
                                SORT e.seq, e._key LIMIT 1 RETURN e.slug)
              FILTER other != null
              RETURN [ent.slug, other]""", {"ents": [{"slug": e.slug, "norm_key": e.norm_key} for e in entities]})
        return dict(found)

    def _insert_nodes(self, g: DocumentGraph) -> None:
        d = g.document
        lo, hi = date_span(d.published_date, d.temporal_coverage_start, d.temporal_coverage_end)
        doc = {**g.document.to_dict(), "_key": key_of(g.document.id), "date_lo": lo, "date_hi": hi}
        for collection, docs in (("documents", [doc]),
                                 ("sections", [_stored(s.to_dict()) for s in g.sections]),
                                 ("paragraphs", [_stored(p.to_dict()) for p in g.paragraphs]),
                                 ("tables", [_stored(t.to_dict()) for t in g.tables])):
            self._insert(collection, docs)

    def _insert(self, collection: str, docs: list[dict[str, Any]], options: str = "") -> None:
        for chunk in chunks(docs):
            rows(self.db, f"FOR d IN @docs INSERT d INTO @@coll {options}", {"docs": chunk, "@coll": collection})

    def _upsert_entities(self, found: WriteRows) -> None:
        """Insert the WriteSet's new entity records, rewrite the aliases of the ones that gained some; every name."""
        base = next_seq(len(found.new_entities))
        self._insert("entities", [{**e.to_dict(), "_key": e.slug, "seq": base + i} for i, e in enumerate(found.new_entities)])
        updates = [{"key": e.slug, "aliases": e.aliases} for e in sorted(found.merged_entities, key=lambda e: e.slug)]
        if updates:
            rows(self.db, "FOR u IN @rows UPDATE u.key WITH {aliases: u.aliases} IN entities", {"rows": updates})
        names = {hashed_key(k, slug): {"norm_key": k, "slug": slug} for k, slug in found.names}
        self._insert("entity_names", [{"_key": k, **v} for k, v in names.items()],
                     'OPTIONS {overwriteMode: "ignore"}')

    def insert_edges(self, edges: Iterable[Edge], owner: str | None) -> None:
        """Upsert edges by (from, to, relation): a repeated edge replaces the attributes, never duplicates."""
        unique: dict[tuple[str, str, str], Edge] = {}
        for e in edges:
            unique[(e.from_id, e.to_id, e.relation)] = e  # the last attributes win, as in SQLite
        if not unique:
            return
        base = next_seq(len(unique))
        docs = [{"_from": e.from_id, "_to": e.to_id, "relation": e.relation, "type": e.relation,
                 "document_id": owner, "attrs": e.attrs, "seq": base + i} for i, e in enumerate(unique.values())]
        for chunk in chunks(docs):
            rows(self.db, """
                FOR e IN @rows
                  UPSERT {_from: e._from, _to: e._to, relation: e.relation}
                  INSERT e
                  UPDATE {attrs: e.attrs}
                  IN edges OPTIONS {mergeObjects: false}""", {"rows": chunk})

    def _insert_side_rows(self, doc: str, found: WriteRows) -> None:
        self._insert("node_tags", [{"node_id": nid, "document_id": doc, "tag": tag} for nid, tag in found.tags])
        self._insert("node_entities", [{"node_id": nid, "document_id": doc, "slug": slug, "type": kind}
                                       for nid, slug, kind in found.mentions])

    def _link_questions(self, writeset: WriteSet, found: WriteRows) -> None:
        """Store the document's questions; the WriteSet's ANSWERS_SAME edges with every paragraph sharing one."""
        doc = writeset.graph.document.id
        if not found.questions:
            return
        self._insert("node_questions", [{"node_id": nid, "document_id": doc, "norm": norm, "question": text}
                                        for nid, norm, text in found.questions])
        pairs = rows(self.db, """
            FOR a IN node_questions FILTER a.document_id == @doc
              FOR b IN node_questions FILTER b.norm == a.norm AND b.node_id != a.node_id
              SORT a.norm, a.node_id, b.node_id
              RETURN [a.node_id, b.node_id, a.norm, a.question, b.question]""", {"doc": doc})
        self.insert_edges(writeset.answers_same([tuple(p) for p in pairs]), doc)

    # ------------------------------------------------------------------ derived values
    def refresh_related(self, pairs: Iterable[tuple[str, str]]) -> None:
        """RELATED_TO a->b carries the atlas-wide co-occurrence count; zero-count edges go."""
        pairs = sorted(pairs)
        if not pairs:
            return
        totals = {(a, b): n for a, b, n in rows(self.db, """
            FOR p IN @pairs
              RETURN [p.a, p.b, SUM(FOR c IN cooccur FILTER c.a == p.a AND c.b == p.b RETURN c.n)]""",
            {"pairs": [{"a": a, "b": b} for a, b in pairs]})}
        keep = [(a, b, totals[(a, b)]) for a, b in pairs if totals.get((a, b))]
        gone = [{"_from": entity_id(a), "_to": entity_id(b)} for a, b in pairs if not totals.get((a, b))]
        base = next_seq(len(keep))
        upserts = [{"_from": entity_id(a), "_to": entity_id(b), "count": n, "seq": base + i}
                   for i, (a, b, n) in enumerate(keep)]
        for chunk in chunks(upserts):
            rows(self.db, f"""
                FOR r IN @rows
                  UPSERT {{_from: r._from, _to: r._to, relation: "{RELATED_TO}"}}
                  INSERT {{_from: r._from, _to: r._to, relation: "{RELATED_TO}", type: "{RELATED_TO}",
                          document_id: null, attrs: {{count: r.count}}, seq: r.seq}}
                  UPDATE {{attrs: {{count: r.count}}}}
                  IN edges OPTIONS {{mergeObjects: false}}""", {"rows": chunk})
        for chunk in chunks(gone):
            rows(self.db, f"""
                FOR r IN @rows
                  FOR e IN edges FILTER e._from == r._from AND e._to == r._to AND e.relation == "{RELATED_TO}"
                  REMOVE e IN edges""", {"rows": chunk})

    def refresh_entities(self, slugs: Iterable[str]) -> None:
        """Derive mention_count and document_ids from the mentions; entities nobody mentions go."""
        slugs = sorted(set(slugs))
        if not slugs:
            return
        found = rows(self.db, """
            FOR s IN @slugs
              LET docs = (FOR n IN node_entities FILTER n.slug == s RETURN n.document_id)
              RETURN {slug: s, count: LENGTH(docs), docs: UNIQUE(docs)}""", {"slugs": slugs})
        counts = {r["slug"]: r for r in found}
        dead = [s for s in slugs if not (counts.get(s) or {}).get("count")]
        live = [{"key": s, "count": counts[s]["count"], "docs": sorted(counts[s]["docs"])}
                for s in slugs if s not in dead]
        if live:
            rows(self.db, """
                FOR u IN @rows
                  FOR e IN entities FILTER e._key == u.key
                  UPDATE e WITH {mention_count: u.count, document_ids: u.docs} IN entities""", {"rows": live})
        if dead:
            rows(self.db, "FOR s IN @slugs FOR e IN entities FILTER e._key == s REMOVE e IN entities",
                 {"slugs": dead})
            # Atlas-level edges of a removed entity (SYNONYM_OF) must not dangle.
            rows(self.db, """
                FOR s IN @ids FOR e IN edges FILTER e._from == s OR e._to == s REMOVE e IN edges""",
                 {"ids": [entity_id(s) for s in dead]})
            rows(self.db, "FOR s IN @slugs FOR n IN entity_names FILTER n.slug == s REMOVE n IN entity_names",
                 {"slugs": dead})

    def refresh_indegree(self, ids: Iterable[str]) -> None:
        """SIMILAR_TO in-degree of documents, and EVERGREEN promotion at the threshold (spec §2.10-8)."""
        keys = sorted({key_of(i) for i in ids if in_collection(i, DOCUMENTS)})
        if not keys:
            return
        found = rows(self.db, f"""
            FOR k IN @keys
              FOR d IN documents FILTER d._key == k
              RETURN {{doc: d, n: LENGTH(FOR e IN edges FILTER e._to == d._id AND e.relation == "{SIMILAR_TO}" RETURN 1)}}""",
            {"keys": keys})
        updates = []
        for r in found:
            doc = from_dict(Document, record(r["doc"]))
            updates.append({"key": key_of(doc.id), "n": r["n"],
                            "cls": effective_decay_class(doc.decay_class, r["n"], self.evergreen_threshold)})
        if updates:
            rows(self.db, """
                FOR u IN @rows
                  UPDATE u.key WITH {similar_to_indegree: u.n, effective_decay_class: u.cls} IN documents""",
                 {"rows": updates})

    # ------------------------------------------------------------------ delete
    def delete(self, doc_id: str) -> bool:
        if not in_collection(doc_id, DOCUMENTS):
            return False
        key = key_of(doc_id)
        if not rows(self.db, "FOR d IN documents FILTER d._key == @key RETURN d._id", {"key": key}):
            return False
        info = first(self.db, f"""
            RETURN {{
              slugs: UNIQUE(FOR n IN node_entities FILTER n.document_id == @doc RETURN n.slug),
              pairs: (FOR c IN cooccur FILTER c.document_id == @doc RETURN [c.a, c.b]),
              linked: UNION_DISTINCT(
                (FOR e IN edges FILTER e._from == @doc AND e.relation == "{SIMILAR_TO}" RETURN e._to),
                (FOR e IN edges FILTER e._to == @doc AND e.relation == "{SIMILAR_TO}" RETURN e._from)),
              gone: UNION([@doc],
                (FOR n IN sections FILTER n.document_id == @doc RETURN n._id),
                (FOR n IN paragraphs FILTER n.document_id == @doc RETURN n._id),
                (FOR n IN tables FILTER n.document_id == @doc RETURN n._id))
            }}""", {"doc": doc_id}, {}) or {}
        gone = info.get("gone") or [doc_id]
        # Owned edges plus every edge touching a removed node (SIMILAR_TO from other documents included).
        rows(self.db, """
            LET owned = (FOR e IN edges FILTER e.document_id == @doc RETURN e)
            LET outgoing = (FOR gid IN @gone FOR e IN edges FILTER e._from == gid RETURN e)
            LET incoming = (FOR gid IN @gone FOR e IN edges FILTER e._to == gid RETURN e)
            FOR e IN UNION_DISTINCT(owned, outgoing, incoming)
              REMOVE e IN edges""", {"doc": doc_id, "gone": gone})
        for collection in ("sections", "paragraphs", "tables", "node_tags", "node_entities", "node_questions", "cooccur",
                           "vectors", "routed_nodes"):
            rows(self.db, "FOR n IN @@coll FILTER n.document_id == @doc REMOVE n IN @@coll",
                 {"@coll": collection, "doc": doc_id})
        rows(self.db, "REMOVE @key IN documents", {"key": key})
        self.refresh_related({(a, b) for a, b in info.get("pairs") or []})
        self.refresh_entities(info.get("slugs") or [])
        self.refresh_indegree(info.get("linked") or [])
        self.bump_vectors()
        self.bump_graph()
        return True

    # ------------------------------------------------------------------ vectors
    def put_vectors(self, model: str, vectors: dict[str, np.ndarray], doc_id: str | None) -> None:
        owners = dict.fromkeys(vectors, doc_id) if doc_id else self._owners(list(vectors))
        docs = []
        for nid, vec in vectors.items():
            arr = np.asarray(vec, dtype=np.float32).ravel()
            docs.append({"node_id": nid, "model": model, "document_id": owners[nid], "dim": int(arr.size),
                         "vec": arr.tolist()})
        for chunk in chunks(docs, 200):
            rows(self.db, """
                FOR v IN @vecs
                  UPSERT {node_id: v.node_id, model: v.model}
                  INSERT v
                  UPDATE {vec: v.vec, dim: v.dim}
                  IN vectors""", {"vecs": chunk})
        self.bump_vectors()

    def _owners(self, ids: list[str]) -> dict[str, str]:
        """The document each node belongs to; an unknown node is an error, as in SQLite."""
        owners = {nid: nid for nid in ids if in_collection(nid, DOCUMENTS)}
        by_coll: dict[str, list[str]] = {}
        for nid in ids:
            coll = split_id(nid)[0]
            if coll not in VECTOR_OWNERS:
                raise StoreError(f"cannot store a vector for {nid} (not a document, section, paragraph or table)")
            if coll != "documents":
                by_coll.setdefault(coll, []).append(key_of(nid))
        for coll, keys in by_coll.items():
            for nid, owner in rows(self.db, "FOR n IN @@coll FILTER n._key IN @keys RETURN [n._id, n.document_id]",
                                   {"@coll": coll, "keys": keys}):
                owners[nid] = owner
        missing = [nid for nid in ids if nid not in owners]
        if missing:
            raise StoreError(f"cannot store a vector for unknown node {missing[0]}")
        return owners

    def delete_vectors(self, models: list[str]) -> None:
        rows(self.db, "FOR v IN vectors FILTER v.model IN @models REMOVE v IN vectors", {"models": list(models)})
        self.bump_vectors()

    def bump_vectors(self) -> None:
        """Readers cache vector matrices by this counter (see `ArangoStore.vector_matrix`)."""
        bump(self.db, "vectors_version")


class LinkView:
    """What a linker may read inside the write transaction (see `LinkContext`)."""

    def __init__(self, db: Any, document_id: str):
        self.db, self.document_id = db, document_id

    def entity_overlap(self, slugs: Iterable[str], exclude_types: Iterable[str] = (),
                       min_jaccard: float = 0.0) -> list[Overlap]:
        slugs = sorted(set(slugs))
        if not slugs:
            return []
        found = rows(self.db, """
            FOR n IN node_entities
              FILTER n.slug IN @slugs AND n.document_id != @doc AND n.type NOT IN @excluded
              COLLECT d = n.document_id INTO shared = n.slug
              LET size = LENGTH(UNIQUE(FOR m IN node_entities
                                       FILTER m.document_id == d AND m.type NOT IN @excluded RETURN m.slug))
              LET doc = DOCUMENT(d)
              FILTER doc != null
              RETURN {doc: doc, size: size, shared: UNIQUE(shared)}""",
            {"slugs": slugs, "doc": self.document_id, "excluded": list(exclude_types)})
        out = [Overlap(from_dict(Document, record(r["doc"])), r["size"], sorted(r["shared"])) for r in found
               if jaccard(len(slugs), r["size"], len(r["shared"])) >= min_jaccard]
        return sorted(out, key=lambda o: o.document.id)

    def snippets(self, document_id: str, n: int = 3, min_chars: int = 50) -> list[str]:
        return rows(self.db, """
            FOR p IN paragraphs
              FILTER p.document_id == @doc AND CHAR_LENGTH(p.content) > @min
              SORT p.doc_position LIMIT @n
              RETURN p.content""", {"doc": document_id, "min": min_chars, "n": n})


def _stored(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "_key": key_of(data["id"])}
