"""After-tier checks of the evidence: integrity claim verification, self-RAG, rerank.

Each is registered at the engine's ``after_tiers`` extension point, called as ``(result, state)``, that does nothing unless
its switch is on for the call (``state.settings``), and records its verdicts on the
Integrity items, so an answer stays auditable:

* **integrity verify** (``integrity_llm_verify``, spec §3.10): each Integrity item
  with corroborating items from *other* documents is checked by
  ``verify_integrity_claim`` (claim = its text, snippets = up to three of those
  items); ``llm_verified`` / ``llm_verify_reason`` are added; an item judged
  unverified leaves the tier unless it is Principal; a failed call counts as
  verified (the check may only remove what it could judge).
* **self-RAG** (``self_rag_verify``, spec §4): each Principal item's text goes to
  ``self_rag_verify``; items judged unresponsive leave the Principal tier and stay
  in Integrity with role ``self_rag_dropped``; a failed call keeps the item.
* **rerank** (``rerank``, spec §4): the first ``rerank_top_n`` Principal items go to
  ``rerank``; the order is applied only when the reply is a permutation of
  1..n (the original accepted duplicates).
"""
from __future__ import annotations

import logging
from typing import Any

from ...errors import LLMError
from ...llm.shared import provider_for
from ..result import RetrievalResult
from ..state import QueryState
from ..tiers import IntegrityItem

log = logging.getLogger(__name__)

CLAIM_CHARS, SNIPPET_CHARS, SNIPPETS = 1000, 500, 3
QUERY_CHARS, PASSAGE_CHARS, RERANK_CHARS = 400, 1200, 500


def _text(result: RetrievalResult, node_id: str) -> str:
    view = result.views.get(node_id)
    return view.content if view else ""


def _document(result: RetrievalResult, item: IntegrityItem) -> str:
    view = result.views.get(item.id)
    return item.document_id or (view.document_id if view else "")


def integrity_verify(result: RetrievalResult, state: QueryState) -> None:
    s = state.settings
    items = result.tiers.integrity
    if not s.integrity_llm_verify or not items:
        return
    principal = {f.id for f in result.tiers.principal}
    jobs: list[tuple[IntegrityItem, dict[str, Any]]] = []
    for item in items:
        doc = _document(result, item)
        others = [_text(result, o.id)[:SNIPPET_CHARS] for o in items
                  if o is not item and _document(result, o) != doc and _text(result, o.id).strip()]
        claim = _text(result, item.id)[:CLAIM_CHARS]
        if others and claim.strip():
            jobs.append((item, {"claim": claim, "corroborating_snippets": others[:SNIPPETS]}))
    if not jobs:
        return
    replies = provider_for(s).generate_many([("verify_integrity_claim", v) for _, v in jobs])
    drop = set()
    for (item, _), reply in zip(jobs, replies):
        if isinstance(reply, LLMError):
            item.llm_verified, item.llm_verify_reason = True, f"not checked: {reply.reason}"[:300]
            continue
        item.llm_verified, item.llm_verify_reason = reply.data["verified"], reply.data["reason"]
        if not reply.data["verified"] and item.id not in principal:
            drop.add(item.id)
    result.tiers.integrity = [i for i in items if i.id not in drop]


def self_rag(result: RetrievalResult, state: QueryState) -> None:
    s = state.settings
    chosen = result.tiers.principal
    if not s.self_rag_verify or not chosen:
        return
    query = state.query.raw[:QUERY_CHARS]
    replies = provider_for(s).generate_many(
        [("self_rag_verify", {"query": query, "passage": _text(result, f.id)[:PASSAGE_CHARS]}) for f in chosen])
    verdicts: dict[str, dict[str, Any]] = {}
    for f, reply in zip(chosen, replies):
        if isinstance(reply, LLMError):
            verdicts[f.id] = {"responsive": True, "reason": f"not checked: {reply.reason}"[:300]}
        else:
            verdicts[f.id] = dict(reply.data)
    result.tiers.principal = [f for f in chosen if verdicts[f.id]["responsive"]]
    for item in result.tiers.integrity:
        verdict = verdicts.get(item.id)
        if verdict is None:
            continue
        item.self_rag = verdict
        if not verdict["responsive"]:
            item.role = "self_rag_dropped"
            item.flag("self_rag_unresponsive")


def rerank(result: RetrievalResult, state: QueryState) -> None:
    s = state.settings
    chosen = result.tiers.principal
    top = chosen[: max(0, s.rerank_top_n)]
    if not s.rerank or len(top) < 2:
        return
    passages = [_text(result, f.id)[:RERANK_CHARS] for f in top]
    try:
        reply = provider_for(s).generate("rerank", {"query": state.query.raw[:QUERY_CHARS], "passages": passages})
    except LLMError as exc:
        log.warning("rerank skipped: %s", exc.reason)
        return
    order = reply.data["ranked"]
    if sorted(order) != list(range(1, len(top) + 1)):
        log.warning("rerank reply %s is not a permutation of 1..%d; order kept", order, len(top))
        return
    result.tiers.principal = [top[i - 1] for i in order] + chosen[len(top):]
