"""BEIR folders in, TREC runs and qrels out: the loader, the formats, and `ohara eval --dataset <beir folder>`
end to end on a small BEIR folder built here (real atlas, embedder none), scored again by ranx from the files."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from ohara_lab.cli import main
from ohara_lab.errors import UsageError
from ohara_lab.eval import metrics as m
from ohara_lab.eval.build import corpus_fingerprint
from ohara_lab.eval.dataset import DatasetError
from ohara_lab.eval.datasets.beir import load_beir, write_beir
from ohara_lab.eval.datasets.registry import load_dataset
from ohara_lab.eval.evaluate import QueryResult, score_query
from ohara_lab.eval.matchers import RankedItem
from ohara_lab.eval.trec import monotone_scores, read_qrels, read_run, write_qrels, write_run

pytestmark = pytest.mark.filterwarnings("ignore:unsafe cast")  # ranx numba kernels, not ours

# Eight passages on unrelated topics, so BM25 alone finds each query's documents by their words.
CORPUS = [
    {
        "_id": "d1",
        "title": "Honeybee waggle dance",
        "text": "Foraging honeybees dance to tell the hive where "
        "nectar flowers are; the waggle run encodes distance and direction.",
        "metadata": {"url": "x"},
    },
    {
        "_id": "d2",
        "title": "Bumblebee foraging",
        "text": "Bumblebees forage on cold mornings and learn flower colours; they do not dance.",
    },
    {
        "_id": "d3",
        "title": "",
        "text": "Basalt columns form when thick lava flows cool slowly and crack into hexagonal prisms.",
    },
    {
        "_id": "d4",
        "title": "Glacier erratics",
        "text": "Boulders carried by glaciers and left far from their bedrock are called erratics.",
    },
    {
        "_id": "d5",
        "title": "Sourdough starter",
        "text": "A sourdough starter is a culture of wild yeast and lactic acid bacteria fed with flour and water.",
    },
    {
        "_id": "d6",
        "title": "Tidal locking",
        "text": "The Moon is tidally locked: its rotation period equals its "
        "orbital period, so one face always points at Earth.",
    },
    {
        "_id": "d7",
        "title": "Printing press",
        "text": "Gutenberg's movable type printing press spread books across Europe in the fifteenth century.",
    },
    {"_id": "d8", "title": "", "text": ""},  # neither title nor text: skipped
    # distractors that out-score gold on words (judged 0 or not at all), one of them in several paragraphs, so
    # the rankings are imperfect and a document can return more than one node
    {
        "_id": "d10",
        "title": "Hexagonal basalt columns of the lava coast",
        "text": "Basalt lava columns: hexagonal basalt, hexagonal columns, columns of cooled lava that crack.",
    },
    {
        "_id": "d11",
        "title": "What a sourdough starter is made of",
        "text": "A starter made of flour.\n\n"
        "Sourdough starter made of rye flour and water.\n\nWhat is a starter made of? Flour, water, sourdough.",
    },
]
QUERIES = [
    {"_id": "q1", "text": "How do honeybees tell the hive where flowers are?", "metadata": {}},
    {"_id": "q2", "text": "Why does basalt crack into hexagonal columns when lava cools?"},
    {"_id": "q3", "text": "What is a sourdough starter made of?"},
    {"_id": "q4", "text": "Which face of the Moon points at Earth and why?"},
    {"_id": "q5", "text": "Who invented the printing press?"},  # judged only not relevant: left out
    {"_id": "q6", "text": "A query with no judgements at all"},  # not in the split: not asked
]
# graded: q1 has a highly relevant (2) and a partly relevant (1) document; a 0 is "judged, not relevant"
# q1's best document by grade is the one fewer of its words match; q4's second gold shares none of its words
TEST_QRELS = [
    ("q1", "d1", 1),
    ("q1", "d2", 2),
    ("q1", "d7", 0),
    ("q2", "d3", 1),
    ("q2", "d10", 0),
    ("q3", "d5", 1),
    ("q4", "d6", 2),
    ("q4", "d4", 1),
    ("q5", "d7", 0),
    ("q3", "d9", 1),
]  # d9: not in corpus
DEV_QRELS = [("q5", "d7", 1)]


def make_beir(root: Path, name: str = "tinybeir") -> Path:
    folder = root / name
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in CORPUS), encoding="utf-8")
    (folder / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in QUERIES), encoding="utf-8")
    for split, rows in (("test", TEST_QRELS), ("dev", DEV_QRELS)):
        body = "".join(f"{q}\t{d}\t{s}\n" for q, d, s in rows)
        (folder / "qrels" / f"{split}.tsv").write_text("query-id\tcorpus-id\tscore\n" + body, encoding="utf-8")
    return folder


# ---------------------------------------------------------------------- loader


def test_loads_the_judged_queries_with_graded_gold(tmp_path):
    ds = load_beir(make_beir(tmp_path))
    assert ds.name == "tinybeir" and ds.matcher == "doc" and ds.rank_unit == "document"
    assert ds.summary()["graded_queries"] == 2  # q1 (1, 2) and q4 (2, 1)
    assert [q.id for q in ds.queries] == ["q1", "q2", "q3", "q4"]  # q5: only a 0; q6: not judged
    q1 = ds.queries[0]
    assert q1.gold_doc_ids == ["d1", "d2"] and q1.gold_grades == {"d1": 1, "d2": 2}  # the 0 is not gold
    assert ds.queries[2].gold_doc_ids == ["d5"]  # d9 is not in the corpus
    assert sorted(d.id for d in ds.documents) == ["d1", "d10", "d11", "d2", "d3", "d4", "d5", "d6", "d7"]
    assert ds.document("d1").text.startswith("# Honeybee waggle dance\n\n") and ds.document("d1").meta == {"url": "x"}
    assert ds.document("d3").text.startswith("Basalt")  # no title: the text alone, no empty heading
    notes = " ".join(ds.notes)
    assert "1 documents with neither title nor text" in notes and "1 relevance judgements" in notes
    assert "1 judged queries have no relevant document" in notes


def test_another_split_or_a_trec_qrels_file(tmp_path):
    folder = make_beir(tmp_path)
    assert [q.id for q in load_beir(folder, qrels="dev").queries] == ["q5"]
    trec = tmp_path / "mine.qrels"
    trec.write_text("q2 0 d3 1\nq4 0 d6 3\n", encoding="utf-8")
    ds = load_beir(folder, qrels=trec)
    assert [(q.id, q.gold_grades) for q in ds.queries] == [("q2", {"d3": 1}), ("q4", {"d6": 3})]


def test_the_registry_tells_beir_from_generic(tmp_path, fixtures):
    assert load_dataset(make_beir(tmp_path)).rank_unit == "document"
    assert load_dataset(fixtures / "generic").rank_unit == "item"
    with pytest.raises(UsageError, match="qrels are read from a BEIR folder"):
        load_dataset(fixtures / "generic", qrels="test")


def test_a_beir_folder_without_its_split_names_the_file_and_the_splits(tmp_path):
    folder = make_beir(tmp_path)
    with pytest.raises(
        DatasetError, match=r"qrels/train.tsv: no qrels for split 'train' \(this folder has: dev, test\)"
    ):
        load_beir(folder, qrels="train")
    (folder / "qrels" / "test.tsv").unlink()
    (folder / "qrels" / "dev.tsv").unlink()
    (folder / "qrels").rmdir()
    with pytest.raises(DatasetError, match="no qrels for split 'test'"):
        load_dataset(folder)  # still recognised as BEIR by its _id records


def test_judgements_of_unknown_queries_and_bad_lines_are_named(tmp_path):
    folder = make_beir(tmp_path)
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nqx\td1\t1\n")
    with pytest.raises(DatasetError, match=r"test.tsv: judges queries that are not in queries.jsonl: \['qx'\]"):
        load_beir(folder)
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\thigh\n")
    with pytest.raises(DatasetError, match=r"test.tsv:2: relevance 'high' is not an integer"):
        load_beir(folder)
    (folder / "corpus.jsonl").write_text('{"_id": "d1", "title": 3, "text": "x"}\n')
    with pytest.raises(DatasetError, match=r"corpus.jsonl:1: field 'title' must be a string"):
        load_beir(folder)


# ---------------------------------------------------------------------- TREC formats


def test_run_files_round_trip_and_keep_the_engine_order(tmp_path):
    run = {"q1": [("d1", 0.9), ("d2", 0.9), ("d3", 0.95), ("d4", None)], "q2": [("d5", 0.5)]}
    path = write_run(tmp_path / "r.run", run, tag="bm25_only")
    lines = path.read_text().splitlines()
    assert lines[0] == "q1 Q0 d1 1 0.900000 bm25_only"
    assert lines[2] == "q1 Q0 d3 3 0.899998 bm25_only"  # a tie and a rise are stepped down
    back = read_run(path)
    assert [d for d, _ in back["q1"]] == ["d1", "d2", "d3", "d4"]  # sorting by score recovers our order
    assert back["q2"] == [("d5", 0.5)]
    assert monotone_scores([1.0, 1.0, 0.5]) == [1.0, 0.999999, 0.5]


def test_a_run_cannot_rank_a_document_twice(tmp_path):
    with pytest.raises(DatasetError, match="ranked twice"):
        write_run(tmp_path / "r.run", {"q1": [("d1", 1.0), ("d1", 0.5)]})
    (tmp_path / "bad.run").write_text("q1 Q0 d1 1 1.0\n")
    with pytest.raises(DatasetError, match=r"bad.run:1: expected 6 fields"):
        read_run(tmp_path / "bad.run")


def test_qrels_in_either_format(tmp_path):
    path = write_qrels(tmp_path / "q.txt", {"q1": {"d1": 2, "d2": 0}})
    assert path.read_text() == "q1 0 d1 2\nq1 0 d2 0\n"
    assert read_qrels(path) == {"q1": {"d1": 2, "d2": 0}}
    (tmp_path / "b.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tdoc with space\t1\n")
    assert read_qrels(tmp_path / "b.tsv") == {"q1": {"doc with space": 1}}
    (tmp_path / "twice.txt").write_text("q1 0 d1 1\nq1 0 d1 2\n")
    with pytest.raises(DatasetError, match=r"twice.txt:2: document 'd1' is judged twice"):
        read_qrels(tmp_path / "twice.txt")


# ---------------------------------------------------------------------- scoring


def test_ndcg_uses_the_grade_as_gain_by_hand():
    # gold d1 (2), d2 (1), d3 (1); retrieved d1 at rank 0, d2 at rank 2
    ours = m.ndcg_at_k([(0, 2.0), (2, 1.0)], [2.0, 1.0, 1.0], 10)
    dcg = 2 / math.log2(2) + 1 / math.log2(4)
    idcg = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert ours == pytest.approx(dcg / idcg, abs=1e-12) and ours == pytest.approx(0.7984849, abs=1e-7)
    assert m.ndcg_at_k([], [0.0], 10) is None


def test_a_beir_dataset_ranks_each_document_once(tmp_path):
    ds = load_beir(make_beir(tmp_path))
    q2 = ds.queries[1]  # gold d3
    result = QueryResult(ranked=[RankedItem("d1"), RankedItem("d1"), RankedItem("d3")])
    by_doc = score_query(q2, result, "doc", rank_unit="document")
    by_item = score_query(q2, result, "doc", rank_unit="item")
    assert by_doc["mrr@10"] == 0.5 and by_item["mrr@10"] == pytest.approx(1 / 3)
    assert by_doc["ndcg@10"] == pytest.approx(1 / math.log2(3), abs=1e-12)


# ---------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("beir")
    folder = make_beir(tmp)
    result = CliRunner().invoke(
        main,
        [
            "eval",
            "--dataset",
            str(folder),
            "--embedder",
            "none",
            "--atlas-dir",
            str(tmp / "atlases"),
            "--resamples",
            "100",
            "--configs",
            "bm25_only",
            "--trec-run",
            str(tmp / "runs"),
            "--out",
            str(tmp / "out"),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    return tmp, json.loads(result.stdout)


def test_ohara_eval_runs_a_beir_folder(evaluated):
    tmp, data = evaluated
    assert data["dataset"] == "tinybeir" and data["n_queries"] == 4 and data["n_unanswerable"] == 0
    bm25 = data["configs"]["bm25_only"]
    assert 0.0 < bm25["ndcg@10"] < 1.0  # the contract carries BEIR's headline number
    assert bm25["hits@10"] == 1.0  # every query names some of its gold documents' words
    assert bm25["mrr@10"] < 1.0 and bm25["recall@10"] < 1.0  # ... and the distractors outrank some of them
    assert sorted(p.name for p in (tmp / "runs").iterdir()) == ["bm25_only.run", "full.run", "qrels.txt"]
    assert read_qrels(tmp / "runs" / "qrels.txt") == {
        "q1": {"d1": 1, "d2": 2},
        "q2": {"d3": 1},
        "q3": {"d5": 1},
        "q4": {"d6": 2, "d4": 1},
    }
    run = read_run(tmp / "runs" / "bm25_only.run")
    assert set(run) == {"q1", "q2", "q3", "q4"}
    for ranked in run.values():
        docs = [d for d, _ in ranked]
        assert len(docs) == len(set(docs))  # each document once
    full = json.loads((tmp / "out" / "results.json").read_text())
    rows = {r["id"]: r for r in full["per_query"] if r["config"] == "bm25_only"}
    assert set(rows) == set(run)  # a per-query row for every query of the run, so the loop checks each
    for qid, row in rows.items():
        assert row["top_docs"][: len(run[qid])][:1] == [run[qid][0][0]], qid  # the file ranks as the harness did
    assert full["configs_detail"]["bm25_only"]["aggregate"]["ndcg@10"] is not None
    assert "nDCG@10" in (tmp / "out" / "report.md").read_text()


def test_ranx_scores_the_written_files_as_the_harness_did(evaluated):
    # The agreement the issue asks for, on the same run: ranx reads our TREC run and qrels files and must
    # give each query the harness's numbers to 1e-9.
    ranx = pytest.importorskip("ranx")
    tmp, _ = evaluated
    full = json.loads((tmp / "out" / "results.json").read_text())
    qrels = ranx.Qrels.from_file(str(tmp / "runs" / "qrels.txt"), kind="trec")
    for config in ("bm25_only", "full"):
        run = ranx.Run.from_file(str(tmp / "runs" / f"{config}.run"), kind="trec")
        names = ["ndcg@10", "mrr@10", "map@10", "recall@2", "recall@5", "recall@10", "hit_rate@4", "hit_rate@10"]
        scores = ranx.evaluate(qrels, run, names, return_mean=False)
        order = list(qrels.keys())
        rows = {r["id"]: r for r in full["per_query"] if r["config"] == config}
        assert order and set(order) <= set(rows), config  # every judged query has the harness's row
        for i, qid in enumerate(order):
            for name in names:
                ours = rows[qid][name.replace("hit_rate@", "hits@")]
                assert ours == pytest.approx(float(scores[name][i]), abs=1e-9), (config, qid, name)


# ---------------------------------------------------------------------- any dataset as BEIR


def test_a_dataset_written_as_beir_reads_back_the_same(tmp_path, fixtures):
    ds = load_dataset(fixtures / "generic")
    back = load_beir(write_beir(ds, tmp_path / "as_beir"))
    answerable = [q for q in ds.queries if not q.is_null]
    assert [(q.id, q.text, q.gold_doc_ids) for q in back.queries] == [
        (q.id, q.text, q.gold_doc_ids) for q in answerable
    ]
    assert {d.id: d.text for d in back.documents} == {d.id: d.text for d in ds.documents}
    assert corpus_fingerprint(back) == corpus_fingerprint(ds)  # titles, dates and sources too: the same atlas


def test_musique_as_a_beir_folder_keeps_its_queries_and_gold(tmp_path, shared_datasets):
    ds = load_dataset("musique", shared_datasets)
    back = load_dataset(write_beir(ds, tmp_path / "musique"))
    assert back.rank_unit == "document" and len(back.queries) == len(ds.queries) == 100
    assert all(a.gold_doc_ids == b.gold_doc_ids for a, b in zip(ds.queries, back.queries))
    assert corpus_fingerprint(back) == corpus_fingerprint(ds)
