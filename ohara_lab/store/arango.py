"""`ArangoStore`: the atlas in ArangoDB (single server or cluster), through python-arango.

Collections follow the original's data model (spec §1): documents, sections,
paragraphs, tables and entities keyed by our ids' keys, one `edges` edge
collection whose `_from`/`_to` are our `collection/key` ids, and the
`ohara_search` ArangoSearch view (`text_en`, BM25 k1 1.2 b 0.75). Side
collections (node_tags, node_entities, cooccur, entity_names, vectors) keep
every retrieval primitive a single indexed AQL query.

Every document write is one stream transaction, begun with exclusive locks on
what it touches, committed only after the linker has run and aborted on any
exception, so a crash leaves the document fully present or absent. All AQL
carries its values in bind variables; there is no raw-query entry point.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

import numpy as np

from ..errors import StoreError
from ..ids import DOCUMENTS, in_collection, split_id
from .vectors import knn

try:
    from arango import ArangoClient
    from arango.exceptions import ArangoError
except ImportError as e:  # an optional extra: say which one, once, where the backend is chosen
    raise StoreError("the ArangoDB backend needs python-arango: pip install 'ohara-lab[arango]'") from e

from ..ids import PARAGRAPHS
from ..records import ANSWERS_SAME, SIMILAR_TO, CrawlPage, Document, Edge, Entity, Problem, from_dict, utc_now
from .arango_aql import first, hashed_key, key_of, next_seq, record, rows, valid_key
from .arango_check import run_checks
from .arango_connect import ArangoTarget, open_database, parse_url
from .arango_curation import ArangoCurationMixin
from .arango_schema import EDGES, NODE_COLLECTIONS, WRITE_COLLECTIONS, ensure_schema
from .arango_search import ArangoSearchMixin
from .arango_write import WriteSteps, check_keys
from .protocol import SharedQuestion, WriteSet

LOCK_TIMEOUT_S = 60  # like SQLite's busy timeout: wait this long for another writer


class ArangoStore(ArangoSearchMixin, ArangoCurationMixin):
    """Graph store in one ArangoDB database (see the module docstring)."""

    def __init__(self, db: Any, *, location: str, client: ArangoClient | None = None,
                 evergreen_threshold: int = 5, wait_for_search_sync: bool = False):
        """Wrap an already set-up database; use `from_url` / `connect` to open one by address.

        `wait_for_search_sync` makes every BM25 query wait for the search view to
        catch up with the latest writes (read-your-writes, at a cost per query).
        """
        self.db = db
        self.client = client
        self.location = location
        self.created = False  # a database is made by its administrator, never by an open
        self.directory = None  # a server's database: no folder here for caches beside it
        self.evergreen_threshold = evergreen_threshold
        self.wait_for_search_sync = wait_for_search_sync
        self._vec_cache: dict[str, tuple[Any, list[str], np.ndarray]] = {}
        self._models_cache: tuple[Any, dict[str, int]] | None = None

    # ------------------------------------------------------------------ opening
    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> ArangoStore:
        """Open (creating if needed) the atlas at `arangodb://user:pass@host:8529/db` or `http(s)://...`."""
        return cls.connect(parse_url(url), **kwargs)

    @classmethod
    def connect(cls, target: ArangoTarget, **kwargs: Any) -> ArangoStore:
        """Open the target database, creating it and the atlas schema when missing (idempotent)."""
        client = ArangoClient(hosts=list(target.hosts))
        try:
            db = open_database(client, target)
            ensure_schema(db)
        except BaseException:
            client.close()
            raise
        return cls(db, location=target.location, client=client, **kwargs)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()

    def discard(self) -> None:
        raise StoreError(f"{self.location}: an ArangoDB database is not deleted by ohara-lab")

    def __enter__(self) -> ArangoStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @contextmanager
    def transaction(self, collections: Iterable[str] = WRITE_COLLECTIONS) -> Iterator[Any]:
        """One stream transaction: committed when the block ends, aborted if it raises."""
        try:
            txn = self.db.begin_transaction(exclusive=list(collections), lock_timeout=LOCK_TIMEOUT_S)
        except ArangoError as e:
            raise StoreError(f"ArangoDB refused to begin a transaction: {e}") from e
        try:
            yield txn
        except BaseException:
            try:
                txn.abort_transaction()
            except ArangoError:
                pass  # the server drops an idle transaction itself; the original error matters more
            raise
        try:
            txn.commit_transaction()
        except ArangoError as e:
            raise StoreError(f"ArangoDB could not commit the transaction: {e}") from e

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Several reads as one unit. Each AQL query already reads one consistent (RocksDB) snapshot, and
        multi-statement reads here are single queries (e.g. `document_nodes`), so nothing more is taken."""
        yield None

    def write_group(self) -> AbstractContextManager[None]:
        """Every write here is its own stream transaction, committed when it ends: a group changes nothing."""
        return nullcontext()

    def commit_writes(self) -> None:
        """Nothing is left open to commit (see `write_group`)."""

    # ------------------------------------------------------------------ meta
    def set_meta(self, key: str, value: Any) -> None:
        rows(self.db, 'INSERT {_key: @key, key: @name, value: @value} INTO meta OPTIONS {overwriteMode: "replace"}',
             {"key": _meta_key(key), "name": key, "value": value})

    def get_meta(self, key: str, default: Any = None) -> Any:
        found = rows(self.db, "FOR m IN meta FILTER m._key == @key RETURN m.value", {"key": _meta_key(key)})
        return found[0] if found else default

    # ------------------------------------------------------------------ write side
    def _write_steps(self, txn: Any) -> WriteSteps:
        return WriteSteps(txn, self.evergreen_threshold)

    def write(self, writeset: WriteSet) -> None:
        check_keys(writeset.graph)
        with self.transaction() as txn:
            WriteSteps(txn, self.evergreen_threshold).write(writeset)

    def delete_document(self, document_id: str) -> bool:
        with self.transaction() as txn:
            return WriteSteps(txn, self.evergreen_threshold).delete(document_id)

    def update_edges(self, edges: Iterable[Edge]) -> int:
        wanted: dict[tuple[str, str, str], dict[str, Any]] = {}
        times: dict[tuple[str, str, str], int] = {}
        for e in edges:
            k = (e.from_id, e.to_id, e.relation)
            wanted[k] = e.attrs  # SQLite applies them in turn: the last one stays
            times[k] = times.get(k, 0) + 1
        if not wanted:
            return 0
        with self.transaction([EDGES, "meta"]) as txn:
            matched = rows(txn, """
                FOR x IN @wanted
                  FOR e IN edges FILTER e._from == x.f AND e._to == x.t AND e.relation == x.r
                  UPDATE e WITH {attrs: x.a} IN edges OPTIONS {mergeObjects: false}
                  RETURN [x.f, x.t, x.r]""",
                {"wanted": [{"f": f, "t": t, "r": r, "a": a} for (f, t, r), a in wanted.items()]})
            WriteSteps(txn, self.evergreen_threshold).bump_graph()
        return sum(times[tuple(m)] for m in matched)

    def add_edges(self, edges: Iterable[Edge]) -> int:
        edges = list(edges)
        with self.transaction() as txn:
            ends = sorted({e.from_id for e in edges} | {e.to_id for e in edges})
            known = set(rows(txn, "FOR i IN @ids LET d = DOCUMENT(i) FILTER d != null RETURN i", {"ids": ends}))
            keep = [e for e in edges if e.from_id in known and e.to_id in known]
            steps = WriteSteps(txn, self.evergreen_threshold)
            steps.insert_edges(keep, None)
            steps.refresh_indegree({e.to_id for e in keep if e.relation == SIMILAR_TO})
            if keep:
                steps.bump_graph()
        return len(keep)

    def replace_edges(self, relation: str, edges: Iterable[Edge]) -> int:
        edges = [e for e in edges if e.relation == relation]
        with self.transaction() as txn:
            rows(txn, "FOR e IN edges FILTER e.relation == @rel AND e.document_id == null REMOVE e IN edges",
                 {"rel": relation})
            ends = sorted({e.from_id for e in edges} | {e.to_id for e in edges})
            known = set(rows(txn, "FOR i IN @ids LET d = DOCUMENT(i) FILTER d != null RETURN i", {"ids": ends}))
            keep = [e for e in edges if e.from_id in known and e.to_id in known]
            steps = WriteSteps(txn, self.evergreen_threshold)
            steps.insert_edges(keep, None)
            steps.bump_graph()
        return len(keep)

    def relation_degrees(self, ids: Iterable[str], relation: str) -> dict[str, int]:
        found = rows(self.db, """
            FOR i IN @ids
              LET n = LENGTH(FOR e IN edges FILTER e._from == i AND e.relation == @rel RETURN 1)
                    + LENGTH(FOR e IN edges FILTER e._to == i AND e.relation == @rel RETURN 1)
              FILTER n > 0 RETURN [i, n]""", {"ids": sorted(set(ids)), "rel": relation})
        return dict(found)

    def update_document(self, document_id: str, changes: dict[str, Any]) -> bool:
        key = split_id(document_id)[1]
        with self.transaction(["documents"]) as txn:
            found = rows(txn, "FOR d IN documents FILTER d._key == @key UPDATE d WITH @changes IN documents"
                              " OPTIONS {mergeObjects: false} RETURN 1", {"key": key, "changes": changes})
        return bool(found)

    # ------------------------------------------------------------------ vectors
    def put_vectors(self, model: str, vectors: dict[str, np.ndarray]) -> None:
        with self.transaction(["vectors", "meta"]) as txn:
            WriteSteps(txn, self.evergreen_threshold).put_vectors(model, vectors, None)

    def delete_vectors(self, models: list[str]) -> None:
        """Drop every vector of the given models (after re-embedding with another one)."""
        with self.transaction(["vectors", "meta"]) as txn:
            WriteSteps(txn, self.evergreen_threshold).delete_vectors(models)

    def graph_version(self) -> int:
        return int(self.get_meta("graph_version", 0) or 0)

    def vector_matrix(self, model: str) -> tuple[list[str], np.ndarray]:
        version = self.get_meta("vectors_version", 0)
        cached = self._vec_cache.get(model)
        if cached and cached[0] == version:
            return cached[1], cached[2]
        found = sorted(rows(self.db, "FOR v IN vectors FILTER v.model == @model RETURN [v.node_id, v.vec]",
                            {"model": model}), key=lambda r: r[0])
        ids = [r[0] for r in found]
        matrix = np.asarray([r[1] for r in found], dtype=np.float32) if found else np.zeros((0, 0), dtype=np.float32)
        self._vec_cache[model] = (version, ids, matrix)
        return ids, matrix

    def vector_search(self, model: str, query: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Top-k (node id, cosine) by exact search over the cached matrix.

        No HNSW graph here: it would live in this client's memory, not with the data; at
        the scale where exact search hurts, ArangoDB's own vector index is the path
        (docs/stores.md, "Vectors").
        """
        ids, matrix = self.vector_matrix(model)
        return knn(ids, matrix, query, k)

    def sync_vector_index(self) -> None:
        """Nothing to keep in step: see `vector_search`."""

    def rebuild_vector_index(self) -> list[str]:
        """No index to rebuild: see `vector_search`."""
        return []

    def vector_models(self) -> dict[str, int]:
        # Asked on every query: count once per vectors_version, as `vector_matrix` loads once per version.
        version = self.get_meta("vectors_version", 0)
        if self._models_cache is None or self._models_cache[0] != version:
            counts = dict(rows(self.db, "FOR v IN vectors COLLECT m = v.model WITH COUNT INTO n RETURN [m, n]"))
            self._models_cache = (version, counts)
        return dict(self._models_cache[1])

    def texts_without_vectors(self, model: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for collection, field in (("paragraphs", "content"), ("tables", "markdown_representation")):
            found = rows(self.db, """
                FOR n IN @@coll
                  FILTER LENGTH(FOR v IN vectors FILTER v.node_id == n.id AND v.model == @model LIMIT 1 RETURN 1) == 0
                  RETURN [n.id, n[@field], n.document_id, n.doc_position]""",
                {"@coll": collection, "model": model, "field": field})
            out += [(r[0], r[1]) for r in sorted(found, key=lambda r: (r[2], r[3]))]
        return out

    # ------------------------------------------------------------------ read side
    def find_documents(self, *, file_hash: str | None = None, origin_path: str | None = None) -> list[Document]:
        if file_hash is not None:
            found = rows(self.db, "FOR d IN documents FILTER d.file_hash == @v RETURN d", {"v": file_hash})
        elif origin_path is not None:
            found = rows(self.db, "FOR d IN documents FILTER d.origin_path == @v RETURN d", {"v": origin_path})
        else:
            found = []
        return [from_dict(Document, record(d)) for d in found]

    def get_document(self, document_id: str) -> Document | None:
        if not in_collection(document_id, DOCUMENTS):
            return None
        d = first(self.db, "FOR d IN documents FILTER d._key == @key RETURN d", {"key": key_of(document_id)})
        return from_dict(Document, record(d)) if d else None

    def list_documents(self) -> list[Document]:
        docs = [from_dict(Document, record(d)) for d in rows(self.db, "FOR d IN documents RETURN d")]
        return sorted(docs, key=lambda d: (d.title, d.id))

    def get_nodes(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        by_coll: dict[str, list[str]] = {}
        for nid in ids:
            coll = split_id(nid)[0]
            if coll in NODE_COLLECTIONS:
                by_coll.setdefault(coll, []).append(key_of(nid))
        out: dict[str, dict[str, Any]] = {}
        for coll, keys in by_coll.items():
            for doc in rows(self.db, "FOR n IN @@coll FILTER n._key IN @keys RETURN n", {"@coll": coll, "keys": keys}):
                out[doc["id"]] = {**record(doc), "collection": coll}
        return out

    def document_nodes(self, document_id: str) -> dict[str, list[dict[str, Any]]]:
        found = first(self.db, """
            RETURN {
              sections: (FOR n IN sections FILTER n.document_id == @doc SORT n.doc_position RETURN n),
              paragraphs: (FOR n IN paragraphs FILTER n.document_id == @doc SORT n.doc_position RETURN n),
              tables: (FOR n IN tables FILTER n.document_id == @doc SORT n.doc_position RETURN n)
            }""", {"doc": document_id}, {}) or {}
        return {c: [record(n) for n in found.get(c, [])] for c in ("sections", "paragraphs", "tables")}

    def get_entities(self, slugs: Iterable[str] | None = None) -> list[Entity]:
        if slugs is None:
            found = rows(self.db, "FOR e IN entities RETURN e")
        else:
            found = rows(self.db, "FOR e IN entities FILTER e._key IN @slugs RETURN e", {"slugs": list(slugs)})
        return sorted((from_dict(Entity, record(e)) for e in found), key=lambda e: e.slug)

    def edges(self, *, from_ids: Iterable[str] | None = None, to_ids: Iterable[str] | None = None,
              relations: Iterable[str] | None = None) -> list[Edge]:
        where, bind = [], {}
        for name, attribute, values in (("froms", "_from", from_ids), ("tos", "_to", to_ids),
                                        ("rels", "relation", relations)):
            if values is not None:
                values = list(values)
                if not values:
                    return []
                where.append(f"e.{attribute} IN @{name}")
                bind[name] = values
        query = "FOR e IN edges " + (f"FILTER {' AND '.join(where)} " if where else "") + \
                "SORT e.seq, e._key RETURN [e._from, e._to, e.relation, e.attrs]"
        return [Edge(f, t, r, a or {}) for f, t, r, a in rows(self.db, query, bind)]

    def answers_same(self, ids: Iterable[str]) -> list[SharedQuestion]:
        """Paragraphs linked by ANSWERS_SAME from `ids`, with the shared question (by seed, then target id)."""
        found = rows(self.db, f"""
            FOR e IN edges FILTER e._from IN @ids AND e.relation == "{ANSWERS_SAME}"
              LET p = DOCUMENT(e._to)
              FILTER p != null
              SORT e._from, e._to
              RETURN [e._from, e._to, p.document_id, e.attrs.shared_query, e.attrs.shared_query_norm]""",
                     {"ids": sorted(set(ids))})
        return [SharedQuestion(s, t, d, q or "", n or "") for s, t, d, q, n in found]

    # ------------------------------------------------------------------ feedback
    def add_feedback(self, query: str, query_hash: str, node_id: str, rank: int | None, signal: str) -> None:
        if signal not in ("positive", "negative"):
            raise StoreError(f"feedback signal must be positive or negative, not {signal!r}")
        rows(self.db, "INSERT @row INTO feedback", {"row": {
            "ts": utc_now(), "query": query, "query_hash": query_hash, "node_id": node_id, "rank": rank,
            "signal": signal, "seq": next_seq()}})

    def feedback(self) -> list[dict[str, Any]]:
        return rows(self.db, "FOR f IN feedback SORT f.seq, f._key"
                         " RETURN KEEP(f, 'ts', 'query', 'query_hash', 'node_id', 'rank', 'signal')")

    # ------------------------------------------------------------------ crawl
    def put_crawl_pages(self, pages: Iterable[CrawlPage]) -> None:
        """Insert or replace crawl pages by URL, all in one transaction (a page keeps its discovery order)."""
        pages = list(pages)
        if not pages:
            return
        seq = next_seq(len(pages))
        docs = [{**p.to_dict(), "_key": hashed_key(p.url), "seq": seq + i} for i, p in enumerate(pages)]
        with self.transaction(["crawl"]) as txn:
            rows(txn, "FOR p IN @pages UPSERT {_key: p._key} INSERT p REPLACE MERGE(p, {seq: OLD.seq}) IN crawl",
                 {"pages": docs})

    def crawl_pages(self, *, urls: Iterable[str] | None = None, hosts: Iterable[str] | None = None,
                    run: int | None = None, states: Iterable[str] | None = None) -> list[CrawlPage]:
        """Crawl pages matching every filter given, by depth then discovery order."""
        bind = {"keys": None if urls is None else [hashed_key(u) for u in dict.fromkeys(urls)],
                "hosts": None if hosts is None else list(hosts), "run": run,
                "states": None if states is None else list(states)}
        found = rows(self.db, """
            FOR p IN crawl
              FILTER (@keys == null OR p._key IN @keys) AND (@hosts == null OR p.host IN @hosts)
                 AND (@run == null OR p.run == @run) AND (@states == null OR p.state IN @states)
              SORT p.depth, p.seq RETURN p""", bind)
        return [from_dict(CrawlPage, record(p)) for p in found]

    # ------------------------------------------------------------------ stats and integrity
    def stats(self) -> dict[str, Any]:
        s = first(self.db, f"""
            RETURN {{
              documents: LENGTH(documents), sections: LENGTH(sections), paragraphs: LENGTH(paragraphs),
              tables: LENGTH(tables), entities: LENGTH(entities),
              edges: (FOR e IN edges COLLECT r = e.relation WITH COUNT INTO n RETURN [r, n]),
              partial_documents: LENGTH(FOR d IN documents FILTER d.ingestion_status != "complete" RETURN 1),
              needs_review: LENGTH(FOR d IN documents FILTER d.structure_needs_review == true RETURN 1),
              llm_pending: LENGTH(FOR p IN paragraphs FILTER p.llm_pending == true RETURN 1),
              tagged_paragraphs: LENGTH(FOR t IN node_tags FILTER STARTS_WITH(t.node_id, "{PARAGRAPHS}/")
                                        COLLECT n = t.node_id RETURN 1)
            }}""", None, {}) or {}
        out = {k: s.get(k, 0) for k in ("documents", "sections", "paragraphs", "tables", "entities")}
        out["edges"] = dict(sorted((r, n) for r, n in s.get("edges", [])))
        out.update({k: s.get(k, 0) for k in ("partial_documents", "needs_review", "llm_pending", "tagged_paragraphs")})
        out["vectors"] = self.vector_models()
        return out

    def check(self) -> list[Problem]:
        try:
            return run_checks(self.db)
        except ArangoError as e:
            raise StoreError(f"ArangoDB integrity check failed: {e}") from e


def _meta_key(key: str) -> str:
    """Readable keys stay as they are; anything ArangoDB cannot use as a key is hashed."""
    return key if valid_key(key) else "h-" + hashed_key(key)
