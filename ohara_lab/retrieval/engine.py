"""The retrieval engine (spec §3 "Order"): what a query runs, in order.

    step            what                                                  where
    phase0          parse the query, offline fingerprint (0a)             query.py, fingerprint.py
      fingerprint:* extensions refine the fingerprint (LLM phase 0a)
    bm25            phase 1, full text; always runs, it seeds the rest    phases/bm25.py
      after_bm25:*  extensions (reasoning sub-queries)
    PHASES          one signal family each, in table order:               phases/*.py
                    sumo (1b), entity_pivot (2, + the Adamic–Adar boost),
                    cross_doc (1c), vector (1d), answers_same (1e, with
                    OHARA_ANSWERS_SAME), cluster (1f, with OHARA_CLUSTER_RETRIEVAL),
                    ppr (the graph walk, seeded by 1d), bridge (a second hop
                    from the entities of the best passages so far)
                    (names, weights, gates, feeds: ohara_lab/phase_table.py)
    communities     the communities of the query's entities (community_context)  graph_analytics.py
    toc             phase 0b: the `toc_selector` extension picks sections  phases/toc.py
    structural      phase 3 from the top BM25 node and those sections     phases/structural.py
    fusion          normalise per phase, weighted sum                      fusion.py
    temporal        the guarded temporal prior (a bonus, not a family)     temporal.py
    answerability   a calibrated score; below its threshold, abstain       answerability/
    tiers           Principal (empty when abstaining), Integrity, Explorer tiers.py
                    (+ co-cited and same-community paragraphs, unexpected  graph_analytics.py
                    connections)
    views           what a person needs to judge each shown node           result.py
      after_tiers:* extensions (integrity verify, self-RAG, rerank, speculative pre-warm);
                    views for nodes they added

What reads graph analytics (`ohara analyze`: communities, clusters, Adamic–Adar
links) reads them through one `Analytics` view per query; an atlas never analysed
runs exactly as before.

Every step that ran is a key of `RetrievalResult.timings_ms`, in the order it ran
(`RetrievalResult.steps`); a phase that did not run says why in `skipped`. Code
outside `retrieval/` adds steps only at the extension points `extensions.py`
declares. Graph phases re-score nodes other phases found (many-angle
corroboration, H1) unless `many_angle=False`.
"""
from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..analytics.lookup import Analytics
from ..errors import AnswerabilityError, EmbeddingError
from ..phase_table import PHASE
from ..settings import Settings
from ..store.protocol import GraphStore
from ..timing import Timer
from .answerability import Answerability, AnswerabilityModel, assess, load_model, meta_key, reads_lexical
from .answerability.probes import make_probes
from .answerability.profile import PROFILE_META_KEY, AtlasProfile, build_profile, config_key, stored_profile
from .answerability.vacuous import EMPTY_ATLAS, content_words, is_empty, known_words
from .extensions import Extensions
from .fingerprint import offline_fingerprint
from .fusion import fuse, long_document_weights, normalisation, phase_weights
from .graph import PassageGraph, build_passage_graph
from .graph_analytics import community_context, explorer_candidates, principal_slugs, unexpected_connections
from .hits import Fused, Hit
from .phases.answers_same import answers_same
from .phases.bm25 import bm25
from .phases.bridge import bridge
from .phases.clusters import clusters
from .phases.crossdoc import cross_doc
from .phases.entity_pivot import entity_pivot
from .phases.ppr import ppr
from .phases.structural import structural
from .phases.sumo import sumo
from .phases.toc import toc_guidance
from .phases.vector import vector
from .query_reduce import reduced_query
from .result import AsOf, NodeView, RetrievalResult
from .state import QueryState
from .temporal import apply_prior, as_of_documents, prior_applies, reference_day
from .tiers import Tiers, explorer, integrity, knowledge_gaps, principal, qualifying

log = logging.getLogger(__name__)

QUERY_VECTOR_CACHE = 1024  # query vectors kept per engine (oldest dropped first)
ENCODER_THREADS = os.cpu_count() or 2  # queries embedded ahead at once (servers query from several threads)
PROBE_EVIDENCE = 5  # a probe's top results whose text may still state its answer (`build_profile`)
LOCAL_EMBEDDERS = ("minilm", "wordllama")  # embed on this machine's cores; a network embedder embeds inline


def _vector_key(embedder: Any, state: QueryState) -> tuple[str, str]:
    """What a query vector is cached and awaited under: the model and the query's first 2,000 characters."""
    return embedder.model, state.query.raw[:2000]


@dataclass(frozen=True)
class Phase:
    """How the engine runs one phase of `phase_table.PHASE_TABLE`; its `name` keys its hits, weight,
    corroboration and timing."""

    name: str
    run: Callable[[Engine, QueryState], list[Hit]]

    @property
    def feeds(self) -> tuple[str, ...]:
        """Later phases that read what it leaves in the state (it runs for them even at weight 0)."""
        return PHASE[self.name].feeds


class Engine:
    """Runs queries against one store; keeps the ontology, embedders and per-atlas caches between queries."""

    def __init__(self, store: GraphStore, settings: Settings, extensions: Extensions | None = None):
        self.store = store
        self.settings = settings
        self.extensions = extensions or Extensions()
        self._ontology: Any = None
        self._embedders: dict[str, Any] = {}
        self._query_vectors: dict[tuple[str, str], Any] = {}  # (model, text) -> vector; CoR, modes and sweeps repeat queries
        self.atlas_cache: dict[str, Any] = {}  # what phases derive from the atlas itself; dropped by `invalidate`
        self._cache_lock = threading.Lock()
        self._encoder_pool: tuple[int, ThreadPoolExecutor] | None = None  # (pid, pool): queries embedded ahead
        self._profile_lock = threading.Lock()  # one thread asks the probes; the others wait for its profile
        self.analytics = Analytics(store)  # stored graph analytics; it reloads itself after each `analyze`

    def invalidate(self) -> None:
        """Forget what was derived from the atlas; the atlas calls this after every write."""
        self.atlas_cache.clear()

    def _publication_dates(self) -> dict[str, str | None]:
        """document id -> published_date, read once per atlas version (for "as of" queries)."""
        version = self.store.graph_version()
        cached = self.atlas_cache.get("publication_dates")
        if cached is None or cached[0] != version:
            cached = (version, {d.id: d.published_date for d in self.store.list_documents()})
            self.atlas_cache["publication_dates"] = cached
        return cached[1]

    def answerability_model(self, settings: Settings, vector_model: str | None = None) -> AnswerabilityModel | None:
        """The atlas's calibrated model (else the shipped one) in `model` mode; None in `features` mode.
        `vector_model`: the query's vectors (None: it ran without), which decide between the dense model and
        the one fitted without the dense features (`reads_lexical`)."""
        if settings.abstain != "model":
            return None
        version = self.store.graph_version()
        own = self.atlas_cache.get("own_dense_model")
        if own is None or own[0] != version:
            own = (version, self.store.get_meta(meta_key(False)) is not None)
            self.atlas_cache["own_dense_model"] = own
        lexical = reads_lexical(vector_model, own[1])
        key = meta_key(lexical)
        cached = self.atlas_cache.get(key)
        if cached is None or cached[0] != version:
            cached = (version, self._readable_model(key, lexical))
            self.atlas_cache[key] = cached
        return cached[1]

    def _readable_model(self, key: str, lexical: bool) -> AnswerabilityModel | None:
        """The model, or None (abstain by the corroboration rule) with one warning when it cannot be read:
        a broken model file must not turn every query into a traceback."""
        try:
            return load_model(self.store.get_meta(key), lexical)
        except AnswerabilityError as e:
            log.warning("%s; abstaining by the corroboration rule until then", e)
            return None

    def answerability_profile(self, settings: Settings, lexical: bool) -> AtlasProfile | None:
        """The atlas's probe profile for this configuration (`answerability/profile.py`): kept in memory per
        graph version, read from the atlas when `ohara calibrate --auto` stored it, else asked now."""
        if settings.abstain_probes <= 0:
            return None
        version = self.store.graph_version()
        key = config_key(settings.to_dict(), lexical)
        with self._profile_lock:
            cached: AtlasProfile | None = self.atlas_cache.get(f"profile:{key}")
            if cached is not None and cached.graph_version == version:
                return cached
            profile = stored_profile(self.store.get_meta(PROFILE_META_KEY), version, key)
            if profile is None:
                profile = self.probe_profile(settings, key)
            self.atlas_cache[f"profile:{key}"] = profile
            return profile

    def probe_profile(self, settings: Settings, key: str) -> AtlasProfile:
        """Ask the atlas's probes and their unanswerable twins under `settings` (features only, no decision).
        Offline, and none of the steps after the tiers (the features are read before them): a profile of 200
        queries must not spend LLM calls nor fill the speculative cache the user never asked for."""
        quiet = settings.override(abstain="features", llm="offline")
        version = self.store.graph_version()

        def run(question: str, left_out: frozenset[str]) -> tuple[dict[str, float | None], list[str]]:
            state = self.start(question, None, quiet, left_out)
            self.retrieve(state)
            _, fused, found = self._assessed(state)  # no tiers nor views: a probe reads neither
            top = [f.id for f in fused[:min(PROBE_EVIDENCE, quiet.result_limit)]]
            nodes = self.store.get_nodes(top)
            texts = [_content(nodes[i]) for i in top if i in nodes]  # what the top results' views would show
            return (dict(found.features) if found is not None else {}), texts

        return build_profile(make_probes(self.store, settings.abstain_probes), run, version, key)

    def passage_graph(self) -> PassageGraph:
        """The graph walk's matrix, rebuilt when the atlas's graph version moves (any writer, any process)."""
        version = self.store.graph_version()
        cached = self.atlas_cache.get("passage_graph")
        if cached is None or cached[0] != version:
            cached = (version, build_passage_graph(self.store))
            self.atlas_cache["passage_graph"] = cached
        return cached[1]

    def analytics_view(self, settings: Settings) -> Analytics | None:
        """The analytics one query reads (checked once), None when none is stored or no setting reads them."""
        if not (settings.community or settings.adamic_adar or settings.cluster_retrieval):
            return None
        view = self.analytics.pinned()
        return view if view.available else None

    def clear_query_cache(self) -> None:
        """Forget cached query vectors (benchmarks and evaluations time each config's own embedding)."""
        self._query_vectors.clear()

    @property
    def ontology(self) -> Any:
        if self._ontology is None:
            from ..ontology import load_ontology  # noqa: PLC0415

            self._ontology = load_ontology()
        return self._ontology

    # ------------------------------------------------------------------ query
    def query(self, text: str, *, session_history: list[dict[str, str]] | None = None,
              exclude_documents: Collection[str] = (), **overrides: Any) -> RetrievalResult:
        """Run every step for `text`; `session_history` = earlier turns `[{role, content}]` (conversational);
        `exclude_documents` take no part, as an "as of" query's later documents (the probes' twins)."""
        state = self.start(text, session_history, self.settings.override(**overrides), exclude_documents)
        self.retrieve(state)
        return self.finish(state)

    def start(self, text: str, session_history: list[dict[str, str]] | None, settings: Settings,
              exclude_documents: Collection[str] = ()) -> QueryState:
        """Phase 0: parse the query and take its fingerprint (offline, then the `fingerprint` extensions)."""
        state = QueryState(reduced_query(text, self.store, settings), settings)
        state.excluded = frozenset(exclude_documents)
        state.clock = Timer(state.timings, scale=1000)  # `with clock(step):` adds milliseconds
        self._encode_ahead(state)
        with state.clock("phase0"):
            n = settings.session_history_limit
            state.history = list(session_history or [])[-n:] if n > 0 else []
            offline_fingerprint(state.query, self.store, self.ontology)
            if settings.as_of:
                later, state.undated = as_of_documents(self._publication_dates(), settings.as_of)
                state.excluded |= later
            state.analytics = self.analytics_view(settings)
        for step in self.extensions.fingerprint:
            with state.clock(step.label):
                step.run(state)
        return state

    def retrieve(self, state: QueryState) -> None:
        """Phase 1, the `after_bm25` extensions, every phase of `PHASES`, then TOC guidance and phase 3."""
        s, clock = state.settings, state.clock
        weights = phase_weights(s, state.query.mode)
        with clock("bm25"):
            state.hits["bm25"] = bm25(state, self.store, s)
        for step in self.extensions.after_bm25:
            with clock(step.label):
                step.run(state, self.store)
        for phase in PHASES:
            needed = any(weights.get(f, 0.0) != 0.0 for f in phase.feeds)
            if needed or not self._skip_zero(state, phase.name, weights):
                with clock(phase.name):
                    state.hits[phase.name] = _admitted(phase.run(self, state), state)
        if state.analytics is not None and s.community:
            with clock("communities"):
                state.community_context = community_context(state)
        if self._skip_zero(state, "structural", weights):
            return
        with clock("toc"):
            state.toc_sections = toc_guidance(state, self.store, s, self.extensions.toc_selector.run)
        with clock("structural"):
            state.hits["structural"] = _admitted(structural(state, self.store, s), state)

    def finish(self, state: QueryState, *, after_tiers: bool = True) -> RetrievalResult:
        """Fusion, temporal prior, tiers, the `after_tiers` extensions (unless `after_tiers` is False) and views
        over the hits the state holds."""
        settings, clock, timings = state.settings, state.clock, state.timings
        weights, fused, answerability = self._assessed(state)
        with clock("tiers"):
            tiers = self._tiers(fused, settings, abstain=bool(answerability and answerability.abstain),
                                excluded=state.excluded, analytics=state.analytics)
        with clock("views"):
            views = self._views(fused[: settings.result_limit], tiers)
        result = RetrievalResult(state.query, weights, fused, settings.result_limit, tiers, views, timings,
                                 dict(state.skipped), settings.to_dict(), answerability,
                                 AsOf(settings.as_of, len(state.excluded), list(state.undated))
                                 if settings.as_of else None, state.community_context)
        steps = self.extensions.after_tiers if after_tiers else []
        for step in steps:  # they read the views (passage text) and may add nodes
            with clock(step.label):
                step.run(result, state)
        if steps:
            with clock("views"):
                result.views.update(self._views(result.results, result.tiers, known=result.views.keys()))
        timings["total"] = sum(v for k, v in timings.items() if k != "total")
        return result

    def _assessed(self, state: QueryState) -> tuple[dict[str, float], list[Fused], Answerability | None]:
        """Fusion, the temporal prior and answerability (its features read nothing after them)."""
        settings, clock = state.settings, state.clock
        with clock("fusion"):
            weights = long_document_weights(phase_weights(settings, state.query.mode), state.hits, settings,
                                            state.query.mode)
            fused = fuse(state.hits, weights, normalisation(settings), settings.fusion, settings.rrf_k)
        with clock("temporal"):
            fused = self._temporal(fused, state, settings)
        answerability = None
        if settings.abstain != "rule":
            with clock("answerability"):
                vectors = state.query_vector_model if state.dense else None
                model = self.answerability_model(settings, vectors)
                profile = self.answerability_profile(settings, vectors is None) if model is not None else None
                answerability = assess(state, fused, self.store, model, settings, profile)
        return weights, fused, answerability

    @staticmethod
    def _skip_zero(state: QueryState, phase: str, weights: dict[str, float]) -> bool:
        """A zero-weight phase can add nothing to any score and seeds no other phase: skip it."""
        if weights.get(phase, 0.0) == 0.0:
            state.skipped[phase] = "weight is 0"
            state.hits[phase] = []
            return True
        return False

    # ------------------------------------------------------------------ vectors
    def vector_phase(self, state: QueryState) -> list[Hit]:
        """Phase 1d: embed the query with the atlas's own model (cached), then k-NN."""
        s = state.settings
        models = self.store.vector_models()
        if not models:
            # `ohara embed` adds vectors to documents; an atlas with none needs `ohara ingest` first
            state.skipped["vector"] = EMPTY_ATLAS if is_empty(self.store) else "the atlas has no vectors (run `ohara embed`)"
            return []
        embedder, why = self._query_embedder(s, models)
        if embedder is None:
            state.skipped["vector"] = why
            return []
        key = _vector_key(embedder, state)
        vec = self._query_vectors.get(key)
        if vec is None:
            pending = state.pending_vector
            if pending is not None and pending[0] == key and not pending[1].done() and state.settings.abstain != "rule":
                self._while_encoding(state)  # reads only answerability needs: none under the rule
            vec = (pending[1].result() if pending is not None and pending[0] == key
                   else embedder.embed([key[1]], "query"))[0]
            with self._cache_lock:  # servers query from many threads: evict and insert as one step
                while len(self._query_vectors) >= QUERY_VECTOR_CACHE:
                    self._query_vectors.pop(next(iter(self._query_vectors)))
                self._query_vectors[key] = vec
        state.query_vector = vec
        state.query_vector_model = embedder.model
        return vector(state, self.store, s)

    def _encode_ahead(self, state: QueryState) -> None:
        """Start embedding the query on a worker thread when the vector phase will run, has no cached
        vector and the embedder is a local model: the encoder releases the GIL, so it runs while phase 0
        and BM25 do, and `vector_phase` waits for the same vector it would have made. Anything that fails
        here is left to `vector_phase`, which raises it where it always did."""
        weights = phase_weights(state.settings, state.query.mode)
        if all(weights.get(f, 0.0) == 0.0 for f in ("vector", *PHASE["vector"].feeds)):
            return
        try:
            models = self.store.vector_models()
            embedder = self._query_embedder(state.settings, models)[0] if models else None
        except Exception:  # noqa: BLE001 - raised again, in its place, by vector_phase
            return
        if embedder is None or embedder.model.split(":", 1)[0] not in LOCAL_EMBEDDERS:
            return
        key = _vector_key(embedder, state)
        if key in self._query_vectors:
            return
        state.pending_vector = (key, self._encoders().submit(embedder.embed, [key[1]], "query"))

    def _while_encoding(self, state: QueryState) -> None:
        """While the query is still being embedded on another core: the full-text index's document frequencies of
        the query's words, which answerability reads whatever the vector (`bm25_relative`, `idf_coverage`, the
        vacuity check). The store caches them per graph version, so those reads find them; values unchanged."""
        if state.query.keywords:
            self.store.term_document_counts(state.query.keywords)
        known_words(content_words(state.query.raw), self.store)

    def _encoders(self) -> ThreadPoolExecutor:
        """This process's pool: a forked child inherits the parent's pool object but none of its threads,
        and would wait forever on it."""
        with self._cache_lock:
            if self._encoder_pool is None or self._encoder_pool[0] != os.getpid():
                self._encoder_pool = (os.getpid(), ThreadPoolExecutor(ENCODER_THREADS,
                                                                      thread_name_prefix="ohara-query-encoder"))
            return self._encoder_pool[1]

    def _query_embedder(self, s: Settings, models: dict[str, int]) -> tuple[Any, str]:
        """The embedder whose vectors the atlas holds; asking for another model is an error."""
        from ..embed.registry import available, get_embedder, resolve_name  # noqa: PLC0415

        atlas_model = max(models, key=lambda m: models[m])
        family = atlas_model.split(":", 1)[0]
        wanted = resolve_name(s.embedder) if s.embedder != "auto" else family
        if wanted == "none":
            return None, "embedder is 'none'"
        if wanted != family:
            raise EmbeddingError(
                f"the atlas's vectors were made by {atlas_model}, but OHARA_EMBEDDER={s.embedder} asks for "
                f"{wanted}: run `ohara embed --embedder {wanted}` to re-embed, or query with --embedder {family}")
        embedder: Any = self._embedders.get(family)
        if embedder is None:  # the install check searches sys.path (~0.2 ms): once, before the first build
            if family != "gemini" and not available(family):
                return None, f"embedder {family!r} is not installed (pip install 'ohara-lab[dense]')"
            embedder = self._embedders[family] = get_embedder(family, s.embed_batch_size, s)
        if embedder.model != atlas_model:
            raise EmbeddingError(f"the atlas's vectors were made by {atlas_model}, the installed embedder makes "
                                 f"{embedder.model}: run `ohara embed` to re-embed")
        return embedder, ""

    # ------------------------------------------------------------------ temporal and tiers
    def _temporal(self, fused: list[Fused], state: QueryState, s: Settings) -> list[Fused]:
        intent = state.query.temporal_intent
        if not prior_applies(intent, s):
            return fused
        protected = {f.id for f in qualifying(fused, s)[0]}
        docs = self.store.get_nodes({f.document_id for f in fused if f.document_id})
        return apply_prior(fused, docs, intent, state.query.date_range, s, protected, reference_day(s))

    def _tiers(self, fused: list[Fused], s: Settings, abstain: bool = False,
               excluded: frozenset[str] = frozenset(), analytics: Analytics | None = None) -> Tiers:
        chosen, floor = principal(fused, s)
        chosen = [] if abstain else chosen
        items = integrity(chosen, fused, self.store, s, excluded)
        seen = {f.id for f in fused} | {i.id for i in items}
        slugs = principal_slugs(chosen, self.store) if analytics is not None and chosen else []
        extra = explorer_candidates(slugs, self.store, analytics, adamic_adar=s.adamic_adar,
                                    community=s.community) if slugs else []
        frontier, reason = explorer(chosen, seen, self.store, s, excluded, extra)
        unexpected = unexpected_connections(slugs, self.store, analytics) if slugs and s.community else []
        return Tiers(chosen, items, frontier, reason, knowledge_gaps(chosen, self.store), floor, unexpected)

    # ------------------------------------------------------------------ views
    def _views(self, results: list[Fused], tiers: Tiers, known: Collection[str] = ()) -> dict[str, NodeView]:
        """Views of every node the results and tiers show, except the `known` ones already built."""
        ids = {f.id for f in results} | {f.id for f in tiers.principal} | {i.id for i in tiers.integrity}
        ids |= {x.node_id for x in tiers.explorer if x.node_id}
        ids -= set(known)
        nodes = self.store.get_nodes(ids)
        # the new nodes' documents (for their titles) and the explorer's documents not already shown
        doc_ids = {n.get("document_id") for n in nodes.values()} | ({x.document_id for x in tiers.explorer} - set(known))
        docs = self.store.get_nodes({d for d in doc_ids if d})
        sections = self._sections({n.get("section_id") for n in nodes.values()} - {None})
        views = {}
        for nid, n in nodes.items():
            doc = docs.get(n.get("document_id"), {})
            views[nid] = NodeView(
                id=nid, collection=n["collection"], document_id=n.get("document_id", ""),
                document_title=doc.get("title", ""), content=_content(n), node_type=n.get("node_type", ""),
                section_path=_path(n.get("section_id") if n["collection"] != "sections" else nid, sections),
                page=n.get("page"), sumo_tags=n.get("sumo_tags") or [], entity_slugs=n.get("entity_slugs") or [],
                published_date=doc.get("published_date"))
        for did, d in docs.items():
            views.setdefault(did, NodeView(did, "documents", did, d.get("title", ""), d.get("description", ""),
                                           "Document", published_date=d.get("published_date")))
        return views

    def _sections(self, ids: set[str]) -> dict[str, dict[str, Any]]:
        """The given sections and all their ancestors."""
        out: dict[str, dict[str, Any]] = {}
        todo = set(ids)
        while todo:
            found = self.store.get_nodes(todo)
            out.update(found)
            todo = {s.get("parent_section_id") for s in found.values()} - {None} - set(out)
        return out


def _admitted(hits: list[Hit], state: QueryState) -> list[Hit]:
    """The hits an "as of" query may see (all of them otherwise)."""
    return [h for h in hits if h.document_id not in state.excluded] if state.excluded else hits


def _content(node: dict[str, Any]) -> str:
    return node.get("content") or node.get("markdown_representation") or node.get("title") or ""


def _path(section_id: str | None, sections: dict[str, dict[str, Any]]) -> list[str]:
    path: list[str] = []
    while section_id and section_id in sections and len(path) < 12:
        path.append(sections[section_id].get("title", ""))
        section_id = sections[section_id].get("parent_section_id")
    return path[::-1]


# The signal-family phases between phase 1 and TOC guidance, in the order they run. A zero weight skips one.
# `bm25` runs before them (it seeds the rest) and `structural` after TOC guidance (`Engine.retrieve`).
PHASES: tuple[Phase, ...] = (
    Phase("sumo", lambda e, st: sumo(st, e.store, st.settings, e.ontology)),
    Phase("entity_pivot", lambda e, st: entity_pivot(st, e.store, st.settings)),
    Phase("cross_doc", lambda e, st: cross_doc(st, e.store, st.settings)),
    Phase("vector", lambda e, st: e.vector_phase(st)),
    Phase("answers_same", lambda e, st: answers_same(st, e.store, st.settings)),
    Phase("cluster", lambda e, st: clusters(st, e.store, st.settings)),
    Phase("ppr", lambda e, st: ppr(st, e.store, st.settings, e.passage_graph())),
    Phase("bridge", lambda e, st: bridge(st, e.store, st.settings)),
)
RUN_ORDER: tuple[str, ...] = ("bm25", *(p.name for p in PHASES), "structural")  # every phase, as `retrieve` runs them
