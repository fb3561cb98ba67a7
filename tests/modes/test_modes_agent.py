"""Agentic retrieval: offline heuristic order, and LLM-chosen tools through the stand-in.

The original crashed in tiering whenever the agent found something (its rows had no
contributions); these tests take exactly that path.
"""
from __future__ import annotations

import json

from gemini_stub import error_reply
from offline_replies import decode
from standin import faithful_model, gemini_atlas

QUESTION = "Which licence superseded the GNU General Public License version 2 and what did it add?"


def test_offline_agent_finds_corroborated_evidence_and_explains_it(atlas):
    result = atlas.query(QUESTION, mode="agent")
    d = result.to_dict()
    json.dumps(d)
    assert d["mode"] == "agent" and d["agent_stopped_reason"] == "done"
    assert d["agent_tool_history"] == ["bm25", "entity_pivot"]
    trace = d["agent_trace"]
    assert [t["tool"] for t in trace] == ["bm25", "entity_pivot", "done"]
    assert trace[0]["added"] and trace[0]["found"] == len(trace[0]["added"])
    assert "corroborated" in trace[2]["reason"]
    # Found things, tiered: Principal nodes were reached by two tools, and say so.
    assert result.tiers.principal
    for row in d["tiers"]["principal"]:
        assert {c["phase"] for c in row["contributions"]} == {"bm25", "entity_pivot"}
        assert row["agent_tools"] == ["bm25", "entity_pivot"]
    assert all(row["contributions"] and row["agent_tool"] for row in d["results"])
    assert "entity_pivot" in result.explain(result.tiers.principal[0].id)


def test_agent_fuses_and_times_like_the_engine(atlas):
    """The agent's hits go through `Engine.finish`: its fusion setting applies and each step is timed."""
    weighted = atlas.query(QUESTION, mode="agent")
    rrf = atlas.query(QUESTION, mode="agent", fusion="rrf", rrf_k=60)
    assert {"phase0", "agent", "fusion", "tiers", "views", "total"} <= set(rrf.timings_ms)
    # rrf normalises a phase's hit to 1 / (k + rank) <= 1/61; weighted gives each phase's best hit 1.0
    assert all(c.normalised <= 1 / 61 for f in rrf.results for c in f.contributions)
    assert any(c.normalised == 1.0 for f in weighted.results for c in f.contributions)


def test_offline_agent_walks_every_tool_when_nothing_corroborates(atlas):
    result = atlas.query("zxqv blorft", mode="agent")  # agent_max_iter = 4
    assert result.extra["agent_tool_history"] == ["bm25", "entity_pivot", "cross_doc", "structural"]
    assert result.extra["agent_stopped_reason"] == "max_iterations" and result.abstained
    longer = atlas.query("zxqv blorft", mode="agent", agent_max_iter=6)
    assert longer.extra["agent_stopped_reason"] == "done" and len(longer.extra["agent_trace"]) == 5


def test_agent_follows_the_model_and_stops_on_a_repeated_tool(corpus_path, gemini_server):
    plan = iter([
        {"tool": "web_search", "reason": "look outside", "hint": None},
        {"tool": "bm25", "reason": "search the patent clause", "hint": "patent licence contributor"},
        {"tool": "structural", "reason": "read around it", "hint": None},
        {"tool": "bm25", "reason": "again", "hint": None},
    ])
    gemini_server.respond_with(faithful_model(agent_strategy=lambda v, r: next(plan)))
    with gemini_atlas(corpus_path, gemini_server, llm_cache_dir=str(corpus_path / "agent_cache")) as atlas:
        result = atlas.query(QUESTION, mode="agent")
    extra = result.extra
    assert extra["agent_tool_history"] == ["web_search", "bm25", "structural"]
    assert extra["agent_stopped_reason"] == "repeated_tool"
    web, bm25, structural, repeat = extra["agent_trace"]
    assert web["error"] == "web_search is not available" and web["added"] == []
    assert bm25["hint"] == "patent licence contributor" and bm25["added"]
    assert repeat["error"] == "tool already used"
    sent = [decode(r)[1] for r in gemini_server.received("generate") if decode(r)[0] == "agent_strategy"]
    assert [s["tools_used"] for s in sent] == [[], ["web_search"], ["web_search", "bm25"],
                                              ["web_search", "bm25", "structural"]]
    assert sent[0]["web_search_available"] is False and sent[2]["found_count"] == len(bm25["added"])
    assert sent[2]["found_summary"] != "none"
    assert all(f.contributions for f in result.fused)
    patent_texts = [result.views[f.id].content for f in result.fused if f.id in bm25["added"] and f.id in result.views]
    assert any("patent" in t.lower() for t in patent_texts)


def test_agent_keeps_what_it_found_when_the_model_fails(corpus_path, gemini_server):
    answers = iter([{"tool": "bm25", "reason": "start", "hint": None}])
    gemini_server.respond_with(faithful_model(
        agent_strategy=lambda v, r: next(answers, None) or error_reply(400, "bad request")))
    with gemini_atlas(corpus_path, gemini_server, llm_cache_dir=str(corpus_path / "agent_cache2")) as atlas:
        result = atlas.query(QUESTION, mode="agent")
    assert result.extra["agent_stopped_reason"] == "strategy_error"
    assert result.extra["agent_tool_history"] == ["bm25"] and result.fused
    assert result.abstained  # one tool alone corroborates nothing
