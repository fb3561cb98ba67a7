"""The ingest pipeline: a document goes through named stages, each in its own module.

    plan (plan.py) -> parse (ohara_lab.parse) -> structure (prepare.py: specials, chunks,
    structurer, transform) -> tag_entities (annotate.py) -> time (temporal.py, titles.py)
    -> document record and rollup (document.py) -> embed (embedding.py) -> write (write.py:
    one transaction with its cross-document links, linking.py)

Each stage's wall time is kept under its name (`FileOutcome.timings_s`). Every
entry point (`ingest`/`ingest_file`, `ingest_text`, `ingest_texts`) turns what
happens to a document into one outcome the same way (outcome.py).

Idempotency is by the SHA-256 of the file bytes (plan.py). Every write replaces in
the same transaction, so no state in between is ever visible and no edge is ever
duplicated. A run of many documents commits them in groups (write.py, `WriteGroup`),
each document still whole; an outcome is reported once its group is committed, so
what a report (or an interrupted run) counts as done is in the atlas.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import DiskFullError, IngestError, IngestInterrupted
from ..ids import sha256_bytes, sha256_text
from ..parse import parse_read
from ..parse.source import read_checked
from ..records import DocumentGraph, FileOutcome, IngestReport, ParsedDocument
from ..settings import Settings
from ..store.protocol import GraphStore
from ..timing import Timer
from .annotate import annotate
from .document import document_record
from .embedding import embed_graph
from .outcome import guarded, skipped, stopped_by_full_disk, written
from .plan import Plan, plan_write
from .prepare import Prepared, Structurer, offline_structurer, prepare
from .resources import Resources
from .sources import Source, TextItem, expand_paths, expand_sources
from .temporal import extract_temporal
from .titles import document_title, outline_toc, toc_ref_edges
from .write import FileCost, WriteGroup, write_graph

if TYPE_CHECKING:
    from .batching import PrimedResources

__all__ = ["Ingestor", "TextItem", "expand_paths", "offline_structurer"]


@dataclass
class Ingestor:
    """Ingests files into one store; heavy resources load on first use."""

    store: GraphStore
    settings: Settings
    structurer: Structurer = offline_structurer
    structurer_name: str = "offline"
    on_document: Callable[[DocumentGraph], None] | None = None  # e.g. LLM edge enrichment after the write
    before_write: Callable[[DocumentGraph], None] | None = None  # e.g. LLM paragraph questions (ANSWERS_SAME)
    budget: Any = None  # the run's `LLMBudget`, when OHARA_LLM_BUDGET_USD caps it
    extra_meta: dict[str, Any] = field(default_factory=dict)
    # Test seam (issue 28.1): runs between a file's path check and its open, where a test swaps the file
    # for a link; nothing in ohara-lab sets it.
    after_check: Callable[[Path], None] | None = None

    @cached_property
    def ontology(self) -> Any:
        from ..ontology import load_ontology  # noqa: PLC0415
        return load_ontology()

    @cached_property
    def extractor(self) -> Any:
        from ..entities.extract import get_extractor  # noqa: PLC0415
        from ..entities.ner_cache import cached_extractor  # noqa: PLC0415

        s = self.settings
        # The cache lives in the atlas directory; a database URL has none, so it extracts every time.
        return cached_extractor(get_extractor(s.ner, s.ner_max_chars, s.ner_processes),
                                self.store.directory, s.ner_cache_entries, s.ner_max_chars)

    @cached_property
    def embedder(self) -> Any:
        from ..embed.registry import get_embedder  # noqa: PLC0415
        if self.settings.embed_paragraphs is False:
            return None
        return get_embedder(self.settings.embedder, self.settings.embed_batch_size, self.settings)

    @property
    def _backend(self) -> str | None:
        """The runtime the embedder encodes with (torch, onnxruntime...), recorded in `built_with`."""
        return getattr(self.embedder, "backend", None) if self.embedder is not None else None

    # ------------------------------------------------------------------ entry points
    def ingest(self, paths: Iterable[str | Path], *, force: bool = False, progress: bool = True,
               on_outcome: Callable[[FileOutcome], None] | None = None, follow_links: bool = False,
               roots: Sequence[Path] = ()) -> IngestReport:
        """Ingest files and folders; `roots`: every file opened must lie under one of these folders."""
        report = IngestReport()
        sources, problems = expand_sources(paths, follow_links=follow_links, roots=roots)
        for o in problems:
            _report(report, o, on_outcome)
        from tqdm.auto import tqdm  # noqa: PLC0415

        try:
            with self._write_group(report, on_outcome) as group:
                cost = FileCost()
                for src in tqdm(sources, desc="ingest", unit="file", disable=not progress or len(sources) < 2):
                    # The group's lock is held while the next file is parsed: commit first if that would
                    # take it past OHARA_WRITE_GROUP_S (another process's writer waits meanwhile).
                    group.commit_if_due(cost.expected_s(src.path))
                    started = time.monotonic()
                    outcome = self.ingest_source(src, force=force)
                    cost.observe(src.path, time.monotonic() - started, outcome)
                    group.add(outcome)
        except DiskFullError as e:
            raise stopped_by_full_disk(e, report) from None
        except KeyboardInterrupt:
            # A document is written whole in its group's transaction, so the one in progress left nothing
            # behind and leaving the group committed those before it; a rerun skips the finished ones
            # (unchanged hash) and goes on.
            raise IngestInterrupted(len(report.outcomes), len(problems) + len(sources)) from None
        return report

    def _write_group(self, report: IngestReport, on_outcome: Callable[[FileOutcome], None] | None) -> WriteGroup:
        """Documents of one run written in groups; each outcome reported once its group commits."""
        return WriteGroup(self.store, self.settings.write_group_docs, self.settings.write_group_s,
                          partial(_report, report, on_outcome=on_outcome))

    def ingest_file(self, path: str | Path, *, force: bool = False) -> FileOutcome:
        return self.ingest_source(Source(Path(path)), force=force)

    def ingest_source(self, src: Source, *, force: bool = False) -> FileOutcome:
        """One file, read once through a checked descriptor (`parse.source.read_checked`): hashed and
        parsed from the same bytes, so what is checked is what is stored."""
        path, timer = src.path, Timer()

        def work() -> FileOutcome:
            with timer.stage("hash"):
                if not path.exists():
                    raise IngestError(path, "no such file")
                read = read_checked(path, self.settings.max_file_mb, root=src.root, single_name=src.single_name,
                                    after_check=self.after_check)
                file_hash = sha256_bytes(read.data)
            origin = read.real_path
            plan = self.plan(file_hash, origin, force)
            if plan.status == "skipped":
                return skipped(str(path), plan)
            with timer.stage("parse"):
                parsed = parse_read(path, read.data, self.settings)
            graph = self.build_graph(parsed, file_hash, origin, read.size, timer)
            self._write(graph, plan.replaces, timer)
            return written(str(path), plan, graph, timer)

        return guarded(str(path), timer, work)

    def ingest_text(self, text: str, *, title: str, source_id: str, metadata: dict[str, Any] | None = None,
                    force: bool = False) -> FileOutcome:
        """Ingest Markdown that has no file (evaluation corpora); `source_id` plays the path's role."""
        item, timer = TextItem(text, title, source_id, dict(metadata or {})), Timer()

        def work() -> FileOutcome:
            file_hash = _text_hash(item)
            plan = self.plan(file_hash, source_id, force)
            if plan.status == "skipped":
                return skipped(source_id, plan)
            graph = self.build_graph(_parsed(item), file_hash, source_id, _text_size(item), timer)
            self._write(graph, plan.replaces, timer)
            return written(source_id, plan, graph, timer)

        return guarded(source_id, timer, work)

    def ingest_parsed(self, parsed: ParsedDocument, *, content_hash: str, origin: str, size: int,
                      force: bool = False) -> FileOutcome:
        """Ingest a document parsed elsewhere (a fetched URL, a crawl bundle, a text) like a file.

        `content_hash` and `origin` play the file hash's and path's roles: unchanged
        is skipped, a new hash at the same origin replaces the old document.
        """
        timer = Timer()

        def work() -> FileOutcome:
            plan = self.plan(content_hash, origin, force)
            if plan.status == "skipped":
                return skipped(parsed.path, plan)
            graph = self.build_graph(parsed, content_hash, origin, size, timer)
            self._write(graph, plan.replaces, timer)
            return written(parsed.path, plan, graph, timer)

        return guarded(parsed.path, timer, work)

    def ingest_texts(self, items: Iterable[TextItem], *, force: bool = False, progress: bool = True,
                     batch_size: int = 64, on_outcome: Callable[[FileOutcome], None] | None = None) -> IngestReport:
        """Ingest many Markdown texts, tagging, extracting entities and embedding them in batches.

        Same result as `ingest_text` one by one; for corpora of many small
        documents it is several times faster, because NER and the embedder see
        whole batches instead of one short document at a time. With
        `OHARA_NER_AHEAD` the next batch is structured and its NER started on a
        worker process while this one is tagged and written (`_start_ahead`).
        """
        from tqdm.auto import tqdm  # noqa: PLC0415

        from .batching import primed_resources  # noqa: PLC0415 - numpy only when batching

        items = list(items)
        report = IngestReport()
        bar = tqdm(total=len(items), desc="ingest", unit="doc", disable=not progress)
        batches = [items[start:start + batch_size] for start in range(0, len(items), batch_size)]
        res, ahead = primed_resources(self, self.settings), _Ahead()
        try:
            with self._write_group(report, on_outcome) as group:
                for k, batch in enumerate(batches):
                    group.commit()  # never hold the lock while a batch is structured and run through the models
                    staged = self._stage_batch(batch, force, ahead)
                    nxt, ahead = primed_resources(self, self.settings), _Ahead()
                    if self.settings.ner_ahead and k + 1 < len(batches):
                        ahead = self._start_ahead(batches[k + 1], force, nxt)
                    self._finish_batch(batch, staged, res, group)
                    res = nxt
                    bar.update(len(batch))
        except DiskFullError as e:
            raise stopped_by_full_disk(e, report) from None
        finally:
            bar.close()
            if self.settings.ner_ahead:
                from ..entities import ner_worker  # noqa: PLC0415

                ner_worker.shutdown()  # its spaCy model is ~340 MB: not kept past the ingest that needed it
        return report

    def _stage_batch(self, batch: list[TextItem], force: bool, ahead: _Ahead) -> dict[int, FileOutcome | _Staged]:
        """Plan every item against the atlas as it is now and structure those to write (reusing what
        `ahead` structured already)."""
        out: dict[int, FileOutcome | _Staged] = {}
        for i, item in enumerate(batch):
            timer, prepared = ahead.prepared.get(i, (Timer(), None))
            out[i] = guarded(item.source_id, timer, partial(self._stage_text, item, force, timer, prepared))
        return out

    def _start_ahead(self, batch: list[TextItem], force: bool, res: PrimedResources) -> _Ahead:
        """Structure the next batch and start its NER (`OHARA_NER_AHEAD`) while this one is written.

        The plan here is only a guess (the batch being written may change it), so it only spares the
        work of items already in the atlas; `_stage_batch` plans again, and any text NER was not started
        for is extracted when the batch is primed. A plan or structuring that fails is redone there, to
        fail with its outcome."""
        ahead = _Ahead()
        for i, item in enumerate(batch):
            timer, file_hash = Timer(), _text_hash(item)
            try:
                if self.plan(file_hash, item.source_id, force).status == "skipped":
                    continue
                ahead.prepared[i] = (timer, self._prepare(_parsed(item), file_hash, timer))
            except Exception:  # noqa: BLE001 - redone, and reported, when the batch is staged
                continue
        res.submit([p.structure for _, p in ahead.prepared.values()])
        return ahead

    def _finish_batch(self, batch: list[TextItem], staged: dict[int, FileOutcome | _Staged], res: PrimedResources,
                      group: WriteGroup) -> None:
        """Run the models once over the batch, then finish and write each item, passing the outcomes to
        `group` in the batch's order as they come."""
        ready = {i: s for i, s in staged.items() if isinstance(s, _Staged)}
        res.prime([s.prepared.structure for s in ready.values()])
        for i in range(len(batch)):
            got = staged[i]
            if isinstance(got, _Staged):
                got = guarded(got.item.source_id, got.timer, partial(self._finish_text, got, res))
            group.add(got)

    def _stage_text(self, item: TextItem, force: bool, timer: Timer, prepared: Prepared | None = None
                    ) -> FileOutcome | _Staged:
        file_hash = _text_hash(item)
        plan = self.plan(file_hash, item.source_id, force)
        if plan.status == "skipped":
            return skipped(item.source_id, plan)
        return _Staged(item, plan, prepared or self._prepare(_parsed(item), file_hash, timer), timer)

    def _finish_text(self, s: _Staged, res: Resources) -> FileOutcome:
        graph = self._complete(s.prepared, s.item.source_id, _text_size(s.item), s.timer, res)
        self._write(graph, s.plan.replaces, s.timer)
        return written(s.item.source_id, s.plan, graph, s.timer)

    # ------------------------------------------------------------------ stages
    def plan(self, file_hash: str, origin: str, force: bool) -> Plan:
        """What ingesting a file with this hash from `origin` would do: skip, complete, replace or ingest."""
        return plan_write(self.store, file_hash, origin, force)

    def _write(self, graph: DocumentGraph, replaces: list[str], timer: Timer) -> None:
        write_graph(self.store, graph, replaces, self.settings, timer, on_document=self.on_document,
                    before_write=self.before_write, vector_backend=self._backend)

    def build_graph(self, parsed: ParsedDocument, file_hash: str, origin: str, size: int,
                    timer: Timer | None = None) -> DocumentGraph:
        timer = timer or Timer()
        return self._complete(self._prepare(parsed, file_hash, timer), origin, size, timer)

    def _prepare(self, parsed: ParsedDocument, file_hash: str, timer: Timer) -> Prepared:
        return prepare(parsed, file_hash, self.settings, self.structurer, self.structurer_name, timer)

    def _complete(self, prep: Prepared, origin: str, size: int, timer: Timer,
                  resources: Resources | None = None) -> DocumentGraph:
        """Tags, entities, time, the document record and vectors: the graph ready to write."""
        res = resources or Resources(self.ontology, self.extractor, self.embedder)
        parsed, structure = prep.parsed, prep.structure
        with timer.stage("tag_entities"):
            ann = annotate(structure, res.tagger, res.extractor, tags_per_node=self.settings.sumo_tags_per_node)
        with timer.stage("time"):
            title = document_title(parsed, prep.specials.markdown)
            today = date.fromisoformat(self.settings.reference_date) if self.settings.reference_date else None
            temporal = extract_temporal(parsed.markdown, parsed.metadata, title, parsed.path, today=today)
        toc = prep.specials.toc or outline_toc(parsed)
        builders = {"extractor": self.extractor.name, "structurer": self.structurer_name,
                    "ontology_version": getattr(self.ontology, "version", None)}
        document = document_record(prep, origin, size, title, temporal, toc, builders, self.extra_meta)
        document.meta["entity_noise"] = ann.noise  # per rule; `Atlas.stats` sums the documents'
        graph = DocumentGraph(document=document, sections=structure.sections, paragraphs=structure.paragraphs,
                              tables=structure.tables, entities=ann.entities,
                              edges=structure.edges + ann.edges + toc_ref_edges(prep.doc_id, toc, structure.sections))
        with timer.stage("embed"):
            embed_graph(graph, res.embedder)
        return graph


@dataclass
class _Ahead:
    """The next batch, structured early: item index -> (its timer, its structure)."""

    prepared: dict[int, tuple[Timer, Prepared]] = field(default_factory=dict)


@dataclass
class _Staged:
    """A text of a batch between its structure stage and the batch's model run."""

    item: TextItem
    plan: Plan
    prepared: Prepared
    timer: Timer


def _report(report: IngestReport, outcome: FileOutcome, on_outcome: Callable[[FileOutcome], None] | None = None) -> None:
    report.outcomes.append(outcome)
    if on_outcome:
        on_outcome(outcome)


def _text_hash(item: TextItem) -> str:
    return sha256_text(f"{item.source_id}\n{item.text}")


def _text_size(item: TextItem) -> int:
    return len(item.text.encode("utf-8"))


def _parsed(item: TextItem) -> ParsedDocument:
    return ParsedDocument(path=item.source_id, markdown=item.text, parser="text", title=item.title,
                          metadata=dict(item.metadata or {}))
