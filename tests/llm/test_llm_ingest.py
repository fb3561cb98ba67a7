"""LLM structuring at ingest, through the Gemini stand-in (real google-genai client, real HTTP).

The sample corpus is ingested twice, once through the `gemini` provider with a
faithful scripted model and once offline; the graphs must agree, the requests must
carry what the spec says, and the atlas must account for the tokens.
"""
from __future__ import annotations

import json
import re

import pytest

from gemini_stub import GeminiStub
from standin import counts, faithful_model, gemini_atlas, offline_atlas
from ohara_lab.llm import load_prompt, offline_behaviours
from ohara_lab.llm.ingest import CONTEXT_MIN_CHARS, llm_ingest_hooks
from ohara_lab.samples import corpus_dir
from ohara_lab.settings import Settings

MODEL = "gemini:gemini-2.5-flash-lite"


def enrich_answer(variables, _request):
    """Scripted edge enrichment: a vague verb for an edition pair, an invalid tag, a contradiction note."""
    a, b = variables["doc_a"]["title"], variables["doc_b"]["title"]
    if a.startswith("GNU GENERAL PUBLIC LICENSE, Version 3") and b.startswith("GNU GENERAL PUBLIC LICENSE, Version 2"):
        return {"verb": "discusses the same topic as", "tags": ["License"], "summary": "Two GPL versions.",
                "contradiction_note": None}
    if a.startswith("GNU LESSER GENERAL PUBLIC LICENSE, Version 3") and b.startswith("GNU GENERAL PUBLIC LICENSE, Version 3"):
        return {"verb": "builds on", "tags": ["License", "Xyzzyplugh"], "summary": "LGPL-3 adds permissions to GPL-3.",
                "contradiction_note": None}
    if a.startswith("GNU GENERAL PUBLIC LICENSE, Version 3") and b.startswith("GNU LESSER GENERAL PUBLIC LICENSE, Version 2.1"):
        return {"verb": "discusses the same topic as", "tags": ["License"], "summary": "Both are FSF licences.",
                "contradiction_note": "GPL-3 allows no library exception of the LGPL-2.1 kind."}
    return offline_behaviours()["enrich_cross_doc_edge"](variables)


@pytest.fixture(scope="module")
def stand_in():
    with GeminiStub() as stub:
        yield stub


@pytest.fixture(scope="module")
def corpus(stand_in, tmp_path_factory):
    """The sample corpus ingested through the stand-in, and the same corpus ingested offline."""
    model = faithful_model(enrich_cross_doc_edge=enrich_answer)
    stand_in.respond_with(model)
    llm = gemini_atlas(tmp_path_factory.mktemp("gemini_atlas"), stand_in)
    report = llm.ingest(corpus_dir(), progress=False)
    offline = offline_atlas(tmp_path_factory.mktemp("offline_atlas"))
    offline.ingest(corpus_dir(), progress=False)
    yield {"llm": llm, "offline": offline, "report": report, "model": model, "requests": stand_in.requests}
    llm.close()
    offline.close()


def test_every_document_is_structured_by_gemini_and_complete(corpus):
    assert corpus["report"].counts() == {"ingested": 7}
    for doc in corpus["llm"].documents():
        assert doc.ingestion_status == "complete" and doc.completed_chunks == doc.total_chunks > 0
        assert doc.meta["structurer"] == MODEL


def test_graph_matches_the_offline_ingest(corpus):
    llm, offline = counts(corpus["llm"]), counts(corpus["offline"])
    for key in ("documents", "sections", "paragraphs", "tables", "partial_documents", "llm_pending"):
        assert llm[key] == offline[key], key
    structural = ("HAS_CHILD", "NEXT_SIBLING", "BELONGS_TO", "NEXT_PARA", "ADJACENT_TO", "SIMILAR_TO")
    assert {r: llm["edges"][r] for r in structural} == {r: offline["edges"][r] for r in structural}
    # Entities come from the model's candidates: the same extractor, so nearly the same set.
    assert abs(llm["entities"] - offline["entities"]) <= 0.05 * offline["entities"]
    assert llm["sections"] > 7 * 3 and llm["paragraphs"] > 300


def test_requests_carry_chunks_as_data_and_context_only_for_long_documents(corpus):
    model = corpus["model"]
    chunks = sum(d.total_chunks for d in corpus["llm"].documents())
    prompts = model.prompts()
    assert prompts.count("ingest_document") == chunks
    assert set(prompts) == {"ingest_document", "document_context", "enrich_cross_doc_edge"}
    long_docs = [d for d in corpus["llm"].documents() if d.total_chunks > 1 and d.file_size >= CONTEXT_MIN_CHARS]
    assert prompts.count("document_context") == len(long_docs) >= 4
    for name, variables in model.seen:
        if name != "ingest_document":
            continue
        assert variables["chunk_text"].strip() and re.fullmatch(r"\d+-\d+", variables["page_range"])
    # The timeline note is one chunk: its prompt has no document context.
    timeline = [v for n, v in model.seen if n == "ingest_document" and "Timeline of the GNU" in v["chunk_text"]]
    assert len(timeline) == 1 and "document_context" not in timeline[0]
    assert corpus["requests"]  # else the loop below checks nothing
    for request in corpus["requests"]:
        assert request.service_tier == "flex" and request.generation_config["temperature"] == 0


def test_token_usage_is_accounted_atlas_wide(corpus):
    usage = corpus["llm"].stats()["llm_usage"]
    generate = [r for r in corpus["requests"] if r.kind == "generate"]
    assert usage["calls"] == len(generate)
    # The stand-in bills len(prompt)//4 prompt tokens per request (tests/llm/gemini_stub.py).
    assert usage["prompt"] == sum(max(1, len(r.prompt_text) // 4) for r in generate)
    assert usage["total"] == usage["prompt"] + usage["output"] and usage["output"] > 0
    assert usage["builds"] == 7 and usage["cache_hits"] == 0 and usage["models"] == ["gemini-2.5-flash-lite"]
    expected = sum((max(1, len(r.prompt_text) // 4) * 0.10) for r in generate) / 1e6 * 0.5  # flex, input part
    assert usage["cost_usd"] > expected  # plus the output tokens
    assert "llm_usage" not in corpus["offline"].stats()


def test_document_records_carry_their_build_usage(corpus):
    docs = corpus["llm"].documents()  # GraphStore.update_document stores them (no store may lack it)
    assert all(d.token_usage["calls"] >= d.total_chunks for d in docs)
    assert sum(d.token_usage["prompt"] for d in docs) == corpus["llm"].stats()["llm_usage"]["prompt"]


def test_edges_are_enriched_with_validated_tags_and_verb_relations(corpus):
    store = corpus["llm"].store
    titles = {d.id: d.title.replace(",", "") for d in corpus["llm"].documents()}
    edges = {(titles[e.from_id], titles[e.to_id]): e for e in store.edges(relations=["SIMILAR_TO"])}
    assert all(e.attrs["enriched_by"] == MODEL for e in edges.values())
    lgpl3_gpl3 = edges[("GNU LESSER GENERAL PUBLIC LICENSE Version 3", "GNU GENERAL PUBLIC LICENSE Version 3")].attrs
    assert lgpl3_gpl3["verb"] == "builds on" and lgpl3_gpl3["temporal_relation"] == "extends"
    assert lgpl3_gpl3["tags"] == ["License"]  # the invented class was dropped by the ontology
    gpl3_gpl2 = edges[("GNU GENERAL PUBLIC LICENSE Version 3", "GNU GENERAL PUBLIC LICENSE Version 2")].attrs
    assert gpl3_gpl2["temporal_relation"] == "supersedes"  # edition evidence outranks the vague verb
    assert gpl3_gpl2["weight"] > 0 and gpl3_gpl2["shared_entity_keys"]  # offline attributes kept
    noted = edges[("GNU GENERAL PUBLIC LICENSE Version 3", "GNU LESSER GENERAL PUBLIC LICENSE Version 2.1")]
    assert noted.attrs["contradiction_note"].startswith("GPL-3 allows no library exception")
    contradicts = store.edges(from_ids=[noted.from_id], to_ids=[noted.to_id], relations=["CONTRADICTS"])
    assert contradicts and contradicts[0].attrs["source"] == "conceptual_conflict"


def test_reingest_is_served_from_the_reply_cache(corpus, stand_in):
    atlas = corpus["llm"]
    before = len(stand_in.requests)
    calls_before = atlas.stats()["llm_usage"]["calls"]
    report = atlas.ingest(corpus_dir() / "GPL-2.txt", force=True, progress=False)
    assert report.counts() == {"replaced": 1}
    assert len(stand_in.requests) == before  # nothing left the machine
    usage = atlas.stats()["llm_usage"]
    assert usage["calls"] == calls_before and usage["cache_hits"] >= 2 and usage["builds"] == 8
    assert not [p for p in atlas.check() if p.severity == "error"]


def test_offline_provider_installs_no_hooks(tmp_path):
    assert llm_ingest_hooks(object(), Settings(llm="offline", atlas=str(tmp_path))) is None


def test_ingest_prompt_renders_the_chunk_inside_its_data_block():
    text = load_prompt("ingest_document").render({"chunk_text": "Body.", "page_range": "2-3",
                                                  "document_context": "A licence."})
    assert "<<<BEGIN DOCUMENT_CHUNK>>>\nBody.\n<<<END DOCUMENT_CHUNK>>>" in text
    assert "<<<BEGIN PAGE_RANGE>>>\n2-3\n<<<END PAGE_RANGE>>>" in text and json.dumps("A licence.")[1:-1] in text
