"""Fixtures of the serving tests: a private copy of the samples atlas and `ohara serve` over it."""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest


@pytest.fixture(scope="module")
def served_atlas(samples_atlas_dir, tmp_path_factory) -> Path:
    """A private copy of the samples atlas for one test module's server (feedback writes to it)."""
    dst = tmp_path_factory.mktemp("served") / "atlas"
    shutil.copytree(samples_atlas_dir, dst)
    return dst


@pytest.fixture(scope="module")
def server(served_atlas) -> Iterator[Any]:
    # the servers need the serve extra; the service tests (test_serve_service.py) need none
    pytest.importorskip("httpx", reason="the servers need the 'serve' extra (fastapi, uvicorn, mcp, httpx)")
    from .servers import Served  # noqa: PLC0415

    served = Served(served_atlas)
    yield served
    served.stop()
