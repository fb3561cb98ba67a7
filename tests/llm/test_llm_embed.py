"""GeminiEmbedder through the real google-genai client against the stub's batchEmbedContents."""
from __future__ import annotations

import numpy as np
import pytest

from gemini_stub import embed_reply, error_reply, stub_vector

pytest.importorskip("google.genai", reason="GeminiEmbedder is the google-genai client: needs the gemini extra")

from ohara_lab.embed.gemini import GeminiEmbedder  # noqa: E402
from ohara_lab.errors import EmbeddingError, UsageError


@pytest.fixture
def make_embedder(gemini_server, tmp_path, fast_backoff):
    def make(**options):
        settings = gemini_server.settings(atlas=str(tmp_path / "atlas"))
        return GeminiEmbedder(settings, backoff=fast_backoff, **options)

    return make


def _unit(v):
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_embeds_batches_normalises_and_tags_the_task(make_embedder, gemini_server):
    embedder = make_embedder(dim=16, batch_size=2)
    assert embedder.model == "gemini:gemini-embedding-001" and embedder.dim == 16
    texts = ["alpha", "beta", "gamma", "delta", "epsilon"]
    out = embedder.embed(texts, kind="document")
    assert out.shape == (5, 16) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(out[2], _unit(stub_vector("gamma", 16)), rtol=1e-5)

    requests = gemini_server.received("embed")
    assert [r.action for r in requests] == ["batchEmbedContents"] * 3  # 2 + 2 + 1
    assert requests[0].model == "gemini-embedding-001"
    sent = requests[0].embed_requests[0]
    assert sent["taskType"] == "RETRIEVAL_DOCUMENT" and sent["outputDimensionality"] == 16
    assert sent["model"] == "models/gemini-embedding-001"
    assert [r.embed_texts for r in requests] == [["alpha", "beta"], ["gamma", "delta"], ["epsilon"]]
    assert embedder.ledger.total.calls == 3


def test_query_kind_and_cache(make_embedder, gemini_server):
    embedder = make_embedder(dim=8)
    first = embedder.embed(["what is radium"], kind="query")
    assert gemini_server.received("embed")[0].embed_requests[0]["taskType"] == "RETRIEVAL_QUERY"
    again = make_embedder(dim=8).embed(["what is radium"], kind="query")  # new instance, same disk cache
    np.testing.assert_array_equal(first, again)
    assert len(gemini_server.received("embed")) == 1
    make_embedder(dim=8).embed(["what is radium"], kind="document")  # another task is another vector
    assert len(gemini_server.received("embed")) == 2


def test_blank_texts_are_zero_rows_and_not_sent(make_embedder, gemini_server):
    out = make_embedder(dim=4).embed(["", "  ", "text"], kind="document")
    assert not out[0].any() and not out[1].any() and out[2].any()
    assert gemini_server.received("embed")[0].embed_texts == ["text"]
    assert make_embedder(dim=4).embed([], kind="document").shape == (0, 4)


def test_retries_then_errors(make_embedder, gemini_server):
    gemini_server.queue(error_reply(503), kind="embed")
    assert make_embedder(dim=4, use_cache=False).embed(["x"]).shape == (1, 4)
    assert len(gemini_server.received("embed")) == 2
    gemini_server.queue(*[error_reply(429)] * 3, kind="embed")
    with pytest.raises(EmbeddingError, match="HTTP 429"):
        make_embedder(dim=4, use_cache=False).embed(["y"])


def test_wrong_dimension_or_count_is_an_error(make_embedder, gemini_server):
    gemini_server.queue(embed_reply([[1.0, 2.0]]), kind="embed")
    with pytest.raises(EmbeddingError, match="expected 4-d vectors, got 2-d"):
        make_embedder(dim=4).embed(["x"])
    gemini_server.queue(embed_reply([]), kind="embed")
    with pytest.raises(EmbeddingError, match="asked for 1 vectors, got 0"):
        make_embedder(dim=4).embed(["x"])
    with pytest.raises(UsageError):
        make_embedder(dim=4).embed(["x"], kind="passage")
