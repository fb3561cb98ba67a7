"""Advanced retrieval modes (Chain-of-Retrieval, agentic) and answer synthesis.

`run_mode(atlas, text, mode, ...)` is what `Atlas.query(text, mode=...)` calls; one
registry (`MODES`) drives both the dispatch and the error message.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from .agent import run_agent
from .cor import run_cor
from .result import ModeResult

if TYPE_CHECKING:
    from ..atlas import Atlas
    from ..retrieval.result import RetrievalResult


def _standard(atlas: Atlas, text: str, session_history: list[dict[str, str]] | None = None,
              **overrides: Any) -> RetrievalResult:
    return atlas.speculative.query(text, session_history=session_history, **overrides)


MODES: dict[str, Callable[..., Any]] = {"standard": _standard, "cor": run_cor, "agent": run_agent}

__all__ = ["MODES", "ModeResult", "run_mode"]


def run_mode(atlas: Atlas, text: str, mode: str, session_history: list[dict[str, str]] | None = None,
             **overrides: Any) -> RetrievalResult:
    """Retrieve `text` with `mode` (standard | cor | agent); a `RetrievalResult` (a `ModeResult` for cor, agent)."""
    run = MODES.get(mode)
    if run is None:
        raise UsageError(f"unknown mode {mode!r}; choose one of: {', '.join(MODES)}")
    result: RetrievalResult = run(atlas, text, session_history=session_history, **overrides)
    return result
