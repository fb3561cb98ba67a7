"""Retrieval primitives of `SqliteStore`: FTS5 BM25, tag overlap, entity pivot,
SIMILAR_TO expansion and structural traversal as plain indexed SQL.

Scores are returned raw; normalisation and fusion happen in `ohara_lab.retrieval`.
"""
from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from ..ids import DOCUMENTS, ENTITIES, SECTIONS
from ..records import HAS_CHILD, RELATED_TO, SIMILAR_TO, SYNONYM_OF
from .protocol import STRUCTURAL_RELATIONS, DocLink, EntityHit, Neighbour, PassageEntityGraph, TagHit, TextHit

# FTS5 BM25 parameters match ArangoSearch's defaults used by the original (k1 1.2, b 0.75).
FTS5_K1 = 1.2
DF_CACHE = 50_000  # token document frequencies kept per graph version

# one hop level of the SIMILAR_TO walk: node -> (path weight, edge weight, verb, summary)
_Level = dict[str, tuple["float | None", "float | None", "str | None", "str | None"]]


def fts_query(tokens: Sequence[str]) -> str:
    """An FTS5 OR-query of quoted tokens (quotes make every token a literal, never syntax)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in tokens if t)


def _last_hop_floors(levels: dict[str, _Level], min_path_weight: float) -> dict[str, float]:
    """Per frontier node, the lightest edge that can keep its best path at `min_path_weight`
    (a hair under, so float rounding never skips an edge the exact test would keep)."""
    best: dict[str, float] = {}
    for level in levels.values():
        for node, (pw, *_) in level.items():
            if pw is not None and pw > best.get(node, 0.0):
                best[node] = pw
    return {node: min_path_weight / pw * (1 - 1e-9) for node, pw in best.items()}


def _tag_gate(attrs: str, tags: Sequence[str]) -> str:
    """The gate's second way through (a shared tag); nothing when no tags are asked for, so the
    weight test stands alone and SQLite can seek on it."""
    if not tags:
        return ""
    return f" OR EXISTS (SELECT 1 FROM json_each({attrs}, '$.tags') t WHERE t.value IN ({','.join('?' * len(tags))}))"


def _stronger(a: float | None, b: float | None) -> bool:
    """`a` beats `b` as a path weight (None, SQL's NULL, loses to any number)."""
    return a is not None and (b is None or a > b)


class SqliteSearchMixin:
    conn: sqlite3.Connection

    def _q(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:  # provided by SqliteStore
        raise NotImplementedError

    def graph_version(self) -> int:  # provided by SqliteStore
        raise NotImplementedError

    # ---------------------------------------------------------------- phase 1
    def bm25_search(self, tokens: Sequence[str], limit: int, *, date_from: str | None = None,
                    date_to: str | None = None, exclude_documents: Collection[str] = ()) -> list[TextHit]:
        """BM25 over paragraph content, section titles and table markdown (any token matches).

        A date range filters documents *before* the limit (the original limited
        first) by day-level bounds, and keeps undated documents (the original dropped them).
        """
        query = fts_query(tokens)
        if not query:
            return []
        where, params = [], [query]
        if date_from:
            where.append("(d.date_hi IS NULL OR d.date_hi >= ?)")
            params.append(date_from)
        if date_to:
            where.append("(d.date_lo IS NULL OR d.date_lo <= ?)")
            params.append(date_to)
        join = "JOIN documents d ON d.id = f.document_id" if where else ""
        if exclude_documents:
            where.append("f.document_id NOT IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(sorted(exclude_documents)))
        sql = (f"SELECT f.node_id, f.collection, f.document_id, -bm25(fts) AS score FROM fts f {join}"
               f" WHERE fts MATCH ? {' AND ' + ' AND '.join(where) if where else ''}"
               f" ORDER BY bm25(fts), f.node_id LIMIT ?")
        rows = self._q(sql, [*params, limit])
        return [TextHit(r[0], r[1], r[2], float(r[3])) for r in rows if r[3] > 0]

    def bm25_max_score(self, tokens: Sequence[str]) -> float:
        """Σ idf(t)·(k1+1), FTS5's idf = max(1e-6, ln((N − n + 0.5) / (n + 0.5))), k1 = 1.2 (its bm25() default)."""
        n_rows = self._fts_figures()["fts_rows"]
        return sum(max(1e-6, math.log((n_rows - df + 0.5) / (df + 0.5))) * (FTS5_K1 + 1)
                   for df in self.term_document_counts(tokens).values() if df)

    def term_document_counts(self, tokens: Sequence[str]) -> dict[str, int]:
        """FTS5 rows matching each token (its porter/unicode61 analyser applies), cached per graph version."""
        figures = self._fts_figures()
        out = {}
        for token in dict.fromkeys(t for t in tokens if t):
            df = figures["df"].get(token)
            if df is None:
                df = self._q("SELECT COUNT(*) FROM fts WHERE fts MATCH ?", (fts_query([token]),))[0][0]
                if len(figures["df"]) < DF_CACHE:
                    figures["df"][token] = df
            out[token] = int(df)
        return out

    def corpus_stats(self) -> dict[str, float]:
        """Document-frequency figures the BM25 parity test, benchmarks and IDF coverage read (cached per graph
        version: counting the index was 2.7 ms of every query's answerability)."""
        return {"fts_rows": self._fts_figures()["fts_rows"]}

    def _fts_figures(self) -> dict[str, Any]:
        """FTS row count and token document frequencies, counted once per graph version (every write that
        touches the full-text index moves it): counting the index took ~1.5 ms of every query's answerability."""
        version = self.graph_version()
        cached = self.__dict__.get("_fts_cache")
        if cached is None or cached["version"] != version:
            cached = {"version": version, "fts_rows": self._q("SELECT COUNT(*) FROM fts")[0][0], "df": {}}
            self.__dict__["_fts_cache"] = cached
        return cached

    # ---------------------------------------------------------------- phase 1b
    def tag_overlap(self, tag_weights: dict[str, float], limit: int, *, types: Sequence[str] = (),
                    type_weight: float = 0.2, norm: float = 1.0) -> list[TagHit]:
        """Paragraphs/tables scored `Σ tag weights / norm + type_weight·|types ∩ entity types| / |types|`."""
        if not tag_weights:
            return []
        values = ",".join("(?, ?)" for _ in tag_weights)
        params: list[Any] = [x for kv in sorted(tag_weights.items()) for x in kv]
        type_term = "0"
        if types:
            type_term = (f"{type_weight} * (SELECT COUNT(DISTINCT e.type) FROM node_entities e WHERE e.node_id = t.node_id"
                         f" AND e.type IN ({','.join('?' * len(types))})) / {float(len(types))}")
        sql = (f"WITH w(tag, weight) AS (VALUES {values}),"
               f" t AS (SELECT n.node_id, n.document_id, SUM(w.weight) AS s, group_concat(n.tag, '|') AS tags"
               f" FROM node_tags n JOIN w ON w.tag = n.tag WHERE n.node_id NOT LIKE '{SECTIONS}/%' GROUP BY n.node_id)"
               # rounded: float sums must not reorder ties between runs
               f" SELECT node_id, document_id, ROUND(s / ? + {type_term}, 9) AS score, tags FROM t"
               f" ORDER BY score DESC, node_id LIMIT ?")
        rows = self._q(sql, [*params, norm, *types, limit])
        return [TagHit(r[0], r[1], float(r[2]), r[3].split("|")) for r in rows]

    # ---------------------------------------------------------------- phase 2
    def entity_pivot(self, slugs: Sequence[str], limit: int) -> list[EntityHit]:
        """Paragraphs/tables mentioning the most of `slugs` (MENTIONS, via its side table)."""
        if not slugs:
            return []
        marks = ",".join("?" * len(slugs))
        rows = self._q(f"SELECT node_id, document_id, group_concat(slug, '|') FROM node_entities"
                       f" WHERE slug IN ({marks}) GROUP BY node_id ORDER BY COUNT(*) DESC, node_id LIMIT ?",
                       [*slugs, limit])
        return [EntityHit(r[0], r[1], r[2].split("|")) for r in rows]

    def entities_by_names(self, keys: Sequence[str]) -> dict[str, list[str]]:
        """norm_key -> entity slugs whose name or alias has that norm_key."""
        if not keys:
            return {}
        rows = self._q(f"SELECT norm_key, slug FROM entity_names WHERE norm_key IN ({','.join('?' * len(keys))})"
                       " ORDER BY norm_key, slug", list(keys))
        out: dict[str, list[str]] = {}
        for k, slug in rows:
            out.setdefault(k, []).append(slug)
        return out

    def entity_types(self, slugs: Sequence[str]) -> dict[str, str]:
        if not slugs:
            return {}
        rows = self._q(f"SELECT slug, type FROM entities WHERE slug IN ({','.join('?' * len(slugs))})", list(slugs))
        return {r[0]: r[1] for r in rows}

    # ---------------------------------------------------------------- phase 1c
    def similar_documents(self, seeds: Sequence[str], depth: int, *, min_weight: float = 0.3,
                          tags: Sequence[str] = (), min_path_weight: float = 0.0) -> list[DocLink]:
        """Documents reached from `seeds` over SIMILAR_TO (either direction) within `depth` hops.

        Every hop must pass the gate (weight > `min_weight` or an edge tag among
        `tags`); the original checked only the last hop. One row per (seed, reached
        document): the shortest path, strongest on ties; rows whose path weight is
        below `min_path_weight` are left out.

        The last hop reads only the edges that can keep a path at `min_path_weight`
        (weight >= min_path_weight / the node's best path weight; weights are <= 1):
        no later hop needs what it reaches, so what it skips could only have made rows
        that are left out. Earlier hops read every gated edge, since a weak path still
        decides which documents are nearest. At 118k paragraphs this skips ~95% of the
        Explorer's reads (its band starts at 0.15; most edges weigh 0.15–0.3).

        Breadth-first, one indexed read of the frontier's gated edges per hop: the best
        path to a node at distance h extends a best path to a node at distance h - 1
        (a prefix of a shortest path is a shortest path), so keeping one path per node
        and hop loses none. Enumerating every simple path instead (a recursive CTE)
        costs seeds × degree^depth, and the degree grows with the corpus: 0.5 s of a
        0.75 s query at 41k paragraphs (eval/scale/curve.md).
        """
        if not seeds or depth < 1:
            return []
        seeds = list(dict.fromkeys(seeds))
        levels: dict[str, _Level] = {seed: {seed: (1.0, None, None, None)} for seed in seeds}
        reached = {seed: {seed: 0} for seed in seeds}
        found: dict[tuple[str, str], DocLink] = {}
        for hop in range(1, depth + 1):
            frontier = sorted({node for level in levels.values() for node in level})
            if not frontier:
                break
            floors = _last_hop_floors(levels, min_path_weight) if hop == depth and min_path_weight > 0 else None
            links = self._similar_edges(frontier, min_weight, tags, floors)
            for seed in seeds:
                nxt: _Level = {}
                for node, (pw, *_) in sorted(levels[seed].items()):
                    for other, w, verb, summary in links.get(node, ()):
                        if other in reached[seed]:
                            continue
                        step = pw * w if pw is not None and w is not None else None  # SQL NULL arithmetic
                        held = nxt.get(other)
                        if held is None or _stronger(step, held[0]):
                            nxt[other] = (step, w, verb, summary)
                for other, (pw, w, verb, summary) in nxt.items():
                    reached[seed][other] = hop
                    if other not in seeds and float(pw or 0) >= min_path_weight:
                        found[(seed, other)] = DocLink(seed, other, hop, float(w or 0), verb, summary, float(pw or 0))
                levels[seed] = nxt
        return [found[key] for key in sorted(found)]

    def _similar_edges(self, nodes: Sequence[str], min_weight: float, tags: Sequence[str],
                       floors: dict[str, float] | None = None
                       ) -> dict[str, list[tuple[str, float | None, str | None, str | None]]]:
        """Gated SIMILAR_TO edges touching `nodes`, as node -> [(other end, weight, verb, summary)];
        with `floors`, only edges at least as heavy as the floor of the node they leave (tags cannot
        lift a path's weight, so the floor applies to tagged edges too)."""
        weight = "CAST(json_extract(e.attrs, '$.weight') AS REAL)"
        gate = f"{weight} > ?" + _tag_gate("e.attrs", tags)
        if floors is None:
            pairs: list[tuple[str, float | None]] = [(node, None) for node in dict.fromkeys(nodes)]
        else:
            pairs = sorted(floors.items())
            gate = f"{weight} >= json_extract(f.value, '$[1]') AND ({gate})"
        # The node list drives the join (CROSS JOIN keeps it outermost), one index seek per node.
        arm = (f"SELECT e.{{src}}, e.{{dst}}, {weight}, json_extract(e.attrs, '$.verb'),"
               " json_extract(e.attrs, '$.summary') FROM json_each(?) f CROSS JOIN edges e"
               f" ON e.{{src}} = json_extract(f.value, '$[0]') AND {{rel}} = '{SIMILAR_TO}'"
               f" WHERE ({gate})")
        out_rel, in_rel = self._similar_relation_terms()
        sql = (arm.format(src="from_id", dst="to_id", rel=out_rel) + " UNION ALL "
               + arm.format(src="to_id", dst="from_id", rel=in_rel))
        wanted = json.dumps(pairs)
        out: dict[str, list[tuple[str, float | None, str | None, str | None]]] = {}
        for r in self._q(sql, [wanted, min_weight, *tags, wanted, min_weight, *tags]):
            out.setdefault(r[0], []).append((r[1], r[2], r[3], r[4]))
        for rows in out.values():
            rows.sort(key=lambda row: (row[0], -(row[1] if row[1] is not None else -math.inf)))
        return out

    def _similar_relation_terms(self) -> tuple[str, str]:
        """How the outgoing and incoming arms name `relation`, so SQLite picks the right index.

        With the partial indexes `edges_similar_from`/`_to` (schema.sql) both arms seek by end and
        weight. An atlas written before them and opened read-only has neither: then `+relation` in the
        outgoing arm keeps SQLite off the relation index (it cannot size a json_each list and would read
        every SIMILAR_TO edge of the atlas: 7.8 vs 0.8 ms on MuSiQue's 14,763), leaving it the
        (from_id, to_id, relation) key; the incoming arm's (to_id, relation) index has both.
        """
        if self._has_similar_indexes():
            return "e.relation", "e.relation"
        return "+e.relation", "e.relation"

    def _has_similar_indexes(self) -> bool:
        found: bool | None = getattr(self, "_similar_indexes", None)
        if found is None:
            rows = self._q("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index'"
                           " AND name IN ('edges_similar_from', 'edges_similar_to')")
            found = self._similar_indexes = rows[0][0] == 2
        return found

    def document_paragraphs_by_entities(self, document_id: str, slugs: Sequence[str], limit: int) -> list[EntityHit]:
        """A document's paragraphs/tables sharing most of `slugs` (any, in reading order, if `slugs` is empty)."""
        if not slugs:
            rows = self._q("SELECT id, document_id FROM paragraphs WHERE document_id = ? AND node_type = 'Paragraph'"
                           " ORDER BY doc_position LIMIT ?", (document_id, limit))
            return [EntityHit(r[0], r[1], []) for r in rows]
        marks = ",".join("?" * len(slugs))
        rows = self._q(f"SELECT node_id, document_id, group_concat(slug, '|') FROM node_entities"
                       f" WHERE document_id = ? AND slug IN ({marks}) GROUP BY node_id"
                       f" ORDER BY COUNT(*) DESC, node_id LIMIT ?", [document_id, *slugs, limit])
        return [EntityHit(r[0], r[1], r[2].split("|")) for r in rows]

    # ---------------------------------------------------------------- phase 3
    def structural_neighbours(self, starts: Sequence[str], depth: int,
                              relations: Sequence[str] = STRUCTURAL_RELATIONS, *,
                              include_parents: bool = True) -> list[Neighbour]:
        """Nodes within `depth` outbound structural hops of `starts` (plus parent sections).

        Documents are never expanded: from a document every node is one hop away,
        which is the fan-out the original's ANY-direction traversal suffered from.
        """
        if not starts or depth < 1:
            return []
        rel_marks = ",".join("?" * len(relations))
        # Two recursive arms (SQLite >= 3.34) so each hop is an indexed edge lookup.
        parents = ("UNION ALL SELECT walk.start, e.from_id, walk.hops + 1, 'PARENT', walk.path || e.from_id || '|'"
                   f" FROM walk JOIN edges e ON e.to_id = walk.node AND e.relation = '{HAS_CHILD}'"
                   f" WHERE walk.hops < ? AND walk.node NOT LIKE '{DOCUMENTS}/%'"
                   " AND instr(walk.path, '|' || e.from_id || '|') = 0") if include_parents else ""
        sql = f"""
        WITH RECURSIVE walk(start, node, hops, rel, path) AS (
            SELECT value, value, 0, NULL, '|' || value || '|' FROM json_each(?)
            UNION ALL
            SELECT walk.start, e.to_id, walk.hops + 1, e.relation, walk.path || e.to_id || '|'
            FROM walk JOIN edges e ON e.from_id = walk.node AND e.relation IN ({rel_marks})
            WHERE walk.hops < ? AND walk.node NOT LIKE '{DOCUMENTS}/%' AND instr(walk.path, '|' || e.to_id || '|') = 0
            {parents}
        )
        SELECT start, node, MIN(hops), rel FROM walk WHERE hops > 0 AND node NOT LIKE '{DOCUMENTS}/%'
        AND node NOT LIKE '{ENTITIES}/%' GROUP BY start, node ORDER BY start, MIN(hops), node"""
        params: list[Any] = [json.dumps(list(starts)), *relations, depth]
        if include_parents:
            params.append(depth)
        rows = self._q(sql, params)
        return [Neighbour(r[0], r[1], r[2], r[3]) for r in rows]

    # ---------------------------------------------------------------- graph walk
    def passage_entity_graph(self, exclude_types: Sequence[str] = ()) -> PassageEntityGraph:
        """MENTIONS, RELATED_TO and SYNONYM_OF rows in a stable order (the walk's matrix is built from them)."""
        where = f"WHERE type NOT IN ({','.join('?' * len(exclude_types))})" if exclude_types else ""
        rows = self._q(f"SELECT node_id, slug, document_id FROM node_entities {where} ORDER BY node_id, slug",
                       list(exclude_types))
        mentions = [(r[0], r[1]) for r in rows]

        def pairs(relation: str, attr: str) -> list[tuple[str, str, float]]:
            rows = self._q(f"SELECT substr(from_id, 10), substr(to_id, 10), CAST(json_extract(attrs, '$.{attr}') AS REAL)"
                           " FROM edges WHERE relation = ? ORDER BY from_id, to_id", (relation,))
            return [(r[0], r[1], float(r[2] or 0.0)) for r in rows]

        return PassageEntityGraph(mentions, pairs(RELATED_TO, "count"), pairs(SYNONYM_OF, "weight"),
                                  {r[0]: r[2] for r in rows})

    def sections_of(self, document_ids: Sequence[str]) -> list[dict[str, Any]]:
        """Section rows of some documents in reading order (for TOC guidance)."""
        if not document_ids:
            return []
        marks = ",".join("?" * len(document_ids))
        rows = self._q(f"SELECT data FROM sections WHERE document_id IN ({marks}) ORDER BY document_id, doc_position",
                       list(document_ids))
        return [json.loads(r[0]) for r in rows]
