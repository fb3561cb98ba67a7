"""Stage 2, structure: special sections, chunks, structuring (offline or LLM) and the transform
into sections, text nodes, tables and their structural edges: everything before the models run."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import IngestError
from ..ids import document_key, node_id
from ..records import Chunk, ParsedDocument
from ..settings import Settings
from ..timing import Timer
from .chunking import chunk_markdown
from .special import Specials, extract_specials
from .structure import structure_document
from .transform import ChunkNodes, Structure, transform

# structurer(chunks, markdown, doc_id) -> structured chunks; offline by default, LLM in `ohara_lab.llm`.
Structurer = Callable[[list[Chunk], str, str], list[ChunkNodes]]


def offline_structurer(chunks: list[Chunk], markdown: str, doc_id: str) -> list[ChunkNodes]:
    return [ChunkNodes(c, nodes) for c, nodes in zip(chunks, structure_document(chunks, markdown))]


@dataclass
class Prepared:
    """A document structured and transformed, waiting for tags, entities, time and vectors."""

    parsed: ParsedDocument
    file_hash: str
    doc_id: str
    specials: Specials
    structured: list[ChunkNodes]
    structure: Structure


def prepare(parsed: ParsedDocument, file_hash: str, settings: Settings, structurer: Structurer,
            structurer_name: str, timer: Timer) -> Prepared:
    doc_id = node_id("documents", document_key(file_hash))
    with timer.stage("structure"):
        specials = extract_specials(parsed.markdown)
        chunks = chunk_markdown(specials.markdown, max_chars=settings.max_chunk_chars,
                                min_chars=settings.min_chunk_chars, virtual_page_size=settings.virtual_page_size)
        if settings.test_chunks_limit > 0:
            chunks = chunks[: settings.test_chunks_limit]
    with timer.stage("llm_structure" if structurer_name != "offline" else "structure"):
        structured = structurer(chunks, specials.markdown, doc_id)
    with timer.stage("structure"):
        structure = transform(doc_id, structured, next_para=settings.next_para, adjacent_to=settings.adjacent_to)
        if not structure.paragraphs and not structure.tables:
            raise IngestError(parsed.path, "no text content found after structuring")
    return Prepared(parsed, file_hash, doc_id, specials, structured, structure)
