"""Phase 1: BM25 full text over paragraph content, section titles and table markdown (spec §3.2)."""
from __future__ import annotations

from ...settings import Settings
from ...store.protocol import GraphStore
from ..hits import Hit
from ..state import SEED_COUNT, QueryState


def strict_dates(state: QueryState, settings: Settings) -> tuple[str | None, str | None]:
    """The range is a hard filter unless the intent is historical (then it only informs the prior)."""
    rng = state.query.date_range
    if not rng or state.query.temporal_intent == "historical_fact" or not settings.date_filter_strict:
        return None, None
    return rng.get("from"), rng.get("to")


def bm25(state: QueryState, store: GraphStore, settings: Settings) -> list[Hit]:
    if not state.query.keywords:
        return []
    date_from, date_to = strict_dates(state, settings)
    rows = store.bm25_search(state.query.keywords, 2 * state.limit, date_from=date_from, date_to=date_to,
                             exclude_documents=state.excluded)
    hits = [Hit(r.id, r.document_id, "bm25", r.score, {"collection": r.collection}) for r in rows]
    top = [h.id for h in hits[:SEED_COUNT]]
    nodes = store.get_nodes(top)
    state.seeds = [nodes[i] for i in top if i in nodes]
    return hits
