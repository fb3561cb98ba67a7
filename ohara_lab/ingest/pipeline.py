"""The ingest pipeline: file -> parse -> chunk -> structure -> transform -> tag and
entities -> time -> rollup -> vectors -> one atomic write with its cross-document links.

Idempotency is by the SHA-256 of the file bytes: an unchanged, complete document
is skipped; a partial one (chunks left `llm_pending`) is rebuilt and replaces
itself; `force` rebuilds anyway; a changed file at the same path replaces its
previous version. Every write replaces in the same transaction, so no state in
between is ever visible and no edge is ever duplicated.
"""
from __future__ import annotations

import logging
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from ..errors import IngestError, OharaError
from ..ids import document_key, node_id, sha256_file, sha256_text
from ..parse import SUPPORTED_EXTENSIONS, is_supported, parse_file
from ..records import Document, DocumentGraph, Edge, FileOutcome, IngestReport, ParsedDocument, Section, utc_now
from ..settings import Settings
from ..store.protocol import GraphStore
from ..store.protocol import DuplicateDocument
from .annotate import annotate, node_text
from .chunking import chunk_markdown
from .linking import make_linker
from .rollup import rollup
from .special import TocEntry, extract_specials
from .structure import plan_headings, structure_document
from .temporal import extract_temporal
from .transform import ChunkNodes, Structure, transform

log = logging.getLogger(__name__)

# structurer(chunks, markdown, doc_id) -> structured chunks; offline by default, LLM in `ohara_lab.llm`.
Structurer = Callable[[list, str, str], list[ChunkNodes]]


def offline_structurer(chunks: list, markdown: str, doc_id: str) -> list[ChunkNodes]:
    return [ChunkNodes(c, nodes) for c, nodes in zip(chunks, structure_document(chunks, markdown))]


class Timer:
    """Seconds spent per named stage."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - t0


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

    @cached_property
    def ontology(self) -> Any:
        from ..ontology import load_ontology  # noqa: PLC0415
        return load_ontology()

    @cached_property
    def extractor(self) -> Any:
        from ..entities.extract import get_extractor  # noqa: PLC0415
        return get_extractor(self.settings.ner)

    @cached_property
    def embedder(self) -> Any:
        from ..embed.registry import get_embedder  # noqa: PLC0415
        if self.settings.embed_paragraphs is False:
            return None
        return get_embedder(self.settings.embedder, self.settings.embed_batch_size, self.settings)

    # ------------------------------------------------------------------ files
    def ingest(self, paths: Iterable[str | Path], *, force: bool = False, progress: bool = True,
               on_outcome: Callable[[FileOutcome], None] | None = None) -> IngestReport:
        report = IngestReport()
        files, problems = expand_paths(paths)
        report.outcomes += problems
        for o in problems:
            if on_outcome:
                on_outcome(o)
        from tqdm.auto import tqdm  # noqa: PLC0415

        for path in tqdm(files, desc="ingest", unit="file", disable=not progress or len(files) < 2):
            outcome = self.ingest_file(path, force=force)
            report.outcomes.append(outcome)
            if on_outcome:
                on_outcome(outcome)
        return report

    def ingest_file(self, path: str | Path, *, force: bool = False) -> FileOutcome:
        path = Path(path)
        timer = Timer()
        try:
            with timer.stage("hash"):
                if not path.exists():
                    raise IngestError(path, "no such file")
                file_hash = sha256_file(path) if path.is_file() else ""
            origin = str(path.resolve())
            plan = self.plan(file_hash, origin, force)
            if plan.status == "skipped":
                return FileOutcome(str(path), "skipped", plan.existing, "unchanged since last ingest")
            with timer.stage("parse"):
                parsed = parse_file(path, self.settings)
            graph = self.build_graph(parsed, file_hash, origin, path.stat().st_size, timer)
            self._write(graph, plan.replaces, timer)
        except DuplicateDocument as e:
            return FileOutcome(str(path), "skipped", e.document_id, "ingested concurrently by another process")
        except OharaError as e:
            reason = e.reason if isinstance(e, IngestError) else str(e)
            return FileOutcome(str(path), "failed", None, reason, timings_s=timer.seconds)
        except Exception as e:  # a bug must not abort a batch; the atlas is untouched
            log.exception("ingest of %s failed", path)
            return FileOutcome(str(path), "failed", None, f"internal error: {type(e).__name__}: {e}",
                               timings_s=timer.seconds)
        return FileOutcome(str(path), plan.status, graph.document.id, None, _counts(graph), timer.seconds)

    def ingest_text(self, text: str, *, title: str, source_id: str, metadata: dict[str, Any] | None = None,
                    force: bool = False) -> FileOutcome:
        """Ingest Markdown that has no file (evaluation corpora); `source_id` plays the path's role."""
        timer = Timer()
        file_hash = sha256_text(f"{source_id}\n{text}")
        try:
            plan = self.plan(file_hash, source_id, force)
            if plan.status == "skipped":
                return FileOutcome(source_id, "skipped", plan.existing, "unchanged since last ingest")
            parsed = ParsedDocument(path=source_id, markdown=text, parser="text", title=title,
                                    metadata=dict(metadata or {}))
            graph = self.build_graph(parsed, file_hash, source_id, len(text.encode("utf-8")), timer)
            self._write(graph, plan.replaces, timer)
        except DuplicateDocument as e:
            return FileOutcome(source_id, "skipped", e.document_id, "ingested concurrently by another process")
        except OharaError as e:
            return FileOutcome(source_id, "failed", None, getattr(e, "reason", str(e)), timings_s=timer.seconds)
        return FileOutcome(source_id, plan.status, graph.document.id, None, _counts(graph), timer.seconds)

    def ingest_parsed(self, parsed: ParsedDocument, *, content_hash: str, origin: str, size: int,
                      force: bool = False) -> FileOutcome:
        """Ingest a document parsed elsewhere (a fetched URL, a crawl bundle, a text) like a file.

        `content_hash` and `origin` play the file hash's and path's roles: unchanged
        is skipped, a new hash at the same origin replaces the old document.
        """
        timer = Timer()
        try:
            plan = self.plan(content_hash, origin, force)
            if plan.status == "skipped":
                return FileOutcome(parsed.path, "skipped", plan.existing, "unchanged since last ingest")
            graph = self.build_graph(parsed, content_hash, origin, size, timer)
            self._write(graph, plan.replaces, timer)
        except DuplicateDocument as e:
            return FileOutcome(parsed.path, "skipped", e.document_id, "ingested concurrently by another process")
        except OharaError as e:
            return FileOutcome(parsed.path, "failed", None, getattr(e, "reason", str(e)), timings_s=timer.seconds)
        return FileOutcome(parsed.path, plan.status, graph.document.id, None, _counts(graph), timer.seconds)

    def ingest_texts(self, items: Iterable[TextItem], *, force: bool = False, progress: bool = True,
                     batch_size: int = 64, on_outcome: Callable[[FileOutcome], None] | None = None) -> IngestReport:
        """Ingest many Markdown texts, tagging, extracting entities and embedding them in batches.

        Same result as `ingest_text` one by one; for corpora of many small
        documents it is several times faster, because NER and the embedder see
        whole batches instead of one short document at a time.
        """
        from tqdm.auto import tqdm  # noqa: PLC0415

        from .batching import primed_resources  # noqa: PLC0415

        items = list(items)
        report = IngestReport()
        bar = tqdm(total=len(items), desc="ingest", unit="doc", disable=not progress)
        for start in range(0, len(items), batch_size):
            batch = items[start:start + batch_size]
            outcomes = self._ingest_batch(batch, force, primed_resources(self, self.settings))
            for o in outcomes:
                report.outcomes.append(o)
                if on_outcome:
                    on_outcome(o)
            bar.update(len(batch))
        bar.close()
        return report

    def _ingest_batch(self, batch: list["TextItem"], force: bool, res: "Any") -> list[FileOutcome]:
        prepared: list[tuple[int, TextItem, _Plan, _Prepared, Timer]] = []
        outcomes: dict[int, FileOutcome] = {}
        for i, item in enumerate(batch):
            timer = Timer()
            file_hash = sha256_text(f"{item.source_id}\n{item.text}")
            try:
                plan = self.plan(file_hash, item.source_id, force)
                if plan.status == "skipped":
                    outcomes[i] = FileOutcome(item.source_id, "skipped", plan.existing, "unchanged since last ingest")
                    continue
                parsed = ParsedDocument(path=item.source_id, markdown=item.text, parser="text", title=item.title,
                                        metadata=dict(item.metadata or {}))
                prepared.append((i, item, plan, self._prepare(parsed, file_hash, timer), timer))
            except OharaError as e:
                outcomes[i] = FileOutcome(item.source_id, "failed", None, getattr(e, "reason", str(e)))
        res.prime([p.structure for _, _, _, p, _ in prepared])
        for i, item, plan, prep, timer in prepared:
            try:
                graph = self._complete(prep, item.source_id, len(item.text.encode("utf-8")), timer, res)
                self._write(graph, plan.replaces, timer)
                outcomes[i] = FileOutcome(item.source_id, plan.status, graph.document.id, None, _counts(graph),
                                          timer.seconds)
            except DuplicateDocument as e:
                outcomes[i] = FileOutcome(item.source_id, "skipped", e.document_id,
                                          "ingested concurrently by another process")
            except OharaError as e:
                outcomes[i] = FileOutcome(item.source_id, "failed", None, getattr(e, "reason", str(e)),
                                          timings_s=timer.seconds)
        return [outcomes[i] for i in range(len(batch))]

    # ------------------------------------------------------------------ steps
    def plan(self, file_hash: str, origin: str, force: bool) -> "_Plan":
        """What ingesting a file with this hash from `origin` would do: skip, complete, replace or ingest."""
        same = self.store.find_documents(file_hash=file_hash)
        if same and not force and all(d.ingestion_status == "complete" for d in same):
            return _Plan("skipped", [], same[0].id)
        older = [d for d in self.store.find_documents(origin_path=origin) if d.file_hash != file_hash]
        replaces = [d.id for d in same] + [d.id for d in older]
        if same and not force:
            return _Plan("completed", replaces)
        return _Plan("replaced" if replaces else "ingested", replaces)

    def build_graph(self, parsed: ParsedDocument, file_hash: str, origin: str, size: int,
                    timer: Timer | None = None) -> DocumentGraph:
        timer = timer or Timer()
        return self._complete(self._prepare(parsed, file_hash, timer), origin, size, timer)

    def _prepare(self, parsed: ParsedDocument, file_hash: str, timer: Timer) -> "_Prepared":
        """Everything before tagging: special sections, chunks, structuring, transform."""
        doc_id = node_id("documents", document_key(file_hash))
        with timer.stage("structure"):
            specials = extract_specials(parsed.markdown)
            chunks = chunk_markdown(specials.markdown, max_chars=self.settings.max_chunk_chars,
                                    min_chars=self.settings.min_chunk_chars,
                                    virtual_page_size=self.settings.virtual_page_size)
            if self.settings.test_chunks_limit > 0:
                chunks = chunks[: self.settings.test_chunks_limit]
        with timer.stage("llm_structure" if self.structurer_name != "offline" else "structure"):
            structured = self.structurer(chunks, specials.markdown, doc_id)
        with timer.stage("structure"):
            structure = transform(doc_id, structured, next_para=self.settings.next_para,
                                  adjacent_to=self.settings.adjacent_to)
            if not structure.paragraphs and not structure.tables:
                raise IngestError(parsed.path, "no text content found after structuring")
        return _Prepared(parsed, file_hash, doc_id, specials, structured, structure)

    def _complete(self, prep: "_Prepared", origin: str, size: int, timer: Timer,
                  resources: "Resources | None" = None) -> DocumentGraph:
        """Tags, entities, time, rollup and vectors: the graph ready to write."""
        res = resources or Resources(self.ontology, self.extractor, self.embedder)
        parsed, doc_id, structure, specials = prep.parsed, prep.doc_id, prep.structure, prep.specials
        with timer.stage("tag_entities"):
            ann = annotate(structure, res.tagger, res.extractor, tags_per_node=self.settings.sumo_tags_per_node,
                           clean=_clean_mentions())
        with timer.stage("time"):
            title = _title(parsed, specials.markdown)
            today = date.fromisoformat(self.settings.reference_date) if self.settings.reference_date else None
            temporal = extract_temporal(parsed.markdown, parsed.metadata, title, parsed.path, today=today)
        document = self._document(doc_id, parsed, prep.file_hash, origin, size, title, temporal, prep.structured,
                                  structure)
        toc = specials.toc or _outline_toc(parsed)
        document.toc_entries = [e.to_dict() for e in toc]
        document.toc_source = "explicit" if toc else None
        document.glossary_entries = specials.glossary
        rollup(document, structure)
        graph = DocumentGraph(document=document, sections=structure.sections, paragraphs=structure.paragraphs,
                              tables=structure.tables, entities=ann.entities,
                              edges=structure.edges + ann.edges + toc_ref_edges(doc_id, toc, structure.sections))
        with timer.stage("embed"):
            self._embed(graph, res.embedder)
        return graph

    def _document(self, doc_id: str, parsed: ParsedDocument, file_hash: str, origin: str, size: int, title: str,
                  temporal: Any, structured: list[ChunkNodes], structure: Structure) -> Document:
        pending = [c for c in structured if c.llm_pending]
        status = "complete" if not pending else ("failed" if len(pending) == len(structured) else "partial")
        meta = {k: v for k, v in parsed.metadata.items() if k != "toc" and _jsonable(v)}
        meta.update({"extractor": self.extractor.name, "structurer": self.structurer_name,
                     "ontology_version": getattr(self.ontology, "version", None),
                     "temporal_source": temporal.source}, **self.extra_meta)
        return Document(
            id=doc_id, title=title, source_file=Path(parsed.path).name, file_hash=file_hash, origin_path=origin,
            file_size=size, parser_engine=parsed.parser, upload_time=utc_now(),
            published_date=temporal.published_date, temporal_coverage_start=temporal.coverage_start,
            temporal_coverage_end=temporal.coverage_end, temporal_granularity=temporal.granularity,
            temporal_confidence=temporal.confidence, temporal_needs_review=temporal.source != "none",
            decay_class=temporal.decay_class, effective_decay_class=temporal.decay_class,
            ingestion_status=status,
            ingestion_error=f"LLM processing failed for {len(pending)} of {len(structured)} chunk(s)" if pending else None,
            total_chunks=len(structured), completed_chunks=len(structured) - len(pending),
            structure_needs_review=structure.needs_review, meta=meta, source_url=parsed.source_url)

    def _record_builders(self, graph: DocumentGraph) -> None:
        """The atlas says which extractor, structurer, ontology and embedder built it (mixed builds listed)."""
        built = self.store.get_meta("built_with", {}) or {}
        changed = False
        for key, value in _builders(graph).items():
            if value is None:
                continue
            seen = built.setdefault(key, [])
            if value not in seen:
                seen.append(value)
                changed = True
        if changed:
            self.store.set_meta("built_with", built)

    def _embed(self, graph: DocumentGraph, embedder: Any) -> None:
        if self.settings.embed_paragraphs is False or embedder is None:
            return
        nodes = embeddable(graph.paragraphs, graph.tables)
        if not nodes:
            return
        vectors = embedder.embed([node_text(n)[:MAX_EMBED_CHARS] for n in nodes], "document")
        graph.vectors = {n.id: v for n, v in zip(nodes, vectors)}
        graph.vector_model = embedder.model

    def _write(self, graph: DocumentGraph, replaces: list[str], timer: Timer) -> None:
        if self.before_write is not None:
            with timer.stage("llm_questions"):
                self.before_write(graph)
        base = make_linker(self.settings.similarity_threshold)

        def timed_linker(g: DocumentGraph, ctx: Any) -> list[Edge]:
            with timer.stage("similarity"):
                return base(g, ctx)

        with timer.stage("persist"):
            self.store.write_document(graph, replaces=replaces, linker=timed_linker)
            self._record_builders(graph)
        if "similarity" in timer.seconds:
            timer.seconds["persist"] -= timer.seconds["similarity"]
        if self.on_document is not None:
            with timer.stage("enrich"):
                self.on_document(graph)


def _builders(graph: DocumentGraph) -> dict[str, Any]:
    meta = graph.document.meta
    return {"extractor": meta.get("extractor"), "structurer": meta.get("structurer"),
            "ontology_version": meta.get("ontology_version"), "vector_model": graph.vector_model}


@dataclass
class TextItem:
    """A document given as text: what `ingest_texts` takes (evaluation corpora, notebooks)."""

    text: str
    title: str
    source_id: str  # plays the role of the file path: same id + same text = same document
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Prepared:
    parsed: ParsedDocument
    file_hash: str
    doc_id: str
    specials: Any
    structured: list[ChunkNodes]
    structure: Structure


@dataclass
class Resources:
    """The tagger, entity extractor and embedder a document is annotated with."""

    tagger: Any
    extractor: Any
    embedder: Any


MIN_EMBED_CHARS = 20
MAX_EMBED_CHARS = 8192


def embeddable(paragraphs: list[Any], tables: list[Any]) -> list[Any]:
    """Nodes that get a vector: text long enough to mean something."""
    return [n for n in [*paragraphs, *tables] if len(node_text(n)) >= MIN_EMBED_CHARS]


@dataclass
class _Plan:
    status: str  # ingested | skipped | completed | replaced
    replaces: list[str]
    existing: str | None = None


def expand_paths(paths: Iterable[str | Path]) -> tuple[list[Path], list[FileOutcome]]:
    """Files to ingest (directories recurse, sorted) and outcomes for paths that cannot be."""
    files: list[Path] = []
    problems: list[FileOutcome] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and is_supported(f) and not _hidden(f, p))
            if not found:
                problems.append(FileOutcome(str(p), "failed", None,
                                            f"no supported files in directory ({', '.join(SUPPORTED_EXTENSIONS)})"))
            files += found
        else:
            files.append(p)  # missing or unsupported files fail with their reason in ingest_file
    return list(dict.fromkeys(files)), problems


def toc_ref_edges(doc_id: str, toc: list[TocEntry], sections: list[Section]) -> list[Edge]:
    """TOC_REF per entry to the first section with the same normalised title, else the only one on its page."""
    edges, used = [], set()
    titles = [_norm_title(s.title) for s in sections]
    for entry in toc:
        wanted = _norm_title(entry.title)
        target = next((s for s, t in zip(sections, titles) if t == wanted and s.id not in used), None)
        if target is None and entry.page is not None:
            on_page = [s for s in sections if s.page == entry.page and s.id not in used]
            target = on_page[0] if len(on_page) == 1 else None
        if target is not None:
            used.add(target.id)
            edges.append(Edge(doc_id, target.id, "TOC_REF",
                              {"toc_title": entry.title, "toc_page": entry.page, "toc_level": entry.level}))
    return edges


def _norm_title(title: str) -> str:
    t = re.sub(r"^(chapter|part|appendix)\s+\S+\s*[:.-]?\s*", "", title.strip(), flags=re.I)
    t = re.sub(r"^[\divxlc]+(\.\d+)*\.?\s+", "", t, flags=re.I)
    return re.sub(r"[^a-z0-9]+", " ", t.lower()).strip()


def _outline_toc(parsed: ParsedDocument) -> list[TocEntry]:
    """A TOC from the file's own outline (PDF bookmarks, EPUB navigation) when the parser found one."""
    out = []
    for e in parsed.metadata.get("toc") or []:
        if isinstance(e, dict) and e.get("title"):
            out.append(TocEntry(str(e["title"]), int(e.get("level") or 1), e.get("page")))
    return out


def _title(parsed: ParsedDocument, markdown: str) -> str:
    """The parser's title, else a lone leading H1, else the first H1, else the file name; plus a version line."""
    plan = plan_headings(markdown)
    first = re.search(r"^\s{0,3}#\s+(.+?)\s*#*\s*$", markdown, re.M)
    title = ((parsed.title or "").strip() or plan.title or (first.group(1).strip() if first else "")
             or Path(parsed.path).stem.replace("_", " ").replace("-", " ").strip().title() or parsed.path)
    return title + _version_suffix(markdown, title)


_VERSION_LINE = re.compile(r"^\s*(version|edition|release)\s+([\w.]+)", re.I)


def _version_suffix(markdown: str, title: str) -> str:
    """', Version 3' when one of the first lines after the title names a version ("Version 3, 29 June 2007")."""
    lines = [line for line in markdown[:2000].splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if title in line), None)
    if start is None or re.search(r"\b(version|edition|release)\b", title, re.I):
        return ""
    for line in lines[start + 1:start + 3]:
        if m := _VERSION_LINE.match(line.strip("#*_ ")):
            return f", {m.group(1).title()} {m.group(2)}"
    return ""


def _clean_mentions() -> Callable | None:
    try:
        from ..entities.rules import clean_mentions  # noqa: PLC0415
    except ImportError:  # pragma: no cover - entities package is part of the core
        return None
    return clean_mentions


def _counts(graph: DocumentGraph) -> dict[str, int]:
    return {"sections": len(graph.sections), "paragraphs": len(graph.paragraphs), "tables": len(graph.tables),
            "entities": len(graph.entities), "edges": len(graph.edges)}


def _hidden(f: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in f.relative_to(root).parts)


def _jsonable(v: Any) -> bool:
    return isinstance(v, (str, int, float, bool, type(None), list, dict))
