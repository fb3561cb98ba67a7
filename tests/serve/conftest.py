"""Fixtures of the serving tests: a private copy of the samples atlas and `ohara serve` over it."""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterator

import pytest

from .servers import Served


@pytest.fixture(scope="module")
def served_atlas(samples_atlas_dir, tmp_path_factory) -> Path:
    """A private copy of the samples atlas for one test module's server (feedback writes to it)."""
    dst = tmp_path_factory.mktemp("served") / "atlas"
    shutil.copytree(samples_atlas_dir, dst)
    return dst


@pytest.fixture(scope="module")
def server(served_atlas) -> Iterator[Served]:
    served = Served(served_atlas)
    yield served
    served.stop()
