"""Hand-computed checks of the structuring fidelity rule and of edge enrichment's pure parts."""
from __future__ import annotations

import pytest

from ohara_lab.llm.enrich import EdgeEnricher, derived_edges, temporal_relation
from ohara_lab.llm.fidelity import check_chunk_reply, fidelity
from ohara_lab.llm.reply import ReplyInvalid
from ohara_lab.ontology import load_ontology
from ohara_lab.records import Document

CHUNK = "## Intro\n\nAlpha bravo charlie delta echo foxtrot golf hotel india juliet."


def para(text):
    return {"type": "Paragraph", "part": "body_matter", "content": text}


def test_fidelity_ratios_by_hand():
    # Chunk words (>= 3 chars): intro alpha bravo charlie delta echo foxtrot golf hotel india juliet = 11.
    coverage, foreign = fidelity(CHUNK, [{"type": "Section", "part": "body_matter", "title": "Intro"},
                                         para("Alpha bravo charlie delta echo.")])
    assert coverage == pytest.approx(6 / 11) and foreign == 0.0
    # Verbatim words: alpha bravo zulu yankee -> 2 of 4 are foreign.
    coverage, foreign = fidelity(CHUNK, [para("Alpha bravo zulu yankee")])
    assert coverage == pytest.approx(2 / 11) and foreign == pytest.approx(0.5)
    # A summary may paraphrase: it counts towards coverage, never as foreign.
    assert fidelity(CHUNK, [{"type": "Section", "part": "body_matter", "title": "Intro", "summary": "Zulu zulu."}]) \
        == (pytest.approx(1 / 11), 0.0)


def test_fidelity_check_accepts_faithful_and_rejects_dropped_or_foreign_text():
    check_chunk_reply(CHUNK, {"nodes": [{"type": "Section", "part": "body_matter", "title": "Intro"},
                                        para("Alpha bravo charlie delta echo foxtrot golf hotel india juliet.")]})
    with pytest.raises(ReplyInvalid, match="reproduce only 0%"):
        check_chunk_reply(CHUNK, {"nodes": []})
    long_foreign = "Alpha bravo charlie delta echo foxtrot golf hotel india juliet " + " ".join(
        f"invented{i}" for i in range(10))
    with pytest.raises(ReplyInvalid, match="do not occur in the chunk"):
        check_chunk_reply(CHUNK, {"nodes": [para(long_foreign)]})
    check_chunk_reply("Too short.", {"nodes": []})  # fewer than 8 words: no ratio is meaningful


@pytest.mark.parametrize("verb, relation", [
    ("extends", "extends"), ("Builds on", "extends"), ("largely continues", "extends"),
    ("supersedes", "supersedes"), ("partly refutes", "supersedes"), ("replaces", "supersedes"),
    ("discusses the same topic as", "discusses"), ("builds upon", "discusses"), ("applies the method of", "discusses"),
])
def test_temporal_relation_from_the_verb(verb, relation):
    assert temporal_relation(verb) == relation


def _doc(key, date):
    return Document(id=f"documents/{key}", title=key, source_file=key, file_hash=key, published_date=date)


def test_derived_edges():
    docs = {"documents/new": _doc("new", "2007-06-29"), "documents/old": _doc("old", "1991-06")}
    edges = derived_edges("documents/new", "documents/old", {"temporal_relation": "supersedes", "summary": "S"}, docs)
    assert [(e.relation, e.from_id, e.to_id) for e in edges] == [
        ("CONTRADICTS", "documents/new", "documents/old"), ("PRECEDES", "documents/old", "documents/new")]
    assert edges[0].attrs == {"contradiction_note": "S", "source": "temporal_supersession"}
    noted = derived_edges("documents/new", "documents/old",
                          {"temporal_relation": "discusses", "contradiction_note": "N"}, docs)
    assert [(e.relation, e.attrs["source"]) for e in noted] == [("CONTRADICTS", "conceptual_conflict")]
    docs["documents/old"] = _doc("old", None)  # undated: no order to state
    assert [e.relation for e in derived_edges("documents/new", "documents/old", {"temporal_relation": "extends"},
                                              docs)] == []


def test_merged_attrs_validate_tags_and_keep_offline_facts():
    enricher = EdgeEnricher(provider=type("P", (), {"name": "gemini:m"})(), store=None, ontology=load_ontology())
    offline = {"weight": 0.4, "jaccard": 0.4, "tags": ["Text"], "temporal_relation": "discusses", "verb": "x"}
    attrs = enricher.merged_attrs(offline, {"verb": "builds on", "tags": ["Xyzzyplugh"], "summary": "s" * 500,
                                            "contradiction_note": "  "})
    assert attrs["tags"] == ["Text"]  # nothing valid came back: the offline tags stay
    assert attrs["temporal_relation"] == "extends" and attrs["weight"] == 0.4 and attrs["enriched_by"] == "gemini:m"
    assert len(attrs["summary"]) == 300 and attrs["contradiction_note"] is None
    vague = enricher.merged_attrs({**offline, "temporal_relation": "extends"},
                                  {"verb": "discusses the same topic as", "tags": ["License"], "summary": "s",
                                   "contradiction_note": None})
    assert vague["temporal_relation"] == "extends" and vague["tags"] == ["License"]
