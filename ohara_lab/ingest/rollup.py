"""Document rollup (spec §2.10-5): tags, entities and a one-sentence description."""
from __future__ import annotations

import re
from collections.abc import Iterable

from ..entities.derive import frequency_order
from ..records import Document, Paragraph, Table
from .transform import Structure

DESCRIPTION_WORDS = 25
DESCRIPTION_CHARS = 200
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def rollup(document: Document, structure: Structure) -> None:
    """Frequency-ordered tags (index 0 = dominant) and the description; the entity rollup waits for
    the write, where the document's mentions have met the atlas (`rollup_entities`, once)."""
    nodes: list[Paragraph | Table] = [*structure.paragraphs, *structure.tables]
    document.sumo_tags = frequency_order(node.sumo_tags for node in nodes)
    if not document.description:
        document.description = describe(structure)


def rollup_entities(document: Document, lists: Iterable[list[str]]) -> None:
    """The document's entities from its nodes' curated entity lists, ordered like its tags, and their count."""
    document.entity_slugs = frequency_order(lists)
    document.entity_count = len(document.entity_slugs)


def describe(structure: Structure) -> str:
    """First sentence of the first substantial body paragraph, at most 25 words / 200 chars."""
    candidates = [p for p in structure.paragraphs if p.node_type in ("Paragraph", "Abstract") and len(p.content) > 80]
    body = [p for p in candidates if p.part == "body_matter" or p.node_type == "Abstract"] or candidates
    if not body:
        return ""
    sentence = _SENTENCE_END.split(body[0].content.strip(), maxsplit=1)[0]
    words = sentence.split()
    if len(words) > DESCRIPTION_WORDS:
        sentence = " ".join(words[:DESCRIPTION_WORDS]) + "…"
    return sentence[:DESCRIPTION_CHARS]
