"""Fixtures for the LLM layer: a running Gemini stand-in and providers pointed at it.

Reuse from other test folders: import the helpers (``from gemini_stub import GeminiStub,
json_reply, ...`` once ``tests/llm`` is on ``sys.path``) or re-export the
``gemini_server`` fixture from a higher conftest.
"""
from __future__ import annotations

import pytest

from gemini_stub import GeminiStub

# Backoff small enough that scripted 429/503 sequences cost milliseconds.
FAST = {"initial_s": 0.001, "max_s": 0.01}


@pytest.fixture
def gemini_server():
    """A started `GeminiStub`; stopped (and its sleeping handlers woken) after the test."""
    with GeminiStub() as stub:
        yield stub


@pytest.fixture
def gemini_settings(gemini_server, tmp_path):
    """Settings whose Gemini base URL is the stub, with an atlas in tmp_path."""
    return gemini_server.settings(atlas=str(tmp_path / "atlas"))


@pytest.fixture
def fast_backoff():
    from ohara_lab.llm.gemini_transport import Backoff

    return Backoff(**FAST)


@pytest.fixture
def make_gemini(gemini_server, tmp_path, fast_backoff):
    """Factory: a GeminiProvider on the stub (settings overrides and provider options as kwargs)."""
    from ohara_lab.llm.gemini import GeminiProvider

    def make(provider_options: dict | None = None, **setting_overrides):
        settings = gemini_server.settings(atlas=str(tmp_path / "atlas"), **setting_overrides)
        options = {"backoff": fast_backoff}
        options.update(provider_options or {})
        return GeminiProvider(settings, **options)

    return make
