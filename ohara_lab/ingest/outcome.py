"""One outcome per document, whatever happens: the only place ingest turns errors into outcomes.

A plan that finds the document unchanged is `skipped`; a write that loses the
race to another process (`DuplicateDocument`) is `skipped`; a named error is
`failed` with its reason; any other exception is a bug, logged with its
traceback and `failed` too, so it never aborts a batch (the atlas is untouched:
a document is written in one transaction or not at all).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from ..errors import DiskFullError, IngestError, OharaError
from ..records import DocumentGraph, FileOutcome, IngestReport
from ..store.protocol import DuplicateDocument
from ..timing import Timer
from .plan import Plan

log = logging.getLogger(__name__)

UNCHANGED = "unchanged since last ingest"
CONCURRENT = "ingested concurrently by another process"

T = TypeVar("T")


def guarded(source: str, timer: Timer, work: Callable[[], T]) -> T | FileOutcome:
    """`work()`'s outcome, or the outcome its exception maps to."""
    try:
        return work()
    except DiskFullError:
        raise  # not this document's fault: the whole run stops (`stopped_by_full_disk`)
    except DuplicateDocument as e:
        return FileOutcome(source, "skipped", e.document_id, CONCURRENT)
    except OharaError as e:
        reason = e.reason if isinstance(e, IngestError) else str(e)
        return FileOutcome(source, "failed", None, reason, timings_s=timer.totals)
    except Exception as e:  # a bug must not abort a batch; the atlas is untouched
        log.debug("ingest of %s failed", source, exc_info=True)  # one line below; the traceback only in debug logs
        return FileOutcome(source, "failed", None, f"internal error: {type(e).__name__}: {e}",
                           timings_s=timer.totals)


def stopped_by_full_disk(e: DiskFullError, report: IngestReport) -> DiskFullError:
    """The one line an ingest stops with at its first full-disk write (issue 28.8), carrying the report so far.

    Every document is written in one transaction, so the one that hit the full disk was
    rolled back and those before it stand; the next run skips them and resumes."""
    done = sum(o.wrote for o in report.outcomes)
    return DiskFullError(f"disk full after {done} documents; the atlas is consistent; free space and run again to "
                         f"resume ({e.detail})", report, e.detail)


def skipped(source: str, plan: Plan) -> FileOutcome:
    return FileOutcome(source, "skipped", plan.existing, UNCHANGED)


def written(source: str, plan: Plan, graph: DocumentGraph, timer: Timer) -> FileOutcome:
    return FileOutcome(source, plan.status, graph.document.id, None, counts(graph), timer.totals)


def counts(graph: DocumentGraph) -> dict[str, int]:
    return {"sections": len(graph.sections), "paragraphs": len(graph.paragraphs), "tables": len(graph.tables),
            "entities": len(graph.entities), "edges": len(graph.edges)}
