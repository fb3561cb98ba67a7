"""Reasoning RAG (spec §3.2): follow-up searches for the facts a multi-hop question still lacks.

After phase 1, when ``reasoning_rag`` is on for the call and BM25 found something,
``reasoning_subquery`` sees the question and the top three passages and proposes
at most ``reasoning_subquery_limit`` sub-queries; each runs phase 1 again with half
the result limit (rounded up), under the same date filter, and the rows phase 1 has
not seen are appended to its hits (``via.subquery`` says which sub-query found
them). Offline, sub-queries come from splitting the question on conjunctions and
relative clauses.
"""
from __future__ import annotations

import logging
import math
from typing import Any

from ...errors import LLMError
from ...llm.shared import provider_for
from ...store.protocol import GraphStore
from ...text import tokenize
from ..hits import Hit
from ..phases.bm25 import strict_dates
from ..state import QueryState

log = logging.getLogger(__name__)

PASSAGES = 3
QUERY_CHARS = PASSAGE_CHARS = 400


def _text(row: dict[str, Any]) -> str:
    return str(row.get("content") or row.get("title") or row.get("markdown_representation") or "")


def reasoning_subqueries(state: QueryState, store: GraphStore) -> None:
    """An `after_bm25` step: append sub-query BM25 rows as `bm25` hits."""
    s = state.settings
    found = state.hits.get("bm25") or []
    if not s.reasoning_rag or not found or s.reasoning_subquery_limit <= 0:
        return
    passages = [_text(r)[:PASSAGE_CHARS] for r in state.seeds[:PASSAGES] if _text(r).strip()]
    try:
        reply = provider_for(s).generate("reasoning_subquery", {"query": state.query.raw[:QUERY_CHARS],
                                                                "passages": passages})
    except LLMError as exc:
        log.warning("reasoning sub-queries skipped: %s", exc.reason)
        return
    date_from, date_to = strict_dates(state, s)
    seen = {h.id for h in found}
    limit = math.ceil(state.limit / 2)
    for sub in reply.data["subqueries"][: s.reasoning_subquery_limit]:
        keywords = tokenize(sub)
        if not keywords:
            continue
        for row in store.bm25_search(keywords, limit, date_from=date_from, date_to=date_to,
                                     exclude_documents=state.excluded):
            if row.id not in seen:
                seen.add(row.id)
                found.append(Hit(row.id, row.document_id, "bm25", row.score,
                                 {"collection": row.collection, "subquery": sub}))
    state.hits["bm25"] = found
