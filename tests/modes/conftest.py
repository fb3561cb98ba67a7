"""Fixtures for the modes: the sample corpus ingested offline once, and the Gemini stand-in.

The stand-in and its scripted models live in tests/llm (gemini_stub, offline_replies,
standin); that folder is put on sys.path here so these tests drive the same server.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))

from gemini_stub import GeminiStub  # noqa: E402
from standin import ingested_samples, offline_atlas  # noqa: E402



@pytest.fixture(scope="session")
def corpus_path(tmp_path_factory):
    """An atlas directory holding the sample corpus (offline structuring, rule-based NER)."""
    return ingested_samples(tmp_path_factory.mktemp("modes_corpus"))


@pytest.fixture
def atlas(corpus_path):
    with offline_atlas(corpus_path) as a:
        yield a


@pytest.fixture
def gemini_server():
    with GeminiStub() as stub:
        yield stub
