"""QASPER loaders: v0.3 on an official-schema fixture (doc_ohara parity), L-Eval on the real files."""
from __future__ import annotations

import json
import re
import shutil

import pytest

from ohara_lab.eval.dataset import DatasetError
from ohara_lab.eval.datasets.qasper import load_qasper, load_qasper_leval
from ohara_lab.eval.matchers import ParagraphMatcher, RankedItem


def test_shipped_selection(fixtures, golden):
    ds = load_qasper(fixtures / "qasper")
    assert ds.matcher == "paragraph" and ds.name == "qasper"
    assert [d.id for d in ds.documents] == ["qasper_2101.00001", "qasper_1905.00002", "qasper_1810.00003"]
    for d in ds.documents:
        assert d.text == golden["qasper_files"][f"{d.id}.md"]
    q1, q2, q3 = ds.queries
    assert q1.gold_doc_ids == ["qasper_1905.00002"] and q1.answer == "Yes"
    assert q1.meta["question_id"] == "q-1905-a" and q1.type == "qasper"
    assert q2.answer == "from 9.1% to 6.0%" and len(q2.gold_evidence) == 1
    assert q3.answer == "within 8% of manual counts on 41 of 45 colonies"
    assert ds.summary()["unanswerable"] == 0


def test_rendering_keeps_unnamed_sections_and_skips_empty_ones(fixtures):
    text = load_qasper(fixtures / "qasper").documents[0].text
    assert text.startswith("# Tide-Aware Tokenization for Coastal Dialects\n\n## Abstract\n\nWe present")
    assert "## Method ::: Merge Weighting" in text
    assert text.count("## Section") == 1  # the unnamed section with paragraphs; the empty one is skipped
    assert text.endswith("## Conclusion\n\n")  # a named section without paragraphs keeps its heading


def test_rebuilt_selection_matches_doc_ohara(fixtures, golden, tmp_path):
    shutil.copy(fixtures / "qasper" / "qasper-dev-v0.3.json", tmp_path)
    ds = load_qasper(tmp_path, paper_count=3, query_count=None)  # auto -> rebuild (no shipped files)
    assert [d.meta["paper_id"] for d in ds.documents] == golden["qasper_sampled_3"]
    expected = golden["qasper_queries_seed43"]
    assert [(q.id, q.text, q.meta["paper_id"], q.gold_evidence) for q in ds.queries] == [
        (e["id"], e["question"], e["paper_id"], e["gold_evidence_text"]) for e in expected]
    # unanswerable and figure-only questions were skipped
    assert "Which languages besides Harborese were tested?" not in {q.text for q in ds.queries}
    assert "What table shows the F1 scores?" not in {q.text for q in ds.queries}
    assert all(not e.startswith("FLOAT SELECTED") for q in ds.queries for e in q.gold_evidence)


def test_rebuild_can_be_forced_and_query_count_applies(fixtures):
    ds = load_qasper(fixtures / "qasper", selection="rebuild", paper_count=None, query_count=2)
    assert len(ds.documents) == 4 and len(ds.queries) == 2


def test_missing_v03_file_says_where_to_get_it(tmp_path):
    with pytest.raises(DatasetError, match="qasper-train-dev-v0.3.tgz"):
        load_qasper(tmp_path)


def test_missing_v03_on_the_real_shared_folder(shared_datasets):
    with pytest.raises(DatasetError, match="qasper-dev-v0.3.json"):
        load_qasper(shared_datasets)


def test_selected_paper_absent_from_the_file_is_an_error(fixtures, tmp_path):
    for name in ("qasper-dev-v0.3.json", "qasper_queries.json"):
        shutil.copy(fixtures / "qasper" / name, tmp_path)
    manifest = json.loads((fixtures / "qasper" / "doc_manifest.json").read_text(encoding="utf-8"))
    manifest["qasper_9999.99999.md"] = {"paper_id": "9999.99999", "title": "Ghost", "question_count": 0}
    (tmp_path / "doc_manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(DatasetError, match="9999.99999"):
        load_qasper(tmp_path, selection="shipped")


# ----------------------------------------------------------------------------- L-Eval, real files


def _paragraphs(markdown: str) -> list[str]:
    return [b for b in markdown.split("\n\n") if b.strip() and not b.startswith("#")]


def test_leval_variant_on_the_real_files(shared_datasets):
    ds = load_qasper_leval(shared_datasets)
    manifest = json.loads((shared_datasets / "qasper" / "doc_manifest.json").read_text(encoding="utf-8"))
    titles = {m["paper_id"]: m["title"] for m in manifest.values()}
    # README: 9 papers, 19 of the 150 queries
    assert len(ds.documents) == 9 and len(ds.queries) == 19
    assert ds.matcher == "paragraph" and ds.name == "qasper-leval"
    for d in ds.documents:
        assert f"{d.id}.md" in manifest
        assert d.text.startswith(f"# {titles[d.meta['paper_id']]}\n\n## ")
        assert not re.search(r"^## .*(INLINEFORM|DISPLAYFORM|BIBREF)", d.text, re.M)
    assert len({d.text for d in ds.documents}) == 9  # repeated L-Eval lines were dropped
    doc_ids = {d.id for d in ds.documents}
    assert all(q.gold_doc_ids[0] in doc_ids and q.gold_evidence for q in ds.queries)


def test_leval_headings_and_answers(shared_datasets):
    ds = load_qasper_leval(shared_datasets)
    eeg = next(d for d in ds.documents if d.meta["paper_id"] == "1904.01548")
    assert "\n## Proposed Method ::: Polarity Function\n" in eeg.text
    assert "\n## Introduction\n" in eeg.text
    answered = [q for q in ds.queries if q.answer]
    assert answered  # questions worded as in L-Eval carry its reference answer


def test_leval_gold_evidence_is_findable_by_the_paragraph_matcher(shared_datasets):
    """Every question whose evidence the loader counts as present gets a paragraph hit."""
    ds = load_qasper_leval(shared_datasets)
    docs = {d.id: d for d in ds.documents}
    present = [q for q in ds.queries if q.meta["evidence_in_text"] > 0]
    assert len(present) >= 15  # evidence in the abstract or a figure cannot be in L-Eval's text
    for q in present:
        matcher = ParagraphMatcher(q.gold_evidence)
        paragraphs = _paragraphs(docs[q.gold_doc_ids[0]].text)
        assert any(matcher(RankedItem(q.gold_doc_ids[0], p)) for p in paragraphs), q.id


def test_leval_unmapped_papers_as_distractors(shared_datasets):
    ds = load_qasper_leval(shared_datasets, include_unmapped=True)
    distractors = [d for d in ds.documents if d.meta["distractor"]]
    assert distractors and all(d.id.startswith("leval_line_") for d in distractors)
    assert len(ds.queries) == 19
    assert len({d.text.split("\n", 1)[1] for d in ds.documents}) == len(ds.documents)
