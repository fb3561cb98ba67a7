"""Gemini embeddings (``gemini-embedding-001`` by default) through google-genai.

Texts are embedded in batches with ``task_type`` RETRIEVAL_DOCUMENT or RETRIEVAL_QUERY
(the asymmetric pair the model was trained for), at ``output_dimensionality`` (768 by
default; Matryoshka-truncated vectors are not unit length, so every vector is
L2-normalised here). The Gemini API serves ``models.embed_content`` as
``POST /{version}/models/{model}:batchEmbedContents``.

Vectors are cached one file per (model, dimension, task, text) as ``.npy`` under
``<llm cache dir>/embeddings/``, so re-embedding an unchanged paragraph is free. Retries
and backoff are the chat provider's (`ohara_lab.llm.gemini_transport`).
"""
from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np
from google.genai import errors as genai_errors
from google.genai import types

from ..errors import EmbeddingError, UsageError
from ..llm.cache import atomic_write_bytes, canonical_json, default_cache_dir
from ..llm.gemini_transport import TRANSPORT_ERRORS, Backoff, call_with_retries, describe_error, make_client
from ..llm.usage import STANDARD, TokenUsage, UsageLedger
from ..settings import Settings
from .base import normalise

TASK_TYPES = {"document": "RETRIEVAL_DOCUMENT", "query": "RETRIEVAL_QUERY"}
MAX_BATCH = 100  # batchEmbedContents accepts at most 100 requests
MAX_CHARS = 8192  # the spec's cut (§2.10-3); the model's input limit is 2048 tokens


class GeminiEmbedder:
    """Dense embedder: ``embed(texts, kind) -> float32 (n, dim)``, rows L2-normalised."""

    def __init__(
        self,
        settings: Settings,
        cache_dir: str | Path | None = None,
        *,
        dim: int = 768,
        batch_size: int | None = None,
        backoff: Backoff | None = None,
        ledger: UsageLedger | None = None,
        use_cache: bool = True,
    ):
        if dim <= 0:
            raise UsageError(f"embedding dimension must be positive, got {dim}")
        self.settings = settings
        self.model_name = settings.gemini_embedding_model
        self.model = f"gemini:{self.model_name}"
        self.dim = dim
        self.batch_size = max(1, min(batch_size or settings.embed_batch_size, MAX_BATCH))
        self.attempts = max(1, settings.gemini_max_retries)
        self.backoff = backoff or Backoff()
        self.ledger = ledger if ledger is not None else UsageLedger()
        base = Path(cache_dir) if cache_dir is not None else default_cache_dir(settings)
        self.cache_dir = base / "embeddings" if use_cache else None
        self._client = make_client(settings)

    # -- public -------------------------------------------------------------------------
    def embed(self, texts: list[str], kind: str = "document") -> np.ndarray:
        """One unit vector per text (blank texts give zero rows); EmbeddingError on failure."""
        if kind not in TASK_TYPES:
            raise UsageError(f"embedding kind must be one of {', '.join(TASK_TYPES)}, got {kind!r}")
        task = TASK_TYPES[kind]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        todo: list[tuple[int, str, str]] = []  # (row, text sent, cache key)
        for row, text in enumerate(texts):
            clipped = (text or "").strip()[:MAX_CHARS]
            if not clipped:
                continue
            key = self._key(task, clipped)
            hit = self._load(key)
            if hit is not None:
                out[row] = hit
                self.ledger.record_hit()
            else:
                todo.append((row, clipped, key))
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start : start + self.batch_size]
            vectors = self._embed_batch([text for _, text, _ in batch], task)
            for (row, _, key), vector in zip(batch, vectors):
                out[row] = vector
                self._store(key, vector)
        return out

    # -- internals ----------------------------------------------------------------------
    def _embed_batch(self, texts: list[str], task: str) -> np.ndarray:
        # Content objects, one per text: a bare list of strings may be merged into a single
        # multi-part content for multimodal embedding models, yielding one vector.
        contents = [types.Content(parts=[types.Part(text=t)]) for t in texts]
        config = types.EmbedContentConfig(task_type=task, output_dimensionality=self.dim)
        try:
            response = call_with_retries(
                self.attempts, self.backoff, self._client.models.embed_content,
                model=self.model_name, contents=contents, config=config,
            )
        except (genai_errors.APIError, *TRANSPORT_ERRORS) as exc:
            raise EmbeddingError(f"{self.model}: embedding {len(texts)} text(s) failed: {describe_error(exc, self.settings)}") from exc
        meta = response.usage_metadata
        self.ledger.record(
            TokenUsage(prompt=(meta.prompt_token_count or 0) if meta else 0, calls=1), model=self.model_name, tier=STANDARD
        )
        embeddings = response.embeddings or []
        if len(embeddings) != len(texts):
            raise EmbeddingError(f"{self.model}: asked for {len(texts)} vectors, got {len(embeddings)}")
        matrix = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, emb in enumerate(embeddings):
            values = emb.values or []
            if len(values) != self.dim:
                raise EmbeddingError(f"{self.model}: expected {self.dim}-d vectors, got {len(values)}-d")
            matrix[i] = values
        return normalise(matrix)

    def _key(self, task: str, text: str) -> str:
        return hashlib.sha256(canonical_json(["embed", self.model_name, self.dim, task, text]).encode("utf-8")).hexdigest()

    def _load(self, key: str) -> np.ndarray | None:
        if self.cache_dir is None:
            return None
        try:
            vector = np.load(self.cache_dir / key[:2] / f"{key}.npy", allow_pickle=False)
        except (FileNotFoundError, OSError, ValueError):
            return None
        return vector if vector.shape == (self.dim,) and vector.dtype == np.float32 else None

    def _store(self, key: str, vector: np.ndarray) -> None:
        if self.cache_dir is None:
            return
        buf = io.BytesIO()
        np.save(buf, np.asarray(vector, dtype=np.float32), allow_pickle=False)
        atomic_write_bytes(self.cache_dir / key[:2] / f"{key}.npy", buf.getvalue())

    def __repr__(self) -> str:
        return f"<GeminiEmbedder {self.model} dim={self.dim}>"
