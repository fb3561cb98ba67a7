"""Install the LLM-backed retrieval hooks on an engine (phase 0a, 0b, reasoning, self-RAG, ...).

Placeholder until the LLM features land: offline, nothing is installed and the
engine keeps its offline behaviour.
"""
from __future__ import annotations

from typing import Any


def install_retrieval_hooks(engine: Any, settings: Any) -> None:
    return None
