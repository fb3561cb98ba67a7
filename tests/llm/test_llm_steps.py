"""Retrieval hooks: phase 0a/0b through the stand-in, and the switchable steps (reasoning,
self-RAG, integrity verify, rerank, speculative pre-warm), offline and through the stand-in."""
from __future__ import annotations

import pytest

from gemini_stub import error_reply
from standin import faithful_model, gemini_atlas, ingested_samples, offline_atlas
from ohara_lab.retrieval.llm_steps.query_plan import LLMTocSelector, day_range, history_block
from ohara_lab.retrieval.speculative import cache_key

MODEL = "gemini:gemini-2.5-flash-lite"
QUESTION = "Which licence superseded the GNU General Public License version 2 and what did it add?"


@pytest.fixture(scope="module")
def corpus_path(tmp_path_factory):
    return ingested_samples(tmp_path_factory.mktemp("corpus"))


@pytest.fixture
def offline(corpus_path):
    with offline_atlas(corpus_path) as atlas:
        yield atlas


@pytest.fixture
def gemini(corpus_path, gemini_server):
    with gemini_atlas(corpus_path, gemini_server, llm_cache_dir=str(corpus_path / "cache")) as atlas:
        yield atlas


def _requests(stub, prompt_name):
    from offline_replies import decode

    return [decode(r)[1] for r in stub.received("generate") if decode(r)[0] == prompt_name]


# --------------------------------------------------------------------------- phase 0a / 0b


def test_fingerprint_keeps_only_tags_and_entities_the_atlas_knows(gemini, gemini_server):
    reply = {"sumo_tags": ["License", "Xyzzyplugh"],
             "entities": [{"canonical": "Free Software Foundation", "type": "ORG", "slug": "fsf"},
                          {"canonical": "Acme Widgets", "type": "ORG", "slug": "acme-widgets"}],
             "temporal_intent": "historical_fact", "date_range": {"from": "2007", "to": "2007-06"}}
    gemini_server.respond_with(faithful_model(extract_query_fingerprint=lambda v, r: reply))
    history = [{"role": "user", "content": f"turn {i}"} if i % 2 == 0 else
               {"role": "assistant", "content": f"answer {i}"} for i in range(5)]
    q = gemini.query(QUESTION, session_history=history).query

    assert q.sumo_hints == ["License"]  # the invented class is gone
    slugs = [h["slug"] for h in q.entity_hints]
    assert slugs[0] == "free-software-foundation" and "acme-widgets" not in slugs  # found by name, not by slug
    assert q.temporal_intent == "historical_fact"
    assert q.date_range == {"from": "2007-01-01", "to": "2007-06-30"}
    assert q.fingerprint_source == MODEL
    [sent] = _requests(gemini_server, "extract_query_fingerprint")
    assert sent["query"] == QUESTION
    assert sent["history"] == "User: turn 2\nAssistant: answer 3\nUser: turn 4"  # the last 3 turns

    gemini.query(QUESTION, session_history=history)  # cached: no second request
    gemini.query("GPL")  # a keyword query is not fingerprinted
    assert len(_requests(gemini_server, "extract_query_fingerprint")) == 1


def test_fingerprint_failure_keeps_the_offline_fingerprint(gemini, gemini_server, offline):
    gemini_server.respond_with(faithful_model(extract_query_fingerprint=lambda v, r: error_reply(400, "bad request")))
    q = gemini.query(QUESTION).query
    expected = offline.query(QUESTION).query
    assert q.fingerprint_source == "offline"
    assert (q.sumo_hints, q.entity_hints) == (expected.sumo_hints, expected.entity_hints)


def test_fingerprint_cannot_override_the_ordering_intent(gemini, gemini_server):
    reply = {"sumo_tags": [], "entities": [], "temporal_intent": "current_state", "date_range": None}
    gemini_server.respond_with(faithful_model(extract_query_fingerprint=lambda v, r: reply))
    q = gemini.query("Which came first, the GNU General Public License or the Apache License?").query
    assert q.temporal_intent == "ordering" and q.fingerprint_source == MODEL


def test_toc_selector_keeps_only_ids_of_the_tree(gemini_server):
    gemini_server.respond_with(faithful_model(
        toc_section_selector=lambda v, r: {"relevant_section_ids": ["sections/invented", "sections/b"]}))
    tree = [{"id": "sections/a", "title": "Preamble", "level": 1}, {"id": "sections/b", "title": "Patents", "level": 1}]
    select = LLMTocSelector(gemini_server.settings(gemini_max_retries=1))
    assert select("how do patents work here", tree) == ["sections/b"]
    gemini_server.respond_with(faithful_model(toc_section_selector=lambda v, r: error_reply(400, "no")))
    assert LLMTocSelector(gemini_server.settings(gemini_max_retries=1, llm_cache_dir=None))(
        "what does the preamble say", tree) == ["sections/a"]  # lexical fallback


def test_history_block_and_day_range():
    assert history_block([{"role": "assistant", "content": "a " * 400}, {"content": "q"}]) == \
        "Assistant: " + ("a " * 250).strip() + "\nUser: q"
    assert history_block([]) is None
    assert day_range({"from": "1991", "to": None}) == {"from": "1991-01-01", "to": None}
    assert day_range({"from": "not a date", "to": "2008-02"}) == {"from": None, "to": "2008-02-29"}
    assert day_range(None) == {}


# --------------------------------------------------------------------------- switchable steps, offline


def test_reasoning_subqueries_add_bm25_rows_only_when_switched_on(offline):
    def subquery_rows(result):
        return [c.via["subquery"] for f in result.fused for c in f.contributions if c.via.get("subquery")]

    assert subquery_rows(offline.query(QUESTION)) == []
    rows = subquery_rows(offline.query(QUESTION, reasoning_rag=True))
    # Offline, the question splits at "and": two sub-queries, each finding rows BM25 had not.
    assert set(rows) <= {"Which licence superseded the GNU General Public License version 2", "what did it add"}
    assert rows


def test_offline_self_rag_keeps_responsive_principal_items(offline):
    plain = offline.query(QUESTION)
    checked = offline.query(QUESTION, self_rag_verify=True)
    assert [f.id for f in checked.tiers.principal] == [f.id for f in plain.tiers.principal]
    verdicts = [i.self_rag for i in checked.tiers.integrity if i.self_rag is not None]
    assert len(verdicts) == len(plain.tiers.principal) and all(v["responsive"] for v in verdicts)


def test_offline_integrity_verify_removes_unverified_supporting_items(offline):
    plain = offline.query(QUESTION)
    checked = offline.query(QUESTION, integrity_llm_verify=True)
    principal = {f.id for f in plain.tiers.principal}
    assert principal <= {i.id for i in checked.tiers.integrity}
    assert all(i.llm_verified is not None for i in checked.tiers.integrity if i.id in principal)
    removed = {i.id for i in plain.tiers.integrity} - {i.id for i in checked.tiers.integrity}
    assert removed and not removed & principal


def test_speculative_prewarm_is_read_by_the_next_identical_query(offline):
    first = offline.query(QUESTION, speculative_rag=True)
    cache = offline.speculative.cache
    texts = [f"{x.edge_verb}: {x.edge_summary}" for x in first.tiers.explorer[:3]]
    assert texts and len(cache.keys()) == len(set(texts))
    cache.drain()
    served = offline.query(texts[0])  # the switch is off for this call: results are the same either way
    assert set(served.timings_ms) == {"speculative_cache", "total"} and cache.served == 1
    offline.speculative.invalidate()  # what every atlas write does
    assert cache.keys() == []
    fresh = offline.query(texts[0])
    assert "speculative_cache" not in fresh.timings_ms
    assert [(f.id, round(f.score, 9)) for f in served.fused] == [(f.id, round(f.score, 9)) for f in fresh.fused]
    assert cache_key("q", None, offline.settings) == cache_key("q", [], offline.settings.override(speculative_limit=9))


# --------------------------------------------------------------------------- switchable steps, stand-in


def test_self_rag_drops_principal_items_the_model_finds_unresponsive(gemini, gemini_server):
    def judge(v, r):
        return {"responsive": "Lesser" not in v["passage"], "reason": "about the LGPL" if "Lesser" in v["passage"] else "ok"}

    gemini_server.respond_with(faithful_model(self_rag_verify=judge))
    plain = gemini.query(QUESTION)
    assert not _requests(gemini_server, "self_rag_verify")  # switched off by default
    checked = gemini.query(QUESTION, self_rag_verify=True)
    dropped = [i for i in checked.tiers.integrity if i.role == "self_rag_dropped"]
    assert dropped and all("self_rag_unresponsive" in i.integrity_flags for i in dropped)
    assert {i.id for i in dropped}.isdisjoint(f.id for f in checked.tiers.principal)
    assert len(checked.tiers.principal) == len(plain.tiers.principal) - len(dropped)


def test_rerank_applies_only_a_true_permutation(gemini, gemini_server):
    gemini_server.respond_with(faithful_model(rerank=lambda v, r: {"ranked": list(range(len(v["passages"]), 0, -1))}))
    plain = [f.id for f in gemini.query(QUESTION).tiers.principal]
    reranked = [f.id for f in gemini.query(QUESTION, rerank=True, rerank_top_n=3).tiers.principal]
    assert reranked == plain[:3][::-1] + plain[3:]
    gemini_server.respond_with(faithful_model(rerank=lambda v, r: {"ranked": [1] * len(v["passages"])}))
    assert [f.id for f in gemini.query(QUESTION, rerank=True, rerank_top_n=4).tiers.principal] == plain


def test_integrity_verify_never_removes_principal_items(gemini, gemini_server):
    gemini_server.respond_with(faithful_model(
        verify_integrity_claim=lambda v, r: {"verified": False, "reason": "not corroborated"}))
    checked = gemini.query(QUESTION, integrity_llm_verify=True)
    principal = {f.id for f in checked.tiers.principal}
    assert principal and {i.id for i in checked.tiers.integrity} == principal
    assert all(i.llm_verified is False for i in checked.tiers.integrity)
