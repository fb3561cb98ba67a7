"""`ohara check [--fix]`: the store's integrity checks plus stale analytics, and the repairs that are mechanical.

Repairable: a section without its parent's HAS_CHILD edge, a paragraph or table
without BELONGS_TO (spec `verify --fix`), derived entity data that drifted from the
nodes' entity lists (co-occurrence and RELATED_TO counts, entity counts and
document lists, document rollups), analytics computed on an older atlas, and an ANN
index that is damaged, of an older format or missing (rebuilt from the atlas's vectors).
Everything else (missing nodes, a damaged full-text index, entity lists that
disagree with MENTIONS) needs a re-ingest and is only reported.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .records import BELONGS_TO, HAS_CHILD, Edge, Problem

if TYPE_CHECKING:
    from .atlas import Atlas
    from .store.protocol import GraphStore

ANN_CODES = ("ANN_CORRUPT", "ANN_OLD_FORMAT", "ANN_MISSING")
REDERIVABLE = ("ROLLUP_STALE", "ENTITY_COUNT_MISMATCH", "ENTITY_DOCS_MISMATCH", "RELATED_TO_MISMATCH")


def analytics_problems(store: GraphStore) -> list[Problem]:
    """ANALYTICS_STALE when the stored analytics describe an older version of the atlas."""
    from .analytics.run import staleness  # noqa: PLC0415

    why = staleness(store)
    if not why:
        return []
    return [Problem("ANALYTICS_STALE", "warning", f"graph analytics are stale ({why}): run `ohara analyze`")]


def check_atlas(atlas: Atlas, *, rederive: Callable[[GraphStore], int], fix: bool = False) -> list[Problem]:
    """Problems of the atlas; with `fix`, one `fixed` entry per repair first, then what remains.

    `rederive` re-derives the entity data of every document from the nodes' entity lists
    (`ohara_lab.entities.changeset.rederive`, passed in by the facade: deciding those values is the
    entity layer's, and `repair` sits below it)."""
    store = atlas.store
    problems = store.check() + analytics_problems(store)
    if not fix:
        return problems
    codes = {p.code for p in problems}
    fixes: list[Problem] = []
    if "MISSING_PARENT" in codes or "MISSING_BELONGS_TO" in codes:
        fixes += _structure(store)
    if codes & set(REDERIVABLE):
        n = rederive(store)
        fixes.append(Problem("REDERIVED", "fixed", f"re-derived co-occurrence, RELATED_TO, entity counts and"
                                                   f" rollups of {n} documents from their entity lists"))
    if codes & set(ANN_CODES):
        fixes += [Problem("ANN_REBUILT", "fixed", f"{model}: rebuilt the ANN index from the atlas's vectors")
                  for model in store.rebuild_vector_index()]
    if "ANALYTICS_STALE" in codes or (fixes and store.get_meta("analytics")):
        report = atlas.analyze()
        fixes.append(Problem("ANALYTICS_STALE", "fixed", f"re-ran analyze at graph version {report.graph_version}"))
    return fixes + store.check() + analytics_problems(store)


def _structure(store: GraphStore) -> list[Problem]:
    """Missing HAS_CHILD edges into sections and BELONGS_TO edges from text nodes, added one by one."""
    missing: list[Edge] = []
    for doc in store.list_documents():
        nodes = store.document_nodes(doc.id)
        sections = nodes["sections"]
        parents = {e.to_id for e in store.edges(to_ids=[s["id"] for s in sections], relations=[HAS_CHILD])}
        missing += [Edge(s.get("parent_section_id") or doc.id, s["id"], HAS_CHILD)
                    for s in sections if s["id"] not in parents]
        texts = [n["id"] for n in nodes["paragraphs"] + nodes["tables"]]
        owned = {e.from_id for e in store.edges(from_ids=texts, to_ids=[doc.id], relations=[BELONGS_TO])}
        missing += [Edge(t, doc.id, BELONGS_TO) for t in texts if t not in owned]
    written = store.add_edges(missing)
    code = {HAS_CHILD: "MISSING_PARENT", BELONGS_TO: "MISSING_BELONGS_TO"}
    fixes = [Problem(code[e.relation], "fixed", f"added {e.relation} {e.from_id} -> {e.to_id}") for e in missing]
    if written < len(missing):
        fixes.append(Problem("FIX_INCOMPLETE", "warning", f"{len(missing) - written} edge(s) had a missing endpoint"))
    return fixes
