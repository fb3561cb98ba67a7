"""MuSiQue loader: the real HippoRAG-packaged files, and a literal-string fixture."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from ohara_lab.eval.dataset import DatasetError
from ohara_lab.eval.datasets.musique import load_musique, title_doc_ids


def test_real_files(shared_datasets):
    ds = load_musique(shared_datasets)
    corpus = json.loads((shared_datasets / "musique" / "musique_train_100_corpus.json").read_text(encoding="utf-8"))
    raw = json.loads((shared_datasets / "musique" / "musique_train_100.json").read_text(encoding="utf-8"))
    assert len(corpus) == 1890 and len(raw) == 100  # README
    assert len(ds.documents) == len({row["title"] for row in corpus})
    assert len(ds.queries) == 100 and ds.summary()["unanswerable"] == 0
    assert Counter(q.type for q in ds.queries) == {"2hop": 68, "3hop": 27, "4hop": 5}  # README
    assert sum(len(q.gold_evidence) for q in ds.queries) == 237  # README: 237 supporting paragraphs
    by_id = {d.id: d for d in ds.documents}
    for q in ds.queries:
        assert q.gold_doc_ids and len(set(q.gold_doc_ids)) == len(q.gold_doc_ids)
        for title, doc_id in zip(q.meta["gold_titles"], q.gold_doc_ids):
            assert by_id[doc_id].title == title
        # each supporting paragraph sits in the merged document of its title
        assert all(any(e in by_id[g].text for g in q.gold_doc_ids) for e in q.gold_evidence)


def test_real_titles_merge_their_paragraphs_in_corpus_order(shared_datasets):
    ds = load_musique(shared_datasets)
    corpus = json.loads((shared_datasets / "musique" / "musique_train_100_corpus.json").read_text(encoding="utf-8"))
    title, n = Counter(row["title"] for row in corpus).most_common(1)[0]
    assert n > 1
    doc = next(d for d in ds.documents if d.title == title)
    texts = [row["text"] for row in corpus if row["title"] == title]
    positions = [doc.text.index(t) for t in texts]
    assert positions == sorted(positions) and doc.meta["paragraphs"] == n


def test_literal_string_fields_fixture(fixtures):
    ds = load_musique(fixtures / "musique_literal")
    assert [d.title for d in ds.documents] == ["Port Alder", "Skelby", "Ida Brandt", "East coast line"]
    skelby = ds.documents[1]
    # two distinct paragraphs merged in corpus order; the exact repeat is dropped
    assert skelby.text == "# Skelby\n\nSkelby is a village on the east coast.\n\nSkelby's harbour silted up in 1950.\n"
    q1, q2 = ds.queries
    assert q1.type == "2hop" and q1.gold_doc_ids == ["port-alder", "ida-brandt"]
    assert q1.meta["answer_aliases"] == ["Skelby village"]
    assert q1.meta["decomposition"][1]["question"] == "Where was #1 born?"
    assert not q1.unanswerable
    assert q2.type == "3hop" and q2.meta["composition"] == "3hop1"
    assert q2.unanswerable and q2.gold_doc_ids == [] and q2.gold_evidence == []


def test_malformed_literal_names_file_and_question(fixtures, tmp_path):
    raw = json.loads((fixtures / "musique_literal" / "mini.json").read_text(encoding="utf-8"))
    raw[0]["paragraphs"] = "[{'idx': 0, 'title': 'Port Alder'"  # cut off
    (tmp_path / "mini.json").write_text(json.dumps(raw), encoding="utf-8")
    (tmp_path / "mini_corpus.json").write_text(
        (fixtures / "musique_literal" / "mini_corpus.json").read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(DatasetError, match=r"mini\.json.*2hop__1_2.*paragraphs"):
        load_musique(tmp_path)


def test_supporting_title_missing_from_corpus(fixtures, tmp_path):
    (tmp_path / "mini.json").write_text(
        (fixtures / "musique_literal" / "mini.json").read_text(encoding="utf-8"), encoding="utf-8")
    corpus = json.loads((fixtures / "musique_literal" / "mini_corpus.json").read_text(encoding="utf-8"))
    (tmp_path / "mini_corpus.json").write_text(json.dumps([r for r in corpus if r["title"] != "Ida Brandt"]),
                                               encoding="utf-8")
    with pytest.raises(DatasetError, match="Ida Brandt"):
        load_musique(tmp_path)


def test_title_ids_stay_unique_when_slugs_collide():
    ids = title_doc_ids(["A.B", "A B", "C"])
    assert ids["C"] == "c"
    assert ids["A.B"] != ids["A B"] and ids["A.B"].startswith("a-b-") and ids["A B"].startswith("a-b-")
    assert title_doc_ids(["A B", "A.B", "C"]) == ids  # independent of order
