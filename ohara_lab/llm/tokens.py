"""Token counts of prompt text before anything is sent.

Two counters, best first:

* ``local``: google-genai's ``LocalTokenizer`` (the Gemma 3 SentencePiece model Gemini
  2.x shares, per google-genai's own table). It is used only when its model file is
  already in google-genai's cache (``<tmp>/vertexai_tokenizer_model``): building it
  otherwise downloads the file, and a count must never touch the network.
* ``chars/4``: ceil(characters / 4), Google's stated rule of thumb for Gemini ("a token
  is about four characters", ai.google.dev/gemini-api/docs/tokens). English prose
  lands within about 10% of the real count; code and non-Latin text count higher.

`counter_name()` says which one is in use, so every estimate can state its method.
"""
from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

APPROXIMATION = "chars/4"
TOKENIZER_MODEL = "gemini-2.5-flash-lite"  # every Gemini 2.x text model maps to the same tokenizer


def count_tokens(text: str) -> int:
    """Tokens of `text` by the best counter available offline."""
    return _counter()[1](text)


def counter_name() -> str:
    """``local`` (google-genai's tokenizer) or ``chars/4`` (the stated approximation)."""
    return _counter()[0]


def approximate_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


@functools.lru_cache(maxsize=1)
def _counter() -> tuple[str, Callable[[str], int]]:
    tokenizer = _cached_local_tokenizer()
    if tokenizer is None:
        return APPROXIMATION, approximate_tokens
    return "local", lambda text: int(tokenizer.count_tokens(text).total_tokens or 0)


def _cached_local_tokenizer() -> Any | None:
    """google-genai's LocalTokenizer when its model file is cached on this machine, else None (no download)."""
    try:
        from google.genai import _local_tokenizer_loader as loader  # noqa: PLC0415
        from google.genai.local_tokenizer import LocalTokenizer  # noqa: PLC0415 - needs sentencepiece
    except ImportError:
        return None
    try:
        # The loader's own cache rule (tempdir/vertexai_tokenizer_model/sha1(url)); private, hence guarded.
        import hashlib  # noqa: PLC0415
        import os  # noqa: PLC0415
        import tempfile  # noqa: PLC0415

        config = loader._TOKENIZERS[loader._GEMINI_MODELS_TO_TOKENIZER_NAMES[TOKENIZER_MODEL]]
        path = os.path.join(tempfile.gettempdir(), "vertexai_tokenizer_model",
                            hashlib.sha1(config.model_url.encode()).hexdigest())
        if loader._maybe_load_from_cache(file_path=path, expected_hash=config.model_hash) is None:
            return None
        return LocalTokenizer(model_name=TOKENIZER_MODEL)
    except Exception as exc:  # noqa: BLE001 - any surprise in a private API means: approximate
        log.debug("google-genai local tokenizer unavailable (%s); counting chars/4", exc)
        return None
