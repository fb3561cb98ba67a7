"""`ohara ingest --dry-run`: what an LLM ingest would send and cost, with nothing sent.

The estimate runs the ingest pipeline itself (`Ingestor`: plan, parse, special sections,
chunking with the run's settings) with a structurer that, instead of calling the model,
renders each request from the same template and variables a real run uses, counts it and
answers it the way the stand-in model does. Requests, in a real run's order:

* ``document_context`` for documents of more than one chunk and >= 8,000 characters;
  ``ingest_document`` for every chunk, carrying that context;
* ``paragraph_questions`` (``OHARA_ANSWERS_SAME``), batched over the predicted paragraphs;
* ``enrich_cross_doc_edge`` for each SIMILAR_TO edge the linker would write against the
  atlas's documents and the run's earlier files.

What depends on replies is predicted from the offline behaviour of each prompt: the
document context inside the chunk prompts, the paragraphs and entities that decide
questions and links. A request already in the reply cache is an expected cache hit
(free). Per request:

    input  = tokens(rendered prompt)                 (`tokens.count_tokens`: local tokenizer or chars/4)
    output = tokens(JSON of the predicted reply)     (an ``ingest_document`` reply reproduces its chunk,
                                                      which the fidelity check demands of the model too)
    price  = estimate_cost_usd(model, input, output, tier)   at the flex and at the standard rate

Retries after rejected replies and thinking tokens are not predicted.

**Sampled** (a set of files over ``OHARA_ESTIMATE_FULL_MB``: a shelf of 30 books took 195 s in full,
nearly all of it the entity extraction that predicts replies). Every file is hashed and planned as above;
per format (file extension) ``SAMPLE_FILES`` files spread over the size range (one when they are all of a
size, ``SAME_SIZE``) are parsed and chunked, every chunk's ``ingest_document`` prompt is rendered and
counted, and the replies of ``SAMPLE_CHUNKS`` interior chunks per file are predicted; the other chunks'
output is those replies' tokens per character times their length. A file not parsed is scaled from the
parsed file g of its format nearest in size:

    requests(f) = size(f) / size(g) · requests(g)     (per prompt; tokens per request: g's mean)

``enrich_cross_doc_edge`` requests need every document's entities and are not predicted when sampling
(the estimate says so).
"""
from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import OharaError
from ..ids import document_key, node_id, sha256_file
from ..ingest.linking import make_linker
from ..ingest.pipeline import Ingestor, expand_paths
from ..ingest.transform import ChunkNodes
from ..parse import parse_file
from ..records import SIMILAR_TO, Document, DocumentGraph, Entity
from ..settings import Settings
from ..store.protocol import Overlap, jaccard
from .cache import ReplyCache, cache_key, default_cache_dir
from .enrich import EdgeEnricher
from .ingest import CONTEXT_MIN_CHARS, CONTEXT_SOURCE_CHARS, chunk_variables
from .offline import offline_behaviours
from .offline_core import ingest_document as offline_ingest_document
from .prompts import load_prompt
from .questions import PROMPT as QUESTIONS_PROMPT
from .questions import batch_variables, question_batches
from .tokens import count_tokens, counter_name
from .usage import FLEX, STANDARD, TokenUsage, estimate_cost_usd

if TYPE_CHECKING:
    from ..store.protocol import GraphStore

log = logging.getLogger(__name__)


@dataclass
class RequestEstimate:
    prompt: str
    input_tokens: int
    output_tokens: int
    cached: bool  # in the reply cache: a real run would not send it


@dataclass
class FileEstimate:
    """What ingesting one file would send; `status` is what the run would do with it."""

    path: str
    status: str  # ingested | completed | replaced | skipped | failed
    reason: str | None = None
    model: str = ""
    requests: list[RequestEstimate] = field(default_factory=list)
    method: str = "full"  # full (the pipeline ran) | sampled (parsed, some replies predicted) | extrapolated

    def totals(self) -> dict[str, Any]:
        return _totals(self.requests, self.model)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "status": self.status, "reason": self.reason, "method": self.method,
                **self.totals()}


@dataclass
class IngestEstimate:
    files: list[FileEstimate]
    model: str
    tokenizer: str  # "local" (google-genai) or "chars/4"
    provider_note: str | None = None  # set when the configured provider would send nothing at all
    sample_note: str | None = None  # set when the estimate sampled (what it read, what it left out)

    @property
    def ok(self) -> bool:
        return all(f.status != "failed" for f in self.files)

    def totals(self) -> dict[str, Any]:
        return _totals([r for f in self.files for r in f.requests], self.model)

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "tokenizer": self.tokenizer, "provider_note": self.provider_note,
                "sample_note": self.sample_note, "files": [f.to_dict() for f in self.files], "total": self.totals()}


def _totals(requests: list[RequestEstimate], model: str) -> dict[str, Any]:
    sent = [r for r in requests if not r.cached]
    usage = TokenUsage(prompt=sum(r.input_tokens for r in sent), output=sum(r.output_tokens for r in sent),
                       calls=len(sent))
    by_prompt: dict[str, int] = {}
    for r in sent:
        by_prompt[r.prompt] = by_prompt.get(r.prompt, 0) + 1
    return {"requests": len(sent), "cache_hits": len(requests) - len(sent), "input_tokens": usage.prompt,
            "output_tokens": usage.output, "by_prompt": by_prompt,
            "cost_flex_usd": _round(estimate_cost_usd(model, usage, FLEX)),
            "cost_standard_usd": _round(estimate_cost_usd(model, usage, STANDARD))}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


# --------------------------------------------------------------------------- counting requests


class RequestCounter:
    """Renders, counts and (from the cache or the offline behaviour) answers requests; sends nothing."""

    def __init__(self, settings: Settings, extractor: Any, ontology: Any):
        self.model = settings.gemini_model
        self.cache = ReplyCache(default_cache_dir(settings))
        self.extractor, self.ontology = extractor, ontology
        self.requests: list[RequestEstimate] = []

    def ask(self, prompt_name: str, variables: dict[str, Any]) -> dict[str, Any]:
        prompt = load_prompt(prompt_name)
        text = prompt.render(variables)
        key = cache_key(prompt.name, prompt.version, self.model, prompt.cache_variables(variables))
        data = self.cache.get(key)
        cached = data is not None
        if data is None:
            data = self._predicted(prompt_name, variables)
        self.requests.append(RequestEstimate(prompt_name, count_tokens(text), count_tokens(json.dumps(data)), cached))
        return data

    def count(self, prompt_name: str, variables: dict[str, Any], output_tokens: int) -> None:
        """A request rendered and counted whose reply is not predicted: `output_tokens` stands for it
        (a cached reply counts as itself)."""
        prompt = load_prompt(prompt_name)
        text = prompt.render(variables)
        data = self.cache.get(cache_key(prompt.name, prompt.version, self.model, prompt.cache_variables(variables)))
        out = output_tokens if data is None else count_tokens(json.dumps(data))
        self.requests.append(RequestEstimate(prompt_name, count_tokens(text), out, data is not None))

    def _predicted(self, prompt_name: str, variables: dict[str, Any]) -> dict[str, Any]:
        if prompt_name == "ingest_document":  # with the atlas's own extractor, as the ingest would annotate
            return offline_ingest_document(variables, extractor=self.extractor, ontology=self.ontology)
        return offline_behaviours()[prompt_name](dict(variables))


class EstimatingStructurer:
    """A structurer making a real run's structuring requests (`LLMStructurer`'s) without sending them."""

    def __init__(self, counter: RequestCounter):
        self.counter = counter

    def __call__(self, chunks: list, markdown: str, doc_id: str) -> list[ChunkNodes]:
        context = None
        if len(chunks) >= 2 and len(markdown) >= CONTEXT_MIN_CHARS:
            context = self.counter.ask("document_context",
                                       {"document_start": chunks[0].text[:CONTEXT_SOURCE_CHARS]})["summary"]
        return [ChunkNodes(c, self.counter.ask("ingest_document", chunk_variables(c, context))["nodes"])
                for c in chunks]


# --------------------------------------------------------------------------- predicted links


class PredictedAtlas:
    """The atlas as the run would leave it, for linking and edge payloads: stored documents
    (minus those the run replaces) plus the graphs of the run's earlier files."""

    def __init__(self, store: GraphStore):
        self.store = store
        self.graphs: dict[str, DocumentGraph] = {}
        self.gone: set[str] = set()
        self._sets: dict[str, dict[str, str]] | None = None

    def stored_sets(self) -> dict[str, dict[str, str]]:
        """Entity slug -> type per stored document (read once)."""
        if self._sets is None:
            self._sets = {}
            for ent in self.store.get_entities():
                for doc_id in ent.document_ids:
                    self._sets.setdefault(doc_id, {})[ent.slug] = ent.type
        return self._sets

    def entity_sets(self) -> dict[str, dict[str, str]]:
        sets = {d: s for d, s in self.stored_sets().items() if d not in self.gone}
        sets.update({d: {e.slug: e.type for e in g.entities} for d, g in self.graphs.items()})
        return sets

    def get_document(self, doc_id: str) -> Document | None:
        return self.graphs[doc_id].document if doc_id in self.graphs else self.store.get_document(doc_id)

    def document_nodes(self, doc_id: str) -> dict[str, list[dict[str, Any]]]:
        if doc_id in self.graphs:
            return {"paragraphs": [p.to_dict() for p in self.graphs[doc_id].paragraphs]}
        return self.store.document_nodes(doc_id)

    def get_entities(self, slugs: Iterable[str]) -> list[Entity]:
        slugs = list(slugs)
        mine = {e.slug: e for g in self.graphs.values() for e in g.entities if e.slug in slugs}
        return list(mine.values()) + self.store.get_entities([s for s in slugs if s not in mine])

    def link_view(self, graph: DocumentGraph) -> _LinkView:
        return _LinkView(self, graph.document.id)


class _LinkView:
    """`LinkContext` over a `PredictedAtlas`."""

    def __init__(self, atlas: PredictedAtlas, document_id: str):
        self.atlas, self.document_id = atlas, document_id

    def entity_overlap(self, slugs: Iterable[str], exclude_types: Iterable[str] = (),
                       min_jaccard: float = 0.0) -> list[Overlap]:
        wanted, excluded = set(slugs), set(exclude_types)
        out = []
        for doc_id, ents in sorted(self.atlas.entity_sets().items()):
            if doc_id == self.document_id:
                continue
            kept = {s for s, kind in ents.items() if kind not in excluded}
            shared = sorted(kept & wanted)
            doc = self.atlas.get_document(doc_id) if shared else None
            if doc is not None and jaccard(len(wanted), len(kept), len(shared)) >= min_jaccard:
                out.append(Overlap(doc, len(kept), shared))
        return out

    def snippets(self, document_id: str, n: int = 3, min_chars: int = 50) -> list[str]:
        paragraphs = self.atlas.document_nodes(document_id).get("paragraphs", [])
        return [p["content"] for p in paragraphs if len(p.get("content") or "") > min_chars][:n]


# --------------------------------------------------------------------------- the estimate


def estimate_ingest(store: GraphStore, settings: Settings, paths: Iterable[str | Path], *, force: bool = False) -> IngestEstimate:
    """Per file and in total: the requests, tokens, prices and cache hits a real LLM ingest of `paths` would have."""
    quiet = settings.override(embed_paragraphs=False, ner_cache_entries=0)  # a dry run writes no cache
    twin = Ingestor(store, quiet)
    counter = RequestCounter(settings, twin.extractor, twin.ontology)
    twin.structurer, twin.structurer_name = EstimatingStructurer(counter), "estimate"
    atlas = PredictedAtlas(store)
    linker = make_linker(settings.similarity_threshold)
    enricher = EdgeEnricher(None, atlas, twin.ontology)  # type: ignore[arg-type] - only its payload is used
    files, problems = expand_paths(paths)
    out = [FileEstimate(o.path, "failed", o.reason, counter.model) for o in problems]
    size = sum(f.stat().st_size for f in files if f.is_file())
    if size > settings.estimate_full_mb * 1e6:
        rows, note = _sampled(files, twin, counter, settings, force)
        return IngestEstimate(out + rows, counter.model, counter_name(), _provider_note(settings), note)
    for path in files:
        counter.requests = []
        row = _estimate_file(path, twin, counter, atlas, linker, enricher, settings, force)
        row.model, row.requests = counter.model, list(counter.requests)
        out.append(row)
    return IngestEstimate(out, counter.model, counter_name(), _provider_note(settings))


def _estimate_file(path: Path, twin: Ingestor, counter: RequestCounter, atlas: PredictedAtlas, linker: Any,
                   enricher: EdgeEnricher, settings: Settings, force: bool) -> FileEstimate:
    try:
        if not path.is_file():
            return FileEstimate(str(path), "failed", "no such file")
        file_hash, origin = sha256_file(path), str(path.resolve())
        plan = twin.plan(file_hash, origin, force)
        if plan.status == "skipped":
            return FileEstimate(str(path), "skipped", "unchanged since last ingest")
        parsed = parse_file(path, settings)
        graph = twin.build_graph(parsed, file_hash, origin, path.stat().st_size)
    except OharaError as exc:
        return FileEstimate(str(path), "failed", getattr(exc, "reason", str(exc)))
    if settings.answers_same:
        for batch in question_batches(graph.paragraphs):
            counter.ask(QUESTIONS_PROMPT, batch_variables(batch))
    atlas.gone |= set(plan.replaces)
    links = [e for e in linker(graph, atlas.link_view(graph)) if e.relation == SIMILAR_TO]
    atlas.graphs[graph.document.id] = graph
    docs = {d: atlas.get_document(d) for e in links for d in (e.from_id, e.to_id)}
    for edge in links:
        counter.ask("enrich_cross_doc_edge", enricher.payload(edge, {k: v for k, v in docs.items() if v}))
    return FileEstimate(str(path), plan.status)


# --------------------------------------------------------------------------- sampling a large set

SAMPLE_FILES = 2  # files parsed per format, spread over the format's size range
SAME_SIZE = 1.25  # a file at most this much larger than a parsed one of its format is extrapolated from it
SAMPLE_CHUNKS = 4  # chunks per parsed file whose replies are predicted (entity extraction runs on these)


def _spread(n: int, k: int, *, ends: bool = True) -> list[int]:
    """`k` indices spread evenly over range(n) (all of them when n <= k): with `ends` the first and last
    included (files: the smallest and the largest of a format), else the middles of k equal parts (chunks:
    a book's first and last chunks, front matter and index, are the least like the rest)."""
    if n <= k:
        return list(range(n))
    if not ends:
        return sorted({int((i + 0.5) * n / k) for i in range(k)})
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)}) if k > 1 else [n // 2]


def _sampled(files: list[Path], twin: Ingestor, counter: RequestCounter, settings: Settings,
             force: bool) -> tuple[list[FileEstimate], str]:
    """Rows for `files` by the sampling of the module docstring, in the files' order, and what was sampled."""
    rows: dict[Path, FileEstimate] = {}
    todo: dict[str, list[tuple[Path, str]]] = {}  # format -> (file, status the run would give it)
    for path in files:
        if not path.is_file():
            rows[path] = FileEstimate(str(path), "failed", "no such file", counter.model)
            continue
        plan = twin.plan(sha256_file(path), str(path.resolve()), force)
        if plan.status == "skipped":
            rows[path] = FileEstimate(str(path), "skipped", "unchanged since last ingest", counter.model)
        else:
            todo.setdefault(path.suffix.lower(), []).append((path, plan.status))
    samples: dict[str, list[tuple[int, list[RequestEstimate]]]] = {}  # format -> (bytes, requests) per parsed file
    chunks_seen = chunks_predicted = 0
    for fmt, group in todo.items():
        by_size = sorted(group, key=lambda item: item[0].stat().st_size)
        picked: list[tuple[Path, str]] = []
        for i in _spread(len(by_size), SAMPLE_FILES):
            # files within SAME_SIZE of one already picked add a parse (an EPUB: ~1.3 s) and tell nothing new
            if not any(by_size[i][0].stat().st_size <= SAME_SIZE * p.stat().st_size for p, _ in picked):
                picked.append(by_size[i])
        for path, status in picked:
            counter.requests = []
            try:
                seen, predicted = _sample_file(parse_file(path, settings), counter, settings)
            except OharaError as exc:
                rows[path] = FileEstimate(str(path), "failed", getattr(exc, "reason", str(exc)), counter.model)
                continue
            chunks_seen, chunks_predicted = chunks_seen + seen, chunks_predicted + predicted
            rows[path] = FileEstimate(str(path), status, None, counter.model, list(counter.requests), "sampled")
            samples.setdefault(fmt, []).append((path.stat().st_size, list(counter.requests)))
    every = [s for group in samples.values() for s in group]
    for fmt, group in todo.items():
        for path, status in group:
            if path in rows:
                continue
            size = path.stat().st_size
            nearest = min(samples.get(fmt) or every, key=lambda s: abs(math.log((s[0] + 1) / (size + 1))), default=None)
            if nearest is None:
                rows[path] = FileEstimate(str(path), "failed", f"no {fmt or 'extension-less'} file of the set could "
                                          "be parsed to sample from", counter.model)
                continue
            # the parsed file of this format nearest in size, scaled by size: a short note and a book of
            # one format differ in more than length (one chunk, no document context)
            rows[path] = FileEstimate(str(path), status, None, counter.model,
                                      _scaled(nearest[1], size / max(nearest[0], 1)), "extrapolated")
    parsed = sum(1 for r in rows.values() if r.method == "sampled")
    note = (f"sampled: {parsed} of {sum(map(len, todo.values()))} files parsed, the replies of {chunks_predicted} of "
            f"their {chunks_seen} chunks predicted, the rest extrapolated by size (OHARA_ESTIMATE_FULL_MB="
            f"{settings.estimate_full_mb:g} for a full run); enrich_cross_doc_edge requests not predicted")
    return [rows[p] for p in files], note


def _sample_file(parsed: Any, counter: RequestCounter, settings: Settings) -> tuple[int, int]:
    """A parsed file's requests: every chunk's prompt counted, `SAMPLE_CHUNKS` chunks' replies predicted.
    Returns (chunks, chunks predicted)."""
    from ..ingest.chunking import chunk_markdown  # noqa: PLC0415
    from ..ingest.prepare import offline_structurer  # noqa: PLC0415
    from ..ingest.special import extract_specials  # noqa: PLC0415
    from ..ingest.transform import transform  # noqa: PLC0415

    markdown = extract_specials(parsed.markdown).markdown
    chunks = chunk_markdown(markdown, max_chars=settings.max_chunk_chars, min_chars=settings.min_chunk_chars,
                            virtual_page_size=settings.virtual_page_size)
    if not chunks:
        raise OharaError("no text content found")
    context = None
    if len(chunks) >= 2 and len(markdown) >= CONTEXT_MIN_CHARS:
        context = counter.ask("document_context", {"document_start": chunks[0].text[:CONTEXT_SOURCE_CHARS]})["summary"]
    picked = _spread(len(chunks), SAMPLE_CHUNKS, ends=False)
    out_tokens = chars = 0
    for i in picked:
        counter.ask("ingest_document", chunk_variables(chunks[i], context))
        out_tokens, chars = out_tokens + counter.requests[-1].output_tokens, chars + len(chunks[i].text)
    per_char = out_tokens / max(chars, 1)  # a reply reproduces its chunk, plus the annotation
    for i, chunk in enumerate(chunks):
        if i not in picked:
            counter.count("ingest_document", chunk_variables(chunk, context), round(per_char * len(chunk.text)))
    if settings.answers_same:  # paragraphs as the offline structure cuts them (no entity extraction needed)
        doc_id = node_id("documents", document_key(parsed.path))
        paragraphs = transform(doc_id, offline_structurer(chunks, markdown, doc_id)).paragraphs
        for batch in question_batches(paragraphs):
            counter.ask(QUESTIONS_PROMPT, batch_variables(batch))
    return len(chunks), len(picked)


def _scaled(requests: list[RequestEstimate], factor: float) -> list[RequestEstimate]:
    """Per prompt: round(factor · count) requests (at least one where the sample had one) of the mean size;
    a document has one document_context at most."""
    out = []
    for prompt in dict.fromkeys(r.prompt for r in requests):
        mine = [r for r in requests if r.prompt == prompt]
        n = 1 if prompt == "document_context" else max(1, round(factor * len(mine)))
        mean_in = round(sum(r.input_tokens for r in mine) / len(mine))
        mean_out = round(sum(r.output_tokens for r in mine) / len(mine))
        out += [RequestEstimate(prompt, mean_in, mean_out, False) for _ in range(n)]
    return out


def _provider_note(settings: Settings) -> str | None:
    from .shared import is_offline  # noqa: PLC0415

    try:
        offline = is_offline(settings)
    except OharaError as exc:  # e.g. OHARA_LLM=gemini without a key: the estimate still stands
        return f"the configured provider cannot be built ({exc}); prices are for {settings.gemini_model}"
    return (f"OHARA_LLM resolves to the offline provider: a real run sends nothing; prices are for "
            f"{settings.gemini_model}") if offline else None


__all__ = ["FileEstimate", "IngestEstimate", "RequestEstimate", "estimate_ingest"]
