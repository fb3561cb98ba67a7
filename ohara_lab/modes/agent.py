"""Agentic RAG (spec §4 `queryAgent`): an LLM (or, offline, a fixed heuristic order) picks
one retrieval tool at a time until it has enough.

Each step asks ``agent_strategy`` with the question, how many nodes were found and
how many of them two tools reached (corroborated: only those can become Principal),
the first five found (120 chars each) and the tools used. The loop stops on ``done``, a
repeated tool, a failed call, or ``agent_max_iter`` steps. ``web_search`` is never
available here; choosing it is recorded in the trace and the loop goes on.

Every tool's rows are `Hit`s of a retrieval phase (`tools`), so the merged rows
carry contributions and go through the engine's fusion and tiers (`finish`): the
original built rows without contributions and crashed in tiering as soon as the
agent found anything. ``agent_trace`` records per step the tool, the reason, the
hint and the ids it added; ``agent_tool_history`` the tools in order.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from ..errors import LLMError
from ..llm.shared import provider_for
from ..retrieval.fingerprint import offline_fingerprint
from ..retrieval.fusion import fuse, phase_weights
from ..retrieval.hits import Hit
from ..retrieval.query import parse_query
from ..retrieval.state import QueryState
from .finish import finish
from .result import ModeResult
from .tools import TOOLS, ToolContext

log = logging.getLogger(__name__)

SUMMARY_ITEMS, SUMMARY_CHARS = 5, 120


def start_state(engine: Any, text: str, settings: Any, history: list[dict[str, str]] | None) -> QueryState:
    """Phase 0 as the engine runs it: parse, offline fingerprint, then the installed (LLM) fingerprint."""
    state = QueryState(parse_query(text), settings)
    state.history = list(history or [])[-settings.session_history_limit:] if settings.session_history_limit > 0 else []
    offline_fingerprint(state.query, engine.store, engine.ontology)
    if engine.fingerprint is not None:
        engine.fingerprint(state)
    return state


def run_agent(atlas: Any, text: str, session_history: list[dict[str, str]] | None = None,
              **overrides: Any) -> ModeResult:
    settings = atlas.settings.override(**overrides)
    engine = atlas.engine
    t0 = time.perf_counter()
    state = start_state(engine, text, settings, session_history)
    provider = provider_for(settings)
    weights = phase_weights(settings, state.query.mode)
    found: dict[str, list[Hit]] = {}
    first_tool: dict[str, list[str]] = {}
    used: list[str] = []
    trace: list[dict[str, Any]] = []
    stopped = "max_iterations"
    for step in range(1, settings.agent_max_iter + 1):
        ranked = fuse(found, weights, settings.normalize_scores)
        variables = {"query": text, "found_count": len(ranked),
                     "corroborated_count": sum(1 for f in ranked if len(f.families) >= 2),
                     "found_summary": _summary(engine.store, ranked), "tools_used": used,
                     "web_search_available": False}
        try:
            choice = provider.generate("agent_strategy", variables).data
        except LLMError as exc:
            stopped = "strategy_error"
            trace.append({"step": step, "tool": None, "error": exc.reason})
            break
        tool, hint = choice["tool"], choice.get("hint") or None
        entry: dict[str, Any] = {"step": step, "tool": tool, "reason": choice.get("reason", ""), "hint": hint}
        if tool == "done":
            stopped = "done"
            trace.append(entry)
            break
        if tool in used:
            stopped = "repeated_tool"
            trace.append({**entry, "error": "tool already used"})
            break
        used.append(tool)
        if tool not in TOOLS:
            trace.append({**entry, "error": f"{tool} is not available", "added": []})
            continue
        hits = TOOLS[tool](ToolContext(state, engine.store, ranked), hint)
        known = {h.id for rows in found.values() for h in rows}
        added = list(dict.fromkeys(h.id for h in hits if h.id not in known))
        for h in hits:
            found.setdefault(h.phase, []).append(h)
            first_tool.setdefault(h.id, [])
            if tool not in first_tool[h.id]:
                first_tool[h.id].append(tool)
        trace.append({**entry, "hits": len(hits), "added": added, "found": len(known) + len(added)})
    state.hits = found
    result = finish(engine, state, {"agent": (time.perf_counter() - t0) * 1000})
    tags = {nid: {"agent_tool": tools[0], "agent_tools": tools} for nid, tools in first_tool.items()}
    extra = {"agent_tool_history": used, "agent_trace": trace, "agent_stopped_reason": stopped}
    return ModeResult(**{f: getattr(result, f) for f in result.__dataclass_fields__}, mode="agent", row_tags=tags,
                      extra=extra)


def _summary(store: Any, ranked: list[Any]) -> str:
    top = [f.id for f in ranked[:SUMMARY_ITEMS]]
    if not top:
        return "none"
    nodes = store.get_nodes(top)
    texts = []
    for nid in top:
        n = nodes.get(nid, {})
        text = " ".join(str(n.get("content") or n.get("title") or n.get("markdown_representation") or "").split())
        texts.append(text[:SUMMARY_CHARS])
    return " | ".join(texts)
