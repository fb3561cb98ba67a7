"""`prepare`: the notebooks' one setup call loads, cuts, builds and tabulates what it did."""
from __future__ import annotations

from pathlib import Path

from ohara_lab.eval.prepare import Prepared, prepare
from ohara_lab.eval.runner import prepare_dataset

FIXTURE = Path(__file__).parent / "fixtures" / "runner"


def test_prepare_cuts_builds_and_tabulates(tmp_path):
    ds, built, summary = prepare(str(FIXTURE), limit=4, unanswerable=0.5, seed=7, cache_dir=tmp_path,
                                 embedder="none", progress=False)
    try:
        alone = prepare_dataset(str(FIXTURE), limit=4, unanswerable=0.5, seed=7)
        assert [(q.id, q.is_null) for q in ds.queries] == [(q.id, q.is_null) for q in alone.queries]
        nulls = sum(q.is_null for q in ds.queries)
        assert len(ds.queries) == 4 and nulls >= 1
        assert built.info.n_documents == len(ds.documents) and not built.info.reused
        # every answerable query's gold document is in the atlas, under its dataset id
        gold = {g for q in ds.queries if not q.is_null for g in q.gold_doc_ids}
        assert gold <= set(built.doc_ids.values())
        facts = summary["value"]
        assert facts["documents"] == len(ds.documents) and facts["unanswerable"] == nulls
        assert facts["embedder"] == "none" and facts["reused"] is False
        assert facts["atlas"] == built.info.directory and facts["failures"] == 0
    finally:
        built.close()


def test_a_second_prepare_reuses_the_atlas(tmp_path):
    first = prepare(str(FIXTURE), cache_dir=tmp_path, embedder="none", progress=False)
    first.built.close()
    again = prepare(str(FIXTURE), cache_dir=tmp_path, embedder="none", progress=False)
    try:
        assert isinstance(again, Prepared)
        assert again.summary["value"]["reused"] is True
        assert again.built.info.directory == first.built.info.directory
        assert again.built.doc_ids == first.built.doc_ids
    finally:
        again.built.close()
