"""What the entity lists of a document's nodes and the entity records imply, computed in Python for
the WriteSets (`ohara_lab.ingest.writeset`, `ohara_lab.entities.changeset`): co-occurrence pairs, the
frequency-ordered rollup, the mention rows, the norm_keys a name and its aliases are found by, and the
aliases two records of one entity merge into. The stores persist these values; they compute none."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import combinations
from typing import TypeVar

from ..ids import norm_key
from ..records import Entity, NodeEntities

# An entity mentioned by more than this many entities in one paragraph adds no
# useful co-occurrence signal and would cost O(n^2) RELATED_TO pairs.
MAX_ENTITIES_PER_PAIRING = 30

T = TypeVar("T")


def cooccurrence_of(lists: Iterable[list[str]]) -> Counter[tuple[str, str]]:
    """Entity pairs (a < b) co-occurring in one node's entity list, counted per list."""
    pairs: Counter[tuple[str, str]] = Counter()
    for slugs in lists:
        pairs.update(combinations(sorted(set(slugs))[:MAX_ENTITIES_PER_PAIRING], 2))
    return pairs


def frequency_order(lists: Iterable[list[str]]) -> list[str]:
    """A document rollup (entities or tags): by how many of its nodes carry each, then first occurrence
    (spec §2.10-5)."""
    counts: Counter[str] = Counter()
    first_seen: dict[str, int] = {}
    for pos, slugs in enumerate(lists):
        counts.update(set(slugs))
        for s in slugs:
            first_seen.setdefault(s, pos)
    return sorted(counts, key=lambda s: (-counts[s], first_seen[s], s))


def dedup(items: Iterable[T]) -> list[T]:
    """Items in first-seen order, each once."""
    seen: set[T] = set()
    out = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def merge_aliases(existing: Entity, incoming: Entity) -> list[str]:
    """Aliases after merging `incoming` into `existing` (never the canonical name itself)."""
    names = existing.aliases + [incoming.name] + incoming.aliases
    return [a for a in dedup(names) if a and a != existing.name]


def name_keys(entity: Entity) -> list[str]:
    """norm_keys of an entity's name and aliases, sorted, each once (how query n-grams find it)."""
    return sorted({k for k in (norm_key(n) for n in [entity.name, *entity.aliases]) if k})


def node_mention_rows(nodes: Iterable[NodeEntities]) -> list[tuple[str, str, str, str]]:
    """(node id, document id, slug, type) per mention; the first type of a repeated slug wins."""
    rows: dict[tuple[str, str], tuple[str, str]] = {}
    for n in nodes:
        for i, slug in enumerate(n.slugs):
            rows.setdefault((n.node_id, slug), (n.document_id, n.types[i] if i < len(n.types) else "CONCEPT"))
    return [(nid, doc, slug, kind) for (nid, slug), (doc, kind) in rows.items()]
