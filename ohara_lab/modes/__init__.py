"""Advanced retrieval modes (Chain-of-Retrieval, agentic) and answer synthesis."""
from __future__ import annotations

from typing import Any

from ..errors import UsageError

MODES = ("standard", "cor", "agent")


def run_mode(atlas: Any, text: str, mode: str, **kwargs: Any) -> Any:
    raise UsageError(f"unknown mode {mode!r}; choose one of: {', '.join(MODES)}")
