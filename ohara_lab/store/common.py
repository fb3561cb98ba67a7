"""Backend-independent steps every store applies while writing a document."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import fields
from itertools import combinations
from typing import Any, TypeVar

from ..dates import iso_bounds
from ..ids import norm_key, split_id
from ..records import Document, DocumentGraph, Edge, Entity, NodeEntities
from .protocol import Routes, SharedQuestion  # noqa: F401 - SharedQuestion re-exported for the stores

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
    table: Routes = {("", a): (b, 0) for a, b in mapping.items()}
    for node in list(graph.paragraphs) + list(graph.tables):
        if any(s in mapping for s in node.entity_slugs):  # types stay aligned with slugs
            kept = routed(NodeEntities(node.id, graph.document.id, node.entity_slugs, node.entity_types), table)[0]
            node.entity_slugs, node.entity_types = kept.slugs, kept.types
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
    return cooccurrence_of(node.entity_slugs for node in [*graph.paragraphs, *graph.tables])


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


def date_span(doc: Document) -> tuple[str | None, str | None]:
    """Earliest and latest day a document speaks of: publication and coverage combined."""
    lows, highs = [], []
    for value in (doc.published_date, doc.temporal_coverage_start, doc.temporal_coverage_end):
        if bounds := iso_bounds(value):
            lows.append(bounds[0])
            highs.append(bounds[1])
    return (min(lows), max(highs)) if lows else (None, None)


ANSWERS_SAME = "ANSWERS_SAME"


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


# ---------------------------------------------------------------------------- entity curation

# Edges the linker writes between documents (their endpoints are documents, their owner is none).
LINK_RELATIONS = ("SIMILAR_TO", "CONTRADICTS", "PRECEDES")

# (node id or '' for every node, from slug) -> (to slug or None = drop the mention, op id)
MAX_ROUTE_HOPS = 64


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


def _next_hop(slug: str, node_id: str, routes: Routes, since: int) -> tuple[str | None, int, bool] | None:
    """(to slug, op, node route?) of the first step since `since` that routes a mention of `slug` in `node_id`.

    A step acted on the mentions its slugs had at its time: a mention that reached
    `slug` through a later step was not among them (split alice in a node, then
    merge btc into alice: that node's btc mention stops at alice). So a chain
    takes steps in history order, which also ends any cycle.
    """
    found = [(step[1], i, step[0]) for i, key in enumerate([(node_id, slug), ("", slug)])
             if (step := routes.get(key)) is not None and step[1] >= since]
    if not found:
        return None
    op, i, dst = min(found)  # on a tie (never within one step) the node's own route wins
    return dst, op, i == 0


def resolve(slug: str, node_id: str, routes: Routes) -> tuple[str | None, list[int]]:
    """Where a mention of `slug` in `node_id` goes after every active curation step, and which steps sent it."""
    ops: list[int] = []
    for _ in range(MAX_ROUTE_HOPS):
        step = _next_hop(slug, node_id, routes, ops[-1] if ops else 0)
        if step is None:
            break
        slug, op, _ = step  # type: ignore[assignment]
        ops.append(op)
        if slug is None:
            break
    return slug, ops


def routed(node: NodeEntities, routes: Routes) -> tuple[NodeEntities, list[int]]:
    """A node's entity list with every route applied (a slug reached twice keeps its first place and type)."""
    slugs: list[str] = []
    types: list[str] = []
    ops: list[int] = []
    for i, slug in enumerate(node.slugs):
        target, used = resolve(slug, node.node_id, routes)
        ops += used
        if target is not None and target not in slugs:
            slugs.append(target)
            types.append(node.types[i] if i < len(node.types) else "CONCEPT")
    return NodeEntities(node.node_id, node.document_id, slugs, types, dict(node.mention)), _dedup(ops)


def records_wanted(routes: Routes, keys: dict[str, str], prior: dict[str, list[str]], replacing: bool) -> set[str]:
    """Entities whose records a write reads before replaced documents leave: the routes' targets and,
    when a document is replaced, every entity its incoming slugs (`keys`: slug -> norm_key) may become."""
    wanted = {dst for dst, _ in routes.values() if dst}
    if replacing:
        wanted |= set(keys) | {s for slugs in prior.values() for s in slugs}
    return wanted


def curate_incoming(graph: DocumentGraph, backend: Any, known: dict[str, Entity],
                    prior: dict[str, list[str]]) -> dict[int, list[NodeEntities]]:
    """Bring a document's entities in line with the atlas before it is written; returns pre-routing lists per step.

    1. incoming slugs without a route of their own go to the atlas entity with
       their norm_key (atlas-level dedup), so a spelling variant of a split entity
       meets the split's node routes;
    2. curation routes apply (`route_graph`);
    3. what is still new meets the atlas by norm_key again.
    The atlas is the one before a replaced document left it: `known` holds the
    records of route targets (and, on a re-ingest, of the entities it writes) and
    `prior` the slug each norm_key had then, so re-ingesting a document whose
    entities lived only in it gives what the first write gave.
    `backend` provides `routed_slugs`, `routes_for` and `entity_mapping`.
    """
    def mapping(skip: set[str]) -> dict[str, str]:
        found = backend.entity_mapping(graph.entities)
        for e in graph.entities:
            was = prior.get(e.norm_key) or []
            if e.slug not in found and was and e.slug not in was:
                found[e.slug] = was[0]
        return {s: t for s, t in found.items() if s not in skip}

    slugs = {s for n in [*graph.paragraphs, *graph.tables] for s in n.entity_slugs}
    rewrite_entity_slugs(graph, mapping(backend.routed_slugs(slugs)))
    slugs = {s for n in [*graph.paragraphs, *graph.tables] for s in n.entity_slugs}
    routes = backend.routes_for(slugs, {e.slug: e.norm_key for e in graph.entities})
    if not routes:
        return {}  # nothing curated touches this document: the first mapping was the whole job
    before = route_graph(graph, routes, known)
    last = mapping(set())
    rewrite_entity_slugs(graph, last)
    return map_routed(before, last)


def keep_records(graph: DocumentGraph, known: dict[str, Entity], present: Iterable[str]) -> None:
    """Write the graph's entities that left with a replaced document as the atlas knew them.

    `known`: records before the replaced document left; `present`: slugs still in
    the atlas. An entity mentioned only by the replaced document left with it;
    written again from the extraction alone it would lose the name, aliases and
    type the atlas had given it (an alias another document brought before a
    split moved that document's mentions away, a curated name). Entities still in
    the atlas are left to the write, which keeps their record and adds aliases.
    """
    stayed = set(present)
    gone = {s: e for s, e in known.items() if s not in stayed}
    if gone:
        graph.entities = [_target(e.slug, e, gone[e.slug], []) if e.slug in gone else e for e in graph.entities]


def route_graph(graph: DocumentGraph, routes: Routes, known: dict[str, Entity]) -> dict[int, list[NodeEntities]]:
    """Send the graph's mentions where curation steps route them; returns the pre-routing lists per step.

    A merged entity's later mentions reach the survivor, whose names they bring
    as aliases; a cleaned one's are dropped; a split-off node keeps its new
    entity. A route's target is written back as the atlas knew it (`known`: its
    record before this write), so re-ingesting a document keeps curated names.
    """
    if not routes:
        return {}
    entities = {e.slug: e for e in graph.entities}
    mention_attrs = {e.from_id: e.attrs for e in graph.edges if e.relation == "MENTIONS"}
    before: dict[int, list[NodeEntities]] = {}
    changed: set[str] = set()
    targets: dict[str, list[tuple[Entity, bool]]] = {}  # target slug -> (routed entity, brings its names)
    for node in [*graph.paragraphs, *graph.tables]:
        original = NodeEntities(node.id, graph.document.id, list(node.entity_slugs), list(node.entity_types),
                                dict(mention_attrs.get(node.id, {})))
        new, ops = routed(original, routes)
        if new.slugs == original.slugs:
            continue
        for op in ops:
            before.setdefault(op, []).append(original)
        for old in original.slugs:
            target = resolve(old, node.id, routes)[0]
            if target is not None and target != old:
                if old in entities:  # merges and renames bring names; a split does not
                    targets.setdefault(target, []).append((entities[old], _global_path(old, node.id, routes)))
        node.entity_slugs, node.entity_types = new.slugs, new.types
        changed.add(node.id)
    if not changed:
        return {}
    for target, sources in targets.items():
        entities[target] = _target(target, entities.get(target), known.get(target), sources)
    graph.edges = [e for e in graph.edges if not (e.relation == "MENTIONS" and e.from_id in changed)]
    for node in [*graph.paragraphs, *graph.tables]:
        if node.id in changed:
            graph.edges += [Edge(node.id, "entities/" + s, "MENTIONS", dict(mention_attrs.get(node.id, {})))
                            for s in node.entity_slugs]
    live = {s for n in [*graph.paragraphs, *graph.tables] for s in n.entity_slugs}
    graph.entities = [e for slug, e in entities.items() if slug in live]
    return before


def _global_path(slug: str, node_id: str, routes: Routes) -> bool:
    """Does every hop from `slug` in this node follow an atlas-wide route (no split on the way)?"""
    since = 0
    for _ in range(MAX_ROUTE_HOPS):
        step = _next_hop(slug, node_id, routes, since)
        if step is None or step[0] is None:
            return True
        if step[2]:
            return False
        slug, since = step[0], step[1]
    return True


def map_routed(before: dict[int, list[NodeEntities]], mapping: dict[str, str]) -> dict[int, list[NodeEntities]]:
    """Pre-routing lists as ingest would store them without the routes: same-norm_key slugs mapped to the atlas's."""
    if not mapping:
        return before
    table: Routes = {("", a): (b, 0) for a, b in mapping.items()}
    return {op: [routed(n, table)[0] for n in nodes] for op, nodes in before.items()}


def _target(slug: str, own: Entity | None, known: Entity | None, sources: list[tuple[Entity, bool]]) -> Entity:
    """The record a route target is written with: as the atlas knew it, gaining the routed names as aliases."""
    base = known or own or sources[0][0]
    out = Entity(**{**base.to_dict(), "id": "entities/" + slug, "slug": slug, "aliases": list(base.aliases)})
    for extra in [own, *(e for e, brings in sources if brings)]:
        if extra is not None and extra is not base:
            out.aliases = merge_aliases(out, extra)
    return out


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
