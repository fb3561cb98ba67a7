"""ANSWERS_SAME at ingest (spec §2.13): the questions each paragraph answers, asked of the LLM.

Paragraphs of at least ``MIN_CHARS`` characters (raw ``llm_pending`` chunks excepted) go to
``paragraph_questions`` in batches of at most ``BATCH_PARAGRAPHS`` paragraphs and
``BATCH_CHARS`` characters, each cut to ``PARAGRAPH_CHARS``. Each reply gives one or two
questions per paragraph; they join the graph as ``Question(node_id, text, norm)`` with
``norm = question_key(text)`` (lower-case, ``[a-z0-9 ]``, spaces collapsed), and the store
links paragraphs sharing a ``norm`` both ways inside the document's write.

A batch the model fails on, or the run's budget refuses, leaves its paragraphs unasked:
the document is marked ``partial`` so the next run asks again (answered batches then come
from the reply cache). Offline nothing is asked and no ANSWERS_SAME edge is written.
"""
from __future__ import annotations

import logging
from typing import Any

from ..errors import LLMError
from ..ids import question_key
from ..records import Document, DocumentGraph, Paragraph, Question
from .accounting import UsageBook
from .provider import LLMProvider

log = logging.getLogger(__name__)

PROMPT = "paragraph_questions"
MIN_CHARS = 100  # spec §2.13: paragraphs of at least this many characters get questions
PARAGRAPH_CHARS = 1500
BATCH_PARAGRAPHS = 20
BATCH_CHARS = 12000
MAX_QUESTIONS = 2


def askable(paragraphs: list[Paragraph]) -> list[Paragraph]:
    return [p for p in paragraphs if len(p.content.strip()) >= MIN_CHARS and not p.llm_pending]


def question_batches(paragraphs: list[Paragraph]) -> list[list[Paragraph]]:
    """The askable paragraphs in reading order, cut into batches the prompt takes."""
    batches: list[list[Paragraph]] = []
    size = 0
    for p in askable(paragraphs):
        n = min(len(p.content), PARAGRAPH_CHARS)
        if not batches or len(batches[-1]) >= BATCH_PARAGRAPHS or size + n > BATCH_CHARS:
            batches.append([])
            size = 0
        batches[-1].append(p)
        size += n
    return batches


def batch_variables(batch: list[Paragraph]) -> dict[str, Any]:
    return {"paragraphs": [p.content[:PARAGRAPH_CHARS] for p in batch]}


def read_reply(batch: list[Paragraph], data: dict[str, Any]) -> list[Question]:
    """The reply's questions for the batch's paragraphs; numbers naming no paragraph are ignored."""
    out = []
    for item in data["questions"]:
        if not 1 <= item["paragraph"] <= len(batch):
            continue
        node = batch[item["paragraph"] - 1]
        for text in item["questions"][:MAX_QUESTIONS]:
            norm = question_key(text)
            if norm:
                out.append(Question(node.id, " ".join(text.split()), norm))
    return out


class ParagraphQuestioner:
    """`before_write(graph)`: asks the LLM for the graph's paragraph questions and attaches them."""

    def __init__(self, provider: LLMProvider, book: UsageBook, concurrency: int):
        self.provider = provider
        self.book = book
        self.concurrency = concurrency

    def __call__(self, graph: DocumentGraph) -> None:
        batches = question_batches(graph.paragraphs)
        if not batches:
            return
        requests = [(PROMPT, batch_variables(b)) for b in batches]
        replies = self.provider.generate_many(requests, self.concurrency, scope=self.book.scope(graph.document.id))
        unasked, reason = 0, ""
        for batch, reply in zip(batches, replies):
            if isinstance(reply, LLMError):
                unasked += len(batch)
                reason = reason or reply.reason
                continue
            graph.questions += read_reply(batch, reply.data)
        if unasked:
            log.warning("%s: questions of %d paragraph(s) not asked: %s", graph.document.id, unasked, reason)
            mark_pending(graph.document, f"questions of {unasked} paragraph(s) not asked ({reason})")


def mark_pending(document: Document, what: str) -> None:
    """The document is rebuilt by the next run: LLM work is left to do."""
    if document.ingestion_status == "complete":
        document.ingestion_status = "partial"
    document.ingestion_error = "; ".join(e for e in (document.ingestion_error, what) if e)[:1000]
