"""Stage 1, the plan: what a write must do for a document, decided by its content hash.

An unchanged, complete document is skipped; a partial one (chunks left
`llm_pending`) is rebuilt and replaces itself; `force` rebuilds anyway; a changed
file at the same origin replaces its previous version.

The plan reads through the writer's own connection, so inside a write group it sees
the documents written earlier in the run and not yet committed: a run plans each
document exactly as it would with one transaction per document. A document counts
as done (reported, skipped by the next run) only once its group is committed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..store.protocol import GraphStore


@dataclass
class Plan:
    status: str  # ingested | skipped | completed | replaced
    replaces: list[str] = field(default_factory=list)
    existing: str | None = None  # the unchanged document a skip refers to


def plan_write(store: GraphStore, file_hash: str, origin: str, force: bool) -> Plan:
    same = store.find_documents(file_hash=file_hash)
    if same and not force and all(d.ingestion_status == "complete" for d in same):
        return Plan("skipped", [], same[0].id)
    older = [d for d in store.find_documents(origin_path=origin) if d.file_hash != file_hash]
    replaces = [d.id for d in same] + [d.id for d in older]
    if same and not force:
        return Plan("completed", replaces)
    return Plan("replaced" if replaces else "ingested", replaces)
