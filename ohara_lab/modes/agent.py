"""Agentic RAG (spec §4 `queryAgent`): an LLM (or, offline, a fixed heuristic order) picks
one retrieval tool at a time until it has enough.

Each step asks ``agent_strategy`` with the question, how many nodes were found and
how many of them two tools reached (corroborated: only those can become Principal),
the first five found (120 chars each) and the tools used. The loop stops on ``done``, a
repeated tool, a failed call, or ``agent_max_iter`` steps. ``web_search`` is never
available here; choosing it is recorded in the trace and the loop goes on.

Every tool's rows are `Hit`s of a retrieval phase (`tools`), so the merged rows
carry contributions and go through the engine's fusion and tiers (`Engine.finish`): the
original built rows without contributions and crashed in tiering as soon as the
agent found anything. ``agent_trace`` records per step the tool, the reason, the
hint and the ids it added; ``agent_tool_history`` the tools in order.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import LLMError
from ..llm.shared import provider_for
from ..retrieval.fusion import fuse, normalisation, phase_weights
from ..retrieval.hits import Fused, Hit
from ..retrieval.state import QueryState
from ..store.protocol import GraphStore
from .result import ModeResult
from .tools import TOOLS, ToolContext

if TYPE_CHECKING:
    from ..atlas import Atlas

log = logging.getLogger(__name__)

SUMMARY_ITEMS, SUMMARY_CHARS = 5, 120
AGENT_PROFILE = "original"


@dataclass
class _ToolRun:
    found: dict[str, list[Hit]] = field(default_factory=dict)  # phase -> hits
    first_tool: dict[str, list[str]] = field(default_factory=dict)  # node id -> tools that found it, in order
    used: list[str] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    stopped: str = "max_iterations"


def run_agent(atlas: Atlas, text: str, session_history: list[dict[str, str]] | None = None,
              **overrides: Any) -> ModeResult:
    # The tools are the spec's phases (no graph walk among them), so their hits are fused with the spec's
    # engine: the original profile, whatever the atlas's default (a per-call profile= still wins).
    settings = atlas.settings.override(**{"profile": AGENT_PROFILE, **overrides})
    engine = atlas.engine
    state = engine.start(text, session_history, settings)
    with state.clock("agent"):
        run = _run_tools(engine, state, text)
    state.hits = run.found
    result = engine.finish(state)
    tags = {nid: {"agent_tool": tools[0], "agent_tools": tools} for nid, tools in run.first_tool.items()}
    extra = {"agent_tool_history": run.used, "agent_trace": run.trace, "agent_stopped_reason": run.stopped}
    return ModeResult(**{f: getattr(result, f) for f in result.__dataclass_fields__}, mode="agent", row_tags=tags,
                      extra=extra)


def _run_tools(engine: Any, state: QueryState, text: str) -> _ToolRun:
    """Ask for one tool at a time and run it, until the strategy says done or a stop rule fires."""
    settings = state.settings
    provider = provider_for(settings)
    weights = phase_weights(settings, state.query.mode)
    run = _ToolRun()
    found, first_tool, used, trace = run.found, run.first_tool, run.used, run.trace
    for step in range(1, settings.agent_max_iter + 1):
        ranked = fuse(found, weights, normalisation(settings), settings.fusion, settings.rrf_k)
        variables = {"query": text, "found_count": len(ranked),
                     "corroborated_count": sum(1 for f in ranked if len(f.families) >= 2),
                     "found_summary": _summary(engine.store, ranked), "tools_used": used,
                     "web_search_available": False}
        try:
            choice = provider.generate("agent_strategy", variables).data
        except LLMError as exc:
            run.stopped = "strategy_error"
            trace.append({"step": step, "tool": None, "error": exc.reason})
            break
        tool, hint = choice["tool"], choice.get("hint") or None
        entry: dict[str, Any] = {"step": step, "tool": tool, "reason": choice.get("reason", ""), "hint": hint}
        if tool == "done":
            run.stopped = "done"
            trace.append(entry)
            break
        if tool in used:
            run.stopped = "repeated_tool"
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
    return run


def _summary(store: GraphStore, ranked: list[Fused]) -> str:
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
