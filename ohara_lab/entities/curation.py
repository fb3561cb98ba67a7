"""Entity curation with history: merge, split, rename, clean, dedup and undo (spec §2.12, made reversible).

Each step reads the entity lists of the nodes it touches, decides their new
lists and the entity records to write, and makes one `EntityChange`;
`ohara_lab.entities.changeset` turns it into the rows it implies (MENTIONS,
co-occurrence, document rollups, names, the RELATED_TO pairs and counts to
re-derive) and the store persists that write atomically, recording the step in
the `entity_merges` log with the state it replaced, so no sequence of steps can
leave counts or slugs inconsistent. Routes recorded with each step send later mentions of a
merged, split-off or cleaned entity where the step sent the existing ones, so
re-ingesting a document keeps the curation.

Undo restores the replaced state: the records of every entity the step touched
and the entity lists of the nodes it changed (and of nodes written since whose
mentions it routed), re-resolved through the routes of the steps still active.
A step can be undone while no later active step touched the same entities or
nodes; otherwise the later step has to be undone first (one consistent history,
never a partial rewind).

Dedup follows the spec: entities grouped by `norm_key`; the survivor has the most
mentions, then the earliest `first_seen`, then the smallest slug.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import CurationError
from ..ids import document_id, entity_id, norm_key, slugify
from ..ids import node_id as make_id
from ..records import MENTIONS, RELATED_TO, Edge, Entity, EntityChange, EntityOp, NodeEntities, from_dict, utc_now
from ..store.protocol import Routes
from . import changeset
from .derive import merge_aliases
from .intake import collect_routes, routed
from .rules import is_opaque

if TYPE_CHECKING:
    from ..store.protocol import GraphStore

# Types whose names are legitimately made of digits and punctuation.
NUMERIC_TYPES = ("DATE", "AMOUNT")
# Edges of an entity the store re-derives from the nodes' entity lists; every other edge touching an
# entity (SYNONYM_OF from `ohara embed`, links added by hand) is recorded by a step, so undo restores it.
DERIVED_RELATIONS = (MENTIONS, RELATED_TO)


# ---------------------------------------------------------------------------- reading


def _entities(store: GraphStore, slugs: Iterable[str]) -> dict[str, Entity]:
    wanted = list(dict.fromkeys(slugs))
    found = {e.slug: e for e in store.get_entities(wanted)}
    missing = [s for s in wanted if s not in found]
    if missing:
        raise CurationError(f"no entity with slug {missing[0]!r} in the atlas")
    return found


def _routes(store: GraphStore, *, without: int | None = None) -> Routes:
    return {(node, src): (dst, op) for op, node, src, dst in store.entity_routes() if op != without}


def _entity_edges(store: GraphStore, slugs: Iterable[str]) -> list[Edge]:
    """The edges touching these entities that the store does not re-derive, in a stable order."""
    ids = sorted({entity_id(s) for s in slugs})
    if not ids:
        return []
    found = {(e.from_id, e.to_id, e.relation): e for e in [*store.edges(from_ids=ids), *store.edges(to_ids=ids)]
             if e.relation not in DERIVED_RELATIONS}
    return [found[k] for k in sorted(found)]


def _op(kind: str, actor: str, reason: str, target: str | None, sources: list[str],
        entities: Iterable[Entity], nodes: Iterable[NodeEntities], store: GraphStore | None = None,
        **extra: Any) -> EntityOp:
    entities = list(entities)
    before = {"entities": [e.to_dict() for e in entities], "nodes": [n.to_dict() for n in nodes], **extra}
    if store is not None:
        before["edges"] = [e.to_dict() for e in _entity_edges(store, [e.slug for e in entities])]
    return EntityOp(op=kind, actor=actor, reason=reason, target=target, sources=sources, before=before, ts=utc_now())


def _relabel(node: NodeEntities, mapping: dict[str, str | None], kind: str | None = None) -> NodeEntities:
    """A node's list with slugs replaced (None drops them); a slug reached twice keeps its first place."""
    slugs: list[str] = []
    types: list[str] = []
    for i, slug in enumerate(node.slugs):
        new = mapping.get(slug, slug)
        if new is None or new in slugs:
            continue
        slugs.append(new)
        old_type = node.types[i] if i < len(node.types) else "CONCEPT"
        types.append(kind if kind is not None and slug in mapping else old_type)
    return NodeEntities(node.node_id, node.document_id, slugs, types, dict(node.mention))


def _apply(store: GraphStore, op: EntityOp, entities: list[Entity], nodes: list[NodeEntities],
           routes: list[tuple[str, str, str | None]]) -> EntityOp:
    op.id = changeset.apply(store, EntityChange(op=op, entities=entities, nodes=nodes, routes=routes))
    return op


# ---------------------------------------------------------------------------- steps


def merge(store: GraphStore, sources: Iterable[str], target: str, *, actor: str = "user", reason: str = "",
          kind: str = "merge") -> EntityOp:
    """Fold `sources` into `target`: mentions re-pointed, names become aliases, counts re-derived."""
    sources = list(dict.fromkeys(sources))
    if not sources:
        raise CurationError("merge needs at least one entity to fold into the target")
    if target in sources:
        raise CurationError(f"cannot merge {target!r} into itself")
    found = _entities(store, [target, *sources])
    survivor = replace(found[target], aliases=list(found[target].aliases))
    for slug in sources:
        survivor.aliases = merge_aliases(survivor, found[slug])
    added = [a for a in survivor.aliases if a not in found[target].aliases]
    nodes = store.entity_nodes(slugs=sources)
    mapping: dict[str, str | None] = dict.fromkeys(sources, target)
    op = _op(kind, actor, reason, target, sources, found.values(), nodes, store, aliases_added=added)
    return _apply(store, op, [survivor], [_relabel(n, mapping, survivor.type) for n in nodes],
                  [("", s, target) for s in sources])


def split(store: GraphStore, slug: str, new_name: str, *, nodes: Iterable[str] = (), documents: Iterable[str] = (),
          kind: str | None = None, actor: str = "user", reason: str = "") -> EntityOp:
    """Move the mentions of `slug` in the given nodes (or documents) to an entity named `new_name`."""
    found = _entities(store, [slug])
    new_slug = slugify(new_name)
    if new_slug == slug:
        raise CurationError(f"{new_name!r} has the same slug as {slug!r}: use rename")
    wanted_nodes, wanted_docs = set(nodes), {_doc_id(d) for d in documents}
    if not wanted_nodes and not wanted_docs:
        raise CurationError("split needs the nodes or documents whose mentions move")
    chosen = [n for n in store.entity_nodes(slugs=[slug])
              if n.node_id in wanted_nodes or n.document_id in wanted_docs]
    if not chosen:
        raise CurationError(f"none of the given nodes or documents mentions {slug!r}")
    existing = {e.slug: e for e in store.get_entities([new_slug])}
    source = found[slug]
    new = existing.get(new_slug) or Entity(id=make_id("entities", new_slug), slug=new_slug, name=new_name,
                                           norm_key=norm_key(new_name), type=kind or source.type,
                                           first_seen=utc_now())
    op = _op("split", actor, reason, new_slug, [slug], [source, *existing.values()], chosen, store)
    return _apply(store, op, [new], [_relabel(n, {slug: new_slug}, new.type) for n in chosen],
                  [(n.node_id, slug, new_slug) for n in chosen])


def rename(store: GraphStore, slug: str, new_name: str, *, actor: str = "user", reason: str = "") -> EntityOp:
    """Give an entity a new canonical name (the old one becomes an alias); a new slug moves every mention."""
    old = _entities(store, [slug])[slug]
    new_slug = slugify(new_name)
    if new_name == old.name:
        raise CurationError(f"{slug!r} is already named {new_name!r}")
    renamed = replace(old, name=new_name, slug=new_slug, id=make_id("entities", new_slug), norm_key=norm_key(new_name),
                      aliases=[a for a in dict.fromkeys([*old.aliases, old.name]) if a != new_name])
    if new_slug == slug:
        return _apply(store, _op("rename", actor, reason, slug, [slug], [old], [], store), [renamed], [], [])
    if store.get_entities([new_slug]):
        raise CurationError(f"an entity {new_slug!r} already exists: merge {slug!r} into it instead")
    nodes = store.entity_nodes(slugs=[slug])
    op = _op("rename", actor, reason, new_slug, [slug], [old], nodes, store)
    return _apply(store, op, [renamed], [_relabel(n, {slug: new_slug}) for n in nodes], [("", slug, new_slug)])


def noise_reason(entity: Entity) -> str | None:
    """Why an entity is noise, or None (spec §2.12: opaque identifiers; also names without a letter or digit)."""
    if is_opaque(entity.name):
        return "opaque identifier"
    letters = sum(c.isalpha() for c in entity.name)
    if entity.type not in NUMERIC_TYPES and letters == 0:
        return "no letters in the name"
    if entity.type not in NUMERIC_TYPES and len(norm_key(entity.name)) < 2:
        return "name shorter than two letters or digits"
    return None


def noise(store: GraphStore) -> dict[str, str]:
    """Entities `clean` would remove, with the reason for each."""
    found = {e.slug: noise_reason(e) for e in store.get_entities()}
    return {slug: why for slug, why in found.items() if why}


def clean(store: GraphStore, *, slugs: Iterable[str] | None = None, actor: str = "user",
          reason: str = "noise cleanup") -> EntityOp | None:
    """Remove noise entities (or the given slugs) with their mentions; logged, so `undo` brings them back."""
    removed = list(dict.fromkeys(slugs)) if slugs is not None else sorted(noise(store))
    if not removed:
        return None
    found = _entities(store, removed)
    nodes = store.entity_nodes(slugs=removed)
    mapping: dict[str, str | None] = dict.fromkeys(removed)
    why = {s: noise_reason(found[s]) or "named" for s in removed}
    op = _op("clean", actor, reason, None, removed, found.values(), nodes, store, reasons=why)
    return _apply(store, op, [], [_relabel(n, mapping) for n in nodes], [("", s, None) for s in removed])


def duplicate_groups(store: GraphStore) -> list[tuple[str, list[str]]]:
    """(survivor, others) per group of entities sharing a norm_key, by the spec's survivor rule."""
    groups: dict[str, list[Entity]] = {}
    for e in store.get_entities():
        groups.setdefault(e.norm_key, []).append(e)
    out = []
    for key in sorted(groups):
        members = sorted(groups[key], key=lambda e: (-e.mention_count, e.first_seen or "~", e.slug))
        if len(members) > 1:
            out.append((members[0].slug, [e.slug for e in members[1:]]))
    return out


def dedup(store: GraphStore, *, actor: str = "auto-dedup") -> list[EntityOp]:
    """Merge every group of same-norm_key entities into its survivor, one logged step per group."""
    return [merge(store, others, survivor, actor=actor, reason="same normalised name", kind="dedup")
            for survivor, others in duplicate_groups(store)]


# ---------------------------------------------------------------------------- undo


def touched(op: EntityOp, store: GraphStore) -> tuple[set[str], set[str]]:
    """(entity slugs, node ids) a step changed, including nodes it routed at later ingests."""
    slugs = set(op.sources) | ({op.target} if op.target else set())
    nodes = {n["node_id"] for n in op.before.get("nodes", [])}
    nodes |= {n.node_id for n in store.routed_nodes(op.id)}
    return slugs, nodes


def undo(store: GraphStore, op_id: int | None = None, *, actor: str = "user") -> EntityOp:
    """Undo one step (default: the latest active one) and return it."""
    ops = store.entity_ops()
    active = [o for o in ops if o.active]
    if op_id is None and not active:
        raise CurationError("nothing to undo: the entity log has no active step")
    op = active[-1] if op_id is None else next((o for o in ops if o.id == op_id), None)
    if op is None:
        raise CurationError(f"no step {op_id} in the entity log")
    if not op.active:
        raise CurationError(f"step {op.id} was already undone at {op.undone_at}")
    slugs, nodes = touched(op, store)
    for later in (o for o in active if o.id > op.id):
        s2, n2 = touched(later, store)
        if slugs & s2 or nodes & n2:
            raise CurationError(f"undo step {later.id} ({later.op} {later.target or ', '.join(later.sources)}) first:"
                                f" it changed the same entities or nodes")
    saved, extracted = _restored_nodes(store, op)
    routes = _routes(store, without=op.id)
    routes.update(_variant_routes(store, op, extracted))
    lists = saved + [routed(n, routes)[0] for n in extracted]
    entities, remap = _restored_entities(store, op, {s: t for n in lists for s, t in zip(n.slugs, n.types)})
    lists = [_relabel(n, dict(remap)) for n in lists] if remap else lists
    remove, restore = _links_before(store.routed_links(op.id))
    edges = [Edge(**e) for e in op.before.get("edges", [])]  # steps logged before issue 28.7 recorded none
    changeset.apply(store, EntityChange(undo=op.id, actor=actor, entities=entities, nodes=lists,
                                        links_remove=remove, links_restore=restore, entity_edges=edges))
    return replace(op, undone_at=utc_now(), undone_by=actor)


def _variant_routes(store: GraphStore, op: EntityOp, restored: list[NodeEntities]) -> Routes:
    """Routes by norm_key that ingest gave restored slugs which are no entity (spelling variants), other steps only."""
    listed = {s for n in restored for s in n.slugs}
    missing = listed - {e["slug"] for e in op.before.get("entities", [])} - {e.slug for e in store.get_entities(listed)}
    if not missing:
        return {}
    found = collect_routes(missing, {s: norm_key(s) for s in missing}, store)
    return {k: v for k, v in found.items() if v[1] != op.id and k[1] in missing}


def _links_before(records: list[tuple[list[Edge], list[Edge]]]) -> tuple[list[Edge], list[Edge]]:
    """Cross-document links re-ingests rewrote under a step, and their state before the first of them.

    Walking the re-ingests in order, the first sighting of a link decides: seen
    among a document's links before its re-ingest, that version is the original;
    seen first among the links a re-ingest wrote, it did not exist before.
    """
    first: dict[tuple[str, str, str], Edge | None] = {}
    for old, new in records:
        for e in old:
            first.setdefault((e.from_id, e.to_id, e.relation), e)
        for e in new:
            first.setdefault((e.from_id, e.to_id, e.relation), None)
    remove = [Edge(f, t, r) for f, t, r in first]
    return remove, [e for e in first.values() if e is not None]


def _restored_nodes(store: GraphStore, op: EntityOp) -> tuple[list[NodeEntities], list[NodeEntities]]:
    """(lists the step replaced, lists as extracted by re-ingests since) of nodes that still exist.

    The first are restored as they were: they already carry the steps before this
    one, and no later active step touched them (`undo` refuses otherwise). The
    second were recorded before any route applied, so the other steps' routes
    apply to them again, as at ingest.
    """
    routed = {n.node_id: n for n in store.routed_nodes(op.id)}
    saved = {n["node_id"]: from_dict(NodeEntities, n) for n in op.before.get("nodes", [])
             if n["node_id"] not in routed}
    current = {n.node_id: n for n in store.entity_nodes(node_ids=[*saved, *routed])}
    fresh = lambda group: [replace(n, mention=current[nid].mention or n.mention)  # noqa: E731
                           for nid, n in sorted(group.items()) if nid in current]
    return fresh(saved), fresh(routed)


def _restored_entities(store: GraphStore, op: EntityOp, listed: dict[str, str]) -> tuple[list[Entity], dict[str, str]]:
    """Entity records as the step found them (a survivor keeps aliases it gained since from elsewhere),
    and where spelling variants go.

    A variant first seen at an ingest after the step was routed to the survivor by
    its norm_key; undone, it goes where ingest would have sent it: to a restored
    entity with its norm_key, else to an atlas entity with it (a variant ingest
    kept while its entity was merged away meets that entity again once the merge
    is undone), else to an entity of its own named by the alias it had become.
    """
    before = [from_dict(Entity, e) for e in op.before.get("entities", [])]
    now = {e.slug: e for e in store.get_entities([e.slug for e in before])}
    known = set(now) | {e.slug for e in before} | {e.slug for e in store.get_entities(list(listed))}
    names = {slug: next((a for e in now.values() for a in e.aliases if slugify(a) == slug), slug)
             for slug in sorted(set(listed) - known)}
    by_key: dict[str, str | None] = {e.norm_key: e.slug for e in reversed(before)}
    keys = {norm_key(a) for e in now.values() for a in e.aliases} | {norm_key(n) for n in names.values()}
    for key, slugs in store.entities_by_names(sorted(keys)).items():
        by_key.setdefault(key, next((e.slug for e in store.get_entities(slugs) if e.norm_key == key), None))
    added = set(op.before.get("aliases_added", []))
    remap: dict[str, str] = {}
    variants: dict[str, Entity] = {}
    for slug, name in names.items():
        target = by_key.get(norm_key(name))
        if target:
            remap[slug] = target
        else:
            variants[slug] = Entity(id=make_id("entities", slug), slug=slug, name=name, norm_key=norm_key(name),
                                    type=listed[slug], first_seen=utc_now())
    gone = {v.name for v in variants.values()}
    out = []
    for e in before:
        later = [a for a in (now[e.slug].aliases if e.slug in now else [])
                 if a not in e.aliases and a not in added and a not in gone]
        out.append(replace(e, aliases=[*e.aliases, *later]))
    return out + list(variants.values()), remap


def _doc_id(d: str) -> str:
    return document_id(d)
