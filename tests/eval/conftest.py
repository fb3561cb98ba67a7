"""Paths to the eval fixtures and to the real shared datasets (skipped when absent)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_DATASETS = REPO_ROOT.parent / "shared" / "datasets"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def golden() -> dict:
    """doc_ohara's own preparation code run on the fixtures (see fixtures/README.md)."""
    return json.loads((FIXTURES / "golden" / "doc_ohara_reference.json").read_text(encoding="utf-8"))


@pytest.fixture
def shared_datasets() -> Path:
    if not (SHARED_DATASETS / "README.md").is_file():
        pytest.skip(f"real datasets not found at {SHARED_DATASETS} (../shared relative to the repo root)")
    return SHARED_DATASETS
