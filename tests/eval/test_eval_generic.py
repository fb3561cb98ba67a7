"""Generic JSONL loader: the fixture, and errors that name the file and line."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ohara_lab.eval.dataset import DatasetError
from ohara_lab.eval.datasets.generic import load_generic


def test_fixture(fixtures):
    ds = load_generic(fixtures / "generic")
    assert ds.name == "generic" and ds.matcher == "doc"
    d1, d2, d3 = ds.documents
    assert d1.text == "# Ferry timetable changes\n\nFrom May, the island ferry leaves at 07:10 instead of 07:30."
    assert d2.text.startswith("# Harbor bakery opens\n\nA bakery")  # already titled: unchanged
    assert d1.published_at == "2024-04-02" and d1.meta == {"lang": "en"} and d3.source is None
    g1, g2, g3 = ds.queries
    assert g1.answer == "07:10" and g1.type == "single"
    assert g2.gold_doc_ids == ["d2", "d1"]  # de-duplicated, order kept
    assert g3.unanswerable and g3.meta == {"source_note": "invented"}


def _write(tmp_path: Path, corpus: list, queries: list) -> Path:
    def dump(rows: list) -> str:
        return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n"
    (tmp_path / "corpus.jsonl").write_text(dump(corpus), encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text(dump(queries), encoding="utf-8")
    return tmp_path


DOC = {"id": "d1", "title": "T", "text": "body"}
QUERY = {"id": "q1", "question": "?", "gold_doc_ids": ["d1"]}


@pytest.mark.parametrize("corpus, queries, where, why", [
    ([DOC, "{not json"], [QUERY], "corpus.jsonl:2", "invalid JSON"),
    ([DOC, {"id": "d2", "text": "x"}], [QUERY], "corpus.jsonl:2", "'title'"),
    ([DOC, DOC], [QUERY], "corpus.jsonl:2", "duplicate document id 'd1' (first on line 1)"),
    ([DOC], [{**QUERY, "gold_doc_ids": ["d9"]}], "queries.jsonl:1", "not in the corpus: ['d9']"),
    ([DOC], [QUERY, {**QUERY, "id": "q2", "gold_doc_ids": []}], "queries.jsonl:2", "without gold_doc_ids"),
    ([DOC], [QUERY, QUERY], "queries.jsonl:2", "duplicate query id"),
    ([DOC], [{**QUERY, "unanswerable": True}], "queries.jsonl:1", "unanswerable query cannot have gold"),
    ([DOC], [{**QUERY, "unanswerable": "yes"}], "queries.jsonl:1", "true or false"),
    ([DOC], [{**QUERY, "gold_doc_ids": "d1"}], "queries.jsonl:1", "list of strings"),
    ([DOC], [{"id": "q1", "gold_doc_ids": ["d1"]}], "queries.jsonl:1", "'question'"),
    ([DOC], [{**QUERY, "as_of": "last year"}], "queries.jsonl:1", "'as_of' must be a date"),
    ([DOC], [{**QUERY, "answer": 7}], "queries.jsonl:1", "'answer' must be a string"),
    ([DOC], [{**QUERY, "answer": "x", "answer_aliases": "y"}], "queries.jsonl:1", "'answer_aliases' must be a list"),
])
def test_malformed_rows_name_file_and_line(tmp_path, corpus, queries, where, why):
    folder = _write(tmp_path, corpus, queries)
    with pytest.raises(DatasetError) as err:
        load_generic(folder)
    assert where in str(err.value) and why in str(err.value)


def test_paragraph_matcher_needs_evidence(tmp_path):
    folder = _write(tmp_path, [DOC], [QUERY])
    with pytest.raises(DatasetError, match="without gold_evidence"):
        load_generic(folder, matcher="paragraph")
    folder = _write(tmp_path, [DOC], [{**QUERY, "gold_evidence": ["a sentence of evidence"]}])
    assert load_generic(folder, matcher="paragraph").matcher == "paragraph"


def test_missing_file(tmp_path):
    with pytest.raises(DatasetError, match="corpus.jsonl"):
        load_generic(tmp_path)


def test_answer_aliases_count_as_golds(tmp_path):
    from ohara_lab.eval.generation import gold_answers

    folder = _write(tmp_path, [DOC], [{**QUERY, "answer": "New York City", "answer_aliases": ["NYC", "New York"]}])
    [q] = load_generic(folder).queries
    assert gold_answers(q) == ["New York City", "NYC", "New York"]
