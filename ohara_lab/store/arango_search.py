"""Retrieval primitives of `ArangoStore`: ArangoSearch BM25, tag overlap, entity pivot,
SIMILAR_TO expansion and structural traversal, each one AQL query with bind variables.

Semantics follow `sqlite_search` exactly (same hit types, same gates, same tie
rules); final orderings on strings are done in Python because ArangoDB sorts
strings by ICU collation and SQLite by bytes.
"""
from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Any

from ..ids import DOCUMENTS, ENTITIES, SECTIONS, in_collection, split_id
from ..records import HAS_CHILD, RELATED_TO, SIMILAR_TO, SYNONYM_OF
from .arango_aql import record, rows
from .protocol import STRUCTURAL_RELATIONS, DocLink, EntityHit, Neighbour, PassageEntityGraph, TagHit, TextHit

BM25_K1, BM25_B = 1.2, 0.75  # the original's ArangoSearch parameters (spec §1.3)

# Traversals name their vertex collections up front: a cluster requires it.
_WITH = "WITH documents, sections, paragraphs, tables, entities"


class ArangoSearchMixin:
    db: Any
    wait_for_search_sync: bool

    # ---------------------------------------------------------------- phase 1
    def bm25_search(self, tokens: Sequence[str], limit: int, *, date_from: str | None = None,
                    date_to: str | None = None, exclude_documents: Collection[str] = ()) -> list[TextHit]:
        """BM25 over paragraph content, section titles and table markdown (any token matches).

        A date range filters documents *before* the limit by day-level bounds and
        keeps undated documents, as `SqliteStore.bm25_search` does.
        """
        text = " ".join(t for t in tokens if t)
        if not text:
            return []
        # The view commits changes about once a second; waiting makes a just-written document searchable.
        sync = "OPTIONS {waitForSync: true}" if self.wait_for_search_sync else ""
        found = rows(self.db, f"""
            LET toks = TOKENS(@text, "text_en")
            FOR n IN ohara_search
              SEARCH ANALYZER(n.content IN toks OR n.title IN toks OR n.markdown_representation IN toks, "text_en")
              {sync}
              LET d = DOCUMENT(n.document_id)
              FILTER @date_from == null OR d.date_hi == null OR d.date_hi >= @date_from
              FILTER @date_to == null OR d.date_lo == null OR d.date_lo <= @date_to
              FILTER n.document_id NOT IN @exclude
              LET score = BM25(n, @k1, @b)
              SORT score DESC, n._id
              LIMIT @limit
              RETURN {{id: n._id, document_id: n.document_id, score: score}}""",
            {"text": text, "date_from": date_from, "date_to": date_to, "k1": BM25_K1, "b": BM25_B, "limit": limit,
             "exclude": sorted(exclude_documents)})
        return [TextHit(r["id"], split_id(r["id"])[0], r["document_id"], float(r["score"]))
                for r in found if r["score"] and r["score"] > 0]

    def bm25_max_score(self, tokens: Sequence[str]) -> float:
        """Σ idf(t)·(k1+1) with ArangoSearch's BM25 idf ln(1 + (N − n + 0.5) / (n + 0.5)) (Lucene's)."""
        n_rows = self.corpus_stats()["fts_rows"]
        return sum(math.log(1 + (n_rows - df + 0.5) / (df + 0.5)) * (BM25_K1 + 1)
                   for df in self.term_document_counts(tokens).values() if df)

    def term_document_counts(self, tokens: Sequence[str]) -> dict[str, int]:
        """Searchable rows holding each token under the view's `text_en` analyser."""
        out = {}
        for token in dict.fromkeys(t for t in tokens if t):
            found = rows(self.db, """
                LET toks = TOKENS(@text, "text_en")
                FOR n IN ohara_search
                  SEARCH ANALYZER(n.content IN toks OR n.title IN toks OR n.markdown_representation IN toks, "text_en")
                  COLLECT WITH COUNT INTO c RETURN c""", {"text": token})
            out[token] = int(found[0]) if found else 0
        return out

    def corpus_stats(self) -> dict[str, float]:
        """Size of the searchable corpus (the SQLite store reports its FTS rows)."""
        n = rows(self.db, "RETURN LENGTH(sections) + LENGTH(paragraphs) + LENGTH(tables)")
        return {"fts_rows": n[0] if n else 0}

    # ---------------------------------------------------------------- phase 1b
    def tag_overlap(self, tag_weights: dict[str, float], limit: int, *, types: Sequence[str] = (),
                    type_weight: float = 0.2, norm: float = 1.0) -> list[TagHit]:
        """Paragraphs/tables scored `Σ tag weights / norm + type_weight·|types ∩ entity types| / |types|`."""
        if not tag_weights:
            return []
        found = rows(self.db, f"""
            LET w = @weights
            LET types = @types
            FOR t IN node_tags
              FILTER t.tag IN @tags AND !STARTS_WITH(t.node_id, "{SECTIONS}/")
              COLLECT node = t.node_id, doc = t.document_id INTO matched = t.tag
              LET s = SUM(FOR tag IN matched RETURN w[tag]) / @norm
              LET ty = LENGTH(types) == 0 ? 0 : @tw * LENGTH(UNIQUE(
                  FOR e IN node_entities FILTER e.node_id == node AND e.type IN types RETURN e.type)) / LENGTH(types)
              LET score = s + ty
              SORT score DESC, node
              LIMIT @limit
              RETURN {{id: node, document_id: doc, score: score, matched: matched}}""",
            {"weights": dict(tag_weights), "tags": list(tag_weights), "types": list(types), "norm": norm,
             "tw": type_weight, "limit": limit})
        return [TagHit(r["id"], r["document_id"], float(r["score"]), list(r["matched"])) for r in found]

    # ---------------------------------------------------------------- phase 2
    def entity_pivot(self, slugs: Sequence[str], limit: int) -> list[EntityHit]:
        """Paragraphs/tables mentioning the most of `slugs`."""
        if not slugs:
            return []
        found = rows(self.db, """
            FOR n IN node_entities
              FILTER n.slug IN @slugs
              COLLECT node = n.node_id, doc = n.document_id INTO shared = n.slug
              SORT LENGTH(shared) DESC, node
              LIMIT @limit
              RETURN {id: node, document_id: doc, shared: shared}""", {"slugs": list(slugs), "limit": limit})
        return [EntityHit(r["id"], r["document_id"], list(r["shared"])) for r in found]

    def entities_by_names(self, keys: Sequence[str]) -> dict[str, list[str]]:
        """norm_key -> entity slugs whose name or alias has that norm_key."""
        if not keys:
            return {}
        out: dict[str, list[str]] = {}
        for k, slug in rows(self.db, "FOR n IN entity_names FILTER n.norm_key IN @keys RETURN [n.norm_key, n.slug]",
                            {"keys": list(keys)}):
            out.setdefault(k, []).append(slug)
        return {k: sorted(v) for k, v in out.items()}

    def entity_types(self, slugs: Sequence[str]) -> dict[str, str]:
        if not slugs:
            return {}
        return dict(rows(self.db, "FOR e IN entities FILTER e._key IN @slugs RETURN [e.slug, e.type]",
                         {"slugs": list(slugs)}))

    # ---------------------------------------------------------------- phase 1c
    def similar_documents(self, seeds: Sequence[str], depth: int, *, min_weight: float = 0.3,
                          tags: Sequence[str] = (), min_path_weight: float = 0.0) -> list[DocLink]:
        """Documents reached from `seeds` over SIMILAR_TO (either direction) within `depth` hops.

        Every hop must pass the gate (weight > `min_weight` or an edge tag among
        `tags`): PRUNE stops at the first failing edge and the FILTER drops a
        path whose last edge fails. One row per (seed, reached document): the
        shortest path, strongest on ties.
        """
        if not seeds or depth < 1:
            return []
        gate = (f'(e.relation == "{SIMILAR_TO}" AND ((e.attrs.weight != null AND TO_NUMBER(e.attrs.weight) > @min)'
                ' OR LENGTH(INTERSECTION(TO_ARRAY(e.attrs.tags), @tags)) > 0))')
        found = rows(self.db, f"""
            {_WITH}
            FOR seed IN @seeds
              FOR v, e, p IN 1..@depth ANY seed edges
                PRUNE e != null AND NOT {gate}
                OPTIONS {{uniqueVertices: "path"}}
                FILTER p.edges[*].relation ALL == "{SIMILAR_TO}"
                FILTER {gate}
                RETURN {{seed: seed, node: v._id, hops: LENGTH(p.edges), weights: p.edges[*].attrs.weight,
                         verb: e.attrs.verb, summary: e.attrs.summary}}""",
            {"seeds": list(seeds), "depth": depth, "min": min_weight, "tags": list(tags)})
        ranked = []
        for r in found:
            if r["node"] is None or r["node"] in seeds:
                continue
            weights = r["weights"] or []
            path_weight = 0.0 if any(w is None for w in weights) else math.prod((float(w) for w in weights), start=1.0)
            last = weights[-1] if weights else None
            ranked.append(DocLink(r["seed"], r["node"], r["hops"], float(last or 0), r["verb"], r["summary"],
                                  path_weight))
        ranked.sort(key=lambda l: (l.seed, l.document_id, l.hops, -l.path_weight))
        best: dict[tuple[str, str], DocLink] = {}
        for link in ranked:
            best.setdefault((link.seed, link.document_id), link)
        return [link for link in best.values() if link.path_weight >= min_path_weight]

    def document_paragraphs_by_entities(self, document_id: str, slugs: Sequence[str], limit: int) -> list[EntityHit]:
        """A document's paragraphs/tables sharing most of `slugs` (any, in reading order, if `slugs` is empty)."""
        if not slugs:
            found = rows(self.db, """
                FOR p IN paragraphs
                  FILTER p.document_id == @doc AND p.node_type == @type
                  SORT p.doc_position LIMIT @limit
                  RETURN p.id""", {"doc": document_id, "type": "Paragraph", "limit": limit})
            return [EntityHit(pid, document_id, []) for pid in found]
        found = rows(self.db, """
            FOR n IN node_entities
              FILTER n.document_id == @doc AND n.slug IN @slugs
              COLLECT node = n.node_id INTO shared = n.slug
              SORT LENGTH(shared) DESC, node
              LIMIT @limit
              RETURN {id: node, shared: shared}""", {"doc": document_id, "slugs": list(slugs), "limit": limit})
        return [EntityHit(r["id"], document_id, list(r["shared"])) for r in found]

    # ---------------------------------------------------------------- phase 3
    def structural_neighbours(self, starts: Sequence[str], depth: int,
                              relations: Sequence[str] = STRUCTURAL_RELATIONS, *,
                              include_parents: bool = True) -> list[Neighbour]:
        """Nodes within `depth` outbound structural hops of `starts` (plus parent sections).

        Documents are never expanded (from a document every node is one hop
        away) and never returned. A hop is outbound over `relations`, or inbound
        over HAS_CHILD to a parent when `include_parents`.
        """
        starts = [s for s in starts if not in_collection(s, DOCUMENTS)]
        if not starts or depth < 1:
            return []
        step = ('((e._to == v._id AND e.relation IN @rels)'
                f' OR (@parents AND e._from == v._id AND e.relation == "{HAS_CHILD}"))')
        found = rows(self.db, f"""
            {_WITH}
            FOR start IN @starts
              FOR v, e, p IN 1..@depth ANY start edges
                PRUNE e != null AND (NOT {step} OR STARTS_WITH(v._id, "{DOCUMENTS}/"))
                OPTIONS {{uniqueVertices: "path"}}
                FILTER {step}
                FILTER !STARTS_WITH(v._id, "{DOCUMENTS}/") AND !STARTS_WITH(v._id, "{ENTITIES}/")
                RETURN {{start: start, id: v._id, hops: LENGTH(p.edges),
                         rel: e._to == v._id ? e.relation : "PARENT"}}""",
            {"starts": starts, "depth": depth, "rels": list(relations), "parents": include_parents})
        best: dict[tuple[str, str], Neighbour] = {}
        for r in sorted(found, key=lambda r: (r["start"], r["id"], r["hops"])):
            best.setdefault((r["start"], r["id"]), Neighbour(r["start"], r["id"], r["hops"], r["rel"]))
        return sorted(best.values(), key=lambda n: (n.start, n.hops, n.id))

    # ---------------------------------------------------------------- graph walk
    def passage_entity_graph(self, exclude_types: Sequence[str] = ()) -> PassageEntityGraph:
        """MENTIONS, RELATED_TO and SYNONYM_OF rows, sorted by bytes as `SqliteStore` returns them."""
        mentions = rows(self.db, "FOR n IN node_entities FILTER n.type NOT IN @types"
                                 " RETURN [n.node_id, n.slug, n.document_id]", {"types": list(exclude_types)})

        def pairs(relation: str, attr: str) -> list[tuple[str, str, float]]:
            found = rows(self.db, """
                FOR e IN edges FILTER e.relation == @rel
                  RETURN [SUBSTRING(e._from, 9), SUBSTRING(e._to, 9), TO_NUMBER(e.attrs[@attr])]""",
                {"rel": relation, "attr": attr})
            return sorted((a, b, float(w or 0.0)) for a, b, w in found)

        return PassageEntityGraph(sorted((a, b) for a, b, _ in mentions), pairs(RELATED_TO, "count"),
                                  pairs(SYNONYM_OF, "weight"), {a: d for a, _, d in mentions})

    def sections_of(self, document_ids: Sequence[str]) -> list[dict[str, Any]]:
        """Section rows of some documents in reading order (for TOC guidance)."""
        if not document_ids:
            return []
        found = rows(self.db, "FOR s IN sections FILTER s.document_id IN @docs RETURN s",
                     {"docs": list(document_ids)})
        return sorted((record(s) for s in found), key=lambda s: (s["document_id"], s["doc_position"]))
