"""The state a query accumulates as its phases run (the phases' `query` argument)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..settings import Settings
from .hits import Hit
from .query import ProcessedQuery

SEED_COUNT = 5  # top BM25 nodes that seed the graph phases (spec: top-5)


@dataclass
class QueryState:
    query: ProcessedQuery
    settings: Settings
    hits: dict[str, list[Hit]] = field(default_factory=dict)  # phase -> rows
    skipped: dict[str, str] = field(default_factory=dict)  # phase -> why it did not run
    seeds: list[dict[str, Any]] = field(default_factory=list)  # node rows of the top BM25 hits
    toc_sections: list[str] = field(default_factory=list)  # phase 0b picks
    query_vector: Any = None
    query_vector_model: str | None = None
    pending_vector: Any = None  # ((model, text), Future of its embedding) started by `Engine.start`
    dense: dict[str, float] = field(default_factory=dict)  # vector phase's candidates, best first (seeds the walk)
    excluded: frozenset[str] = frozenset()  # documents that take no part ("as of": published later)
    undated: tuple[str, ...] = ()  # documents with no publication date an "as of" query keeps (and labels)
    history: list[dict[str, str]] = field(default_factory=list)  # earlier conversation turns {role, content}
    analytics: Any = None  # the atlas's stored graph analytics (`Analytics.pinned()`), None when never analysed
    community_context: list[dict[str, Any]] = field(default_factory=list)  # communities of the query's entities
    timings: dict[str, float] = field(default_factory=dict)  # ms per phase
    clock: Any = None  # context-manager factory that adds to `timings`

    @property
    def limit(self) -> int:
        return self.settings.result_limit

    def seen(self, *phases: str) -> set[str]:
        """Ids found by the given phases (all phases when none are named)."""
        names = phases or tuple(self.hits)
        return {h.id for p in names for h in self.hits.get(p, [])}

    def seed_slugs(self) -> list[str]:
        """Entity hints plus the entities of the top BM25 nodes (spec §3.4 `slugs`)."""
        out = list(self.query.hint_slugs)
        for row in self.seeds:
            out += row.get("entity_slugs") or []
        return list(dict.fromkeys(out))

    def slug_sources(self) -> dict[str, set[str]]:
        """Where each seed entity came from: "query" (a hint) or the ids of the seed nodes mentioning it."""
        out: dict[str, set[str]] = {s: {"query"} for s in self.query.hint_slugs}
        for row in self.seeds:
            for slug in row.get("entity_slugs") or []:
                out.setdefault(slug, set()).add(row["id"])
        return out

    def seed_tags(self) -> list[str]:
        """SUMO hints plus the tags of the top BM25 nodes (spec §3.4 `qTags`)."""
        out = list(self.query.sumo_hints)
        for row in self.seeds:
            out += row.get("sumo_tags") or []
        return list(dict.fromkeys(out))

    def seed_documents(self, n: int = SEED_COUNT) -> list[str]:
        return list(dict.fromkeys(h.document_id for h in self.hits.get("bm25", [])[:n]))
