"""LLM ingest with a known price: the dry run sends nothing and its estimate matches the ledger of
the real run through the Gemini stand-in (real google-genai client, real HTTP)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gemini_stub import GeminiStub
from standin import COMMON, faithful_model, gemini_atlas
from ohara_lab.cli import main
from ohara_lab.llm.tokens import APPROXIMATION, approximate_tokens, count_tokens, counter_name
from ohara_lab.samples import corpus_dir

TOLERANCE = 0.15  # the bar: estimate within 15% of the real run's ledger


def _within(estimate: float, real: float) -> bool:
    return abs(estimate - real) <= TOLERANCE * real


def _ledger_by_prompt(model) -> dict[str, int]:
    out: dict[str, int] = {}
    for name in model.prompts():
        out[name] = out.get(name, 0) + 1
    return out


@pytest.fixture(scope="module")
def stand_in():
    with GeminiStub() as stub:
        yield stub


def test_token_counter_states_its_method():
    # No tokenizer model is cached on this machine (building one would download it): chars/4 it is.
    assert counter_name() == APPROXIMATION
    assert count_tokens("abcd" * 10) == approximate_tokens("abcd" * 10) == 10
    assert count_tokens("abcde") == 2


def test_dry_run_sends_nothing_and_matches_the_real_run(stand_in, tmp_path):
    model = faithful_model()
    stand_in.respond_with(model)
    atlas = gemini_atlas(tmp_path / "atlas", stand_in, answers_same=True)
    estimate = atlas.estimate_ingest(corpus_dir())
    assert stand_in.requests == []  # not one request reached the server
    assert atlas.stats()["documents"] == 0  # and nothing was written
    predicted = estimate.totals()

    report = atlas.ingest(corpus_dir(), progress=False)
    assert report.ok and report.counts() == {"ingested": 7}
    usage = atlas.stats()["llm_usage"]
    assert usage["calls"] == len(stand_in.received("generate")) == predicted["requests"]
    assert predicted["by_prompt"] == _ledger_by_prompt(model)  # the same requests, prompt by prompt
    assert _within(predicted["input_tokens"], usage["prompt"]), (predicted["input_tokens"], usage["prompt"])
    assert _within(predicted["output_tokens"], usage["output"]), (predicted["output_tokens"], usage["output"])
    assert _within(predicted["cost_flex_usd"], usage["cost_usd"])  # the stand-in serves the flex tier
    assert predicted["cost_standard_usd"] == pytest.approx(2 * predicted["cost_flex_usd"], rel=1e-3)
    per_file = {f.path.rsplit("/", 1)[-1]: f.totals()["requests"] for f in estimate.files}
    assert per_file["GPL-3.txt"] > per_file["copyleft-timeline.md"] >= 1

    again = atlas.estimate_ingest(corpus_dir())  # everything is ingested: nothing would be sent
    assert {f.status for f in again.files} == {"skipped"} and again.totals()["requests"] == 0
    # Rebuilt from the reply cache; a rebuild also re-links to documents ingested after it (cached too).
    forced = atlas.estimate_ingest(corpus_dir(), force=True).totals()
    assert forced["requests"] == 0 and forced["cache_hits"] >= predicted["requests"]
    atlas.close()


def test_cli_dry_run_prints_per_file_and_total(stand_in, tmp_path):
    stand_in.reset()
    env = {"OHARA_LLM": "gemini", "GEMINI_API_KEY": "stub-key", "OHARA_GEMINI_BASE_URL": stand_in.base_url,
           "OHARA_NER": COMMON["ner"], "OHARA_EMBEDDER": "none"}
    out = CliRunner().invoke(main, ["ingest", str(corpus_dir()), "--atlas", str(tmp_path / "a"), "--dry-run"], env=env)
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert sum(line.startswith("ingested ") for line in lines) == 7
    assert any(line.startswith("total (gemini-2.5-flash-lite): ") and "flex" in line and "standard" in line
               for line in lines)
    assert "chars/4" in out.output and "nothing was sent" in out.output
    data = json.loads(CliRunner().invoke(main, ["ingest", str(corpus_dir() / "GPL-2.txt"), "--atlas",
                                                str(tmp_path / "a"), "--dry-run", "--json"], env=env).output)
    assert data["total"]["requests"] == data["files"][0]["requests"] > 0 and data["tokenizer"] == "chars/4"
    assert stand_in.requests == []


def test_budget_stops_the_run_keeps_the_text_and_a_higher_budget_completes_it(stand_in, tmp_path):
    stand_in.reset()
    gpl3 = corpus_dir() / "GPL-3.txt"
    estimate = gemini_atlas(tmp_path / "probe", stand_in).estimate_ingest(gpl3).totals()
    budget = round(estimate["cost_flex_usd"] * 0.4, 6)  # well short of the whole document
    model = faithful_model()
    stand_in.respond_with(model)
    atlas = gemini_atlas(tmp_path / "atlas", stand_in, llm_budget_usd=budget)
    first = atlas.ingest(gpl3, progress=False)
    [doc] = atlas.documents()
    sent = len(stand_in.received("generate"))
    assert 0 < sent < estimate["requests"]
    assert doc.ingestion_status == "partial" and atlas.stats()["llm_pending"] == doc.total_chunks - doc.completed_chunks > 0
    assert first.llm_budget["reached"] and first.llm_budget["refused_calls"] > 0
    assert atlas.stats()["llm_usage"]["cost_usd"] <= budget  # reservations keep concurrent calls under the cap
    assert any("LLM budget reached" in n and "OHARA_LLM_BUDGET_USD" in n for n in first.notes)
    pending = [p for p in atlas.store.document_nodes(doc.id)["paragraphs"] if p["llm_pending"]]
    assert pending and all("budget" in p["llm_error"] for p in pending)
    chunk_texts = [v["chunk_text"].strip() for n, v in model.seen if n == "ingest_document"]
    assert all(p["content"] not in chunk_texts for p in pending)  # pending = exactly the chunks never sent
    atlas.close()

    more = gemini_atlas(tmp_path / "atlas", stand_in, llm_budget_usd=budget * 10)
    second = more.ingest(gpl3, progress=False)
    assert second.counts() == {"completed": 1} and not second.llm_budget["reached"] and second.notes == []
    [doc] = more.documents()
    assert doc.ingestion_status == "complete" and more.stats()["llm_pending"] == 0
    assert len(stand_in.received("generate")) - sent == estimate["requests"] - sent  # only what was missing
    clean = gemini_atlas(tmp_path / "clean", stand_in)
    clean.ingest(gpl3, progress=False)
    strip = lambda a: [(p["node_type"], p["content"]) for p in a.store.document_nodes(a.documents()[0].id)["paragraphs"]]  # noqa: E731
    assert strip(more) == strip(clean)
    more.close()
    clean.close()


@pytest.mark.slow
def test_estimate_on_the_shared_samples_is_within_15_percent_of_the_ledger(stand_in, tmp_path):
    """The issue's acceptance check: a dry run on ../shared/samples/ against the stand-in's ledger of the real run."""
    from tests.conftest import shared_path

    samples = shared_path("samples")
    stand_in.reset()
    model = faithful_model()
    stand_in.respond_with(model)
    # In full (the sampled estimate is held to this one in test_llm_estimate_sampled.py).
    atlas = gemini_atlas(tmp_path / "atlas", stand_in, answers_same=True, estimate_full_mb=1000)
    predicted = atlas.estimate_ingest(samples).totals()
    assert stand_in.requests == []
    assert atlas.ingest(samples, progress=False).ok
    usage = atlas.stats()["llm_usage"]
    print(f"\nshared samples: estimate {predicted} vs ledger {usage}")  # the numbers for the record
    assert predicted["requests"] == usage["calls"] and predicted["by_prompt"] == _ledger_by_prompt(model)
    assert _within(predicted["input_tokens"], usage["prompt"]) and _within(predicted["output_tokens"], usage["output"])
    assert _within(predicted["cost_flex_usd"], usage["cost_usd"])
    atlas.close()
