"""A real small atlas (the shipped sample corpus, offline, no embedder) shared by the widget tests."""
from __future__ import annotations

import shutil
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")



@pytest.fixture(scope="session")
def sample_atlas_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ohara_lab import Atlas
    from ohara_lab.samples import corpus_dir

    directory = tmp_path_factory.mktemp("widgets") / "atlas"
    with Atlas.open(directory, embedder="none", llm="offline") as atlas:
        report = atlas.ingest([corpus_dir()], progress=False)
        assert report.ok, report.failed
    return directory


@pytest.fixture
def atlas(sample_atlas_dir: Path, tmp_path: Path):
    """A private copy per test, so feedback and ingest in one test never leak into another."""
    from ohara_lab import Atlas

    copy = tmp_path / "atlas"
    shutil.copytree(sample_atlas_dir, copy)
    a = Atlas.open(copy, embedder="none", llm="offline", reference_date="2025-01-01")
    yield a
    a.close()


@pytest.fixture(scope="session")
def ontology():
    from ohara_lab.ontology import load_ontology

    return load_ontology()


@pytest.fixture(scope="session")
def query_text() -> str:
    """A question the sample corpus answers (the GPL's "offer" of Corresponding Source)."""
    return "Which licence requires the source code to be offered?"
