"""LLM structuring at ingest: the hooks `ohara_lab.ingest.factory` asks for.

`llm_ingest_hooks(store, settings)` returns None when the provider is offline (the
pipeline keeps its offline structurer), else an `LLMIngestHooks`:

* the structurer sends every chunk to ``ingest_document`` (``generate_many``,
  ``settings.ingest_concurrency`` at a time), with a 2-3 sentence document context
  for documents of more than one chunk and at least 8,000 characters (spec §2.6);
  each reply must satisfy the schema *and* reproduce its chunk (`fidelity`), else
  it is retried once with the problem stated and then given up on;
* a chunk given up on becomes one ``llm_pending`` Paragraph holding the chunk's
  whole text, so no text is lost, the document is ``partial``, and the next run
  rebuilds it (good chunks then come from the reply cache);
* with ``OHARA_ANSWERS_SAME``, ``before_write(graph)`` asks the questions each
  paragraph answers (`questions`); the store links paragraphs sharing one;
* ``on_document(graph)`` runs after the write: it enriches the document's
  SIMILAR_TO edges (`enrich`) and books the build's token usage on the document
  and on the atlas (`accounting`).

With ``OHARA_LLM_BUDGET_USD`` every call of the run goes through one `budget.LLMBudget`:
a call that would overrun it is not sent, and its work is left pending as above.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import LLMError
from ..ingest.transform import ChunkNodes
from ..records import Chunk, DocumentGraph
from ..settings import Settings
from ..store.protocol import GraphStore
from . import get_provider
from .accounting import UsageBook, add_to_atlas
from .budget import LLMBudget
from .enrich import EdgeEnricher
from .fidelity import chunk_check
from .provider import LLMProvider
from .questions import ParagraphQuestioner
from .usage import UsageLedger

log = logging.getLogger(__name__)

CONTEXT_MIN_CHARS = 8000  # spec §2.6: context for multi-chunk documents of at least this size
CONTEXT_SOURCE_CHARS = 3000



@dataclass
class LLMIngestHooks:
    """What an LLM provider adds to `Ingestor` (see the module docstring)."""

    structurer: Callable[[list, str, str], list[ChunkNodes]]
    name: str  # e.g. "gemini:gemini-2.5-flash-lite"
    on_document: Callable[[DocumentGraph], None]
    before_write: Callable[[DocumentGraph], None] | None = None
    budget: LLMBudget | None = None


def llm_ingest_hooks(store: GraphStore, settings: Settings, **provider_options: Any) -> LLMIngestHooks | None:
    """None offline; else the structurer, provider name, before/after-write steps and budget for `Ingestor`."""
    ledger = provider_options.pop("ledger", None) or UsageLedger()
    budget = LLMBudget(settings.llm_budget_usd, ledger, settings.gemini_model) \
        if settings.llm_budget_usd is not None else None
    provider = get_provider(settings, ledger=ledger, budget=budget, **provider_options)
    if provider.name == "offline":
        return None
    book = UsageBook(provider.ledger)
    structurer = LLMStructurer(provider, book, settings.ingest_concurrency)
    finisher = DocumentFinisher(provider, book, store, settings.ingest_concurrency)
    questioner = ParagraphQuestioner(provider, book, settings.ingest_concurrency) if settings.answers_same else None
    return LLMIngestHooks(structurer, provider.name, finisher, questioner, budget)


def pending_chunk(chunk: Chunk, error: str) -> ChunkNodes:
    """The chunk's whole text as one raw paragraph, marked for the next run."""
    node = {"type": "Paragraph", "part": "body_matter", "content": chunk.text, "metadata": {"page": chunk.start_page}}
    return ChunkNodes(chunk, [node], llm_pending=True, llm_error=error[:500])


def chunk_variables(chunk: Chunk, context: str | None) -> dict[str, Any]:
    """`ingest_document` variables for one chunk (spec §2.7 body fields)."""
    level = chunk.heading_level if isinstance(chunk.heading_level, int) and 1 <= chunk.heading_level <= 3 else None
    return {"chunk_text": chunk.text, "chunk_heading": chunk.heading or None, "heading_level": level,
            "page_range": f"{chunk.start_page}-{chunk.end_page}", "document_context": context}


class LLMStructurer:
    """`structurer(chunks, markdown, doc_id) -> list[ChunkNodes]` backed by an LLM provider."""

    def __init__(self, provider: LLMProvider, book: UsageBook, concurrency: int):
        self.provider = provider
        self.book = book
        self.concurrency = concurrency

    def __call__(self, chunks: list[Chunk], markdown: str, doc_id: str) -> list[ChunkNodes]:
        scope = self.book.begin(doc_id)
        context = self.document_context(chunks, markdown, scope)
        requests = [("ingest_document", chunk_variables(c, context)) for c in chunks]
        replies = self.provider.generate_many(requests, self.concurrency, scope=scope,
                                              checks=[chunk_check(c.text) for c in chunks])
        out = []
        for chunk, reply in zip(chunks, replies):
            if isinstance(reply, LLMError):
                log.warning("%s chunk %d stored as llm_pending: %s", doc_id, chunk.index, reply.reason)
                out.append(pending_chunk(chunk, reply.reason))
            else:
                out.append(ChunkNodes(chunk, reply.data["nodes"]))
        return out

    def document_context(self, chunks: list[Chunk], markdown: str, scope: str) -> str | None:
        """A short summary of the whole document for every chunk's prompt, or None (small or failed)."""
        if len(chunks) < 2 or len(markdown) < CONTEXT_MIN_CHARS:
            return None
        try:
            reply = self.provider.generate("document_context", {"document_start": chunks[0].text[:CONTEXT_SOURCE_CHARS]},
                                           scope=scope)
        except LLMError as exc:
            log.warning("document context unavailable, chunks go without it: %s", exc.reason)
            return None
        return reply.data["summary"]


class DocumentFinisher:
    """`on_document(graph)`: edge enrichment, then the build's token usage on document and atlas."""

    def __init__(self, provider: LLMProvider, book: UsageBook, store: GraphStore, concurrency: int):
        from ..ontology import load_ontology  # noqa: PLC0415

        self.book = book
        self.store = store
        self.enricher = EdgeEnricher(provider, store, load_ontology(), concurrency)

    def __call__(self, graph: DocumentGraph) -> None:
        doc_id = graph.document.id
        try:
            self.enricher.enrich(graph, scope=self.book.scope(doc_id))
        except Exception:  # noqa: BLE001 - the document is written and sound; enrichment only improves it
            log.exception("edge enrichment of %s failed; its SIMILAR_TO edges keep their offline attributes", doc_id)
        finally:  # tokens spent are booked even when enrichment breaks
            usage = self.book.finish(doc_id)
            graph.document.token_usage = usage
            self.store.update_document(doc_id, {"token_usage": usage})
            add_to_atlas(self.store, usage)

