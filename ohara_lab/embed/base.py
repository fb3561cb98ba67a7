"""The embedder protocol: every vector is tagged with the model that made it."""
from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

import numpy as np

Kind = Literal["document", "query"]


@runtime_checkable
class Embedder(Protocol):
    model: str  # stored with every vector, e.g. "minilm:all-MiniLM-L6-v2"
    dim: int

    def embed(self, texts: list[str], kind: Kind = "document") -> np.ndarray:
        """(len(texts), dim) float32, L2-normalised rows."""


def normalise(matrix: np.ndarray) -> np.ndarray:
    """Row-wise L2 normalisation; zero rows stay zero instead of becoming NaN."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)
