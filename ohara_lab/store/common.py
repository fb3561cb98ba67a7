"""Backend-independent steps every store applies while writing a document."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields
from itertools import combinations
from typing import Any, Iterable, TypeVar

from ..dates import iso_bounds
from ..ids import norm_key, split_id
from ..records import Document, DocumentGraph, Edge, Entity

# An entity mentioned by more than this many entities in one paragraph adds no
# useful co-occurrence signal and would cost O(n^2) RELATED_TO pairs.
MAX_ENTITIES_PER_PAIRING = 30

T = TypeVar("T")


def from_dict(cls: type[T], data: dict[str, Any]) -> T:
    """Build a record from a dict, ignoring keys the record does not know (forward compatibility)."""
    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    return cls(**{k: v for k, v in data.items() if k in names})


def rewrite_entity_slugs(graph: DocumentGraph, mapping: dict[str, str]) -> None:
    """Point the graph's mentions at existing atlas entities (same norm_key, other slug)."""
    if not mapping:
        return
    for node in list(graph.paragraphs) + list(graph.tables):
        node.entity_slugs = _dedup([mapping.get(s, s) for s in node.entity_slugs])
    for edge in graph.edges:
        if edge.relation == "MENTIONS":
            slug = split_id(edge.to_id)[1]
            if slug in mapping:
                edge.to_id = "entities/" + mapping[slug]
    merged: dict[str, Entity] = {}
    for ent in graph.entities:
        slug = mapping.get(ent.slug, ent.slug)
        ent.slug, ent.id = slug, "entities/" + slug
        if slug in merged:
            merged[slug].aliases = _dedup(merged[slug].aliases + [ent.name] + ent.aliases)
        else:
            merged[slug] = ent
    graph.entities = list(merged.values())
    # MENTIONS may now repeat (two slugs merged into one): keep the first.
    seen: set[tuple[str, str, str]] = set()
    edges = []
    for e in graph.edges:
        key = (e.from_id, e.to_id, e.relation)
        if key not in seen:
            seen.add(key)
            edges.append(e)
    graph.edges = edges


def tag_rows(graph: DocumentGraph) -> list[tuple[str, str]]:
    """(node id, SUMO tag) of every section, paragraph and table, each pair once."""
    nodes = [*graph.sections, *graph.paragraphs, *graph.tables]
    return list(dict.fromkeys((n.id, t) for n in nodes for t in n.sumo_tags))


def mention_rows(graph: DocumentGraph) -> list[tuple[str, str, str]]:
    """(node id, entity slug, type) per mention in a paragraph or table; the first type of a repeated slug wins."""
    rows: dict[tuple[str, str], str] = {}
    for n in [*graph.paragraphs, *graph.tables]:
        for i, slug in enumerate(n.entity_slugs):
            rows.setdefault((n.id, slug), n.entity_types[i] if i < len(n.entity_types) else "CONCEPT")
    return [(nid, slug, kind) for (nid, slug), kind in rows.items()]


def cooccurrence(graph: DocumentGraph) -> Counter[tuple[str, str]]:
    """Entity pairs (a < b) co-occurring in a paragraph or table, counted per node."""
    pairs: Counter[tuple[str, str]] = Counter()
    for node in list(graph.paragraphs) + list(graph.tables):
        slugs = sorted(set(node.entity_slugs))[:MAX_ENTITIES_PER_PAIRING]
        pairs.update(combinations(slugs, 2))
    return pairs


def merge_aliases(existing: Entity, incoming: Entity) -> list[str]:
    """Aliases after merging `incoming` into `existing` (never the canonical name itself)."""
    names = existing.aliases + [incoming.name] + incoming.aliases
    return [a for a in _dedup(names) if a and a != existing.name]


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


def _dedup(items: Iterable[T]) -> list[T]:
    seen: set = set()
    out = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def name_keys(entity: Entity) -> set[str]:
    """norm_keys of an entity's name and aliases (how query n-grams find it)."""
    return {k for k in (norm_key(n) for n in [entity.name, *entity.aliases]) if k}


def date_bounds(value: str | None) -> tuple[str | None, str | None]:
    """`dates.iso_bounds` as the (None, None) pair `retrieval/temporal.py` still reads; it moves there next."""
    return iso_bounds(value) or (None, None)


def date_span(doc: Document) -> tuple[str | None, str | None]:
    """Earliest and latest day a document speaks of: publication and coverage combined."""
    lows, highs = [], []
    for value in (doc.published_date, doc.temporal_coverage_start, doc.temporal_coverage_end):
        if bounds := iso_bounds(value):
            lows.append(bounds[0])
            highs.append(bounds[1])
    return (min(lows), max(highs)) if lows else (None, None)


ANSWERS_SAME = "ANSWERS_SAME"


@dataclass
class SharedQuestion:
    """A paragraph linked by ANSWERS_SAME to `seed`, and the question both answer.

    (Meant for `store/protocol.py` beside TagHit and EntityHit.)
    """

    seed: str
    id: str
    document_id: str
    question: str  # the seed's wording of the shared question
    question_norm: str


def question_rows(graph: DocumentGraph) -> list[tuple[str, str, str]]:
    """(node id, normalised question, question text) of a document's questions, each (node, norm) once."""
    rows: dict[tuple[str, str], str] = {}
    for q in graph.questions:
        if q.norm:
            rows.setdefault((q.node_id, q.norm), q.text)
    return [(nid, norm, text) for (nid, norm), text in rows.items()]


def answers_same_edges(pairs: Iterable[tuple[str, str, str, str]]) -> list[Edge]:
    """ANSWERS_SAME a->b for each (a, b, norm, a's wording); a pair sharing several questions keeps the first."""
    out: dict[tuple[str, str], Edge] = {}
    for a, b, norm, text in pairs:
        if a != b:
            out.setdefault((a, b), Edge(a, b, ANSWERS_SAME, {"shared_query": text, "shared_query_norm": norm}))
    return list(out.values())
