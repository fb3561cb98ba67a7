"""Loading the packaged files: caching, fallbacks and the errors a user sees."""
from __future__ import annotations

import json
import shutil

import pytest

from ohara_lab.errors import OntologyError
from ohara_lab.ontology import Ontology, load_ontology
from ohara_lab.ontology import files as files_mod
from ohara_lab.ontology.files import ALL_FILES, INDEX_FILE, REPO_DATA_DIR


def test_load_ontology_is_cached():
    assert load_ontology() is load_ontology()
    assert load_ontology().version.startswith("1+sumo.")


def test_missing_files_tell_the_user_how_to_build_them(tmp_path):
    with pytest.raises(OntologyError, match=r"ohara ontology build --owl"):
        Ontology.from_dir(tmp_path)


def test_data_dir_falls_back_to_the_repository_folder(monkeypatch, tmp_path):
    monkeypatch.setattr(files_mod, "DATA_PACKAGE", "ohara_lab.no_such_data_package")
    assert files_mod.data_dir() == REPO_DATA_DIR
    monkeypatch.setattr(files_mod, "REPO_DATA_DIR", tmp_path)
    with pytest.raises(OntologyError, match="not found") as err:
        files_mod.data_dir()
    assert "ohara ontology build" in str(err.value)


def test_wrong_format_version_is_refused(tmp_path):
    for name in ALL_FILES:
        shutil.copy(REPO_DATA_DIR / name, tmp_path / name)
    index = json.loads((tmp_path / INDEX_FILE).read_text())
    index["version"] = 999
    (tmp_path / INDEX_FILE).write_text(json.dumps(index))
    with pytest.raises(OntologyError, match="format version 999"):
        Ontology.from_dir(tmp_path)


def test_files_from_different_builds_are_refused(tmp_path):
    for name in ALL_FILES:
        shutil.copy(REPO_DATA_DIR / name, tmp_path / name)
    index = json.loads((tmp_path / INDEX_FILE).read_text())
    index["source"]["sumo_sha256"] = "0" * 64
    (tmp_path / INDEX_FILE).write_text(json.dumps(index))
    with pytest.raises(OntologyError, match="different SUMO builds"):
        Ontology.from_dir(tmp_path)


def test_corrupt_file_is_a_clear_error(tmp_path):
    for name in ALL_FILES:
        shutil.copy(REPO_DATA_DIR / name, tmp_path / name)
    (tmp_path / INDEX_FILE).write_text("{not json")
    with pytest.raises(OntologyError, match="not valid JSON"):
        Ontology.from_dir(tmp_path)
