"""Stage 8, the write: the document graph and its cross-document links in one transaction,
then what the atlas records about its builders and any post-write hook (LLM edge enrichment).

A run of many documents writes them in groups (`WriteGroup`): several whole documents per
transaction, committed by count (`OHARA_WRITE_GROUP_DOCS`) or time (`OHARA_WRITE_GROUP_S`),
and a document's outcome is reported only once its group is committed."""
from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from ..records import DocumentGraph, Edge, FileOutcome
from ..settings import Settings
from ..store.protocol import GraphStore
from ..timing import Timer
from .linking import make_linker
from .writeset import DocumentWriteSet

log = logging.getLogger(__name__)


class WriteGroup:
    """Outcomes held until the transaction holding their documents commits (issue 30.2).

    `add` takes each document's outcome in order; every `max_docs` outcomes, or once
    `max_s` seconds have passed since the group's first, the store commits and the
    held outcomes are passed to `report`. Leaving the block commits the rest, also on
    Ctrl-C (every document written is whole: the one in progress was taken back); an
    outcome whose group did not commit is never reported, and the next run redoes it."""

    def __init__(self, store: GraphStore, max_docs: int, max_s: float, report: Callable[[FileOutcome], None]):
        self.store, self.max_docs, self.max_s, self.report = store, max(1, max_docs), max_s, report
        self.pending: list[FileOutcome] = []
        self._started = 0.0
        self._group: AbstractContextManager[None] | None = None

    def __enter__(self) -> WriteGroup:
        if self.max_docs > 1:
            self._group = self.store.write_group()
            self._group.__enter__()
        return self

    def add(self, outcome: FileOutcome) -> None:
        if not self.pending:
            self._started = time.monotonic()
        self.pending.append(outcome)
        if len(self.pending) >= self.max_docs:
            self.commit()
        else:
            self.commit_if_due()

    def commit_if_due(self, expected_s: float = 0.0) -> None:
        """Commit when the open group is older than `max_s`, or would be after `expected_s` more seconds of
        work done with its lock held: a big file next must not keep other writers waiting while it is parsed."""
        if self.pending and time.monotonic() - self._started + expected_s >= self.max_s:
            self.commit()

    def commit(self) -> None:
        self.store.commit_writes()
        done, self.pending = self.pending, []
        for outcome in done:
            self.report(outcome)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        try:
            self.commit()
        except BaseException:
            self.pending = []  # not committed: not reported
            if kind is None:
                raise
            # The error under way says why (a full disk rolls the group back); a re-run writes these documents.
            log.debug("the last write group was not committed", exc_info=True)
        finally:
            if self._group is not None:
                self._group.__exit__(None, None, None)


@dataclass
class FileCost:
    """How long the next file will take, at the seconds per byte of the last file written in this run
    (the last, not the slowest: the first includes loading the models); a wrong guess costs one commit or one wait."""

    s_per_byte: float = 0.0

    def expected_s(self, path: Path) -> float:
        try:
            return self.s_per_byte * path.stat().st_size
        except OSError:  # gone or unreadable: its ingest says so at once
            return 0.0

    def observe(self, path: Path, seconds: float, outcome: FileOutcome) -> None:
        if outcome.wrote:
            with contextlib.suppress(OSError):
                self.s_per_byte = seconds / max(1, path.stat().st_size)


def write_graph(store: GraphStore, graph: DocumentGraph, replaces: list[str], settings: Settings, timer: Timer, *,
                on_document: Callable[[DocumentGraph], None] | None = None,
                before_write: Callable[[DocumentGraph], None] | None = None, vector_backend: str | None = None) -> None:
    """Write `graph`, replacing `replaces`, timing the SIMILAR_TO pass apart from the rest of the write;
    `before_write` may still add to the graph (LLM paragraph questions), `on_document` runs after the write."""
    if before_write is not None:
        with timer.stage("llm_questions"):
            before_write(graph)
    base = make_linker(settings.similarity_threshold)

    def timed_linker(g: DocumentGraph, ctx: Any) -> list[Edge]:
        with timer.stage("similarity"):
            return base(g, ctx)

    with timer.stage("persist"):
        store.write(DocumentWriteSet(graph, replaces, timed_linker))
        record_builders(store, graph, vector_backend)
    if "similarity" in timer.totals:
        timer.totals["persist"] -= timer.totals["similarity"]
    if on_document is not None:
        with timer.stage("enrich"):
            on_document(graph)


def builders(graph: DocumentGraph, vector_backend: str | None = None) -> dict[str, Any]:
    meta = graph.document.meta
    return {"extractor": meta.get("extractor"), "structurer": meta.get("structurer"),
            "ontology_version": meta.get("ontology_version"), "vector_model": graph.vector_model,
            "vector_backend": vector_backend if graph.vector_model else None}


def record_builders(store: GraphStore, graph: DocumentGraph, vector_backend: str | None = None) -> None:
    """The atlas says which extractor, structurer, ontology, embedder and encoder runtime built it
    (mixed builds listed)."""
    built = store.get_meta("built_with", {}) or {}
    changed = False
    for key, value in builders(graph, vector_backend).items():
        if value is None:
            continue
        seen = built.setdefault(key, [])
        if value not in seen:
            seen.append(value)
            changed = True
    if changed:
        store.set_meta("built_with", built)
