"""Span-level citations: every [n] points at characters of the cited node's stored text a reader can check."""
from __future__ import annotations

import json

from click.testing import CliRunner

from standin import faithful_model, gemini_atlas
from ohara_lab.cli import main
from ohara_lab.modes.citations import locate, table_prose, table_rows

QUESTION = "When was GPL version 3 published?"
TEXT = ("The GNU General Public License is a free,\ncopyleft license for software and other kinds of works.\n\n"
        "Version 3 was published on 29 June 2007 by the Free Software Foundation.")
TABLE = "| Licence | Version | Published |\n|---|---|---|\n| GPL | 2 | June 1991 |\n| GPL | 3 | 29 June 2007 |"


def _check(span, content):
    assert content[span.start:span.end] == span.text and span.text in content


def test_exact_whitespace_and_fuzzy_quotes_are_located():
    [exact] = locate("Version 3 was published on 29 June 2007", TEXT)
    assert (exact.match, exact.start) == ("exact", TEXT.index("Version 3"))
    [wrapped] = locate("a free, copyleft license for software", TEXT)  # the source breaks the line
    assert wrapped.match == "whitespace" and "\n" in wrapped.text
    [near] = locate("Version 3 was published on June 29 2007 by the Free Software Foundation.", TEXT)
    assert near.match == "fuzzy" and near.score >= 90 and near.text.startswith("Version 3")
    for span in (exact, wrapped, near):
        _check(span, TEXT)


def test_a_quote_not_in_the_text_is_not_a_span():
    assert locate("Version 4 was published in 2031 by a committee of robots.", TEXT) == []
    assert locate("2007", TEXT) == []  # too short to prove anything
    assert locate("", TEXT) == []


def test_table_rows_quoted_as_prose_map_to_their_markdown_line():
    prose = table_prose(TABLE)
    assert prose == "Licence: GPL; Version: 2; Published: June 1991. Licence: GPL; Version: 3; Published: 29 June 2007."
    rows = table_rows(TABLE)
    assert [TABLE[s:e] for _, s, e in rows] == ["| GPL | 2 | June 1991 |", "| GPL | 3 | 29 June 2007 |"]
    [span] = locate("Licence: GPL; Version: 3; Published: 29 June 2007.", TABLE, table=True)
    assert span.match == "table_row" and span.text == "| GPL | 3 | 29 June 2007 |"
    _check(span, TABLE)
    assert locate("Licence: GPL; Version: 3; Published: 29 June 2007.", TABLE) == []  # only for tables


def _assert_spans_in_store(atlas, citations):
    nodes = atlas.store.get_nodes([c["node_id"] for c in citations])
    for c in citations:
        node = nodes[c["node_id"]]
        stored = node.get("content") or node.get("markdown_representation")
        assert c["spans"], c
        for s in c["spans"]:
            assert stored[s["start"]:s["end"]] == s["text"] and s["text"] in stored


def test_offline_answer_citations_carry_verified_spans(atlas):
    ans = atlas.answer(QUESTION)
    assert ans.citations and not ans.insufficient
    assert all(c["verified"] and not c["unverified"] for c in ans.citations)
    _assert_spans_in_store(atlas, ans.citations)
    assert {s["match"] for c in ans.citations for s in c["spans"]} <= {"exact", "whitespace", "table_row"}
    for c in ans.citations:
        view = ans.retrieval.views[c["node_id"]]
        assert c["section_path"] == view.section_path and c["page"] == view.page
        assert c["document_id"] == view.document_id


def test_cli_answer_json_carries_the_spans(corpus_path):
    out = CliRunner().invoke(main, ["answer", QUESTION, "--atlas", str(corpus_path), "--json"],
                             env={"OHARA_LLM": "offline", "OHARA_EMBEDDER": "none", "OHARA_NER": "rules"})
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["citations"] and all(c["verified"] and c["spans"] for c in data["citations"])
    assert {"node_id", "document_id", "section_path", "page", "spans"} <= set(data["citations"][0])
    plain = CliRunner().invoke(main, ["answer", QUESTION, "--atlas", str(corpus_path)],
                               env={"OHARA_LLM": "offline", "OHARA_EMBEDDER": "none", "OHARA_NER": "rules"})
    first = data["citations"][0]["spans"][0]
    assert f"{first['start']}-{first['end']}:" in plain.output


def test_gemini_quotes_are_aligned_and_invented_ones_marked_unverified(corpus_path, gemini_server):
    def write(variables, _request):
        body = variables["passages"][0].split("\n", 1)[1]
        sentence = body.split(". ")[0]
        quote = " ".join(sentence.split()[:12])  # verbatim words of passage 1, rewrapped
        return {"answer": "It says so [1]. Version 3 came out in 1850 [2].", "cited": [1, 2], "insufficient": False,
                "quotes": [{"passage": 1, "text": quote},
                           {"passage": 2, "text": "The licence was first published by Queen Victoria in 1850."}]}

    gemini_server.respond_with(faithful_model(answer=write))
    with gemini_atlas(corpus_path, gemini_server, llm_cache_dir=str(corpus_path / "cite_cache")) as atlas:
        ans = atlas.answer(QUESTION)
        assert len(ans.retrieval.tiers.principal) >= 2
        first, second = ans.citations
        assert first["verified"] and first["spans"] and not first["unverified"]
        _assert_spans_in_store(atlas, [first])
        assert not second["verified"] and second["spans"] == []
        assert second["unverified"] == ["The licence was first published by Queen Victoria in 1850."]


def test_without_quotes_the_claim_is_tried_and_a_paraphrase_stays_unverified(corpus_path, gemini_server):
    gemini_server.respond_with(faithful_model(
        answer=lambda v, r: {"answer": "It was published in the summer of 2007 [1].", "cited": [1],
                             "insufficient": False, "quotes": []}))
    with gemini_atlas(corpus_path, gemini_server, llm_cache_dir=str(corpus_path / "cite_cache2")) as atlas:
        ans = atlas.answer(QUESTION)
    [c] = ans.citations
    assert not c["verified"] and c["unverified"] == ["It was published in the summer of 2007"]
