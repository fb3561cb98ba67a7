"""Stored analytics, read back for retrieval (data side of phases 2 and 1f and the Explorer).

One `Analytics` object loads what it needs once per analytics run (keyed by the
run's `computed_at`) and answers from memory; none of these calls touches the
graph algorithms. Formulas follow the spec (§3.5, §3.6, §3.10):

* community context of entity-pivot hits: up to 3 communities of the query
  entities as `{id, label, summary, member_count, member_entity_slugs (<= 30)}`;
* Adamic–Adar boost of a pivot hit: `0.2 · max AA(s, q)` over the hit's entity
  slugs s and the query slugs q (the spec's boost that never applied);
* cluster retrieval (phase 1f): clusters whose summary contains query keywords,
  scored hits / #keywords, top ceil(limit/2);
* Explorer: Adamic–Adar neighbours (weight >= 0.5) and same-community entities.
"""
from __future__ import annotations

import copy
import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .run import RUN_KEY

if TYPE_CHECKING:
    from ..store.protocol import GraphStore

AA_BOOST = 0.2
COMMUNITY_CONTEXT = 3
COMMUNITY_MEMBERS = 30
EXPLORER_AA_MIN = 0.5


class Analytics:
    """Read-only view of one atlas's stored analytics; it reloads itself when a new run is stored."""

    def __init__(self, store: GraphStore):
        self.store = store
        self._run: Any = None
        self._cache: dict[str, dict[str, Any]] = {}
        self._pinned = False

    def _sync(self) -> Any:
        """The stored run's marker; the loaded rows are dropped when it moved."""
        run = (self.store.get_meta(RUN_KEY) or {}).get("computed_at")
        if run != self._run:
            self._run, self._cache = run, {}
        return run

    def _kind(self, kind: str) -> dict[str, Any]:
        run = self._run if self._pinned else self._sync()
        if kind not in self._cache:
            self._cache[kind] = self.store.get_analytics(kind) if run else {}
        return self._cache[kind]

    def pinned(self) -> Analytics:
        """This view with the run checked once, now: one query's many lookups then cost no store round trip
        each (rows it loads stay cached here for later queries of the same run)."""
        self._sync()
        view = copy.copy(self)
        view._pinned = True
        return view

    def rows(self, kind: str) -> dict[str, Any]:
        """Every stored row of one kind (see `run.KINDS`), keyed as stored."""
        return self._kind(kind)

    @property
    def run_info(self) -> dict[str, Any]:
        """The stored run's info: `computed_at`, `counts` per kind, `params` (method, seed, modularity)."""
        info: dict[str, Any] = self.store.get_meta(RUN_KEY) or {}
        return info

    @property
    def available(self) -> bool:
        return bool(self._run if self._pinned else self._sync())

    # ---------------------------------------------------------------- communities
    def community_of(self, slug: str) -> int | None:
        return self._kind("entity_community").get(slug)

    def community(self, cid: int) -> dict[str, Any] | None:
        return self._kind("communities").get(str(cid))

    def community_context(self, slugs: Iterable[str], limit: int = COMMUNITY_CONTEXT) -> list[dict[str, Any]]:
        """Communities of the given entities (first come first), as attached to entity-pivot hits."""
        out, seen = [], set()
        for slug in slugs:
            cid = self.community_of(slug)
            if cid is None or cid in seen:
                continue
            seen.add(cid)
            c = self.community(cid) or {}
            out.append({"id": cid, "label": c.get("label", ""), "summary": c.get("summary", ""),
                        "member_count": c.get("size", 0),
                        "member_entity_slugs": list(c.get("members", []))[:COMMUNITY_MEMBERS]})
            if len(out) >= limit:
                break
        return out

    def same_community(self, slugs: Iterable[str], limit: int = COMMUNITY_MEMBERS) -> list[str]:
        """Other members of the given entities' communities (Explorer iv), strongest first."""
        ordered = list(dict.fromkeys(slugs))  # not a set: its order would change with the hash seed
        wanted = set(ordered)
        out: list[str] = []
        for ctx in self.community_context(ordered, limit=len(ordered) or 1):
            out += [s for s in ctx["member_entity_slugs"] if s not in wanted and s not in out]
        return out[:limit]

    def surprising(self, slugs: Iterable[str], limit: int = 15) -> list[dict[str, Any]]:
        """Cross-community RELATED_TO edges touching the given entities (the Explorer's unexpected connections)."""
        index = self._cache.get("surprising_by_slug")
        if index is None:  # per query a scan of every row cost ~5 ms on MuSiQue; the index is built once per run
            index = {}
            for key, r in sorted(self._kind("surprising").items()):
                index.setdefault(r["from"], []).append(key)
                index.setdefault(r["to"], []).append(key)
            self._cache["surprising_by_slug"] = index
        rows = self._kind("surprising")
        keys = {k for s in set(slugs) for k in index.get(s, [])}
        return sorted((rows[k] for k in keys), key=lambda r: (-r["count"], r["from"], r["to"]))[:limit]

    # ---------------------------------------------------------------- Adamic–Adar
    def adamic_adar(self, slug: str) -> list[tuple[str, float, int]]:
        """Predicted links of one entity: (other slug, score, common neighbours), strongest first."""
        return [(r[0], float(r[1]), int(r[2])) for r in self._kind("adamic_adar").get(slug, [])]

    def aa_score(self, a: str, b: str) -> float:
        return next((s for other, s, _ in self.adamic_adar(a) if other == b), 0.0)

    def aa_boost(self, hit_slugs: Iterable[str], query_slugs: Iterable[str]) -> float:
        """0.2 · the strongest predicted link between a hit's entities and the query's (0 when none)."""
        query = set(query_slugs)
        best = 0.0
        for slug in set(hit_slugs):
            for other, score, _ in self.adamic_adar(slug):
                if other in query and score > best:
                    best = score
        return AA_BOOST * best

    def aa_neighbours(self, slugs: Iterable[str], min_score: float = EXPLORER_AA_MIN) -> list[tuple[str, str, float]]:
        """(from slug, predicted neighbour, score) with score >= min_score (Explorer iii), strongest first."""
        wanted = set(slugs)
        out = [(s, other, score) for s in sorted(wanted) for other, score, _ in self.adamic_adar(s)
               if score >= min_score and other not in wanted]
        return sorted(out, key=lambda r: (-r[2], r[0], r[1]))

    # ---------------------------------------------------------------- clusters
    def cluster_of(self, node_id: str) -> int | None:
        return self._kind("node_cluster").get(node_id)

    def cluster(self, cid: int) -> dict[str, Any] | None:
        return self._kind("clusters").get(str(cid))

    def cluster_members(self, cid: int, limit: int | None = None) -> list[str]:
        """Paragraph ids of a cluster, nearest its centroid first."""
        members = list((self.cluster(cid) or {}).get("members", []))
        return members[:limit] if limit else members

    def cluster_hits(self, keywords: Iterable[str], limit: int) -> list[tuple[int, float]]:
        """Phase 1f: (cluster id, hits / #keywords) for clusters whose summary or terms contain query keywords."""
        words = [k.lower() for k in dict.fromkeys(keywords) if k]
        if not words:
            return []
        scored = []
        for key, c in self._kind("clusters").items():
            text = " ".join([c.get("summary", ""), *c.get("terms", [])]).lower()
            hits = sum(1 for w in words if w in text)
            if hits:
                scored.append((int(key), hits / len(words)))
        scored.sort(key=lambda r: (-r[1], r[0]))
        return scored[:math.ceil(limit / 2)]

    # ---------------------------------------------------------------- gaps
    def isolated_entities(self, slugs: Iterable[str] | None = None, limit: int = 10) -> list[dict[str, str]]:
        rows = self._kind("isolated_entities")
        keys = [s for s in slugs if s in rows] if slugs is not None else sorted(rows)
        return [{"entity_slug": s, "reason": rows[s]} for s in keys[:limit]]

    def isolated_documents(self) -> dict[str, str]:
        return dict(self._kind("isolated_documents"))
