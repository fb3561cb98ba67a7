"""Live Gemini checks: run only with GEMINI_API_KEY set (they spend a few hundred tokens)."""
from __future__ import annotations

import os

import numpy as np
import pytest

from ohara_lab.settings import Settings

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not os.environ.get("GEMINI_API_KEY"), reason="GEMINI_API_KEY is not set; live Gemini tests skipped"),
]


@pytest.fixture
def live_settings(tmp_path):
    pytest.importorskip("google.genai", reason="the gemini extra is not installed")
    return Settings.from_env(llm="gemini", atlas=str(tmp_path / "atlas"))


def test_live_structured_reply_and_usage(live_settings):
    from ohara_lab.llm import get_provider

    provider = get_provider(live_settings)
    reply = provider.generate(
        "self_rag_verify",
        {"query": "who discovered radium", "passage": "Marie Curie and Pierre Curie discovered radium in 1898."},
    )
    assert reply.data["responsive"] is True
    assert reply.usage.calls >= 1 and reply.usage.prompt > 0
    again = provider.generate(
        "self_rag_verify",
        {"query": "who discovered radium", "passage": "Marie Curie and Pierre Curie discovered radium in 1898."},
    )
    assert again.cached


def test_live_answer_cites_passages(live_settings):
    from ohara_lab.llm import get_provider

    reply = get_provider(live_settings).generate(
        "answer",
        {"question": "When was radium discovered?", "passages": ["Radium was discovered in 1898 by the Curies.", "Paris is in France."]},
    )
    assert reply.data["insufficient"] is False and 1 in reply.data["cited"]


def test_live_embeddings_are_unit_vectors(live_settings):
    from ohara_lab.embed.gemini import GeminiEmbedder

    vectors = GeminiEmbedder(live_settings, dim=256).embed(["radium", "polonium"], kind="document")
    assert vectors.shape == (2, 256)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-4)
