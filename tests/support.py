"""Constants shared by test modules (conftest.py names collide across test folders)."""
from __future__ import annotations

# Offline, no vectors: fast, deterministic, and independent of optional extras.
OFFLINE = {"embedder": "none", "embed_paragraphs": False, "llm": "offline", "reference_date": "2026-11-29"}


def offline_env() -> dict[str, str]:
    """The process environment with OFFLINE as `OHARA_*` variables, for `ohara` subprocesses."""
    import os  # noqa: PLC0415

    return {**os.environ, **{f"OHARA_{k.upper()}": str(v) for k, v in OFFLINE.items()}}
