"""ANSWERS_SAME at ingest: paragraph questions from the LLM (through the Gemini stand-in), linked both
ways when shared; offline nothing is asked and the ingest says the step was skipped."""
from __future__ import annotations

import pytest

from gemini_stub import GeminiStub
from standin import faithful_model, gemini_atlas, offline_atlas
from ohara_lab.ids import question_key
from ohara_lab.llm.questions import BATCH_PARAGRAPHS, MIN_CHARS, question_batches, read_reply
from ohara_lab.records import Paragraph
from ohara_lab.samples import corpus_dir

FSF = "who publishes the gnu licences?"


def _para(i: int, text: str, pending: bool = False) -> Paragraph:
    return Paragraph(id=f"paragraphs/d-{i:05d}", document_id="documents/d", content=text, llm_pending=pending)


def test_batches_take_long_paragraphs_in_order_and_skip_pending_ones():
    paras = [_para(i, "x" * (MIN_CHARS + i)) for i in range(45)] + [_para(99, "short"), _para(98, "y" * 500, True)]
    batches = question_batches(paras)
    assert [len(b) for b in batches] == [BATCH_PARAGRAPHS, BATCH_PARAGRAPHS, 5]
    assert [p.id for b in batches for p in b] == [p.id for p in paras[:45]]


def test_a_reply_naming_no_paragraph_is_ignored_and_questions_are_normalised():
    batch = [_para(1, "a" * 120), _para(2, "b" * 120)]
    got = read_reply(batch, {"questions": [{"paragraph": 2, "questions": ["When  was GPL-3 published?", "???"]},
                                           {"paragraph": 7, "questions": ["lost question"]}]})
    assert [(q.node_id, q.text, q.norm) for q in got] == [("paragraphs/d-00002", "When was GPL-3 published?",
                                                           "when was gpl3 published")]
    assert question_key("Who publishes the GNU licences?") == "who publishes the gnu licences"


def ask(variables, request):
    """A model asking the same question of every paragraph that names the FSF, and its own of the others."""
    items = []
    for n, text in enumerate(variables["paragraphs"], 1):
        q = FSF if "Free Software Foundation" in text else f"what does passage {sum(map(ord, text)) % 100003} say"
        items.append({"paragraph": n, "questions": [q]})
    return {"questions": items}


@pytest.fixture(scope="module")
def asked(tmp_path_factory):
    with GeminiStub() as stub:
        model = faithful_model(paragraph_questions=ask)
        stub.respond_with(model)
        atlas = gemini_atlas(tmp_path_factory.mktemp("asked"), stub, answers_same=True)
        report = atlas.ingest(corpus_dir(), progress=False)
        yield atlas, model, report
        atlas.close()


def test_paragraphs_sharing_a_question_are_linked_both_ways(asked):
    atlas, model, report = asked
    assert report.ok and report.notes == []
    docs = atlas.documents()
    assert all(d.ingestion_status == "complete" for d in docs)
    fsf = {p["id"]: p["document_id"] for d in docs for p in atlas.store.document_nodes(d.id)["paragraphs"]
           if "Free Software Foundation" in p["content"][:1500] and len(p["content"].strip()) >= MIN_CHARS
           and not p["llm_pending"]}
    assert len(set(fsf.values())) >= 4  # the question crosses documents
    edges = atlas.store.edges(relations=["ANSWERS_SAME"])
    shared = [e for e in edges if e.attrs["shared_query_norm"] == question_key(FSF)]
    assert {(e.from_id, e.to_id) for e in shared} == {(a, b) for a in fsf for b in fsf if a != b}
    assert all(e.attrs == {"shared_query": FSF, "shared_query_norm": question_key(FSF)} for e in shared)
    # The other questions are per text: only paragraphs with the same text (licences share clauses) share them.
    text = {nid: row["content"][:1500] for nid, row in atlas.store.get_nodes({e.from_id for e in edges}).items()}
    assert all(text[e.from_id] == text[e.to_id] for e in edges if e not in shared)
    seed = sorted(fsf)[0]
    linked = atlas.store.answers_same([seed])
    assert {h.id for h in linked} == set(fsf) - {seed}
    assert all(h.document_id == fsf[h.id] and h.question == FSF for h in linked)
    sizes = [len(v["paragraphs"]) for n, v in model.seen if n == "paragraph_questions"]
    assert sizes and max(sizes) <= BATCH_PARAGRAPHS
    assert not [p for p in atlas.check() if p.severity == "error"]


def test_offline_ingest_asks_nothing_and_says_the_step_was_skipped(tmp_path):
    with offline_atlas(tmp_path / "offline", answers_same=True) as atlas:
        report = atlas.ingest(corpus_dir() / "GPL-3.txt", progress=False)
        assert report.ok and "ANSWERS_SAME" not in atlas.stats()["edges"]
        assert report.notes == ["ANSWERS_SAME skipped: paragraph questions need an LLM (OHARA_LLM=gemini); "
                                "no question was asked and no edge written."]
