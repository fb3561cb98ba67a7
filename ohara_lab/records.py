"""Record types of the Space-Time Graph and of ingest.

Field names follow the original system's data model (spec §1) so its users find
what they expect; ids are `collection/key` strings in every store.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timezone
from typing import Any, Final, TypeVar

from .ids import split_id


def utc_now() -> str:
    """The timestamp every record carries (upload, first seen, feedback, usage): UTC, whole seconds, ISO 8601."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()

ENTITY_TYPES = ("PERSON", "ORG", "LOCATION", "DATE", "TECH", "AMOUNT", "EVENT", "CONCEPT")
DECAY_CLASSES = ("EVERGREEN", "SCHOLARLY", "CURRENT", "EPHEMERAL")
GRANULARITIES = ("day", "month", "year", "decade", "century")
SECTION_TYPES = ("Part", "Chapter", "Section", "Subsection")
TEXT_NODE_TYPES = (
    "Paragraph", "ListItem", "Figure", "Table", "Title", "Abstract", "Preface", "Foreword",
    "Appendix", "Glossary", "Index", "Authors", "Bibliography", "Code",
)
PARTS = ("front_matter", "body_matter", "back_matter")

# Edge relations: the one home of their names (stored as these exact strings; `tests/test_names.py`
# fails on a relation spelled as a literal anywhere else). The first seven are the paper's core relations.
HAS_CHILD: Final = "HAS_CHILD"
NEXT_SIBLING: Final = "NEXT_SIBLING"
BELONGS_TO: Final = "BELONGS_TO"
MENTIONS: Final = "MENTIONS"
RELATED_TO: Final = "RELATED_TO"  # entity co-occurrence
SIMILAR_TO: Final = "SIMILAR_TO"  # document similarity (shared entities)
TOC_REF: Final = "TOC_REF"
NEXT_PARA: Final = "NEXT_PARA"
ADJACENT_TO: Final = "ADJACENT_TO"
CONTRADICTS: Final = "CONTRADICTS"
PRECEDES: Final = "PRECEDES"
ANSWERS_SAME: Final = "ANSWERS_SAME"
SYNONYM_OF: Final = "SYNONYM_OF"  # entity names that embed close together (written by `ohara embed`)
RELATIONS = (
    HAS_CHILD, NEXT_SIBLING, BELONGS_TO, MENTIONS, RELATED_TO, SIMILAR_TO, TOC_REF,
    NEXT_PARA, ADJACENT_TO, CONTRADICTS, PRECEDES, ANSWERS_SAME, SYNONYM_OF,
)
# Edges the linker writes between documents (their endpoints are documents, their owner is none).
LINK_RELATIONS = (SIMILAR_TO, CONTRADICTS, PRECEDES)

R = TypeVar("R")


_FIELDS: dict[type, tuple[tuple[str, ...], frozenset[str]]] = {}


def _field_names(cls: type) -> tuple[tuple[str, ...], frozenset[str]]:
    """A record class's field names, in order and as a set, read once (`dataclasses.fields` walks the class
    on every call, and the write path asks ~100k times an ingest)."""
    known = _FIELDS.get(cls)
    if known is None:
        names = tuple(f.name for f in fields(cls))
        known = _FIELDS[cls] = (names, frozenset(names))
    return known


def from_dict(cls: type[R], data: dict[str, Any]) -> R:
    """Build a record from a dict, ignoring keys the record does not know (forward compatibility)."""
    names = _field_names(cls)[1]
    return cls(**{k: v for k, v in data.items() if k in names})


def fields_dict(record: Any) -> dict[str, Any]:
    """A flat record's fields as a dict without `asdict`'s deep copy: the same JSON, several times faster
    (records hold only JSON values: str, numbers, lists and dicts of them)."""
    return {name: getattr(record, name) for name in _field_names(type(record))[0]}


def effective_decay_class(decay_class: str, indegree: int, evergreen_threshold: int) -> str:
    """A document's decay class as retrieval reads it: EVERGREEN once `evergreen_threshold` later documents
    link to it with SIMILAR_TO (spec §2.10-8), else its own. A derived column the stores keep beside the
    in-degree they count."""
    if evergreen_threshold > 0 and indegree >= evergreen_threshold:
        return "EVERGREEN"
    return decay_class


class Record:
    """Mixin: plain-dict view of a dataclass record."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]  # every subclass is a dataclass


# --------------------------------------------------------------------------- ingest inputs


@dataclass
class ParsedDocument(Record):
    """A file turned into Markdown, with what the parser learnt on the way."""

    path: str
    markdown: str
    parser: str  # e.g. "markdown", "pypdfium2+pypdf-outline", "mammoth"
    title: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)  # authors, date, language, ...
    page_count: int | None = None
    source_url: str | None = None  # where the bytes were fetched from (web ingest, crawl bundles)


@dataclass
class Chunk(Record):
    """A heading- and size-aware slice of a document's Markdown (spec §2.5)."""

    index: int
    text: str
    heading: str | None = None
    heading_level: int | None = None
    start_page: int = 1
    end_page: int = 1
    page_source: str = "virtual"  # physical | virtual
    line_pages: list[int] = field(default_factory=list)  # page of every line of `text`


@dataclass
class Mention(Record):
    """A candidate entity found in one node, before the atlas-level merge."""

    name: str
    type: str
    canonical: str = ""
    confidence: float = 1.0
    context: str = ""
    aliases: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.canonical:
            self.canonical = self.name


@dataclass
class Temporal(Record):
    """Document-level time: publication, coverage, granularity, decay class (spec §1.1)."""

    published_date: str | None = None  # YYYY-MM-DD | YYYY-MM | YYYY
    coverage_start: str | None = None
    coverage_end: str | None = None
    granularity: str = "year"
    confidence: float = 0.0
    decay_class: str = "SCHOLARLY"
    source: str = "none"  # metadata | text | filename | none


# --------------------------------------------------------------------------- graph nodes


@dataclass
class Document(Record):
    id: str
    title: str
    source_file: str
    file_hash: str
    origin_path: str = ""
    file_size: int = 0
    parser_engine: str = ""
    upload_time: str = ""
    published_date: str | None = None
    temporal_coverage_start: str | None = None
    temporal_coverage_end: str | None = None
    temporal_granularity: str = "year"
    temporal_confidence: float = 0.0
    temporal_needs_review: bool = False
    decay_class: str = "SCHOLARLY"
    effective_decay_class: str = "SCHOLARLY"
    similar_to_indegree: int = 0
    toc_source: str | None = None
    toc_entries: list[dict[str, Any]] = field(default_factory=list)
    glossary_entries: list[dict[str, Any]] = field(default_factory=list)
    ingestion_status: str = "complete"  # complete | partial | failed
    ingestion_error: str | None = None
    total_chunks: int = 0
    completed_chunks: int = 0
    structure_needs_review: bool = False
    sumo_tags: list[str] = field(default_factory=list)
    entity_slugs: list[str] = field(default_factory=list)
    entity_count: int = 0
    description: str = ""
    meta: dict[str, Any] = field(default_factory=dict)  # authors, journal, doi, extractor, ...
    token_usage: dict[str, Any] = field(default_factory=dict)
    source_url: str | None = None  # the URL (or crawled host) a web document came from

    @property
    def key(self) -> str:
        return split_id(self.id)[1]


@dataclass
class DocumentView(Record):
    """A stored document as a reader sees it: its record and its node rows in reading order
    (`Atlas.document`; the rows are the store's plain dicts, with a `collection` key)."""

    document: Document
    sections: list[dict[str, Any]] = field(default_factory=list)
    paragraphs: list[dict[str, Any]] = field(default_factory=list)
    tables: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Section(Record):
    id: str
    document_id: str
    title: str
    level: int
    node_type: str = "Section"
    page: int | None = None
    page_source: str = "virtual"
    parent_section_id: str | None = None
    doc_position: int = 0
    part: str = "body_matter"
    summary: str | None = None
    sumo_tags: list[str] = field(default_factory=list)


@dataclass
class Paragraph(Record):
    """Every text-like node: Paragraph, ListItem, Figure, Abstract, Authors, Bibliography, ..."""

    id: str
    document_id: str
    content: str
    section_id: str | None = None
    node_type: str = "Paragraph"
    part: str = "body_matter"
    page: int | None = None
    page_source: str = "virtual"
    doc_position: int = 0
    sumo_tags: list[str] = field(default_factory=list)
    sumo_candidate_tags_raw: list[str] = field(default_factory=list)
    sumo_resolved_map: dict[str, str] = field(default_factory=dict)
    entity_slugs: list[str] = field(default_factory=list)
    entity_types: list[str] = field(default_factory=list)
    contextual_prefix: str | None = None
    is_latex: bool = False
    llm_pending: bool = False
    llm_error: str | None = None


@dataclass
class Table(Record):
    id: str
    document_id: str
    matrix_data: list[list[str]]
    markdown_representation: str
    section_id: str | None = None
    node_type: str = "Table"
    caption: str | None = None
    part: str = "body_matter"
    page: int | None = None
    doc_position: int = 0
    sumo_tags: list[str] = field(default_factory=list)
    entity_slugs: list[str] = field(default_factory=list)
    entity_types: list[str] = field(default_factory=list)


@dataclass
class Entity(Record):
    id: str
    slug: str
    name: str
    norm_key: str
    type: str
    aliases: list[str] = field(default_factory=list)
    description: str | None = None
    document_ids: list[str] = field(default_factory=list)
    mention_count: int = 0
    first_seen: str = ""


@dataclass
class Edge(Record):
    from_id: str
    to_id: str
    relation: str
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass
class Question(Record):
    """A short question a paragraph answers (spec §2.13 ANSWERS_SAME); `norm` is what paragraphs share."""

    node_id: str
    text: str
    norm: str


@dataclass
class DocumentGraph(Record):
    """Everything one document contributes to the atlas, written in one transaction.

    `entities` holds the entities its nodes mention (merged into the atlas by
    slug/norm_key on write); `edges` holds only edges internal to the document
    (structure, MENTIONS, TOC_REF). RELATED_TO counts, SIMILAR_TO links and the
    ANSWERS_SAME edges of shared `questions` are derived by the store inside the same
    transaction.
    """

    document: Document
    sections: list[Section] = field(default_factory=list)
    paragraphs: list[Paragraph] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    vectors: dict[str, Any] = field(default_factory=dict)  # node id -> float32 vector
    vector_model: str | None = None
    questions: list[Question] = field(default_factory=list)  # ANSWERS_SAME: the store links shared ones

    def node_ids(self) -> list[str]:
        ids = [self.document.id]
        ids += [s.id for s in self.sections]
        ids += [p.id for p in self.paragraphs]
        ids += [t.id for t in self.tables]
        return ids


# --------------------------------------------------------------------------- web crawl


CRAWL_STATES = ("queued", "fetched", "unchanged", "redirected", "failed", "disallowed")


@dataclass
class CrawlPage(Record):
    """One URL a crawl has queued or visited (spec §1.1 `crawl`), kept so a crawl resumes and re-crawls cheaply.

    `state`: queued (in the frontier) | fetched (new or changed body) | unchanged
    (304 or the same hash as before) | redirected (the body is kept under the
    final URL, the one link) | failed | disallowed (robots.txt).
    """

    url: str  # canonical: fragment dropped, query kept
    host: str  # lower-case host name, no port
    state: str = "queued"
    depth: int = 0
    via: str | None = None  # the page that linked here (None for a start URL)
    run: int = 0  # the crawl run that last queued or visited this page
    status: int | None = None  # HTTP status of the last fetch
    content_type: str | None = None
    fetched_at: str | None = None
    changed_at: str | None = None  # when the body last differed from the one before
    content_hash: str | None = None  # SHA-256 of the body bytes
    etag: str | None = None
    last_modified: str | None = None
    title: str | None = None
    markdown: str | None = None  # main content (trafilatura) of an HTML page
    links: list[str] = field(default_factory=list)  # canonical same-scope links found on the page
    error: str | None = None


# --------------------------------------------------------------------------- outcomes


@dataclass
class FileOutcome(Record):
    """What happened to one input file."""

    path: str
    status: str  # ingested | skipped | completed | replaced | failed
    document_id: str | None = None
    reason: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    timings_s: dict[str, float] = field(default_factory=dict)

    @property
    def wrote(self) -> bool:
        """This file's document was written to the atlas (new, replacing another, or completing one)."""
        return self.status in ("ingested", "completed", "replaced")


@dataclass
class IngestReport(Record):
    outcomes: list[FileOutcome] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the run left undone and why (budget, skipped steps)
    llm_budget: dict[str, Any] | None = None  # OHARA_LLM_BUDGET_USD: budget, spent, refused calls, reached
    calibration: Any = None  # the self-calibration the ingest ended with (`Atlas.self_calibrate`), if it ran

    @property
    def failed(self) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    @property
    def ok(self) -> bool:
        return not self.failed

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for o in self.outcomes:
            out[o.status] = out.get(o.status, 0) + 1
        return out

    def timings(self) -> dict[str, float]:
        """Seconds per ingest stage, summed over files."""
        total: dict[str, float] = {}
        for o in self.outcomes:
            for stage, secs in o.timings_s.items():
                total[stage] = total.get(stage, 0.0) + secs
        return total


@dataclass
class Problem(Record):
    """One finding of `atlas.check()`."""

    code: str  # DANGLING_EDGE, ORPHANED_NODE, FTS_MISMATCH, DUPLICATE_EDGE, ...
    severity: str  # error | warning
    detail: str


# --------------------------------------------------------------------------- entity curation

ENTITY_OPS = ("merge", "split", "rename", "clean", "dedup")


@dataclass
class NodeEntities(Record):
    """The entity list of one paragraph or table, as curation reads and rewrites it."""

    node_id: str
    document_id: str
    slugs: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    mention: dict[str, Any] = field(default_factory=dict)  # attributes of its MENTIONS edges


@dataclass
class EntityOp(Record):
    """One entry of the `entity_merges` log: who changed the entity layer, when, why, and what it replaced."""

    op: str  # merge | split | rename | clean | dedup
    actor: str
    reason: str = ""
    target: str | None = None  # surviving or new slug (None for clean)
    sources: list[str] = field(default_factory=list)  # slugs the operation took mentions from
    before: dict[str, Any] = field(default_factory=dict)  # {"entities": [...], "nodes": [...]}: enough to undo
    id: int = 0  # assigned by the store
    ts: str = ""
    undone_at: str | None = None
    undone_by: str | None = None

    @property
    def active(self) -> bool:
        return self.undone_at is None


@dataclass
class EntityChange:
    """What one curation step decides: the entity records to (re)write and every listed node's new entity list.

    `ohara_lab.entities.changeset` derives what they imply (MENTIONS, co-occurrence, names, document
    rollups, the RELATED_TO and entity counts to re-derive) and the store persists it all in one
    transaction. `routes` send future mentions of a slug elsewhere at ingest (`node_id` '' = every
    node; `to_slug` None = drop).
    """

    op: EntityOp | None = None  # appended to the log
    undo: int | None = None  # marks this op undone and drops its routes
    actor: str = ""  # who undoes it
    entities: list[Entity] = field(default_factory=list)
    nodes: list[NodeEntities] = field(default_factory=list)
    routes: list[tuple[str, str, str | None]] = field(default_factory=list)  # (node_id | '', from_slug, to_slug)
    links_remove: list[Edge] = field(default_factory=list)  # cross-document links a re-ingest wrote under the step
    links_restore: list[Edge] = field(default_factory=list)  # and the ones it replaced
    # Atlas-level edges of the step's entities (SYNONYM_OF ...), written last, between nodes that exist:
    # the store removes an entity nobody mentions with its edges, so an undo brings them back.
    entity_edges: list[Edge] = field(default_factory=list)
