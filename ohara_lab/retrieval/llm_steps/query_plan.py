"""Phase 0a (LLM query fingerprint) and phase 0b (LLM TOC section selector).

0a, for phrase and paragraph queries (spec §3.1): ``extract_query_fingerprint``
with the raw query (at most 2,000 chars) and the last turns of the conversation,
cached, temperature 0. Its reply only ever *narrows to what the atlas knows*:

* SUMO tags pass `Ontology.validate_tags`; when none survives, the offline
  lexicon hints stay;
* an entity becomes a hint only if the atlas has it (by slug, or by the
  normalised canonical name); the offline hints, already matched against the
  atlas, follow;
* the temporal intent replaces the heuristic one, except ``ordering``, our own
  intent for before/after questions, which the prompt cannot express;
* a date range is normalised to day bounds (``YYYY`` -> Jan 1 / Dec 31,
  ``YYYY-MM`` -> first / last day); without one the heuristic range stays.

A failed call leaves the offline fingerprint in place.

0b: ``toc_section_selector`` on the section tree of the top documents; on failure
the engine's lexical selector answers instead.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ...dates import iso_bounds
from ...errors import LLMError
from ...ids import norm_key
from ...llm.shared import provider_for
from ...settings import Settings
from ...store.protocol import GraphStore
from ..phases.toc import lexical_selector
from ..state import QueryState

log = logging.getLogger(__name__)

QUERY_CHARS = 2000
HISTORY_CHARS = 500
SELECTOR_QUERY_CHARS = 400
MAX_SUMO_HINTS = 6
MAX_ENTITY_HINTS = 8


def history_block(history: list[dict[str, str]]) -> str | None:
    """`User: …` / `Assistant: …` lines, each at most 500 chars (spec §3.1)."""
    lines = []
    for turn in history:
        role = "Assistant" if str(turn.get("role", "")).lower() == "assistant" else "User"
        text = " ".join(str(turn.get("content") or "").split())[:HISTORY_CHARS].rstrip()
        if text:
            lines.append(f"{role}: {text}")
    return "\n".join(lines) or None


def day_range(rng: dict[str, Any] | None) -> dict[str, str | None]:
    """{"from", "to"} as YYYY-MM-DD bounds (empty dict when neither bound is a date)."""
    out: dict[str, str | None] = {}
    for key, end in (("from", 0), ("to", 1)):
        value = (rng or {}).get(key)
        if not value:
            continue
        if bounds := iso_bounds(str(value)):
            out[key] = bounds[end]
    if not out:
        return {}
    return {"from": out.get("from"), "to": out.get("to")}


class LLMFingerprint:
    """`engine.fingerprint(state)`: refine the offline phase-0 fingerprint with the LLM."""

    def __init__(self, store: GraphStore, ontology_loader: Callable[[], Any]):
        self.store = store
        self._ontology = ontology_loader

    def __call__(self, state: QueryState) -> None:
        q = state.query
        if q.input_type not in ("phrase", "paragraph"):
            return
        provider = provider_for(state.settings)
        if provider.name == "offline":
            return  # the engine's offline fingerprint already ran
        variables = {"query": q.raw[:QUERY_CHARS], "history": history_block(state.history)}
        try:
            reply = provider.generate("extract_query_fingerprint", variables)
        except LLMError as exc:
            log.warning("phase 0a kept the offline fingerprint: %s", exc.reason)
            return
        self.apply(state, reply.data, provider.name)

    def apply(self, state: QueryState, data: dict[str, Any], source: str) -> None:
        q = state.query
        tags = list(self._ontology().validate_tags(data.get("sumo_tags") or []).tags)
        if tags:
            q.sumo_hints = list(dict.fromkeys(tags))[:MAX_SUMO_HINTS]
        hints = self.known_entities(data.get("entities") or []) + list(q.entity_hints)
        q.entity_hints = _first_per_slug(hints)[:MAX_ENTITY_HINTS]
        if q.temporal_intent != "ordering" and data.get("temporal_intent"):
            q.temporal_intent = data["temporal_intent"]
        rng = day_range(data.get("date_range"))
        if rng:
            q.date_range = rng
        q.fingerprint_source = source

    def known_entities(self, entities: list[dict[str, Any]]) -> list[dict[str, str]]:
        """The reply's entities the atlas has (by slug or normalised name), with the atlas's slug and type."""
        by_name = self.store.entities_by_names(sorted({norm_key(e["canonical"]) for e in entities}))
        candidates = [(slug, e["canonical"]) for e in entities
                      for slug in [e.get("slug"), *by_name.get(norm_key(e["canonical"]), [])] if slug]
        types = self.store.entity_types(sorted({s for s, _ in candidates}))  # only existing slugs come back
        return _first_per_slug([{"slug": s, "type": types[s], "name": name} for s, name in candidates if s in types])


def _first_per_slug(hints: list[dict[str, str]]) -> list[dict[str, str]]:
    seen: set[str] = set()
    out = []
    for h in hints:
        if h["slug"] not in seen:
            seen.add(h["slug"])
            out.append(h)
    return out


class LLMTocSelector:
    """`engine.toc_selector(query, tree) -> [section ids]` through `toc_section_selector`."""

    def __init__(self, settings: Settings):
        self.settings = settings

    def __call__(self, query: str, tree: list[dict[str, Any]]) -> list[str]:
        provider = provider_for(self.settings)
        if provider.name == "offline":
            return lexical_selector(query, tree)
        try:
            reply = provider.generate("toc_section_selector", {"query": query[:SELECTOR_QUERY_CHARS], "section_tree": tree})
        except LLMError as exc:
            log.warning("phase 0b fell back to the lexical selector: %s", exc.reason)
            return lexical_selector(query, tree)
        known = {n["id"] for n in tree}
        return [s for s in reply.data["relevant_section_ids"] if s in known]
