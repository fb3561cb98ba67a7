"""The common `Dataset` shape: validation, summary, Markdown corpus output."""
from __future__ import annotations

import json

import pytest

from ohara_lab.eval.dataset import Dataset, DatasetError, EvalDocument, EvalQuery


def _doc(i: str) -> EvalDocument:
    return EvalDocument(id=i, title=f"Title {i}", text=f"# Title {i}\n\nBody {i}.")


def test_validation_rejects_inconsistent_datasets():
    with pytest.raises(DatasetError, match="duplicate document ids"):
        Dataset("x", [_doc("a"), _doc("a")], [])
    with pytest.raises(DatasetError, match="duplicate query ids"):
        Dataset("x", [_doc("a")], [EvalQuery("q", "?", "t", ["a"]), EvalQuery("q", "?", "t", ["a"])])
    with pytest.raises(DatasetError, match="not in the corpus"):
        Dataset("x", [_doc("a")], [EvalQuery("q", "?", "t", ["b"])])
    with pytest.raises(DatasetError, match="unanswerable but has gold"):
        Dataset("x", [_doc("a")], [EvalQuery("q", "?", "t", ["a"], unanswerable=True)])
    with pytest.raises(DatasetError, match="matcher"):
        Dataset("x", [_doc("a")], [], matcher="sentence")  # type: ignore[arg-type]


def test_summary_counts():
    ds = Dataset("x", [_doc("a"), _doc("b"), _doc("c")], [
        EvalQuery("q1", "?", "2hop", ["a", "b"], gold_evidence=["e"]),
        EvalQuery("q2", "?", "3hop", ["b"]),
        EvalQuery("q3", "?", "null", unanswerable=True),
        EvalQuery("q4", "?", "null_query"),  # null by type alone (spec §5)
    ])
    s = ds.summary()
    assert (s["documents"], s["queries"], s["unanswerable"]) == (3, 4, 2)
    assert s["question_types"] == {"2hop": 1, "3hop": 1, "null": 1, "null_query": 1}
    assert s["gold_documents_distinct"] == 2 and s["gold_per_answerable_query"] == 1.5
    assert s["queries_with_evidence"] == 1


def test_write_markdown_corpus(tmp_path):
    ds = Dataset("x", [_doc("mhrag_0001_a"), _doc("qasper_1603.01514"), _doc("Ünïcode / title?")], [])
    written = ds.write_markdown_corpus(tmp_path / "out")
    names = {p.rsplit("/", 1)[1]: doc_id for p, doc_id in written.items()}
    assert names["mhrag_0001_a.md"] == "mhrag_0001_a"
    assert names["qasper_1603.01514.md"] == "qasper_1603.01514"
    unsafe = next(n for n, d in names.items() if d == "Ünïcode / title?")
    assert unsafe.startswith("n-code-title-") and unsafe.endswith(".md") and "/" not in unsafe
    for path, doc_id in written.items():
        assert open(path, encoding="utf-8").read() == next(d.text for d in ds.documents if d.id == doc_id)
    assert sorted(p.rsplit("/", 1)[1] for p in ds.write_markdown_corpus(tmp_path / "again")) == sorted(names)


def test_file_names_that_collide_case_insensitively_are_refused():
    ds = Dataset("x", [_doc("Doc"), _doc("doc")], [])
    with pytest.raises(DatasetError, match="collide"):
        ds.file_names()


def test_read_records_names_the_file_and_the_bad_item(tmp_path):
    from ohara_lab.eval.datasets._io import read_records

    path = tmp_path / "questions.json"
    path.write_text(json.dumps([{"id": "q1", "question": "x", "paragraphs": []}, {"id": "q2", "question": "y"}]))
    with pytest.raises(DatasetError, match=r"questions\.json.*question 1 lacks one of id, question, paragraphs"):
        read_records(path, ("id", "question", "paragraphs"), "question")
    path.write_text(json.dumps({"id": "q1"}))
    with pytest.raises(DatasetError, match="expected a JSON list of questions"):
        read_records(path, ("id",), "question")
    path.write_text(json.dumps([{"id": "q1", "question": "x", "paragraphs": []}]))
    assert read_records(path, ("id", "question", "paragraphs"), "question")[0]["id"] == "q1"
