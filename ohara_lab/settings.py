"""One `Settings` object for all configuration.

Built from the `OHARA_*` environment variables named in the original system's
specification, then overridden per call: ``settings.override(bm25_weight=0.6)``.
Every field carries a one-line help text, which the CLI (`ohara settings`) prints and
docs/settings.md is generated from (`cog -r docs/settings.md`; tests/test_docs.py fails when stale).

A `.env` file is read only when named - `OHARA_ENV_FILE`, `ohara --env-file PATH`
or `Settings.from_env(env_file=...)` - never because it happens to sit in the
working directory: a downloaded folder's `.env` could otherwise point
`OHARA_GEMINI_BASE_URL` elsewhere and send the real `GEMINI_API_KEY` with it.
The real environment wins over the file; `Settings.env_file` says which file was read.

Secret fields never print: `repr()` and `to_dict()` mask them and the passwords of
URLs (`ohara_lab.redact`).

Every numeric field declares its range (`bounds="[0, 1)"`, interval notation); one
validator (`check_value`) holds each value to it whenever a `Settings` is made: from the
environment, from keyword arguments and on every `override`. A value outside its range,
NaN, infinity, a bool or a fraction where an integer belongs is a `SettingsError` naming the
variable, the value and the range: `OHARA_PPR_DAMPING=1.5: ppr_damping must be a finite
number in [0, 1)`.
"""
from __future__ import annotations

import dataclasses
import functools
import math
import numbers
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, NamedTuple

from .errors import SettingsError
from .phase_table import PHASE, PHASE_TABLE
from .redact import MASK, redact

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Bounds:
    """The range a numeric setting accepts, written as an interval: `[0, 1)`, `(0, 86400]`, `[-1, 1000000]`."""

    low: float
    high: float
    low_open: bool
    high_open: bool

    @classmethod
    def parse(cls, text: str) -> Bounds:
        match = _INTERVAL.fullmatch(text)
        if match is None:
            raise ValueError(f"not an interval: {text!r} (write e.g. '[0, 1)')")
        low, high = float(match["low"]), float(match["high"])
        if not low <= high:
            raise ValueError(f"empty interval: {text!r}")
        return cls(low, high, match["left"] == "(", match["right"] == ")")

    def __contains__(self, value: float) -> bool:
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below

    def __str__(self) -> str:
        return f"{'(' if self.low_open else '['}{_number(self.low)}, {_number(self.high)}{')' if self.high_open else ']'}"


_INTERVAL = re.compile(r"(?P<left>[\[(])\s*(?P<low>-?(?:inf|[0-9.e+-]+))\s*,\s*(?P<high>-?(?:inf|[0-9.e+-]+))\s*"
                       r"(?P<right>[\])])")


def _number(x: float) -> str:
    return str(int(x)) if x.is_integer() else str(x)


def _opt(default: Any, help: str, env: str | None = None, secret: bool = False, bounds: str | None = None) -> Any:
    """A settings field: default value, one-line help, its environment variable, the range of a number
    (`bounds`, interval notation); secrets never print."""
    return field(default=default, repr=not secret, metadata={"help": help, "env": env, "secret": secret,
                                                             "bounds": Bounds.parse(bounds) if bounds else None})


OVERRIDE_CACHE = 64  # per Settings: the per-call override sets a process keeps (the eval matrix has ~20)
# The override caches are read and filled by a server's request threads at once: one lock for all of them
# (held for a dict lookup or insert, never while a Settings is built).
_OVERRIDE_LOCK = threading.Lock()


# Settings are grouped by concern: one frozen dataclass per concern, which `Settings` inherits, so
# `settings.atlas` keeps working everywhere and each field keeps its `OHARA_*` name. `GROUPS` names them;
# `group_of(name)` and `Settings.group(concern)` answer from them, and docs/settings.md lists them so.

@dataclass(frozen=True, repr=False)
class StoreSettings:
    """Where the atlas and its files live, how big they may grow, how writers wait, the vector index at scale."""

    # --- where things live -------------------------------------------------
    atlas: str = _opt("./atlas", "atlas location: a directory (SQLite) or arangodb://host:port/db")
    arango_url: str | None = _opt(None, "ArangoDB URL used when no atlas location is given", env="ARANGO_URL")
    llm_cache_dir: str | None = _opt(None, "LLM reply cache directory (default: <atlas>/llm_cache)")
    max_file_mb: float = _opt(256.0, "refuse input files larger than this many MiB", bounds="(0, 1048576]")
    atlas_max_mb: float = _opt(0.0, "largest the atlas database may grow, MiB (0 = as far as the disk allows); "
                                    "reaching it stops a write as a full disk does", bounds="[0, 1048576]")
    busy_timeout_s: float = _opt(60.0, "seconds a writer waits for another writer's lock before failing", bounds="[0, 86400]")
    # Group commit (issue 30.2): one COMMIT per document cost ~2 ms of ~18 ms per one-paragraph document.
    write_group_docs: int = _opt(64, "documents an ingest writes in one transaction (each still whole; a crash "
                                     "loses at most the open group, a re-run redoes it; 1 = one per document)",
                                 bounds="[1, 100000]")
    write_group_s: float = _opt(2.0, "seconds after its first document an ingest's write group is committed, "
                                     "however few documents it holds", bounds="[0, 3600]")

    # --- vectors at scale ---------------------------------------------------
    ann_threshold: int = _opt(100_000, "vectors of one model from which k-NN uses an HNSW graph kept beside the "
                                       "atlas instead of exact search (0 = always exact)", bounds="[0, 1000000000]")
    # 256, not 128: faiss at 128 found 0.983 of the true top 10 on 100k MiniLM vectors, at 256 0.999 in
    # 0.70 ms (eval/scale/ann-minilm-100k-paired.md); hnswlib had 0.995 at 128.
    ann_ef: int = _opt(256, "HNSW search breadth: higher finds more of the true neighbours, slower", bounds="[1, 100000]")


@dataclass(frozen=True, repr=False)
class IngestSettings:
    """How files become a graph: chunking, entities, tags, links, embeddings at ingest, the limits a hostile file meets, entity curation and graph analytics."""

    # --- ingest ------------------------------------------------------------
    ingest_concurrency: int = _opt(4, "parallel LLM calls while structuring one document", bounds="[1, 256]")
    virtual_page_size: int = _opt(3000, "characters per virtual page when a file has no page breaks", bounds="[1, 100000000]")
    test_chunks_limit: int = _opt(0, "structure only the first N chunks of each document (0 = all)", bounds="[0, 1000000000]")
    max_chunk_chars: int = _opt(12000, "close a chunk once it reaches this many characters", bounds="[1, 100000000]")
    min_chunk_chars: int = _opt(500, "merge chunks shorter than this into their neighbour", bounds="[0, 100000000]")
    ner: str = _opt("auto", "entity extractor: auto | spacy | rules")
    sumo_tags_per_node: int = _opt(4, "most SUMO tags the offline tagger assigns to one paragraph", bounds="[0, 1000]")
    similarity_threshold: float = _opt(0.1, "Jaccard of entity sets at or above which SIMILAR_TO is written", bounds="[0, 1]")
    similar_to_evergreen_threshold: int = _opt(5, "SIMILAR_TO in-degree that promotes a document to EVERGREEN", bounds="[1, 1000000000]")
    embed_paragraphs: bool | None = _opt(None, "embed paragraphs at ingest (unset = when an embedder is installed)")
    embed_batch_size: int = _opt(32, "paragraphs per embedding batch", bounds="[1, 100000]")
    embedder: str = _opt("auto", "dense embedder: auto | minilm | wordllama | gemini | none")
    embed_backend: str = _opt("auto", "MiniLM runtime: auto (onnx when onnxruntime is installed) | torch | onnx"
                                      " | onnx-int8 (faster, vectors drift: cosine ~0.9-0.96 to torch)")
    next_para: bool = _opt(True, "write NEXT_PARA edges between consecutive paragraphs")
    adjacent_to: bool = _opt(True, "write ADJACENT_TO edges around tables and figures")

    # --- graph analytics and entity curation ------------------------------------
    auto_entity_dedup: bool = _opt(False, "after each ingest, merge entities sharing a normalised name (logged, undoable)")
    community_method: str = _opt("leiden", "community detection for `analyze`: leiden | louvain | label_propagation")
    analytics_seed: int = _opt(42, "seed of community detection and k-means (fixed for reproducible analytics)", bounds="[0, 4294967295]")

    # --- input limits: what a hostile or broken file may cost ---------------
    max_unpacked_mb: float = _opt(256.0, "refuse DOCX/EPUB archives whose members unpack to more than this many MiB", bounds="(0, 1048576]")
    max_unpack_ratio: float = _opt(100.0, "refuse archives with a member inflating more than this many times (zip bombs)", bounds="[1, 1000000]")
    max_pdf_pages: int = _opt(10000, "refuse PDFs with more pages than this", bounds="[1, 100000000]")
    ner_max_chars: int = _opt(10000, "entity extraction reads longer paragraphs in pieces of at most this many characters", bounds="[1, 100000000]")
    ner_processes: int = _opt(1, "worker processes for spaCy NER at ingest (same entities; pays only on idle cores)", bounds="[1, 256]")
    ner_ahead: bool = _opt(True, "batched ingest starts spaCy NER of the next batch on a worker process while it "
                           "tags and writes this one (same entities)")
    ner_cache_entries: int = _opt(200_000, "paragraph texts whose mentions <atlas>/ner_cache.db keeps, so re-ingest "
                                  "skips NER (least recently used dropped; 0 = no cache)", bounds="[0, 100000000]")


@dataclass(frozen=True, repr=False)
class WebSettings:
    """Ingest from the web: one URL, a crawl, a Chromium capture."""

    # --- web: ingest URL, crawl, capture ------------------------------------
    web_max_mb: float = _opt(20.0, "refuse a web response larger than this many MiB (counted after decompression)", bounds="(0, 1048576]")
    web_timeout_s: float = _opt(30.0, "seconds one web request may take in all (connect, wait, download)", bounds="(0, 86400]")
    web_max_redirects: int = _opt(5, "redirects followed per web request", bounds="[0, 100]")
    web_allow_private: bool = _opt(False, "fetch from loopback, private and link-local addresses (intranets, tests)")
    web_user_agent: str = _opt("ohara-lab/0.1 (research crawler; obeys robots.txt)", "User-Agent of every web request")
    crawl_depth: int = _opt(2, "link hops a crawl follows from its start URL (-1 = unbounded)", bounds="[-1, 1000000]")
    crawl_max_pages: int = _opt(100, "pages one crawl run visits at most (it bounds the queue too: no more is queued than can be visited)", bounds="[1, 1000000000]")
    crawl_same_host: bool = _opt(True, "a crawl follows links on its start URL's host only (false = any host)")
    crawl_delay_s: float = _opt(1.0, "seconds between two requests to one host (a longer robots.txt Crawl-delay wins, up to OHARA_CRAWL_MAX_DELAY_S)", bounds="[0, 86400]")
    crawl_max_delay_s: float = _opt(60.0, "longest robots.txt Crawl-delay obeyed, seconds (a longer one is cut to this and "
                                    "named in the crawl report)", bounds="[0, 86400]")
    crawl_links_per_page: int = _opt(1000, "links read from one page (later ones are ignored)", bounds="[0, 1000000]")
    crawl_max_frontier: int = _opt(10000, "URLs a crawl holds queued at once (never more than its pages left to visit)",
                                   bounds="[1, 100000000]")
    chromium: str | None = _opt(None, "Chromium executable for `ohara capture` (unset = chromium or google-chrome on PATH)")
    capture_timeout_s: float = _opt(60.0, "seconds Chromium may take to render one page", bounds="(0, 86400]")


@dataclass(frozen=True, repr=False)
class LLMSettings:
    """The LLM provider, its model and transport, and what ingest may spend on it."""

    # --- LLM -----------------------------------------------------------------
    llm: str = _opt("auto", "LLM provider: auto (gemini when GEMINI_API_KEY is set) | gemini | offline")
    gemini_api_key: str | None = _opt(None, "Gemini API key", env="GEMINI_API_KEY", secret=True)
    gemini_model: str = _opt("gemini-2.5-flash-lite", "Gemini model for every prompt")
    gemini_embedding_model: str = _opt("gemini-embedding-001", "Gemini embedding model")
    gemini_base_url: str | None = _opt(None, "send Gemini requests to this base URL (proxies, tests)")
    gemini_timeout_s: float = _opt(60.0, "seconds before one Gemini request is abandoned", bounds="(0, 86400]")
    gemini_max_retries: int = _opt(4, "attempts per tier on 429/500/503 before giving up", bounds="[1, 100]")

    # --- LLM at ingest: its price, and paragraph questions ---------------------
    llm_budget_usd: float | None = _opt(None, "most USD one ingest run may spend on LLM calls; what is left "
                                              "is stored llm_pending for a later run (unset = no cap)", bounds="[0, 1000000]")
    answers_same: bool = _opt(False, "ingest asks the LLM 1-2 questions per paragraph of >=100 characters and "
                                     "links paragraphs sharing one (ANSWERS_SAME; needs an LLM, offline skipped)")
    estimate_full_mb: float = _opt(2.0, "ingest --dry-run runs the whole pipeline on sets of files up to this "
                                        "many MB; a larger set is sampled (a few files per format parsed, a few "
                                        "chunks per file predicted) and extrapolated by file size", bounds="[0, 1000000]")


@dataclass(frozen=True, repr=False)
class RetrievalSettings:
    """The query engine: profile, limits, fusion weights, the graph walk, the temporal prior, the tiers and the advanced modes."""

    # --- retrieval: profile --------------------------------------------------
    profile: str = _opt("default", "engine profile: default (tuned by procedure, refs/tuning.md) | original (the"
                        " spec's engine, for the paper's tables); sets the fields in settings.PROFILES")

    # --- retrieval: limits ---------------------------------------------------
    result_limit: int = _opt(20, "results returned by a query", bounds="[1, 100000]")
    depth: int = _opt(2, "structural traversal depth (phase 3)", bounds="[0, 100]")
    cross_doc_limit: int = _opt(5, "paragraphs taken per reached document in phase 1c", bounds="[0, 100000]")
    cross_doc_expand_depth: int = _opt(1, "SIMILAR_TO hops followed in phase 1c", bounds="[0, 100]")
    vector_limit: int = _opt(10, "neighbours returned by the vector phase (1d)", bounds="[0, 100000]")
    sumo_hierarchy_depth: int = _opt(3, "ancestor levels used by SUMO expansion (0 = exact tags only)", bounds="[0, 100]")

    # --- retrieval: fusion weights -----------------------------------------
    bm25_weight: float = _opt(PHASE["bm25"].default_weight, "fusion weight of phase 1 (BM25 full text; it always runs: it seeds the rest)", bounds="[0, 100]")
    sumo_weight: float = _opt(PHASE["sumo"].default_weight, "fusion weight of phase 1b (SUMO expansion)", bounds="[0, 100]")
    entity_pivot_weight: float = _opt(PHASE["entity_pivot"].default_weight, "fusion weight of phase 2 (entity pivot)", bounds="[0, 100]")
    struct_weight: float = _opt(PHASE["structural"].default_weight, "fusion weight of phase 3 (structural neighbours)", bounds="[0, 100]")
    cross_doc_weight: float = _opt(PHASE["cross_doc"].default_weight, "fusion weight of phase 1c (SIMILAR_TO expansion)", bounds="[0, 100]")
    vector_weight: float = _opt(PHASE["vector"].default_weight, "fusion weight of phase 1d (dense vectors; at 0 it still runs to seed the walk)", bounds="[0, 100]")
    ppr_weight: float = _opt(PHASE["ppr"].default_weight, "fusion weight of the graph walk (dense-seeded Personalized PageRank); 0 skips it", bounds="[0, 100]")
    bridge_weight: float = _opt(PHASE["bridge"].default_weight, "fusion weight of the bridge hop (second query from the top passages' entities)", bounds="[0, 100]")
    answers_same_weight: float = _opt(PHASE["answers_same"].default_weight, "fusion weight of phase 1e (ANSWERS_SAME; runs when OHARA_ANSWERS_SAME is on)", bounds="[0, 100]")
    fusion: str = _opt("weighted", "how phases combine: weighted (max-normalised sum) | rrf (reciprocal rank)")
    rrf_k: int = _opt(60, "k of reciprocal-rank fusion: each phase adds 1/(k + rank)", bounds="[0, 1000000]")
    adaptive_weights: bool = _opt(True, "multiply weights by the query-mode row (factoid/synthesis/exploratory)")
    normalize_scores: bool = _opt(True, "normalise each phase before the weighted sum (false = raw scores)")
    normalisation: str = _opt("minmax", "per-phase, per-query score normalisation: max | minmax | zscore")
    many_angle: bool = _opt(True, "graph phases re-score nodes other phases found (H1); false = original")
    corrective_struct: bool = _opt(True, "drop structural hits sharing no SUMO tag with the query hints")
    toc_guidance: bool = _opt(True, "phase 0b: follow the sections a TOC selector picks")
    date_filter_strict: bool = _opt(True, "apply a query's date range as a hard filter")

    # --- retrieval: graph walk and bridge hop ---------------------------------
    ppr_damping: float = _opt(0.5, "PageRank damping d: share of mass that follows edges at each step", bounds="[0, 1)")
    ppr_passage_reset: float = _opt(0.05, "reset mass per passage, times its normalised first-pass score", bounds="[0, 100]")
    ppr_candidates: int = _opt(50, "first-pass (dense) candidates that get a passage reset", bounds="[1, 100000]")
    ppr_seed_passages: int = _opt(1, "top first-pass passages whose entities seed the walk", bounds="[0, 100000]")
    ppr_first_pass_bm25: float = _opt(0.0, "share of BM25 in the walk's first pass: its candidates score "
                                            "(1 − β)·minmax(dense) + β·minmax(BM25) over both top lists (0 = dense only)", bounds="[0, 1]")
    ppr_option_seeds: bool = _opt(True, "a comparison query (\"Who was born first, A or B?\") also seeds the walk "
                                        "with the entities of each option's best first-pass passage, so the other "
                                        "option's evidence is not drowned by the best passage's (false = best only)")
    long_document_bm25_weight: float = _opt(1.0, "BM25's fusion weight (at least) when one document holds "
                                                 "long_document_share of BM25's top 10 passages: a walk inside one "
                                                 "long document cannot bridge documents, exact terms decide (0 = off)",
                                            bounds="[0, 100]")
    long_document_share: float = _opt(0.4, "share of BM25's top 10 passages one document must hold for "
                                           "long_document_bm25_weight to apply", bounds="[0, 1]")
    synonymy_threshold: float = _opt(0.8, "entity-name cosine at or above which SYNONYM_OF links two entities", bounds="[-1, 2]")
    synonymy_neighbours: int = _opt(100, "most SYNONYM_OF links per entity", bounds="[0, 100000]")
    bridge_passages: int = _opt(3, "top first-pass passages whose entities become bridge queries", bounds="[0, 1000]")
    bridge_entities: int = _opt(5, "most bridge entities queried per query", bounds="[0, 1000]")
    bridge_hops: int = _opt(1, "bridge hops: after the first, each hop queries the entities of the passages the "
                               "last hop found, scored by the share of the query's still-unexplained terms (IDF) "
                               "their passages explain; stops when nothing is left or nothing gains", bounds="[1, 3]")

    # --- retrieval: graph analytics (read from `ohara analyze`; nothing happens before it ran) ---
    community: bool = _opt(True, "attach the query entities' topic communities to the result (community_context)"
                                 " and let the Explorer offer paragraphs of the same communities")
    adamic_adar: bool = _opt(True, "entity-pivot hits gain 0.2 x their strongest Adamic-Adar link to a query entity,"
                                   " and the Explorer offers co-cited paragraphs (original profile: off)")
    cluster_retrieval: bool = _opt(False, "phase 1f: for synthesis and exploratory queries, the paragraphs nearest"
                                          " the centroids of the k-means clusters whose terms the query names")
    cluster_weight: float = _opt(PHASE["cluster"].default_weight, "fusion weight of phase 1f (clusters; runs with OHARA_CLUSTER_RETRIEVAL)", bounds="[0, 100]")
    cluster_members: int = _opt(3, "paragraphs phase 1f takes from each matching cluster, nearest its centroid first", bounds="[1, 1000]")

    # --- retrieval: temporal prior -------------------------------------------
    temporal_weight: float = _opt(0.2, "weight of the temporal prior (0 = off)", bounds="[0, 100]")
    temporal_gate_floor: float = _opt(0.5, "normalised BM25 at or above which a hit is shielded from decay", bounds="[0, 1]")
    decay_rate_evergreen: float = _opt(0.000001, "decay per day, EVERGREEN documents", bounds="[0, 1000]")
    decay_rate_scholarly: float = _opt(0.0001, "decay per day, SCHOLARLY documents", bounds="[0, 1000]")
    decay_rate_current: float = _opt(0.01, "decay per day, CURRENT documents", bounds="[0, 1000]")
    decay_rate_ephemeral: float = _opt(0.1, "decay per day, EPHEMERAL documents", bounds="[0, 1000]")
    reference_date: str | None = _opt(None, "'now' for the temporal prior, YYYY-MM-DD (unset = today)")
    as_of: str | None = _opt(None, "answer as of YYYY-MM-DD: only documents published by then take part, a "
                                   "supersession counts only once its document existed, and the prior's today is it")

    # --- tiers ---------------------------------------------------------------
    principal_score_pctl: float = _opt(0.75, "score percentile a Principal node must reach", bounds="[0, 1]")
    principal_limit: int = _opt(5, "most nodes in the Principal tier", bounds="[1, 100000]")
    principal_min_families: int = _opt(1, "distinct signal families a Principal node needs (original: 2)", bounds="[0, 100]")
    principal_require_multi_doc: bool = _opt(False, "Principal also needs >=2 documents or a cross-doc edge")
    integrity_weight_min: float = _opt(0.6, "cross-doc score that admits a node to the Integrity tier", bounds="[0, 100]")
    abstain: str = _opt("model", "how the engine decides to abstain: model (calibrated answerability score) | rule "
                                "(the spec's corroboration rule alone) | features (report features, abstain by rule)")
    abstain_keep: float = _opt(0.92, "share of answerable queries that keep their Principal tier (the conformal "
                                     "threshold of the answerability model)", bounds="(0, 1]")
    abstain_probes: int = _opt(100, "probe questions an atlas asks of itself (and their unanswerable twins) to "
                                    "read the answerability features on its own scale; 0 reads them raw",
                               bounds="[0, 10000]")
    auto_calibrate: bool = _opt(True, "after a batch ingest of at least auto_calibrate_min_paragraphs, store the "
                                      "atlas's probe profile and threshold (`ohara calibrate --auto`)")
    auto_calibrate_min_paragraphs: int = _opt(200, "paragraphs a batch ingest needs before it self-calibrates",
                                              bounds="[0, 1000000000]")
    explorer_stop_weight: float = _opt(0.15, "scent below which the Explorer stops", bounds="[0, 1]")

    # --- advanced modes ------------------------------------------------------
    session_history_limit: int = _opt(3, "conversation turns sent with a query", bounds="[0, 1000]")
    query_max_chars: int = _opt(200_000, "the CLI, HTTP API and MCP refuse a query longer than this many characters",
                                bounds="[1, 1000000000]")
    query_max_words: int = _opt(512, "a longer query is reduced before retrieval: its first this many words, and "
                                "its keywords capped by IDF (retrieval/query_reduce.py)", bounds="[256, 1000000]")
    query_max_terms: int = _opt(64, "keywords a reduced long query keeps (highest IDF)", bounds="[1, 10000]")
    cor_max_iter: int = _opt(2, "Chain-of-Retrieval iterations", bounds="[1, 100]")
    cor_score_delta: float = _opt(0.05, "CoR stops when the best score rises by less than this", bounds="[-100, 100]")
    agent_max_iter: int = _opt(4, "agentic tool calls per query", bounds="[1, 100]")
    reasoning_rag: bool = _opt(False, "add reasoning sub-queries after phase 1")
    reasoning_subquery_limit: int = _opt(2, "sub-queries per reasoning step", bounds="[0, 100]")
    self_rag_verify: bool = _opt(False, "drop Principal nodes the LLM judges unresponsive")
    speculative_rag: bool = _opt(False, "pre-warm Explorer frontier queries into the cache")
    speculative_limit: int = _opt(3, "frontier items pre-warmed per query", bounds="[0, 100]")
    integrity_llm_verify: bool = _opt(False, "LLM-check multi-document Integrity claims")
    rerank: bool = _opt(False, "LLM-rerank the Principal tier")
    rerank_top_n: int = _opt(5, "Principal nodes sent to the reranker", bounds="[1, 1000]")


@dataclass(frozen=True, repr=False)
class ServeSettings:
    """`ohara serve` and `ohara mcp`: the HTTP API's token and limits."""

    # --- serving (`ohara serve`, `ohara mcp`) -------------------------------
    api_token: str | None = _opt(None, "bearer token the HTTP API requires (required off loopback)",
                                 env="OHARA_API_TOKEN", secret=True)
    api_max_body_kb: int = _opt(64, "largest HTTP request body accepted, KiB (larger: 413)", bounds="[1, 1048576]")
    api_max_limit: int = _opt(100, "largest `limit` a served query may ask for", bounds="[1, 100000]")
    api_max_text_chars: int = _opt(4000, "longest query or question text a served request may send", bounds="[1, 1000000]")
    api_max_connections: int = _opt(64, "connections `ohara serve` holds at once; more are answered 503 and closed",
                                    bounds="[1, 100000]")
    api_header_timeout_s: float = _opt(10.0, "seconds a client may take to send a request's line and headers "
                                             "(then 408 and closed)", bounds="(0, 3600]")
    api_body_timeout_s: float = _opt(10.0, "seconds a client may take to send a request's body once its headers "
                                           "are in (then 408 and closed)", bounds="(0, 3600]")
    api_keep_alive_s: float = _opt(5.0, "seconds an idle kept-alive connection stays open between requests",
                                   bounds="(0, 3600]")
    api_max_header_kb: int = _opt(16, "largest request line plus headers accepted, KiB (larger: 431, or 400 while still arriving; closed)",
                                  bounds="[1, 1024]")


@dataclass(frozen=True, repr=False)
class Settings(ServeSettings, RetrievalSettings, LLMSettings, WebSettings, IngestSettings, StoreSettings):
    """Every setting. Fields come from the concerns in reverse order of the bases (dataclass rule): store,
    ingest, web, llm, retrieval, serve, then `env_file`, which belongs to no concern."""

    # --- where settings come from -------------------------------------------
    env_file: str | None = _opt(None, "a .env file to read settings from (never read unless named)",
                                env="OHARA_ENV_FILE")

    # ------------------------------------------------------------------------
    def __post_init__(self) -> None:
        for f in _numeric_fields():
            check_value(f, getattr(self, f.name))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, env_file: str | Path | None = None,
                 **overrides: Any) -> Settings:
        """Settings from `OHARA_*` variables, then `overrides`.

        `env_file` (else `OHARA_ENV_FILE`) names a .env file whose values apply
        where the environment sets none; no file is read unless named.
        """
        environment = dict(os.environ if env is None else env)
        named = env_file or environment.get("OHARA_ENV_FILE") or None
        source: dict[str, str] = {}
        if named:
            path = Path(named).expanduser().resolve()
            source.update(read_env_file(path))
            environment["OHARA_ENV_FILE"] = str(path)
        source.update(environment)
        values: dict[str, Any] = {}
        for f in fields(cls):
            name = env_name(f)
            if name in source and source[name] != "":
                values[f.name] = _coerce(f, source[name])
        # The profile sets its fields first; a variable set explicitly wins over the profile.
        base = profile_values(values.get("profile", cls.profile))
        return cls(**{**base, **values}).override(**overrides)

    def override(self, **changes: Any) -> Settings:
        """A copy with `changes` applied; unknown names are an error that lists the known ones."""
        if not changes:
            return self
        try:
            key = tuple(sorted(changes.items()))
            hash(key)
        except TypeError:  # an unhashable value: build it, do not remember it
            return self._override(changes)
        with _OVERRIDE_LOCK:
            made = self._overridden.get(key)
        if made is not None:
            return made
        made = self._override(changes)
        with _OVERRIDE_LOCK:
            cache = self._overridden
            if key not in cache and len(cache) >= OVERRIDE_CACHE:
                del cache[next(iter(cache))]
            return cache.setdefault(key, made)  # another thread's equal copy, if it came first

    @functools.cached_property
    def _overridden(self) -> dict[tuple[tuple[str, Any], ...], Settings]:
        # The same per-call overrides give the same (frozen) Settings, so what it caches — `to_dict`,
        # which every query reads twice — is built once per configuration, not once per query.
        return {}

    def _override(self, changes: dict[str, Any]) -> Settings:
        known = {f.name: f for f in fields(self)}
        clean = {}
        for key, value in changes.items():
            key = ALIASES.get(key, key)
            if key not in known:
                raise SettingsError(f"unknown setting {key!r}; known settings: {', '.join(sorted(known))}")
            clean[key] = _coerce(known[key], value) if isinstance(value, str) else value
        if "profile" in clean:  # switching profile per call: its fields first, the other changes on top
            clean = {**profile_values(clean["profile"]), **clean}
        return dataclasses.replace(self, **clean)

    def decay_rate(self, decay_class: str | None) -> float:
        """Decay per day for a decay class (unknown classes decay as SCHOLARLY)."""
        rates = {
            "EVERGREEN": self.decay_rate_evergreen,
            "SCHOLARLY": self.decay_rate_scholarly,
            "CURRENT": self.decay_rate_current,
            "EPHEMERAL": self.decay_rate_ephemeral,
        }
        return rates.get((decay_class or "SCHOLARLY").upper(), self.decay_rate_scholarly)

    def to_dict(self) -> dict[str, Any]:
        """All settings; secret fields and the passwords of URLs masked."""
        return dict(self._masked)  # every value is a str, number, bool or None: a shallow copy is a copy

    def group(self, concern: str) -> dict[str, Any]:
        """One concern's settings (`settings.group("serve")`, names in `GROUPS`), masked as `to_dict` masks."""
        masked = self._masked
        return {f.name: masked[f.name] for f in fields(_group_class(concern))}

    @functools.cached_property
    def _masked(self) -> dict[str, Any]:
        # Built once per Settings (they are frozen): every query puts its settings in its result, and
        # `asdict` walked ~120 fields twice per query (~1.5 ms of a 30 ms query on MuSiQue).
        out = dataclasses.asdict(self)
        for f in fields(self):
            value = out[f.name]
            if f.metadata.get("secret") and value:
                out[f.name] = MASK
            elif isinstance(value, str):
                out[f.name] = redact(value)
        return out

    def secrets(self) -> list[str]:
        """The secret values set (API keys), for masking wherever text leaves the program."""
        return [getattr(self, f.name) for f in fields(self) if f.metadata.get("secret") and getattr(self, f.name)]

    def __repr__(self) -> str:
        # A notebook that displays `atlas.settings` must not show the key or a URL's password.
        return f"Settings({', '.join(f'{k}={v!r}' for k, v in self.to_dict().items())})"


# The concerns, in the order docs/settings.md and `ohara settings` list them.
GROUPS: dict[str, type] = {
    "store": StoreSettings, "ingest": IngestSettings, "web": WebSettings, "llm": LLMSettings,
    "retrieval": RetrievalSettings, "serve": ServeSettings,
}


def _group_class(concern: str) -> type:
    if concern not in GROUPS:
        raise SettingsError(f"unknown settings group {concern!r}; choose {', '.join(GROUPS)}")
    return GROUPS[concern]


@functools.cache
def _group_by_field() -> dict[str, str]:
    return {f.name: concern for concern, cls in GROUPS.items() for f in fields(cls)}


def group_of(name: str) -> str:
    """The concern a setting belongs to (`group_of("api_token") == "serve"`); "" for `env_file`, which is none's."""
    return _group_by_field().get(_field(name).name, "")


# Engine profiles: named values for the fields that make an engine. `default` is the dataclass's own
# defaults (chosen by the written procedure in refs/tuning.md); `original` is the spec's engine (§3.8
# weights, max-normalisation, the corroboration rule), kept one switch away so every table in
# refs/reproduction.md can be regenerated: OHARA_PROFILE=original, or `atlas.query(q, profile="original")`.
# The phases' weights come from the phase table (`PhaseSpec.original_weight`; None: the profile leaves it alone).
ORIGINAL_PROFILE: dict[str, Any] = {
    "normalisation": "max",
    **{p.weight: p.original_weight for p in PHASE_TABLE if p.original_weight is not None},
    "principal_min_families": 2, "abstain": "rule",
    "long_document_bm25_weight": 0.0,  # beyond the spec: the original's weights are fixed
    "adamic_adar": False,  # the original's boost never applied (spec §3.6 [BUG]); its numbers are without it
}
PROFILE_FIELDS = tuple(ORIGINAL_PROFILE)


def profile_values(name: str) -> dict[str, Any]:
    """The field values a profile sets; an unknown profile is an error naming the known ones."""
    if name == "original":
        return dict(ORIGINAL_PROFILE)
    if name == "default":
        defaults = {f.name: f.default for f in fields(Settings)}
        return {k: defaults[k] for k in PROFILE_FIELDS}
    raise SettingsError(f"unknown profile {name!r}; choose default or original")


# Per-call names users reach for that differ from the field names.
ALIASES = {
    "crossdoc_weight": "cross_doc_weight",
    "limit": "result_limit",
    "expand_depth": "cross_doc_expand_depth",
    "entity_weight": "entity_pivot_weight",
    "structural_weight": "struct_weight",
}


def weight_field(name: str) -> str:
    """A weight as callers name it (`bm25`, `cross-doc`, `vector_weight`) -> its settings field (`bm25_weight`)."""
    field_name = name.strip().lower().replace("-", "_")
    return field_name if field_name.endswith("_weight") else field_name + "_weight"


def weight_names() -> list[str]:
    """The weights a caller may set as they name them (`bm25`, `vector`, `temporal`, ...): the fields ending in
    `_weight` but the Explorer's stopping threshold."""
    return [f.name.removesuffix("_weight") for f in fields(Settings)
            if f.name.endswith("_weight") and f.name != "explorer_stop_weight"]


def env_name(f: dataclasses.Field) -> str:
    """The environment variable of a settings field."""
    return f.metadata.get("env") or "OHARA_" + f.name.upper()


class SettingDoc(NamedTuple):
    """One setting as documentation shows it; `bounds` is its range ("" for a setting that is not a number)."""

    name: str
    env: str
    default: Any
    help: str
    bounds: str
    group: str = ""  # its concern (`GROUPS`); "" for `env_file`


def describe() -> list[SettingDoc]:
    """Every setting (field, env var, default, help, range, concern), for docs and `ohara settings`, by concern."""
    return [SettingDoc(f.name, env_name(f), f.default, f.metadata["help"], str(f.metadata["bounds"] or ""),
                       group_of(f.name)) for f in fields(Settings)]


def bounds_of(name: str) -> Bounds:
    """The declared range of a numeric setting."""
    bounds = _field(name).metadata["bounds"]
    if bounds is None:
        raise SettingsError(f"{name} is not a numeric setting")
    return bounds


def check_setting(name: str, value: Any) -> None:
    """SettingsError unless `value` is acceptable for the setting `name` (unknown names included)."""
    check_value(_field(name), value)


def check_value(f: dataclasses.Field, value: Any) -> None:
    """The one validator: a numeric field's value is a number of its kind (no bools, no NaN or
    infinity, an integer where an integer belongs) inside its declared range; None where the field allows it."""
    bounds, kind = f.metadata["bounds"], _kind(f)
    if bounds is None or (value is None and "None" in str(f.type)):
        return
    integral = kind == "int"
    number = isinstance(value, numbers.Integral if integral else numbers.Real) and not isinstance(value, bool)
    if number and (integral or math.isfinite(value)) and value in bounds:
        return
    shown = repr(value) if isinstance(value, str) else str(value)
    raise SettingsError(f"{env_name(f)}={shown}: {f.name} must be {_a_number(f)}")


def _kind(f: dataclasses.Field) -> str:
    """'int', 'float', 'bool' or 'str' (optional or not) from the field's annotation."""
    return str(f.type).split("|")[0].strip()


@functools.cache
def _numeric_fields() -> tuple[dataclasses.Field, ...]:
    return tuple(f for f in fields(Settings) if f.metadata["bounds"] is not None)


@functools.cache
def _fields_by_name() -> dict[str, dataclasses.Field]:
    return {f.name: f for f in fields(Settings)}


def _field(name: str) -> dataclasses.Field:
    known = _fields_by_name()
    if name not in known:
        raise SettingsError(f"unknown setting {name!r}; known settings: {', '.join(sorted(known))}")
    return known[name]


def _coerce(f: dataclasses.Field, raw: Any) -> Any:
    """A text value (the environment, a .env file, a per-call string) as the field's type; ranges are checked later."""
    kind = _kind(f)
    text = str(raw).strip()
    if kind == "bool":
        low = text.lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        if "None" in str(f.type) and low in {"auto", "none", ""}:
            return None
        raise SettingsError(f"{env_name(f)}={text!r}: {f.name} must be true or false")
    try:
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(text)
    except ValueError:
        raise SettingsError(f"{env_name(f)}={text!r}: {f.name} must be {_a_number(f)}") from None
    return text


def _a_number(f: dataclasses.Field) -> str:
    bounds = f.metadata["bounds"]
    return f"{'an integer' if _kind(f) == 'int' else 'a finite number'} in {bounds}"


# --- the environment: read here and nowhere else (tests/test_names.py) ---------------------------------
# `Settings.from_env` reads the fields' variables. The few variables that are not settings - where files
# go (docs/settings.md, "Variables outside Settings"), the ArangoDB login, the notebook a Jupyter kernel
# runs, the secrets `ohara` masks - are read through `environ_value`; the two the package sets are set
# here too: `OHARA_ENV_FILE` for `ohara --env-file` and the Hugging Face hub's offline default.

HF_OFFLINE_DEFAULT = ("HF_HUB_OFFLINE", "1")


def environ() -> Mapping[str, str]:
    """The process environment (what `from_env` reads when given none)."""
    return os.environ


def environ_value(name: str, default: str | None = None) -> str | None:
    """One environment variable that is not a settings field (`OHARA_EVAL_DATA`, `ARANGO_PASSWORD`, ...)."""
    return os.environ.get(name, default)


def use_env_file(path: Path) -> None:
    """Name the .env file every `Settings.from_env` of this process (and of its children) reads."""
    os.environ["OHARA_ENV_FILE"] = str(path)


def hub_offline_default() -> None:
    """The MiniLM weights load from a local package path, so the Hugging Face hub is never needed: unless
    the user set `HF_HUB_OFFLINE` themselves, it is set to 1 before transformers or tokenizers import, so
    neither tries the network. The one place the package writes to the environment for a library."""
    name, value = HF_OFFLINE_DEFAULT
    os.environ.setdefault(name, value)


def read_env_file(path: Path) -> dict[str, str]:
    """The variables a .env file sets (python-dotenv syntax); SettingsError when it cannot be read."""
    if not path.is_file():
        raise SettingsError(f"env file {path} does not exist (named by --env-file or OHARA_ENV_FILE)")
    from dotenv import dotenv_values  # noqa: PLC0415

    try:
        return {k: v for k, v in dotenv_values(path).items() if v is not None}
    except (OSError, UnicodeDecodeError) as e:
        raise SettingsError(f"env file {path} cannot be read: {e}") from None
