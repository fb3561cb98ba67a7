"""MultiHop-RAG loader: official-schema fixtures, doc_ohara parity, the real shipped query set."""
from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest

from ohara_lab.eval.dataset import DatasetError
from ohara_lab.eval.datasets.multihop import load_multihop, load_multihop_queries
from ohara_lab.eval.render import multihop_doc_id


def test_fixture_corpus_renders_exactly_like_doc_ohara(fixtures, golden, tmp_path):
    ds = load_multihop(fixtures / "multihop")
    assert [f"{d.id}.md" for d in ds.documents] == list(golden["multihop_files"])
    for d in ds.documents:
        assert d.text == golden["multihop_files"][f"{d.id}.md"]
    written = ds.write_markdown_corpus(tmp_path)
    assert sorted(p.split("/")[-1] for p in written) == sorted(golden["multihop_files"])


def test_fixture_document_fields(fixtures):
    ds = load_multihop(fixtures / "multihop")
    first, second = ds.documents[:2]
    assert first.published_at == "2023-10-02T08:15:00+00:00" and first.source == "The Coastal Ledger"
    assert first.meta == {"author": "Mara Lind", "category": "technology", "url": "https://example.org/coastal/tidal-plant"}
    assert "— by" not in second.text  # no author: no byline
    assert ds.matcher == "doc" and ds.name == "multihop-rag"


def test_shipped_format_queries_resolve_gold_titles_by_normalised_title(fixtures):
    ds = load_multihop(fixtures / "multihop")  # default: multihop_queries.json
    q1, q2, q3 = ds.queries
    ids = [d.id for d in ds.documents]
    # the second gold title differs in case and spacing from the article title
    assert q1.gold_doc_ids == [ids[0], ids[1]]
    assert q1.gold_evidence[0].startswith("The plant, built by Norvale Energy")
    assert q2.type == "null_query" and q2.unanswerable and q2.gold_doc_ids == []
    assert q3.gold_doc_ids == [ids[3], ids[4]] and not q3.unanswerable
    assert ds.summary()["unanswerable"] == 1


def test_official_queries_all(fixtures):
    ds = load_multihop(fixtures / "multihop", query_set="all")
    assert [q.id for q in ds.queries] == [f"mh_{i:04d}" for i in range(1, 8)]
    q1 = ds.queries[0]
    # three evidence facts over two distinct articles
    assert len(q1.gold_evidence) == 3 and len(q1.gold_doc_ids) == 2
    assert Counter(q.type for q in ds.queries) == {
        "inference_query": 2, "temporal_query": 2, "comparison_query": 1, "null_query": 2}
    assert sum(q.unanswerable for q in ds.queries) == 2


def test_stratified_set_rebuilt_from_official_file_matches_doc_ohara(fixtures, golden, tmp_path):
    for name in ("corpus.json", "MultiHopRAG.json"):
        shutil.copy(fixtures / "multihop" / name, tmp_path / name)
    ds = load_multihop(tmp_path, query_set="stratified", per_type=1, seed=42)
    expected = golden["multihop_stratified_per_type_1"]
    assert [(q.id, q.text, q.type, q.meta["gold_titles"]) for q in ds.queries] == [
        (e["id"], e["question"], e["question_type"], e["gold_doc_titles"]) for e in expected]
    assert any("rebuilt" in n for n in ds.notes)


def test_missing_corpus_says_where_to_get_it(tmp_path):
    with pytest.raises(DatasetError) as err:
        load_multihop(tmp_path)
    msg = str(err.value)
    assert "corpus.json" in msg and "yixuantt/MultiHop-RAG" in msg and "dataset/corpus.json" in msg


def test_missing_corpus_on_the_real_shared_folder(shared_datasets):
    with pytest.raises(DatasetError, match="yixuantt/MultiHop-RAG"):
        load_multihop(shared_datasets)


def test_unknown_gold_title_is_an_error(fixtures, tmp_path):
    shutil.copy(fixtures / "multihop" / "corpus.json", tmp_path / "corpus.json")
    queries = json.loads((fixtures / "multihop" / "multihop_queries.json").read_text(encoding="utf-8"))
    queries[0]["gold_doc_titles"].append("An article nobody wrote")
    (tmp_path / "multihop_queries.json").write_text(json.dumps(queries), encoding="utf-8")
    with pytest.raises(DatasetError, match="An article nobody wrote"):
        load_multihop(tmp_path)


def test_article_without_body_is_an_error(fixtures, tmp_path):
    corpus = json.loads((fixtures / "multihop" / "corpus.json").read_text(encoding="utf-8"))
    del corpus[2]["body"]
    (tmp_path / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    with pytest.raises(DatasetError, match="article 2"):
        load_multihop(tmp_path, query_set="all")


# ----------------------------------------------------------------------------- real files


def test_real_manifest_names_are_reproduced_by_our_doc_ids(shared_datasets):
    manifest = json.loads((shared_datasets / "multihop" / "doc_manifest.json").read_text(encoding="utf-8"))
    assert len(manifest) == 609
    for i, (name, meta) in enumerate(manifest.items()):
        assert f"{multihop_doc_id(i, meta['title'])}.md" == name


def test_real_stratified_queries(shared_datasets):
    queries = load_multihop_queries(shared_datasets)
    assert len(queries) == 500
    assert Counter(q.type for q in queries) == {
        "inference_query": 125, "comparison_query": 125, "temporal_query": 125, "null_query": 125}
    assert sum(q.unanswerable for q in queries) == 125
    assert all(not q.gold_doc_ids for q in queries if q.unanswerable)
    assert all(q.gold_doc_ids for q in queries if not q.unanswerable)
    # figures from shared/datasets/README.md
    assert sum(len(q.gold_doc_ids) for q in queries) == 984
    assert len({g for q in queries for g in q.gold_doc_ids}) == 307


def test_real_smoke_queries_are_a_subset(shared_datasets):
    smoke = load_multihop_queries(shared_datasets, query_set="smoke")
    full = {q.id: q for q in load_multihop_queries(shared_datasets)}
    types = Counter(q.type for q in smoke)
    assert len(smoke) == 60 and len(types) == 4 and set(types.values()) == {15}
    assert all(q.id in full and full[q.id].gold_doc_ids == q.gold_doc_ids for q in smoke)


def test_queries_path_accepts_either_format(fixtures):
    official = load_multihop(fixtures / "multihop", queries_path=fixtures / "multihop" / "MultiHopRAG.json")
    shipped = load_multihop(fixtures / "multihop", queries_path=fixtures / "multihop" / "multihop_queries.json")
    assert len(official.queries) == 7 and len(shipped.queries) == 3
