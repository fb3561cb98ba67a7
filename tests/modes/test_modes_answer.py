"""Answer synthesis: cited Principal evidence or a plain "insufficient evidence", offline and
through the stand-in."""
from __future__ import annotations

import json
import re

from gemini_stub import error_reply
from offline_replies import decode
from standin import faithful_model, gemini_atlas, offline_atlas
from ohara_lab.modes.answer import Answer, insufficient_text, table_prose

QUESTION = "When was the GNU General Public License version 3 published?"
NOTHING = "What is the boiling point of mercury in kelvin?"


def _markers(text):
    return sorted({int(n) for n in re.findall(r"\[(\d+)\]", text)})


def test_offline_answer_quotes_cited_principal_sentences(atlas):
    ans = atlas.answer(QUESTION)
    assert isinstance(ans, Answer) and not ans.insufficient and ans.answered_by == "offline"
    principal = [f.id for f in ans.retrieval.tiers.principal]
    assert ans.citations and _markers(ans.text) == [c["ref"] for c in ans.citations]
    assert [c["ref"] for c in ans.citations] == list(range(1, len(ans.citations) + 1))
    first_use = list(dict.fromkeys(int(n) for n in re.findall(r"\[(\d+)\]", ans.text)))
    assert first_use == [c["ref"] for c in ans.citations]  # [1], [2], ... in order of first use
    for c in ans.citations:
        assert c["node_id"] == principal[c["passage"] - 1]  # the record keeps the passage number
        assert c["document_id"].startswith("documents/") and c["title"] and c["score"] > 0
    assert "2007" in ans.text
    d = ans.to_dict()
    json.dumps(d)
    assert d["answer"] == ans.text and d["retrieval"]["tiers"]["principal"]
    assert d["short"] == ans.short and ans.short is not None and ans.text.startswith(ans.short)
    assert "2007" in ans.short  # "When ...?" asks for a date, and the evidence names one


def test_empty_principal_tier_means_insufficient_evidence_not_a_guess(atlas):
    ans = atlas.answer(NOTHING)
    assert ans.insufficient and ans.citations == []
    assert ans.text == insufficient_text(ans.retrieval) and ans.retrieval.abstain_reason in ans.text
    # Results exist but none is corroborated: the answer still refuses to use them.
    strict = atlas.answer(QUESTION, principal_min_families=9)
    assert strict.retrieval.results and not strict.retrieval.tiers.principal
    assert strict.insufficient and strict.citations == [] and "[" not in strict.text


def test_answer_modes(atlas):
    for mode in ("cor", "agent"):
        ans = atlas.answer(QUESTION, mode=mode)
        assert ans.mode == mode and ans.retrieval.mode == mode
        assert ans.citations and not ans.insufficient


def test_gemini_answer_keeps_only_citations_of_real_passages(corpus_path, gemini_server):
    def write(v, r):
        return {"answer": "It was published on 29 June 2007 [1], replacing version 2 [9].", "cited": [1, 9],
                "insufficient": False, "quotes": []}

    gemini_server.respond_with(faithful_model(answer=write))
    with gemini_atlas(corpus_path, gemini_server, llm_cache_dir=str(corpus_path / "answer_cache")) as atlas:
        ans = atlas.answer(QUESTION)
    assert ans.answered_by == "gemini:gemini-2.5-flash-lite"
    assert ans.text == "It was published on 29 June 2007 [1], replacing version 2."
    assert [c["ref"] for c in ans.citations] == [1]
    assert ans.citations[0]["node_id"] == ans.retrieval.tiers.principal[0].id
    [sent] = [decode(r)[1] for r in gemini_server.received("generate") if decode(r)[0] == "answer"]
    assert sent["question"] == QUESTION and 1 <= len(sent["passages"]) <= 6
    assert len(sent["passages"]) == len(ans.retrieval.tiers.principal[:6])
    assert all(p.startswith("(") and len(p.split("\n", 1)[1]) <= 600 for p in sent["passages"])


def test_gemini_saying_insufficient_is_reported(corpus_path, gemini_server):
    gemini_server.respond_with(faithful_model(
        answer=lambda v, r: {"answer": "The passages do not give the date.", "cited": [], "insufficient": True,
                             "quotes": []}))
    with gemini_atlas(corpus_path, gemini_server, llm_cache_dir=str(corpus_path / "answer_cache2")) as atlas:
        ans = atlas.answer(QUESTION)
    assert ans.insufficient and ans.citations == [] and ans.text == "The passages do not give the date."


def test_gemini_failure_falls_back_to_the_offline_answer(corpus_path, gemini_server):
    gemini_server.respond_with(faithful_model(answer=lambda v, r: error_reply(503, "overloaded")))
    with gemini_atlas(corpus_path, gemini_server, llm_cache_dir=str(corpus_path / "answer_cache3")) as atlas:
        ans = atlas.answer(QUESTION)
    assert ans.answered_by == "offline (gemini:gemini-2.5-flash-lite failed)"
    assert ans.citations and not ans.insufficient


def test_table_rows_become_quotable_sentences():
    md = "| Licence | Version | Published |\n|---|---|---|\n| GPL | 2 | June 1991 |\n| GPL | 3 | 29 June 2007 |"
    assert table_prose(md) == "Licence: GPL; Version: 2; Published: June 1991. Licence: GPL; Version: 3; " \
                              "Published: 29 June 2007."
    assert table_prose("not a table") == "not a table"


def test_offline_answer_reads_the_whole_passage(tmp_path):
    # The sentence holding the answer starts past character 600 of its paragraph: the old cut before
    # sentence selection hid it ("uid 41" from elsewhere was the reported symptom).
    filler = " ".join(f"The {w} account is a system account that Debian creates for the {w} service and keeps locked."
                      for w in ("mail", "news", "uucp", "proxy", "backup", "list", "irc"))
    paragraph = filler + " The gnats account, created for the bug-tracking system, had uid 37."
    assert paragraph.index("uid 37") > 600
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "accounts.md").write_text(
        f"# System accounts in Debian\n\n## The gnats account\n\n{paragraph}\n\n## Other accounts\n\n"
        "The nobody account owns no files.\n")
    with offline_atlas(tmp_path / "atlas") as atlas:
        atlas.ingest([tmp_path / "docs"], progress=False)
        ans = atlas.answer("Which uid did the gnats account have?")
    assert not ans.insufficient and "had uid 37. [1]" in ans.text
    assert ans.citations[0]["verified"]  # the quoted sentence is found in the stored paragraph
