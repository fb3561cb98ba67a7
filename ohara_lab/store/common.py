"""Record encoding and derived-value helpers both stores use (no domain decisions about a write:
those are the WriteSet's, `ohara_lab.ingest.writeset`, and the curation of incoming entities,
`ohara_lab.entities.intake`)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import fields
from itertools import combinations
from typing import Any, TypeVar

from ..dates import iso_bounds
from ..ids import norm_key
from ..records import CONTRADICTS, PRECEDES, SIMILAR_TO, Document, Entity, NodeEntities
from .protocol import Routes

# An entity mentioned by more than this many entities in one paragraph adds no
# useful co-occurrence signal and would cost O(n^2) RELATED_TO pairs.
MAX_ENTITIES_PER_PAIRING = 30

T = TypeVar("T")


def from_dict(cls: type[T], data: dict[str, Any]) -> T:
    """Build a record from a dict, ignoring keys the record does not know (forward compatibility)."""
    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    return cls(**{k: v for k, v in data.items() if k in names})


def cooccurrence_of(lists: Iterable[list[str]]) -> Counter[tuple[str, str]]:
    """Entity pairs (a < b) co-occurring in one node's entity list, counted per list."""
    pairs: Counter[tuple[str, str]] = Counter()
    for slugs in lists:
        pairs.update(combinations(sorted(set(slugs))[:MAX_ENTITIES_PER_PAIRING], 2))
    return pairs


def frequency_order(lists: Iterable[list[str]]) -> list[str]:
    """A document rollup (entities or tags): by how many of its nodes carry each, then first occurrence (spec §2.10-5)."""
    counts: Counter[str] = Counter()
    first_seen: dict[str, int] = {}
    for pos, slugs in enumerate(lists):
        counts.update(set(slugs))
        for s in slugs:
            first_seen.setdefault(s, pos)
    return sorted(counts, key=lambda s: (-counts[s], first_seen[s], s))


def merge_aliases(existing: Entity, incoming: Entity) -> list[str]:
    """Aliases after merging `incoming` into `existing` (never the canonical name itself)."""
    names = existing.aliases + [incoming.name] + incoming.aliases
    return [a for a in dedup(names) if a and a != existing.name]


def effective_decay_class(doc: Document, indegree: int, evergreen_threshold: int) -> str:
    """EVERGREEN once enough later documents link to it (spec §2.10-8), else its own class."""
    return effective_class(doc.decay_class, indegree, evergreen_threshold)


def effective_class(decay_class: str, indegree: int, evergreen_threshold: int) -> str:
    if evergreen_threshold > 0 and indegree >= evergreen_threshold:
        return "EVERGREEN"
    return decay_class


def fields_dict(record: Any) -> dict[str, Any]:
    """A flat record's fields as a dict without `asdict`'s deep copy: the same JSON, several times faster
    (records hold only JSON values: str, numbers, lists and dicts of them)."""
    return {f.name: getattr(record, f.name) for f in fields(record)}


def jaccard(mine: int, theirs: int, shared: int) -> float:
    """|A ∩ B| / |A ∪ B| from the set sizes (0 for two empty sets): what SIMILAR_TO is thresholded on."""
    union = mine + theirs - shared
    return shared / union if union > 0 else 0.0


def dedup(items: Iterable[T]) -> list[T]:
    seen: set[T] = set()
    out = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def name_keys(entity: Entity) -> set[str]:
    """norm_keys of an entity's name and aliases (how query n-grams find it)."""
    return {k for k in (norm_key(n) for n in [entity.name, *entity.aliases]) if k}


def date_span(doc: Document) -> tuple[str | None, str | None]:
    """Earliest and latest day a document speaks of: publication and coverage combined."""
    lows, highs = [], []
    for value in (doc.published_date, doc.temporal_coverage_start, doc.temporal_coverage_end):
        if bounds := iso_bounds(value):
            lows.append(bounds[0])
            highs.append(bounds[1])
    return (min(lows), max(highs)) if lows else (None, None)


# ---------------------------------------------------------------------------- curation history reads

# Edges the linker writes between documents (their endpoints are documents, their owner is none).
LINK_RELATIONS = (SIMILAR_TO, CONTRADICTS, PRECEDES)



RouteRow = tuple[int, str, str, "str | None"]  # (op id, node id or '', from slug, to slug)


def collect_routes(slugs: set[str], keys: dict[str, str],
                   leaving: Callable[[list[str]], Iterable[RouteRow]],
                   variants: Callable[[list[tuple[str, str]]], Iterable[RouteRow]]) -> Routes:
    """Routes that apply to a document mentioning `slugs` (`keys`: slug -> norm_key), chains followed.

    `leaving(slugs)` reads the routes leaving those slugs; `variants(pairs)` reads,
    for (slug, norm_key) pairs whose slug is no entity, the routes of curated
    entities with that norm_key (a spelling variant follows them, atlas-wide and
    per node, the latest step winning per node), as rows whose from slug is the variant's.
    """
    routes: Routes = {}

    def follow(start: set[str]) -> None:
        todo, seen = set(start), {src for _, src in routes}
        while todo - seen:
            batch = sorted(todo - seen)
            seen |= set(batch)
            for op, node, src, dst in leaving(batch):
                routes[(node, src)] = (dst, op)
                if dst:
                    todo.add(dst)

    follow(set(slugs))
    routed = {src for _, src in routes}
    found = sorted(variants([(s, k) for s, k in sorted(keys.items()) if s not in routed]))
    for op, node, slug, dst in found:
        routes[(node, slug)] = (dst, op)
    follow({dst for *_, dst in found if dst})
    return routes


def refresh_rollup(document: Document, lists: Iterable[list[str]]) -> None:
    """Re-derive a document's entity rollup from its nodes' current entity lists."""
    document.entity_slugs = frequency_order(lists)
    document.entity_count = len(document.entity_slugs)


def node_mention_rows(nodes: Iterable[NodeEntities]) -> list[tuple[str, str, str, str]]:
    """(node id, document id, slug, type) per mention; the first type of a repeated slug wins."""
    rows: dict[tuple[str, str], tuple[str, str]] = {}
    for n in nodes:
        for i, slug in enumerate(n.slugs):
            rows.setdefault((n.node_id, slug), (n.document_id, n.types[i] if i < len(n.types) else "CONCEPT"))
    return [(nid, doc, slug, kind) for (nid, slug), (doc, kind) in rows.items()]
