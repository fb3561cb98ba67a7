"""Batch the expensive per-node work (tagging, NER, embedding) across documents.

Each wrapper runs its model once over all texts of a batch of documents
(`prime`) and then answers the per-document calls from those results, so the
pipeline's per-document stages stay unchanged. NER may be started a batch early
(`PrimedResources.submit`, `OHARA_NER_AHEAD`): its results join the memo when the
batch is primed, and any text it did not cover is extracted then, as before.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ..entities.extract import Pending, start_extraction
from ..settings import Settings
from .annotate import annotated_nodes, needs_extractor, needs_tagger, node_text
from .embedding import embed_text, embeddable
from .resources import Resources
from .transform import Structure


class _Memo:
    def __init__(self, fn: Callable[[list[str]], list[Any]]):
        self.fn = fn
        self.cache: dict[str, Any] = {}
        self.pending: list[tuple[list[str], Pending]] = []

    def submit(self, texts: list[str], start: Callable[[list[str]], Pending]) -> None:
        """Start `fn`'s work on these texts elsewhere (`start`); `prime` collects it."""
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if todo:
            self.pending.append((todo, start(todo)))

    def prime(self, texts: list[str]) -> None:
        for started, pending in self.pending:
            self.cache.update(zip(started, pending.result()))
        self.pending.clear()
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if todo:
            self.cache.update(zip(todo, self.fn(todo)))

    def __call__(self, texts: list[str]) -> list[Any]:
        self.prime(texts)
        return [self.cache[t] for t in texts]


class PrimedTagger:
    def __init__(self, ontology: Any, k: int):
        self.ontology, self.k = ontology, k
        self.memo = _Memo(lambda texts: ontology.tag_texts(texts, k=k))

    def validate_tags(self, candidates: list[str]) -> Any:
        return self.ontology.validate_tags(candidates)

    def tag_texts(self, texts: list[str], k: int = 4) -> list[list[str]]:
        return self.memo(texts) if k == self.k else self.ontology.tag_texts(texts, k=k)


class PrimedExtractor:
    def __init__(self, extractor: Any):
        self.name = extractor.name
        self.inner = extractor
        self.memo = _Memo(extractor.extract)

    def submit(self, texts: list[str]) -> None:
        self.memo.submit(texts, partial(start_extraction, self.inner))

    def extract(self, texts: list[str]) -> list[Any]:
        return self.memo(texts)


class PrimedEmbedder:
    def __init__(self, embedder: Any):
        self.model, self.dim = embedder.model, embedder.dim
        self.memo = _Memo(lambda texts: list(embedder.embed(texts, "document")))

    def embed(self, texts: list[str], kind: str = "document") -> np.ndarray:
        return np.asarray(self.memo(texts), dtype=np.float32).reshape(len(texts), self.dim)


class PrimedResources(Resources):
    tagger: PrimedTagger
    extractor: PrimedExtractor
    embedder: PrimedEmbedder | None

    def prime(self, structures: list[Structure]) -> None:
        """Run the models once over every node text of these documents."""
        pairs = [(s, n) for s in structures for n in annotated_nodes(s)]
        texts = [node_text(n) for _, n in pairs]
        self.tagger.memo.prime([t for (_, n), t in zip(pairs, texts) if needs_tagger(n)])
        self.extractor.memo.prime(ner_texts(structures))
        if self.embedder is not None:
            self.embedder.memo.prime([embed_text(n) for s in structures for n in embeddable(s.paragraphs, s.tables)])

    def submit(self, structures: list[Structure]) -> None:
        """Start NER over these documents' texts now (`prime` collects it): on a worker process with spaCy."""
        self.extractor.submit(ner_texts(structures))


def ner_texts(structures: list[Structure]) -> list[str]:
    """The node texts of these documents that NER reads, in order."""
    return [node_text(n) for s in structures for n in annotated_nodes(s) if needs_extractor(s, n)]


def primed_resources(ingestor: Any, settings: Settings) -> PrimedResources:
    embedder = ingestor.embedder if settings.embed_paragraphs is not False else None
    return PrimedResources(PrimedTagger(ingestor.ontology, settings.sumo_tags_per_node),
                           PrimedExtractor(ingestor.extractor), PrimedEmbedder(embedder) if embedder else None)
