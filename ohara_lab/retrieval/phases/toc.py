"""Phase 0b: TOC guidance (spec §3.7): pick up to five sections of the top BM25
documents whose titles the query is about; phase 3 then walks from them.

Offline the pick is lexical (query keywords in the section title, stemmed by a
crude suffix rule); with an LLM the `toc_section_selector` prompt chooses.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ...settings import Settings
from ...store.protocol import GraphStore
from ...text import tokenize
from ..state import QueryState

MAX_SECTIONS = 5
SEED_DOCS = 3

Selector = Callable[[str, list[dict[str, Any]]], list[str]]


def _stem(word: str) -> str:
    return re.sub(r"(ing|ed|es|s)$", "", word) if len(word) > 4 else word


def lexical_selector(query: str, tree: list[dict[str, Any]]) -> list[str]:
    terms = {_stem(t) for t in tokenize(query)}
    scored = []
    for node in tree:
        overlap = len(terms & {_stem(t) for t in tokenize(node["title"])})
        if overlap:
            scored.append((-overlap, node["level"], node["id"]))
    return [sid for _, _, sid in sorted(scored)[:MAX_SECTIONS]]


def toc_guidance(state: QueryState, store: GraphStore, settings: Settings, selector: Selector = lexical_selector) -> list[str]:
    if not settings.toc_guidance or state.query.input_type == "keyword" or not state.hits.get("bm25"):
        return []
    docs = state.seed_documents(SEED_DOCS)
    tree = [{"id": s["id"], "title": s["title"], "level": s["level"], "summary": s.get("summary")}
            for s in store.sections_of(docs)]
    if not tree:
        return []
    known = {n["id"] for n in tree}
    return [s for s in selector(state.query.raw, tree) if s in known][:MAX_SECTIONS]
