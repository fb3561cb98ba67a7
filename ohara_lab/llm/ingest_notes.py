"""What an ingest run tells its user about the LLM work it left undone."""
from __future__ import annotations

from typing import Any

from ..settings import Settings


def llm_notes(ingestor: Any, settings: Settings, notes: list[str]) -> tuple[dict[str, Any] | None, list[str]]:
    """(budget summary or None, notes): a reached budget, and ANSWERS_SAME asked for without an LLM."""
    notes = list(notes)
    budget = getattr(ingestor, "budget", None)
    summary = budget.summary() if budget is not None else None
    if summary and summary["reached"]:
        notes.append(f"LLM budget reached: ${summary['spent_usd']:.4f} of ${summary['budget_usd']:.4f} spent, "
                     f"{summary['refused_calls']} call(s) not sent; their documents are partial (text kept as "
                     "llm_pending). Run again with a higher OHARA_LLM_BUDGET_USD to complete them.")
    if settings.answers_same and ingestor.structurer_name == "offline":
        notes.append("ANSWERS_SAME skipped: paragraph questions need an LLM (OHARA_LLM=gemini); "
                     "no question was asked and no edge written.")
    return summary, notes
