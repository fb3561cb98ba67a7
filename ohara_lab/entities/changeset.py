"""A curation step's write, decided in Python: `EntityChange` + the atlas's `CurationState` -> `CurationWrite`.

A step (`ohara_lab.entities.curation`) decides the entity records and the nodes' new entity
lists; everything those imply is decided here, never in a store: the mention rows, the
norm_keys each record is found by, every touched document's co-occurrence counts and entity
rollup (its lists as stored with the step's nodes swapped in), which RELATED_TO pairs and which
entities' counts to re-derive, and each route's from norm_key. The reads that takes are
declared up front (`Step.reads`) and answered by the store in one call; the store then
persists the write in the same transaction, so a concurrent writer cannot slip in between:

    store.write_curation(Step(change))  # in one transaction: plan(change, curation_state(reads))
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..records import EntityChange, NodeEntities
from ..store.protocol import CurationReads, CurationState, CurationWrite
from .derive import cooccurrence_of, frequency_order, name_keys, node_mention_rows

if TYPE_CHECKING:
    from ..store.protocol import GraphStore


@dataclass
class Step:
    """One curation step's write (`store.protocol.CurationStep`)."""

    change: EntityChange

    def reads(self) -> CurationReads:
        return CurationReads(sorted({n.document_id for n in self.change.nodes}),
                             sorted({src for _, src, _ in self.change.routes}))

    def plan(self, state: CurationState) -> CurationWrite:
        return plan(self.change, state)


@dataclass
class Rederive:
    """Re-derive the entity data of some documents (all when None) and every entity's counts."""

    documents: list[str] | None
    done: int = 0  # documents re-derived

    def reads(self) -> CurationReads:
        return CurationReads(self.documents, every_slug=True)

    def plan(self, state: CurationState) -> CurationWrite:
        write = recount(CurationWrite(EntityChange()), state, {})
        write.counted = set(state.slugs)
        self.done = len(state.documents)
        return write


def apply(store: GraphStore, change: EntityChange) -> int:
    """Decide what `change` writes and have the store persist it; returns the log entry's id."""
    return store.write_curation(Step(change))


def rederive(store: GraphStore, document_ids: Iterable[str] | None = None) -> int:
    """Re-derive co-occurrence, RELATED_TO, entity counts and rollups of `document_ids` (all when None)
    from the nodes' entity lists, every entity's counts with them; returns the documents done."""
    step = Rederive(sorted(document_ids) if document_ids is not None else None)
    store.write_curation(step)
    return step.done


def plan(change: EntityChange, state: CurationState) -> CurationWrite:
    """The rows and counts `change` implies, from the atlas as `state` read it."""
    held = {nid for lists in state.lists.values() for nid, _ in lists}
    nodes = [n for n in change.nodes if n.node_id in held]  # a node the atlas no longer holds stays unwritten
    write = CurationWrite(
        change,
        nodes=nodes,
        mentions={n.node_id: node_mention_rows([n]) for n in nodes},
        names={e.slug: name_keys(e) for e in change.entities},
        routes=[(node, src, state.norm_keys.get(src) or src, dst) for node, src, dst in change.routes],
    )
    old = {nid: slugs for lists in state.lists.values() for nid, slugs in lists}
    write.counted = {e.slug for e in change.entities}
    for n in nodes:
        write.counted |= set(old[n.node_id]) | set(n.slugs)
    return recount(write, state, {n.node_id: n for n in nodes})


def recount(write: CurationWrite, state: CurationState, new: dict[str, NodeEntities]) -> CurationWrite:
    """Co-occurrence, rollup and RELATED_TO pairs of every document in `state`, with the `new` lists swapped in."""
    for doc_id, lists in sorted(state.lists.items()):
        current = [new[nid].slugs if nid in new else slugs for nid, slugs in lists]
        counted = cooccurrence_of(current)
        write.cooccurrence[doc_id] = dict(counted)
        write.related |= set(state.pairs.get(doc_id, [])) | set(counted)
        if doc_id in state.present:
            write.rollups[doc_id] = frequency_order(current)
    return write
