"""`Atlas`: the one facade users touch. The CLI (`ohara ...`) mirrors it one to one."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .errors import IngestInterrupted, UsageError
from .ids import DOCUMENTS, document_id, in_collection, query_hash
from .records import HAS_CHILD, Document, DocumentView, Edge, Entity, EntityOp, FileOutcome, IngestReport, Problem
from .settings import Settings, environ_value
from .store.protocol import GraphStore, Neighbour, TextHit
from .web import load as load_web
from .web import names_a_url

if TYPE_CHECKING:
    from .analytics.lookup import Analytics
    from .analytics.run import AnalyticsReport
    from .ingest.pipeline import Ingestor, TextItem
    from .llm.estimate import IngestEstimate
    from .modes.answer import Answer
    from .retrieval.answerability.self_calibrate import SelfCalibration
    from .retrieval.engine import Engine
    from .retrieval.result import RetrievalResult
    from .retrieval.speculative import SpeculativeQueries
    from .web.crawl import CrawlReport

OnOutcome = Callable[[FileOutcome], None]
_R = TypeVar("_R")


def open_store(location: str, settings: Settings, *, read_only: bool = False) -> GraphStore:
    """SQLite for a directory; ArangoDB for an `arangodb://` / `http(s)://` URL.

    `read_only`: an SQLite atlas must already exist and is opened without schema work
    or write lock (one read-only connection per thread); writes raise `StoreError`.
    """
    if location.startswith(("arangodb://", "arango://", "http://", "https://")):
        from .store.arango import ArangoStore  # noqa: PLC0415 - optional extra

        return ArangoStore.from_url(location, evergreen_threshold=settings.similar_to_evergreen_threshold)
    from .store.sqlite import SqliteStore  # noqa: PLC0415

    return SqliteStore(location, evergreen_threshold=settings.similar_to_evergreen_threshold, read_only=read_only,
                       busy_timeout_s=settings.busy_timeout_s, max_mb=settings.atlas_max_mb,
                       ann_threshold=settings.ann_threshold,
                       ann_ef=settings.ann_ef)


class Atlas:
    """A Space-Time Graph of documents: ingest, query, answer, inspect."""

    def __init__(self, store: GraphStore, settings: Settings):
        self.store = store
        self.settings = settings
        self._ingestor: Ingestor | None = None
        self._engine: Engine | None = None
        self._speculative: SpeculativeQueries | None = None

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def open(cls, location: str | Path | None = None, settings: Settings | None = None, *, read_only: bool = False,
             **overrides: Any) -> Atlas:
        """Open (or create) the atlas at `location`; `read_only=True` opens an existing one for reading only.

        Default: `OHARA_ATLAS`; else `ARANGO_URL` when set (ArangoDB); else `./atlas` (SQLite).
        """
        settings = (settings or Settings.from_env()).override(**overrides)
        if location is None:
            explicit = environ_value("OHARA_ATLAS") is not None or settings.atlas != Settings.atlas
            location = settings.atlas if explicit or not settings.arango_url else settings.arango_url
        location = str(location)
        settings = settings.override(atlas=location)
        return cls(open_store(location, settings, read_only=read_only), settings)

    @property
    def location(self) -> str:
        return self.store.location

    def close(self) -> None:
        extractor: Any = self._ingestor.__dict__.get("extractor") if self._ingestor is not None else None
        close = getattr(extractor, "close", None)
        if close is not None:
            close()  # the NER cache's connection (its WAL folded into ner_cache.db)
        self.store.close()

    def __enter__(self) -> Atlas:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Atlas({self.location!r})"

    # ------------------------------------------------------------------ ingest
    @property
    def ingestor(self) -> Ingestor:
        if self._ingestor is None:
            from .ingest.factory import make_ingestor  # noqa: PLC0415

            self._ingestor = make_ingestor(self.store, self.settings)
        return self._ingestor

    def ingest(self, paths: str | Path | Iterable[str | Path], *, force: bool = False, progress: bool = True,
               on_outcome: OnOutcome | None = None, follow_links: bool = False,
               roots: Iterable[str | Path] = ()) -> IngestReport:
        """Ingest files, directories (recursively) and http(s) URLs; returns one outcome per file or URL.

        Other `scheme:` strings that name no existing path (file:, data:, ...) are refused as URLs.

        Links inside a directory that point outside it are skipped unless `follow_links`.
        `roots`: folders every file read must lie in, checked on the file opened, and hard links refused
        (what `ohara mcp --allow-ingest --ingest-root DIR` ingests with).
        """
        if isinstance(paths, (str, Path)):
            paths = [paths]
        items = list(paths)
        urls = [p for p in items if names_a_url(p)]
        files = [p for p in items if not names_a_url(p)]
        confined = [Path(r).resolve() for r in roots]
        try:
            report = self.ingestor.ingest(files, force=force, progress=progress, on_outcome=on_outcome,
                                          follow_links=follow_links, roots=confined) if files or not urls \
                else IngestReport()
        except IngestInterrupted as e:
            raise IngestInterrupted(e.done, e.total + len(urls)) from None
        if urls:
            fetch, web_ingest = load_web("fetch"), load_web("ingest")
            before = len(report.outcomes)
            try:
                with fetch.Fetcher(self.settings) as fetcher:
                    for url in urls:
                        outcome = web_ingest.ingest_url(self.ingestor, fetcher, str(url), force=force)
                        report.outcomes.append(outcome)
                        if on_outcome:
                            on_outcome(outcome)
            except KeyboardInterrupt:  # as in the files' loop: each page is stored whole or not at all
                raise IngestInterrupted(len(report.outcomes), before + len(urls)) from None
        self._after_ingest()
        self._relink_synonyms(report)
        self._auto_calibrate(report)
        return self._with_llm_notes(report)

    def ingest_text(self, text: str, *, title: str, source_id: str, metadata: dict[str, Any] | None = None,
                    force: bool = False) -> FileOutcome:
        """Ingest Markdown without a file (evaluation corpora, notebooks)."""
        outcome = self.ingestor.ingest_text(text, title=title, source_id=source_id, metadata=metadata, force=force)
        self._after_ingest()
        return outcome

    def ingest_texts(self, items: Iterable[TextItem | dict[str, Any]], *, force: bool = False, progress: bool = True,
                     batch_size: int = 64) -> IngestReport:
        """Ingest many texts (`TextItem(text, title, source_id, metadata)` or dicts with those keys) in batches."""
        from .ingest.pipeline import TextItem  # noqa: PLC0415

        texts = [i if isinstance(i, TextItem) else TextItem(**i) for i in items]
        report = self.ingestor.ingest_texts(texts, force=force, progress=progress, batch_size=batch_size)
        self._after_ingest()
        self._relink_synonyms(report)
        self._auto_calibrate(report)
        return self._with_llm_notes(report)

    def self_calibrate(self) -> SelfCalibration:
        """Calibrate abstention on the atlas itself, without labels: ask its probe questions and their
        unanswerable twins, store the profile, report the threshold it gives (`ohara calibrate --auto`)."""
        from .retrieval.answerability.self_calibrate import self_calibrate  # noqa: PLC0415

        found = self_calibrate(self.engine, self.store, self.settings)
        self._after_write()
        return found

    def _auto_calibrate(self, report: IngestReport) -> None:
        """After a batch ingest that changed an atlas of at least `auto_calibrate_min_paragraphs`."""
        s = self.settings
        changed = any(o.wrote for o in report.outcomes)
        if not (changed and s.auto_calibrate and s.abstain == "model" and s.abstain_probes > 0):
            return
        if int(self.store.stats().get("paragraphs", 0) or 0) >= s.auto_calibrate_min_paragraphs:
            report.calibration = self.self_calibrate()

    def _relink_synonyms(self, report: IngestReport) -> None:
        """New entities get their SYNONYM_OF edges after a batch ingest that embeds (one pass over every name)."""
        changed = any(o.wrote for o in report.outcomes)
        if changed and self.ingestor.embedder is not None:
            self.link_synonyms()

    def _with_llm_notes(self, report: IngestReport) -> IngestReport:
        """Say what the run's LLM budget left pending, and which LLM steps offline ingest skipped."""
        from .llm.ingest_notes import llm_notes  # noqa: PLC0415

        report.llm_budget, report.notes = llm_notes(self.ingestor, self.settings, report.notes)
        return report

    def estimate_ingest(self, paths: str | Path | Iterable[str | Path], *, force: bool = False) -> IngestEstimate:
        """What ingesting `paths` would send to the LLM and cost, per file and in total; sends nothing.

        Chunking and prompts are those of a real run; see `ohara_lab.llm.estimate`.
        """
        from .llm.estimate import estimate_ingest  # noqa: PLC0415

        if isinstance(paths, (str, Path)):
            paths = [paths]
        return estimate_ingest(self.store, self.settings, paths, force=force)

    # ------------------------------------------------------------------ web
    def crawl(self, url: str, *, on_page: Callable[..., Any] | None = None, **overrides: Any) -> CrawlReport:
        """Crawl from `url` politely into the atlas's `crawl` pages; returns a `CrawlReport`.

        Overrides: crawl_depth, crawl_max_pages, crawl_delay_s, crawl_same_host, web_allow_private, ...
        A crawl killed midway resumes when called again; a finished one re-crawls only what changed.
        """
        crawler = load_web("crawl").Crawler(self.store, self.settings.override(**overrides), on_page=on_page)
        try:
            report: CrawlReport = crawler.crawl(url)
            return report
        finally:
            crawler.fetcher.close()

    def ingest_crawl(self, domain: str | None = None, *, force: bool = False,
                     on_outcome: OnOutcome | None = None) -> IngestReport:
        """Ingest one document per crawled host (hosts under `domain`, or all), replacing earlier bundles."""
        outcomes = load_web("bundle").ingest_bundles(self.ingestor, self.store, domain, force=force)
        for outcome in outcomes:
            if on_outcome:
                on_outcome(outcome)
        self._after_ingest()
        return self._with_llm_notes(IngestReport(outcomes))

    def capture(self, url: str, to: str = "html", out: str | Path | None = None, *, overwrite: bool = False,
                **overrides: Any) -> Path:
        """Save `url` as headless Chromium renders it (to = html | pdf | png); returns the file written."""
        return load_web("capture").capture(url, to, out, settings=self.settings.override(**overrides),
                                           overwrite=overwrite)

    def remove(self, document_ids: Iterable[str]) -> int:
        """Delete documents with their nodes and edges; returns how many existed."""
        n = sum(self.store.delete_document(document_id(d))
                for d in document_ids)
        self._after_write()
        return n

    def _after_ingest(self) -> None:
        if self.settings.auto_entity_dedup:
            from .entities.curation import dedup  # noqa: PLC0415

            dedup(self.store)
        self._after_write()

    def _after_write(self) -> None:
        self.store.sync_vector_index()  # the HNSW graphs beside the atlas follow its vectors (issue 14)
        if self._speculative is not None:
            self._speculative.invalidate()

    # ------------------------------------------------------------------ inspect
    def stats(self) -> dict[str, Any]:
        """Counts of nodes and edges by relation, partial and needs-review documents."""
        out = self.store.stats()
        out["built_with"] = self.store.get_meta("built_with", {})
        usage = self.store.get_meta("llm_usage")
        if usage:
            out["llm_usage"] = usage
        out["entity_noise"] = self._entity_noise()
        directory = self.store.directory
        if directory is not None:
            from .entities.ner_cache import cache_stats  # noqa: PLC0415

            ner_cache = cache_stats(directory)
            if ner_cache is not None:
                out["ner_cache"] = ner_cache
        return out

    def _entity_noise(self) -> dict[str, int]:
        """Mentions each noise rule dropped or retyped, summed over the documents (each records its own at
        ingest, so re-ingesting a document replaces its counts instead of adding to them)."""
        from .entities.noise import NoiseRules  # noqa: PLC0415

        total = dict.fromkeys(NoiseRules.load().names, 0)
        for doc in self.store.list_documents():
            for rule, n in ((doc.meta or {}).get("entity_noise") or {}).items():
                total[rule] = total.get(rule, 0) + int(n)
        return total

    def check(self, *, fix: bool = False) -> list[Problem]:
        """Integrity problems (empty when the atlas is sound); `fix=True` repairs what is mechanical first.

        With `fix`, the list starts with one `severity="fixed"` entry per repair made.
        """
        from .entities.changeset import rederive  # noqa: PLC0415
        from .repair import check_atlas  # noqa: PLC0415

        problems = check_atlas(self, fix=fix, rederive=rederive)
        if fix:
            self._after_write()
        return problems

    def documents(self) -> list[Document]:
        return self.store.list_documents()

    # ------------------------------------------------------------------ reading (what serve/ and the widgets read)
    def snapshot(self) -> AbstractContextManager[Any]:
        """Several reads from one committed state (a read transaction; joins one already open)."""
        return self.store.snapshot()

    def document(self, document_id: str) -> DocumentView | None:
        """A document's record and its sections, paragraphs and tables in reading order (one snapshot)."""
        with self.store.snapshot():
            doc = self.store.get_document(document_id)
            if doc is None:
                return None
            nodes = self.store.document_nodes(document_id)
        return DocumentView(doc, nodes["sections"], nodes["paragraphs"], nodes["tables"])

    def nodes(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Node rows (any collection) by id, as plain dicts with a `collection` key; absent ids are left out."""
        return self.store.get_nodes(ids)

    def edges(self, *, from_ids: Iterable[str] | None = None, to_ids: Iterable[str] | None = None,
              relations: Iterable[str] | None = None) -> list[Edge]:
        """Stored edges leaving `from_ids` / reaching `to_ids`, of the given relations (None: any)."""
        return self.store.edges(from_ids=from_ids, to_ids=to_ids, relations=relations)

    def neighbours(self, node_id: str, depth: int) -> list[Neighbour]:
        """A node's structural neighbourhood within `depth` hops (phase 3's traversal); a document, which the
        traversal never expands, lists its top sections (HAS_CHILD, one hop)."""
        if in_collection(node_id, DOCUMENTS):
            return [Neighbour(node_id, e.to_id, 1, e.relation)
                    for e in self.store.edges(from_ids=[node_id], relations=[HAS_CHILD])]
        return self.store.structural_neighbours([node_id], depth)

    def text_search(self, tokens: Sequence[str], limit: int) -> list[TextHit]:
        """BM25 over paragraph content, section titles and table markdown (any token matches), best first."""
        return self.store.bm25_search(tokens, limit)

    def feedback_log(self) -> list[dict[str, Any]]:
        """Every thumbs up/down stored on a result, oldest first."""
        return self.store.feedback()

    # ------------------------------------------------------------------ retrieval
    @property
    def engine(self) -> Engine:
        """The retrieval engine, with the LLM steps registered and the speculative cache composed around it."""
        if self._engine is None:
            from .retrieval.engine import Engine  # noqa: PLC0415
            from .retrieval.llm_steps import register_llm_steps  # noqa: PLC0415
            from .retrieval.speculative import SpeculativeQueries  # noqa: PLC0415

            engine = Engine(self.store, self.settings)
            register_llm_steps(engine, self.settings)
            self._speculative = SpeculativeQueries(engine)  # registers its pre-warm last
            self._engine = engine
        return self._engine

    @property
    def speculative(self) -> SpeculativeQueries:
        """`engine.query` behind the speculative pre-warm cache (what standard queries go through)."""
        _ = self.engine
        assert self._speculative is not None  # made with the engine
        return self._speculative

    def query(self, text: str, *, mode: str = "standard", session_history: list[dict[str, str]] | None = None,
              **overrides: Any) -> RetrievalResult:
        """Retrieve with every phase; returns a `RetrievalResult` whose hits explain themselves.

        `mode`: standard | cor (Chain-of-Retrieval) | agent (agentic tool dispatch).
        `session_history`: earlier turns `[{"role": "user"|"assistant", "content": ...}]`.
        Any setting can be overridden per call (`bm25_weight=0.6`, `result_limit=10`, ...).
        """
        if mode == "standard":
            return self.speculative.query(text, session_history=session_history, **overrides)
        from .modes import run_mode  # noqa: PLC0415

        return run_mode(self, text, mode, session_history=session_history, **overrides)

    def answer(self, question: str, **overrides: Any) -> Answer:
        """Answer from the Principal tier with `[n]` citations, or say the evidence is insufficient."""
        from .modes.answer import answer  # noqa: PLC0415

        return answer(self, question, **overrides)

    def feedback(self, query: str, node_id: str, rank: int | None, signal: str) -> None:
        """Store a thumbs up/down on a result (`signal` = positive | negative, `rank` 1-based or None)."""
        if signal not in ("positive", "negative"):
            raise UsageError(f"signal must be 'positive' or 'negative', got {signal!r}")
        if rank is not None and rank < 1:
            raise UsageError(f"rank is 1-based, got {rank}")
        if not self.store.get_nodes([node_id]):  # a mistyped id would count against no result
            raise UsageError(f"no node {node_id!r} in the atlas")
        self.store.add_feedback(query, query_hash(query), node_id, rank, signal)

    def embed(self, *, embedder: str | None = None, progress: bool = True) -> dict[str, Any]:
        """Backfill vectors for nodes that have none for the configured embedder, then relink SYNONYM_OF."""
        from .embed.backfill import backfill  # noqa: PLC0415

        settings = self.settings.override(**({"embedder": embedder} if embedder else {}))
        out = backfill(self.store, settings, progress=progress)
        out["synonymy"] = self.link_synonyms(settings)
        self._after_write()
        return out

    def link_synonyms(self, settings: Settings | None = None) -> dict[str, Any] | None:
        """Recompute SYNONYM_OF between entities whose names embed within `synonymy_threshold` (None: no embedder)."""
        from .embed.registry import get_embedder  # noqa: PLC0415
        from .embed.synonymy import link_synonyms  # noqa: PLC0415

        s = settings or self.settings
        embedder = get_embedder(s.embedder, s.embed_batch_size, s)
        if embedder is None:
            return None
        info = link_synonyms(self.store, embedder, s.synonymy_threshold, s.synonymy_neighbours)
        self._after_write()
        return info

    def export_wiki(self, directory: str | Path) -> dict[str, int]:
        """Write a Markdown wiki (documents, sections, entities) for Obsidian/Quartz."""
        from .wiki import export_wiki  # noqa: PLC0415

        return export_wiki(self.store, Path(directory))

    # ------------------------------------------------------------------ graph analytics
    def analyze(self, *, method: str | None = None, seed: int | None = None) -> AnalyticsReport:
        """Communities, paragraph clusters, Adamic–Adar links and knowledge gaps, stored in the atlas.

        Returns an `AnalyticsReport` (counts, seconds per part, modularity); `ohara check`
        names the results stale once the atlas changes.
        """
        from .analytics.run import analyze  # noqa: PLC0415

        return analyze(self.store, method=method or self.settings.community_method,
                       seed=self.settings.analytics_seed if seed is None else seed)

    @property
    def analytics(self) -> Analytics:
        """The stored analytics (`ohara_lab.analytics.lookup.Analytics`), read lazily."""
        from .analytics.lookup import Analytics  # noqa: PLC0415

        return Analytics(self.store)

    # ------------------------------------------------------------------ entity curation
    def entities(self, search: str | None = None, *, kind: str | None = None, limit: int = 50) -> list[Entity]:
        """Entities whose name, alias or slug contains `search`, most mentioned first."""
        from .entities.listing import search as find  # noqa: PLC0415

        return find(self.store, search, kind=kind, limit=limit)

    def entity(self, slug: str) -> dict[str, Any] | None:
        """One entity: record, strongest co-occurring entities, mentions, community, log entries."""
        from .entities.listing import show  # noqa: PLC0415

        return show(self.store, slug)

    def merge_entities(self, sources: Iterable[str], into: str, *, reason: str = "",
                       actor: str | None = None) -> EntityOp:
        """Fold entities into `into` (mentions, aliases, counts); logged in `entity_merges`, undoable."""
        from .entities.curation import merge  # noqa: PLC0415

        return self._curated(merge(self.store, list(sources), into, actor=actor or _actor(), reason=reason))

    def split_entity(self, slug: str, new_name: str, *, nodes: Iterable[str] = (), documents: Iterable[str] = (),
                     reason: str = "", actor: str | None = None) -> EntityOp:
        """Move the mentions of `slug` in some nodes or documents to an entity named `new_name`."""
        from .entities.curation import split  # noqa: PLC0415

        return self._curated(split(self.store, slug, new_name, nodes=nodes, documents=documents,
                                   actor=actor or _actor(), reason=reason))

    def rename_entity(self, slug: str, new_name: str, *, reason: str = "", actor: str | None = None) -> EntityOp:
        """Give an entity a new canonical name; the old name stays as an alias."""
        from .entities.curation import rename  # noqa: PLC0415

        return self._curated(rename(self.store, slug, new_name, actor=actor or _actor(), reason=reason))

    def clean_entities(self, slugs: Iterable[str] | None = None, *, dry_run: bool = False,
                       reason: str = "noise cleanup", actor: str | None = None) -> EntityOp | dict[str, str] | None:
        """Remove noise entities (opaque identifiers, names without letters) or the given ones; None when
        there is nothing to remove.

        `dry_run=True` returns `{slug: reason}` of what would go, changing nothing.
        """
        from .entities.curation import clean, noise  # noqa: PLC0415

        if dry_run:
            found = noise(self.store)
            return found if slugs is None else {s: found.get(s, "named") for s in slugs}
        return self._curated(clean(self.store, slugs=slugs, actor=actor or _actor(), reason=reason))

    def dedup_entities(self, *, actor: str | None = None) -> list[EntityOp]:
        """Merge entities sharing a normalised name into the most mentioned one (spec §2.12), one log step each."""
        from .entities.curation import dedup  # noqa: PLC0415

        return self._curated(dedup(self.store, actor=actor or _actor()))

    def undo_entities(self, op_id: int | None = None, *, actor: str | None = None) -> EntityOp:
        """Undo one curation step (default: the latest active one), restoring what it replaced."""
        from .entities.curation import undo  # noqa: PLC0415

        return self._curated(undo(self.store, op_id, actor=actor or _actor()))

    def entity_log(self) -> list[EntityOp]:
        """The `entity_merges` log, oldest first."""
        return self.store.entity_ops()

    def _curated(self, result: _R) -> _R:
        self._after_write()
        return result

    def export_json(self, path: str | Path) -> dict[str, int]:
        """Write every collection and edge to one JSON file."""
        from .wiki import export_json  # noqa: PLC0415

        return export_json(self.store, Path(path))


def _actor() -> str:
    """Who a curation step is logged as: the operating-system user."""
    import getpass  # noqa: PLC0415

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
