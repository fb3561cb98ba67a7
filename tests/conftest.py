"""Shared fixtures: real atlases built from the sample corpus ohara-lab ships."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ohara_lab import Atlas
from ohara_lab.samples import corpus_dir

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

from tests.support import OFFLINE


@pytest.fixture(scope="session")
def samples_atlas_dir(tmp_path_factory) -> Path:
    """An atlas of the shipped samples, built once per session; copy it before mutating."""
    path = tmp_path_factory.mktemp("samples_atlas")
    with Atlas.open(path, **OFFLINE) as atlas:
        report = atlas.ingest([corpus_dir()], progress=False)
        assert report.ok, [o.reason for o in report.failed]
    return path


@pytest.fixture
def samples_atlas(samples_atlas_dir) -> Atlas:
    atlas = Atlas.open(samples_atlas_dir, **OFFLINE)
    yield atlas
    atlas.close()


@pytest.fixture
def fresh_copy(samples_atlas_dir, tmp_path) -> Path:
    """A private copy of the samples atlas a test may change."""
    dst = tmp_path / "atlas"
    shutil.copytree(samples_atlas_dir, dst)
    return dst


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or a skip with the reason when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (tests read shared data from ../shared beside the repo)")
    return path
