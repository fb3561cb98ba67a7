"""The offline provider and its built-in behaviours."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ohara_lab.errors import LLMError, UsageError
from ohara_lab.llm import (
    LLMProvider,
    OfflineProvider,
    TokenUsage,
    gemini_available,
    get_provider,
    offline_behaviours,
    prompt_names,
    register_offline,
    unregister_offline,
)
from ohara_lab.llm.offline_builtin import BUILTIN
from ohara_lab.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def offline():
    return OfflineProvider()


def test_offline_is_a_provider_with_zero_usage(offline):
    assert isinstance(offline, LLMProvider)
    reply = offline.generate("rerank", {"query": "q", "passages": ["a", "b", "c"]}, scope="doc/x")
    assert reply.data == {"ranked": [1, 2, 3]}
    assert reply.usage == TokenUsage() and reply.model == "offline" and not reply.cached
    assert offline.ledger.total == TokenUsage()


def test_self_rag_leans_true_and_rejects_only_disjoint_passages(offline):
    yes = offline.generate("self_rag_verify", {"query": "radium discovery", "passage": "Curie discovered radium in 1898."})
    assert yes.data["responsive"] is True
    no = offline.generate("self_rag_verify", {"query": "radium discovery", "passage": "The weather was mild in spring."})
    assert no.data["responsive"] is False
    empty = offline.generate("self_rag_verify", {"query": "what is it", "passage": "Anything."})
    assert empty.data["responsive"] is True


def test_integrity_is_conservative(offline):
    claim = "Marie Curie discovered radium and polonium"
    ok = offline.generate("verify_integrity_claim", {"claim": claim, "corroborating_snippets": ["Curie discovered polonium.", "Marie found radium."]})
    assert ok.data["verified"] is True
    weak = offline.generate("verify_integrity_claim", {"claim": claim, "corroborating_snippets": ["Radium glows."]})
    assert weak.data["verified"] is False
    none = offline.generate("verify_integrity_claim", {"claim": claim, "corroborating_snippets": []})
    assert none.data["verified"] is False


@pytest.mark.parametrize(
    "question, expected",
    [
        ("What did Marie Curie discover and where did she work?", ["What did Marie Curie discover", "where did she work"]),
        ("Which university employed the scientist who discovered radium?", ["Which university employed the scientist", "who discovered radium"]),
        ("What is radium?", []),
        ("radium", []),
    ],
)
def test_reasoning_subqueries_split_multi_hop_questions(offline, question, expected):
    assert offline.generate("reasoning_subquery", {"query": question}).data["subqueries"] == expected


def test_agent_walks_fixed_order_without_repeating(offline):
    used: list[str] = []
    chosen = []
    for found in (0, 40, 45, 50, 55):  # many nodes found, none corroborated yet
        data = offline.generate(
            "agent_strategy",
            {"query": "q", "found_count": found, "corroborated_count": 0, "found_summary": "", "tools_used": used,
             "web_search_available": True},
        ).data
        chosen.append(data["tool"])
        if data["tool"] == "done":
            break
        used = used + [data["tool"]]
    assert chosen == ["bm25", "entity_pivot", "cross_doc", "structural", "done"]
    stop = offline.generate(
        "agent_strategy", {"query": "q", "found_count": 40, "corroborated_count": 5, "found_summary": "",
                           "tools_used": ["bm25"], "web_search_available": False}
    )
    assert stop.data["tool"] == "done" and "5 of 40" in stop.data["reason"]


def test_answer_is_extractive_with_citations(offline):
    passages = [
        "(documents/a)\nThe Eiffel Tower is in Paris. It opened in 1889.",
        "Gustave Eiffel's company built the Eiffel Tower. Bridges too.",
        "Completely unrelated sentence about cooking.",
    ]
    data = offline.generate("answer", {"question": "Who built the Eiffel Tower?", "passages": passages}).data
    assert data["insufficient"] is False
    # The sentence that says who built it covers every word of the question; "The Eiffel Tower is in
    # Paris." would add none, so it does not pad the answer (it did when three sentences were always quoted).
    assert data["cited"] == [2]
    assert data["answer"] == "Gustave Eiffel's company built the Eiffel Tower. [2]"
    assert data["quotes"] == [{"passage": 2, "text": "Gustave Eiffel's company built the Eiffel Tower."}]
    assert "documents/a" not in data["answer"]
    nothing = offline.generate("answer", {"question": "Who built it?", "passages": []}).data
    assert nothing["insufficient"] is True and nothing["cited"] == []
    unrelated = offline.generate("answer", {"question": "volcano eruptions", "passages": passages}).data
    assert unrelated["insufficient"] is True


def test_answer_breaks_ties_with_the_numbers_of_the_question(offline):
    rows = " ".join(f"Licence: GPL; Version: {v}; Published: June {y}." for v, y in ((1, 1989), (2, 1991), (4, 2029)))
    rows += " Licence: GPL; Version: 3; Published: June 2007."
    data = offline.generate("answer", {"question": "When was GPL version 3 published?", "passages": [rows]}).data
    # Four sentences share the same words; only the one naming version 3 adds evidence, and its date
    # ("when" asks for one) leads the answer.
    assert data["answer"] == "June 2007 [1]. Licence: GPL; Version: 3; Published: June 2007. [1]"


def test_describe_document_takes_first_sentence_of_first_long_paragraph(offline):
    paragraphs = ["Short intro.", "This report surveys " + "very " * 40 + "long things. Second sentence."]
    desc = offline.generate("describe_document", {"title": "T", "paragraphs": paragraphs}).data["description"]
    assert desc.startswith("This report surveys very")
    assert len(desc.split()) == 25
    fallback = offline.generate("describe_document", {"title": "Atlas", "paragraphs": []}).data
    assert fallback == {"description": "A document titled Atlas."}


def test_toc_selector_matches_titles(offline):
    tree = [
        {"id": "sections/1", "title": "Introduction", "level": 1},
        {"id": "sections/2", "title": "Neural networks", "level": 1, "children": [
            {"id": "sections/3", "title": "Training neural networks", "level": 2}]},
        {"id": "sections/4", "title": "Appendix", "level": 1, "summary": "network diagrams"},
    ]
    ids = offline.generate("toc_section_selector", {"query": "how are neural networks trained", "section_tree": tree}).data
    assert ids == {"relevant_section_ids": ["sections/3", "sections/2", "sections/4"]}


def test_enrich_edge_uses_shared_entities(offline):
    data = offline.generate(
        "enrich_cross_doc_edge",
        {
            "doc_a": {"title": "A", "sumo_tags": ["Human", "Radiation"], "snippets": []},
            "doc_b": {"title": "B", "sumo_tags": ["Radiation"], "snippets": []},
            "shared_entities": ["Marie Curie", {"name": "Radium"}],
        },
    ).data
    assert data == {
        "verb": "shares entities with",
        "tags": ["Radiation"],
        "summary": "Both documents discuss Marie Curie and Radium.",
        "contradiction_note": None,
    }


def test_registered_behaviour_overrides_and_is_schema_checked(offline):
    register_offline("rerank", lambda v: {"ranked": [2, 1]})
    try:
        assert offline.generate("rerank", {"query": "q", "passages": ["a", "b"]}).data == {"ranked": [2, 1]}
        register_offline("rerank", lambda v: {"ranked": [2, 1], "extra": True})
        with pytest.raises(LLMError, match="broke the prompt's schema"):
            offline.generate("rerank", {"query": "q", "passages": ["a", "b"]})
    finally:
        unregister_offline("rerank")
    assert offline_behaviours()["rerank"] is BUILTIN["rerank"]
    with pytest.raises(UsageError):
        register_offline("not_a_prompt", lambda v: {})


def test_every_packaged_prompt_has_an_offline_behaviour():
    assert set(prompt_names()) <= set(offline_behaviours())


def test_missing_behaviour_is_an_error_listing_the_registered_ones(offline, monkeypatch):
    from ohara_lab.llm import offline_core

    monkeypatch.delitem(offline_core.CORE, "document_metadata")
    with pytest.raises(LLMError, match="no offline behaviour registered; prompts with one: .*answer"):
        offline.generate("document_metadata", {"document_head": "x"})


def test_generate_many_keeps_order_and_returns_errors_in_place(offline):
    requests = [
        ("rerank", {"query": "q", "passages": ["a"] * n}) for n in range(1, 6)
    ] + [("rerank", {"query": "dup", "passages": ["a", "b"]})]
    register_offline("rerank", lambda v: {"ranked": [1] * len(v["passages"])} if v["query"] == "dup"
                     else {"ranked": list(range(1, len(v["passages"]) + 1))})
    try:
        # The last request's reply passes the schema but fails the caller's check.
        checks = [None] * 5 + [lambda data: _distinct(data["ranked"])]
        out = offline.generate_many(requests, concurrency=3, checks=checks)
    finally:
        unregister_offline("rerank")
    assert [r.data["ranked"] for r in out[:5]] == [list(range(1, n + 1)) for n in range(1, 6)]
    assert isinstance(out[5], LLMError) and "caller's check" in out[5].reason


def _distinct(ranked):
    from ohara_lab.llm.reply import ReplyInvalid

    if len(set(ranked)) != len(ranked):
        raise ReplyInvalid("ranks repeat")


def test_get_provider_choices(tmp_path):
    assert get_provider(Settings(llm="offline", gemini_api_key="k")).name == "offline"
    assert get_provider(Settings(llm="auto")).name == "offline"
    with pytest.raises(UsageError, match="GEMINI_API_KEY"):
        get_provider(Settings(llm="gemini"))
    with pytest.raises(UsageError, match="not a provider"):
        get_provider(Settings(llm="claude"))
    auto = get_provider(Settings(llm="auto", gemini_api_key="k", atlas=str(tmp_path)))
    if gemini_available():
        assert auto.name == "gemini:gemini-2.5-flash-lite"
    else:  # the core alone (CI's core-only pass): auto falls back, asking for gemini says what to install
        assert auto.name == "offline"
        with pytest.raises(UsageError, match="needs the gemini extra"):
            get_provider(Settings(llm="gemini", gemini_api_key="k"))


def test_importing_the_llm_layer_does_not_import_the_gemini_extra():
    code = (
        "import sys, ohara_lab.llm as l; "
        "l.get_provider(__import__('ohara_lab.settings').settings.Settings(llm='offline')); "
        "bad = [m for m in ('google.genai', 'tenacity', 'httpx') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)})
