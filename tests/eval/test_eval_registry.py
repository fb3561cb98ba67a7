"""`load_dataset`: one table drives dispatch and the error message."""
from __future__ import annotations

import pytest

from ohara_lab.errors import UsageError
from ohara_lab.eval.datasets.registry import DATASETS, dataset_names, load_dataset


def test_names():
    assert dataset_names() == ["multihop-rag", "qasper", "qasper-leval", "musique"]


def test_unknown_name_lists_every_table_entry_and_the_directory_form():
    with pytest.raises(UsageError) as err:
        load_dataset("hotpotqa", data_dir=".")
    msg = str(err.value)
    for name, entry in DATASETS.items():
        assert name in msg and entry.files in msg
    assert "corpus.jsonl" in msg and "queries.jsonl" in msg


def test_named_dataset_needs_data_dir():
    with pytest.raises(UsageError, match="needs data_dir"):
        load_dataset("musique")


def test_dispatch_with_dataset_folder_and_keyword_passthrough(fixtures):
    ds = load_dataset("multihop-rag", fixtures / "multihop", query_set="all")
    assert ds.name == "multihop-rag" and len(ds.queries) == 7
    assert load_dataset("qasper", fixtures / "qasper").name == "qasper"


def test_dispatch_with_a_root_holding_dataset_subfolders(fixtures):
    # fixtures/ holds multihop/ and qasper/ like the shared datasets folder
    assert len(load_dataset("multihop-rag", fixtures).documents) == 6
    assert len(load_dataset("qasper", fixtures).documents) == 3


def test_generic_directory(fixtures):
    ds = load_dataset(str(fixtures / "generic"))
    assert len(ds.documents) == 3 and ds.matcher == "doc"


def test_real_shared_root(shared_datasets):
    assert load_dataset("musique", shared_datasets).summary()["queries"] == 100
    assert load_dataset("qasper-leval", shared_datasets).summary()["documents"] == 9


def test_a_directory_without_generic_files_names_the_missing_file(tmp_path):
    from ohara_lab.eval.dataset import DatasetError

    with pytest.raises(DatasetError, match="corpus.jsonl"):
        load_dataset(str(tmp_path))
