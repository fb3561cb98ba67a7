"""Advanced retrieval modes (Chain-of-Retrieval, agentic) and answer synthesis.

`run_mode(atlas, text, mode, ...)` is what `Atlas.query(text, mode=...)` calls; one
registry (`MODES`) drives both the dispatch and the error message.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import UsageError
from .agent import run_agent
from .cor import run_cor
from .result import ModeResult


def _standard(atlas: Any, text: str, session_history: list[dict[str, str]] | None = None, **overrides: Any) -> Any:
    return atlas.speculative.query(text, session_history=session_history, **overrides)


MODES: dict[str, Callable[..., Any]] = {"standard": _standard, "cor": run_cor, "agent": run_agent}

__all__ = ["MODES", "ModeResult", "run_mode"]


def run_mode(atlas: Any, text: str, mode: str, session_history: list[dict[str, str]] | None = None,
             **overrides: Any) -> Any:
    """Retrieve `text` with `mode` (standard | cor | agent); returns a RetrievalResult-compatible object."""
    run = MODES.get(mode)
    if run is None:
        raise UsageError(f"unknown mode {mode!r}; choose one of: {', '.join(MODES)}")
    return run(atlas, text, session_history=session_history, **overrides)
