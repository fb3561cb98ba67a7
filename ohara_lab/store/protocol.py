"""The `GraphStore` protocol: everything the rest of ohara-lab asks of a database.

Only modules under `ohara_lab/store/` contain SQL or AQL. Every backend passes the
same contract suite (`tests/store/contract.py`).

Write side: a document with all its nodes and edges is written in one transaction
(present entirely or not at all) from a `WriteSet` ingest computed: the store answers
the reads it declares (`KnownState`, `EntityReads`), persists what it decided (curated
entities, rollup, tag / mention / question / co-occurrence rows, ANSWERS_SAME edges),
keeps RELATED_TO counts, and asks its `Linker` for the document's SIMILAR_TO edges
inside the same transaction, so no crash can leave a half-linked document behind.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import StoreError
from ..records import (
    ADJACENT_TO,
    BELONGS_TO,
    HAS_CHILD,
    NEXT_PARA,
    NEXT_SIBLING,
    CrawlPage,
    Document,
    DocumentGraph,
    Edge,
    Entity,
    EntityChange,
    EntityOp,
    NodeEntities,
    Problem,
)


@dataclass
class Overlap:
    """Another document sharing entities with the one being written."""

    document: Document
    entity_count: int  # size of its (filtered) entity set
    shared: list[str] = field(default_factory=list)  # shared entity slugs


class LinkContext(Protocol):
    """Read access the linker gets inside the write transaction."""

    def entity_overlap(self, slugs: Iterable[str], exclude_types: Iterable[str] = (),
                       min_jaccard: float = 0.0) -> list[Overlap]:
        """Documents (other than the one being written) sharing >=1 of `slugs`; with `min_jaccard`
        the store may skip documents whose entity count cannot reach that Jaccard."""

    def snippets(self, document_id: str, n: int = 3, min_chars: int = 50) -> list[str]:
        """The first `n` paragraphs longer than `min_chars` of a document."""


def jaccard(mine: int, theirs: int, shared: int) -> float:
    """|A ∩ B| / |A ∪ B| from the set sizes (0 for two empty sets): what SIMILAR_TO is thresholded on, and
    what `LinkContext.entity_overlap`'s `min_jaccard` filters by."""
    union = mine + theirs - shared
    return shared / union if union > 0 else 0.0


# A linker returns the SIMILAR_TO (and CONTRADICTS / PRECEDES) edges of a new document.
Linker = Callable[[DocumentGraph, LinkContext], list[Edge]]


STRUCTURAL_RELATIONS = (HAS_CHILD, NEXT_SIBLING, BELONGS_TO, NEXT_PARA, ADJACENT_TO)

# Curation routes: (node id or "", from slug) -> (to slug or None, the step that made the route).
Routes = dict[tuple[str, str], tuple[str | None, int]]

# ANSWERS_SAME candidates as the store finds them: (a, b, norm, a's wording, b's wording),
# a in the document being written, b any other paragraph asked the same question.
QuestionPair = tuple[str, str, str, str, str]


# A curation route as stored: (step id, node id or '', from slug, to slug or None).
RouteRow = tuple[int, str, str, "str | None"]


class RouteReads(Protocol):
    """The curation routes as stored, for `ohara_lab.entities.intake.collect_routes` to follow."""

    def routes_leaving(self, slugs: list[str]) -> list[RouteRow]:
        """The routes whose from slug is one of `slugs`."""

    def variant_routes(self, pairs: list[tuple[str, str]]) -> list[RouteRow]:
        """For (slug, norm_key) pairs whose slug is no entity, the routes leaving other slugs with that
        norm_key, as rows whose from slug is the pair's (a spelling variant follows them), oldest first."""


class KnownReads(RouteReads, Protocol):
    """What a document's write reads before the documents it replaces leave (`WriteSet.known_state`)."""

    def slugs_by_key(self, keys: set[str]) -> dict[str, list[str]]:
        """norm_key -> slugs of the entities with it, oldest first."""

    def slugs_routed_by_key(self, keys: set[str]) -> set[str]:
        """From slugs of the routes whose from norm_key is one of `keys`."""

    def entity_records(self, slugs: set[str]) -> dict[str, Entity]:
        """The stored records of those of `slugs` in the atlas."""


class EntityReads(RouteReads, Protocol):
    """What curating a document's incoming entities reads from the atlas, inside the write transaction
    (after the documents it replaces have left)."""

    def entity_mapping(self, entities: list[Entity]) -> dict[str, str]:
        """Incoming slug -> the existing slug with the same norm_key (atlas-level dedup)."""

    def routed_slugs(self, slugs: set[str]) -> set[str]:
        """Those of `slugs` some active curation route leaves from."""

    def entity_records(self, slugs: set[str]) -> dict[str, Entity]:
        """The stored records of those of `slugs` in the atlas."""


@dataclass
class KnownState:
    """The atlas as a write first finds it, before the documents it replaces leave (one read call)."""

    prior: dict[str, list[str]]  # norm_key -> the slugs that carry it
    known: dict[str, Entity]  # records of the entities the write may become (`WriteSet.records_wanted`)


@dataclass
class WriteRows:
    """Derived rows of one document, computed by the WriteSet from its curated graph."""

    tags: list[tuple[str, str]]  # (node id, SUMO tag)
    mentions: list[tuple[str, str, str]]  # (node id, entity slug, type)
    questions: list[tuple[str, str, str]]  # (node id, normalised question, question text)
    cooccurrence: dict[tuple[str, str], int]  # entity pair (a < b) -> nodes they share in this document
    names: list[tuple[str, str]] = field(default_factory=list)  # (norm_key, slug) of every name and alias
    new_entities: list[Entity] = field(default_factory=list)  # records the atlas does not have yet, in order
    merged_entities: list[Entity] = field(default_factory=list)  # stored records that gained aliases


class WriteSet(Protocol):
    """One document's write as ingest computed it (`ohara_lab.ingest.writeset.DocumentWriteSet`).

    The store answers the reads `known_state` declares (`KnownReads`), deletes `replaces`, lets
    `curate` bring the entities in line with the atlas, and persists `graph` and `rows` in the same transaction; the domain decisions are the
    WriteSet's, never the store's.
    """

    graph: DocumentGraph
    replaces: list[str]
    linker: Linker | None

    def known_state(self, reads: KnownReads) -> KnownState:
        """The records the write needs from the atlas as it is before the replaced documents leave."""

    def curate(self, reads: EntityReads, state: KnownState) -> dict[int, list[NodeEntities]]:
        """Route and dedup the incoming entities, roll the document up; the pre-routing lists per step."""

    def rows(self) -> WriteRows:
        """Tag, mention, question and co-occurrence rows of the curated graph."""

    def answers_same(self, pairs: list[QuestionPair]) -> list[Edge]:
        """ANSWERS_SAME edges (both ways) for the paragraphs sharing a question with this document."""


@dataclass
class CurationReads:
    """The reads a curation step's write declares (`CurationStep.reads`)."""

    documents: list[str] | None  # whose entity lists and co-occurrence pairs (None: every document)
    slugs: list[str] = field(default_factory=list)  # whose norm_keys
    every_slug: bool = False  # and every slug of a record or a mention


@dataclass
class CurationState:
    """What a curation step's write reads from the atlas, filled by the store in one call
    (`GraphStore.curation_state`) inside the step's transaction."""

    documents: list[str]  # the documents asked for (all the atlas holds when none were named), in order
    present: set[str]  # of those, the ones the atlas holds
    lists: dict[str, list[tuple[str, list[str]]]]  # document -> (node id, entity slugs): paragraphs, then tables,
    # each in reading order (doc_position)
    pairs: dict[str, list[tuple[str, str]]]  # document -> its stored co-occurrence pairs
    norm_keys: dict[str, str]  # slug -> norm_key of the asked-for entities the atlas has
    slugs: set[str] = field(default_factory=set)  # every slug of a record or a mention, when asked for


@dataclass
class CurationWrite:
    """One curation step's write, decided in Python (`ohara_lab.entities.changeset`); a store persists it
    in one transaction and decides nothing.

    In order: the log entry (`change.op`, or `change.undo` marked undone with its routes and records
    dropped), the entity records, the nodes' new entity lists with their mention rows and MENTIONS
    edges, each document's co-occurrence rows and rollup, the RELATED_TO counts of `related` and the
    entity counts of `counted` re-derived from the rows, the links and entity edges of `change`
    (between nodes that exist), the routes.
    """

    change: EntityChange
    nodes: list[NodeEntities] = field(default_factory=list)  # new entity lists, of nodes the atlas holds
    mentions: dict[str, list[tuple[str, str, str, str]]] = field(default_factory=dict)  # node -> (node, doc, slug, type)
    names: dict[str, list[str]] = field(default_factory=dict)  # entity slug -> norm_keys of its name and aliases
    cooccurrence: dict[str, dict[tuple[str, str], int]] = field(default_factory=dict)  # document -> pair counts
    rollups: dict[str, list[str]] = field(default_factory=dict)  # document (the atlas holds) -> its entity rollup
    related: set[tuple[str, str]] = field(default_factory=set)  # pairs whose RELATED_TO count is re-derived
    counted: set[str] = field(default_factory=set)  # slugs whose mention counts are re-derived
    routes: list[tuple[str, str, str, str | None]] = field(default_factory=list)  # (node | '', from, from key, to)


class CurationStep(Protocol):
    """One curation step's write as the entity layer decides it (`ohara_lab.entities.changeset.Step`).

    Inside one transaction the store answers `reads()` (`curation_state`), hands the state to `plan`,
    and persists the `CurationWrite` it returns; the decisions are the step's, never the store's."""

    def reads(self) -> CurationReads:
        """What the write reads from the atlas."""

    def plan(self, state: CurationState) -> CurationWrite:
        """The write, decided from the atlas as `state` found it."""


@dataclass
class TagHit:
    id: str
    document_id: str
    score: float
    matched: list[str]


@dataclass
class EntityHit:
    id: str
    document_id: str
    shared: list[str]


@dataclass
class DocLink:
    """A document reached from a seed document over SIMILAR_TO edges."""

    seed: str
    document_id: str
    hops: int
    weight: float  # weight of the last edge on the best path
    verb: str | None
    summary: str | None
    path_weight: float  # product of edge weights along the path


@dataclass
class Neighbour:
    start: str
    id: str
    hops: int
    relation: str


class DuplicateDocument(StoreError):
    """Another writer stored the same file first (same content hash)."""

    def __init__(self, document_id: str):
        self.document_id = document_id
        super().__init__(f"document {document_id} is already in the atlas")


@dataclass
class TextHit:
    """A full-text (BM25) hit: higher `score` is better (FTS5's sign is flipped)."""

    id: str
    collection: str
    document_id: str
    score: float


@dataclass
class SharedQuestion:
    """A paragraph linked by ANSWERS_SAME to `seed`, and the question both answer."""

    seed: str
    id: str
    document_id: str
    question: str  # the seed's wording of the shared question
    question_norm: str


@dataclass
class PassageEntityGraph:
    """The passage–entity graph the graph walk (PPR) runs on, as plain rows.

    `mentions`: (paragraph/table id, entity slug), MENTIONS without the excluded types;
    `related`: (slug, slug, atlas-wide co-occurrence count), RELATED_TO;
    `synonyms`: (slug, slug, cosine of the entity names), SYNONYM_OF.
    """

    mentions: list[tuple[str, str]] = field(default_factory=list)
    related: list[tuple[str, str, float]] = field(default_factory=list)
    synonyms: list[tuple[str, str, float]] = field(default_factory=list)
    documents: dict[str, str] = field(default_factory=dict)  # passage id -> its document id


@runtime_checkable
class GraphStore(Protocol):
    """Storage primitives shared by the SQLite and ArangoDB backends."""

    location: str
    created: bool  # this open made the atlas (a new SQLite file); `discard` may then take it back

    @property
    def directory(self) -> Path | None:
        """The atlas's folder on this machine (caches live beside it: NER); None for a server's database."""

    # ---- write side -------------------------------------------------------
    def write(self, writeset: WriteSet) -> None:
        """Atomically delete `writeset.replaces` (document ids) and write its graph with its links."""

    def write_group(self) -> AbstractContextManager[None]:
        """Writes in this block may share one transaction until `commit_writes` (each still whole); leaving
        it commits them. A store that commits every write at once (ArangoDB) makes it a no-op."""

    def commit_writes(self) -> None:
        """Commit the writes of the open `write_group` (a no-op where every write commits at once)."""

    def delete_document(self, document_id: str) -> bool:
        """Remove a document, its nodes and every edge touching them; roll back entity counts."""

    def update_edges(self, edges: Iterable[Edge]) -> int:
        """Replace the attributes of existing edges (enrichment); returns how many matched."""

    def add_edges(self, edges: Iterable[Edge]) -> int:
        """Upsert atlas-level edges (no owning document) between existing nodes; returns how many were written."""

    def replace_edges(self, relation: str, edges: Iterable[Edge]) -> int:
        """Atomically replace every atlas-level edge of `relation` by `edges` (those between existing nodes);
        returns how many were written. Recomputed relations (SYNONYM_OF) stay idempotent this way."""

    def update_document(self, document_id: str, changes: dict[str, Any]) -> bool:
        """Patch fields of a stored document record (e.g. token usage); False when it does not exist."""

    def put_vectors(self, model: str, vectors: dict[str, np.ndarray]) -> None:
        """Store (or replace) node vectors made by `model`."""

    def delete_vectors(self, models: list[str]) -> None:
        """Drop every vector of the given models."""

    def set_meta(self, key: str, value: Any) -> None: ...

    def get_meta(self, key: str, default: Any = None) -> Any: ...

    # ---- read side --------------------------------------------------------
    def find_documents(self, *, file_hash: str | None = None, origin_path: str | None = None) -> list[Document]: ...

    def get_document(self, document_id: str) -> Document | None: ...

    def list_documents(self) -> list[Document]: ...

    def snapshot(self) -> AbstractContextManager[Any]:
        """Several reads from one committed state (a read transaction; joins one already open)."""

    def get_nodes(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Node rows (any collection) by id, as plain dicts with a `collection` key."""

    def document_nodes(self, document_id: str) -> dict[str, list[dict[str, Any]]]:
        """`{"sections": [...], "paragraphs": [...], "tables": [...]}` in reading order."""

    def get_entities(self, slugs: Iterable[str] | None = None) -> list[Entity]: ...

    def edges(self, *, from_ids: Iterable[str] | None = None, to_ids: Iterable[str] | None = None,
              relations: Iterable[str] | None = None) -> list[Edge]: ...

    def relation_degrees(self, ids: Iterable[str], relation: str) -> dict[str, int]:
        """Edges of one relation touching each node (either direction); absent nodes are left out."""

    def vector_matrix(self, model: str) -> tuple[list[str], np.ndarray]:
        """All vectors of `model`: ids and an (n, d) float32 matrix."""

    def vector_models(self) -> dict[str, int]:
        """Vector count per model."""

    def vector_search(self, model: str, query: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Top-k (node id, cosine) of `model`'s vectors, best first, ties by id; exact below
        `OHARA_ANN_THRESHOLD` vectors, approximate (HNSW, `ohara_lab.store.ann`) where a backend keeps one."""

    def sync_vector_index(self) -> None:
        """After writes: bring any approximate vector index in step with the stored vectors (may do nothing)."""

    def rebuild_vector_index(self) -> list[str]:
        """Rebuild the approximate vector indexes `check` reports (ANN_*); the models rebuilt (`check --fix`)."""

    def texts_without_vectors(self, model: str) -> list[tuple[str, str]]:
        """(id, text) of paragraphs and tables that have no vector of `model`."""

    # ---- retrieval primitives (raw scores; normalisation and fusion live in `ohara_lab.retrieval`) ----
    def bm25_search(self, tokens: Sequence[str], limit: int, *, date_from: str | None = None,
                    date_to: str | None = None, exclude_documents: Collection[str] = ()) -> list[TextHit]:
        """Phase 1: BM25 over paragraph content, section titles and table markdown (any token matches).

        A date range (day bounds) filters documents before the limit and keeps undated ones; rows of
        `exclude_documents` never take part (an "as of" query's later documents)."""

    def corpus_stats(self) -> dict[str, float]:
        """Figures about the full-text index (at least `fts_rows`, the number of indexed rows)."""

    def bm25_max_score(self, tokens: Sequence[str]) -> float:
        """The highest BM25 score any row could reach for `tokens`: Σ idf(t)·(k1 + 1) under the store's own BM25."""

    def term_document_counts(self, tokens: Sequence[str]) -> dict[str, int]:
        """token -> how many full-text rows contain it, under the full-text index's own analyser (stemming,
        case, diacritics): 0 for a token the atlas's vocabulary does not have."""

    def tag_overlap(self, tag_weights: dict[str, float], limit: int, *, types: Sequence[str] = (),
                    type_weight: float = 0.2, norm: float = 1.0) -> list[TagHit]:
        """Phase 1b: nodes scored `Σ weights of their tags / norm + type_weight·|types ∩ entity types| / |types|`."""

    def entity_pivot(self, slugs: Sequence[str], limit: int) -> list[EntityHit]:
        """Phase 2: paragraphs/tables mentioning the most of `slugs`, most shared first (ties by id)."""

    def entities_by_names(self, keys: Sequence[str]) -> dict[str, list[str]]:
        """norm_key -> slugs of entities whose name or an alias has that norm_key."""

    def entity_types(self, slugs: Sequence[str]) -> dict[str, str]:
        """slug -> entity type, for the slugs that exist."""

    def similar_documents(self, seeds: Sequence[str], depth: int, *, min_weight: float = 0.3,
                          tags: Sequence[str] = (), min_path_weight: float = 0.0) -> list[DocLink]:
        """Phase 1c / Explorer: documents within `depth` SIMILAR_TO hops of `seeds`, every hop gated
        (weight > `min_weight` or an edge tag in `tags`); one row per (seed, document), shortest then strongest,
        without the rows whose path weight is below `min_path_weight` (a store may skip reading them)."""

    def document_paragraphs_by_entities(self, document_id: str, slugs: Sequence[str], limit: int) -> list[EntityHit]:
        """A document's paragraphs/tables sharing most of `slugs` (its first paragraphs when `slugs` is empty)."""

    def structural_neighbours(self, starts: Sequence[str], depth: int,
                              relations: Sequence[str] = STRUCTURAL_RELATIONS, *,
                              include_parents: bool = True) -> list[Neighbour]:
        """Phase 3 / Integrity: nodes within `depth` outbound structural hops of `starts` (plus parent sections);
        documents are never expanded."""

    def sections_of(self, document_ids: Sequence[str]) -> list[dict[str, Any]]:
        """Section rows of the given documents in reading order (phase 0b's tree)."""

    def passage_entity_graph(self, exclude_types: Sequence[str] = ()) -> PassageEntityGraph:
        """MENTIONS (but of entities of `exclude_types`), RELATED_TO and SYNONYM_OF rows, for the graph walk."""

    def answers_same(self, ids: Iterable[str]) -> list[SharedQuestion]:
        """Paragraphs linked by ANSWERS_SAME from `ids`, with the shared question (by seed, then target id)."""

    def graph_version(self) -> int:
        """A counter that moves on every write; caches derived from the atlas (graph matrices) key on it."""

    # ---- web crawl state (`ohara crawl`) ---------------------------------------
    def put_crawl_pages(self, pages: Iterable[CrawlPage]) -> None:
        """Upsert crawl rows by URL (a crawl resumes from them and re-fetches only what changed)."""

    def crawl_pages(self, *, urls: Iterable[str] | None = None, hosts: Iterable[str] | None = None,
                    run: int | None = None, states: Iterable[str] | None = None) -> list[CrawlPage]:
        """Crawl rows, filtered by URL, host, crawl run and state."""

    # ---- entity curation (`ohara entities`, every step logged and undoable) --------
    def curation_state(self, reads: CurationReads) -> CurationState:
        """The reads a curation step's write declares, in one call: the entity lists and co-occurrence
        pairs of its documents (every document when None), its slugs' norm_keys, every slug if asked."""

    def write_curation(self, step: CurationStep) -> int:
        """Persist one curation step (merge, split, rename, clean, undo, rederive) atomically: its reads
        answered and its write planned inside the same transaction; returns its log entry's id."""

    def entity_nodes(self, *, slugs: Iterable[str] | None = None,
                     node_ids: Iterable[str] | None = None) -> list[NodeEntities]:
        """Entity lists of the paragraphs and tables mentioning any of `slugs` (or listed in `node_ids`)."""

    def entity_ops(self) -> list[EntityOp]:
        """The `entity_merges` log, oldest first (undone steps included, marked by `undone_at`)."""

    def entity_routes(self) -> list[tuple[int, str, str, str | None]]:
        """Active routes as (step id, node id or '', from slug, to slug or None)."""

    def routed_nodes(self, op_id: int) -> list[NodeEntities]:
        """Entity lists, as extracted, of nodes written after step `op_id` whose mentions it routed."""

    def routed_links(self, op_id: int) -> list[tuple[list[Edge], list[Edge]]]:
        """(links before, links after) of each document re-ingested while step `op_id` routed its mentions."""

    def routes_leaving(self, slugs: list[str]) -> list[RouteRow]:
        """The routes whose from slug is one of `slugs`."""

    def variant_routes(self, pairs: list[tuple[str, str]]) -> list[RouteRow]:
        """For (slug, norm_key) pairs whose slug is no entity, the routes leaving other slugs with that norm_key."""

    # ---- analytics (`ohara analyze`) -------------------------------------------
    def put_analytics(self, kind: str, rows: dict[str, Any], info: dict[str, Any]) -> None:
        """Replace every row of one analytics kind, and its run info, in one transaction."""

    def get_analytics(self, kind: str, keys: Iterable[str] | None = None) -> dict[str, Any]:
        """Rows of one analytics kind (all, or those with the given keys)."""

    # ---- feedback ------------------------------------------------------------
    def add_feedback(self, query: str, query_hash: str, node_id: str, rank: int | None, signal: str) -> None:
        """Store one thumbs up/down (`signal` positive | negative) on a result."""

    def feedback(self) -> list[dict[str, Any]]:
        """Every feedback row, oldest first."""

    # ---- stats and integrity -------------------------------------------------
    def stats(self) -> dict[str, Any]: ...

    def check(self) -> list[Problem]: ...

    def close(self) -> None: ...

    def discard(self) -> None:
        """Close and delete an atlas this open `created` (a first ingest that stored nothing); StoreError
        otherwise. ArangoDB databases are never created by an open, so never discarded."""
