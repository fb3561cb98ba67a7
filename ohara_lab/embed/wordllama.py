"""WordLlama static embeddings (256-d), loaded from the package directory.

wordllama 0.4.0.post1 looks for its tokenizer in `tokenizer/` but ships it in
`tokenizers/`, so its default offline load fails; pointing `cache_dir` at the
package directory with downloads disabled resolves both files inside the wheel.
"""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from .base import Kind, normalise

MODEL = "wordllama:l2_supercat_256"


class WordLlamaEmbedder:
    model = MODEL
    dim = 256

    def __init__(self, batch_size: int = 64):
        root = logging.getLogger()
        level, handlers = root.level, list(root.handlers)
        import wordllama  # noqa: PLC0415 - optional extra; it calls logging.basicConfig on import

        root.setLevel(level)
        for h in root.handlers[:]:
            if h not in handlers:
                root.removeHandler(h)
        self._wl = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
        self.batch_size = batch_size

    def embed(self, texts: list[str], kind: Kind = "document") -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise(self._wl.embed(list(texts), norm=True, batch_size=self.batch_size))
