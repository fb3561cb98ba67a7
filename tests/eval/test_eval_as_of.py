"""Dated queries in the eval harness: a query with `as_of` is asked of the corpus as it stood then."""
from __future__ import annotations

import json
from pathlib import Path

from ohara_lab.eval.build import build_atlas
from ohara_lab.eval.calibrate import collect
from ohara_lab.eval.datasets.generic import load_generic
from ohara_lab.eval.report import per_query_rows
from ohara_lab.eval.runner import run_matrix

CORPUS = [
    {"id": "gpl2", "title": "GNU General Public License, version 2", "published_at": "1991-06-01",
     "text": "Version 2 of the General Public License is the current version of the licence for free software."},
    {"id": "gpl3", "title": "GNU General Public License, version 3", "published_at": "2007-06-29",
     "text": "Version 3 of the General Public License is the current version of the licence; it replaces version 2."},
]
QUERIES = [
    {"id": "now", "question": "Which version of the General Public License is current?", "gold_doc_ids": ["gpl3"]},
    {"id": "then", "question": "Which version of the General Public License is current?", "gold_doc_ids": ["gpl2"],
     "as_of": "2005-01-01"},
]


def test_a_dated_query_sees_only_the_documents_published_by_its_date(tmp_path: Path):
    data = tmp_path / "dated"
    data.mkdir()
    (data / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in CORPUS) + "\n", encoding="utf-8")
    (data / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in QUERIES) + "\n", encoding="utf-8")
    ds = load_generic(data)
    assert [q.as_of for q in ds.queries] == [None, "2005-01-01"]
    with build_atlas(ds, tmp_path / "atlases", embedder="none", progress=False) as built:
        run = run_matrix(ds, built, "bm25_only,full", n_resamples=100, progress=False)
        for config in ("bm25_only", "full"):
            results = run.runs[config].results
            assert {i.doc_id for i in results["then"].ranked} == {"gpl2"}
            assert "gpl3" in {i.doc_id for i in results["now"].ranked}
        # the answerability features of a dated query come from the corpus of its date too
        features = {r.query_id: r.features for r in collect(built.atlas, ds.queries)[0]}
        assert features["then"] != features["now"]
    rows = {r["id"]: r for r in per_query_rows(run) if r["config"] == "full"}
    assert rows["then"]["as_of"] == "2005-01-01" and "as_of" not in rows["now"]
    assert rows["then"]["hits@4"] == 1
