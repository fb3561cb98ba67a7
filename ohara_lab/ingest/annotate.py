"""Tags and entities on a document's text nodes.

Nodes that came back from an LLM with SUMO candidates and candidate entities keep
them (validated); every other node gets the offline lexicon tagger and the
offline entity extractor, run in batches over the whole document. Every mention,
whichever its source, then passes the document's noise screen (`entities.noise`),
whose per-rule counts the document records.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..entities.noise import screen_document
from ..entities.rules import clean_mentions
from ..ids import node_id, norm_key, slugify
from ..records import ENTITY_TYPES, MENTIONS, Edge, Entity, Mention, Paragraph, Table
from .transform import Structure

# Code listings are searchable text, but NER and the lexicon tagger read them as noise.
SKIP_TYPES = {"Code"}
MAX_CONTEXT = 200


class Tagger(Protocol):
    def validate_tags(self, candidates: list[str]) -> Any: ...

    def tag_texts(self, texts: list[str], k: int = 4) -> list[list[str]]: ...


class Extractor(Protocol):
    name: str

    def extract(self, texts: list[str]) -> list[list[Mention]]: ...


@dataclass
class Annotations:
    entities: list[Entity] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    noise: dict[str, int] = field(default_factory=dict)  # noise rule -> mentions it dropped or retyped


def node_text(node: Paragraph | Table) -> str:
    """The text a node is tagged, embedded and searched by."""
    if isinstance(node, Table):
        cells = [c for row in node.matrix_data for c in row if c]
        return ((node.caption or "") + " " + "; ".join(cells)).strip()
    return node.content


def annotated_nodes(structure: Structure) -> list[Paragraph | Table]:
    """The nodes that get tags and entities: every text node and table but code listings."""
    text_nodes: list[Paragraph | Table] = [*structure.paragraphs, *structure.tables]
    return [n for n in text_nodes if n.node_type not in SKIP_TYPES]


def needs_tagger(node: Paragraph | Table) -> bool:
    """True unless an LLM proposed SUMO candidates for the node (they are validated instead)."""
    return not (isinstance(node, Paragraph) and node.sumo_candidate_tags_raw)


def needs_extractor(structure: Structure, node: Paragraph | Table) -> bool:
    """True unless an LLM proposed the node's entities."""
    return not structure.candidate_entities.get(node.id)


def annotate(structure: Structure, tagger: Tagger, extractor: Extractor, *, tags_per_node: int = 4) -> Annotations:
    nodes = annotated_nodes(structure)
    _tag(nodes, tagger, tags_per_node)
    screened = screen_document([node_text(n) for n in nodes], _mentions(structure, nodes, extractor))
    out = _link_entities(nodes, screened.mentions)
    out.noise = dict(sorted(screened.counts.items()))
    _section_tags(structure)
    return out


def _tag(nodes: list[Paragraph | Table], tagger: Tagger, k: int) -> None:
    offline: list[Paragraph | Table] = []
    for node in nodes:
        if isinstance(node, Paragraph) and node.sumo_candidate_tags_raw:
            res = tagger.validate_tags(node.sumo_candidate_tags_raw)
            node.sumo_tags = list(res.tags)[:k]
            node.sumo_resolved_map = dict(res.resolved_map)
        if not node.sumo_tags:
            offline.append(node)
    for node, tags in zip(offline, tagger.tag_texts([node_text(n) for n in offline], k=k)):
        node.sumo_tags = list(tags)


def _mentions(structure: Structure, nodes: list[Paragraph | Table], extractor: Extractor) -> list[list[Mention]]:
    out: list[list[Mention] | None] = [None] * len(nodes)
    todo: list[int] = []
    for i, node in enumerate(nodes):
        candidates = structure.candidate_entities.get(node.id)
        if candidates:
            found = [_mention_from_llm(c) for c in candidates if isinstance(c, dict)]
            out[i] = clean_mentions([m for m in found if m is not None])
        else:
            todo.append(i)
    for i, extracted in zip(todo, extractor.extract([node_text(nodes[i]) for i in todo])):
        out[i] = extracted
    return [m or [] for m in out]


def _mention_from_llm(raw: dict[str, Any]) -> Mention | None:
    canonical = str(raw.get("canonical") or raw.get("name") or "").strip()
    kind = str(raw.get("type") or "").upper()
    if not canonical or kind not in ENTITY_TYPES:
        return None
    conf = raw.get("confidence", 1.0)
    return Mention(name=str(raw.get("name") or canonical), type=kind, canonical=canonical,
                   confidence=float(conf) if isinstance(conf, (int, float)) else 1.0,
                   context=str(raw.get("context") or "")[:120], aliases=[str(a) for a in raw.get("aliases") or []])


def _link_entities(nodes: list[Paragraph | Table], mentions: list[list[Mention]]) -> Annotations:
    entities: dict[str, Entity] = {}
    types: dict[str, Counter[str]] = {}
    edges: list[Edge] = []
    for node, found in zip(nodes, mentions):
        slugs: list[str] = []
        for m in found:
            slug = slugify(m.canonical)
            if slug in slugs:
                continue
            slugs.append(slug)
            types.setdefault(slug, Counter())[m.type] += 1
            ent = entities.get(slug)
            if ent is None:
                entities[slug] = Entity(id=node_id("entities", slug), slug=slug, name=m.canonical,
                                        norm_key=norm_key(m.canonical), type=m.type,
                                        aliases=[a for a in [m.name, *m.aliases] if a and a != m.canonical])
            else:
                extra = [a for a in [m.name, *m.aliases] if a and a != ent.name and a not in ent.aliases]
                ent.aliases += extra
            edges.append(Edge(node.id, node_id("entities", slug), MENTIONS,
                              {"context": node_text(node)[:MAX_CONTEXT]}))
        node.entity_slugs = slugs
    for slug, ent in entities.items():
        ent.type = types[slug].most_common(1)[0][0]
    for node in nodes:
        node.entity_types = [entities[s].type for s in node.entity_slugs]
    return Annotations(entities=list(entities.values()), edges=edges)


def _section_tags(structure: Structure, k: int = 3) -> None:
    """A section carries the tags most frequent among its direct text children."""
    counts: dict[str, Counter[str]] = {}
    text_nodes: list[Paragraph | Table] = [*structure.paragraphs, *structure.tables]
    for node in text_nodes:
        if node.section_id:
            counts.setdefault(node.section_id, Counter()).update(node.sumo_tags)
    for section in structure.sections:
        section.sumo_tags = [t for t, _ in counts.get(section.id, Counter()).most_common(k)]
