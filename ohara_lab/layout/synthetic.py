"""A category tree from plain dicts, and a seeded synthetic corpus for benchmarks and demos.

`TreeOntology` implements `OntologyCategories` over explicit data, so tests can
use a hand-made tree whose partition is worked out on paper, and the map can
be shown before the real SUMO ontology is loaded.

`synthetic_map_input(200)` has the shape of the original's largest benchmark
row (200 documents, ~12.3k nodes: spec §6 "Benchmark").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ohara_lab.ids import DOCUMENTS, ENTITIES, PARAGRAPHS, SECTIONS, node_id
from ohara_lab.layout.inputs import (
    DocumentInput,
    EdgeInput,
    EntityInput,
    MapInput,
    SectionInput,
    TextNodeInput,
)
from ohara_lab.records import DECAY_CLASSES, HAS_CHILD, MENTIONS, SIMILAR_TO


@dataclass
class TreeOntology:
    """`OntologyCategories` over dicts.

    `parents` lists every category in order (that order fixes colour indices),
    mapping it to its parent category or None for a top-level one. Unless given:
    depth = number of category ancestors including itself; groups = (top
    ancestor, second-level ancestor or itself); tag counts = tags mapped to it.
    """

    parents: dict[str, str | None]
    tag_map: dict[str, str] = field(default_factory=dict)
    depths: dict[str, int] = field(default_factory=dict)
    groups: dict[str, tuple[str, str]] = field(default_factory=dict)
    tag_counts: dict[str, int] | None = None

    @property
    def categories(self) -> list[str]:
        return list(self.parents)

    @property
    def category_tag_counts(self) -> dict[str, int]:
        if self.tag_counts is not None:
            return self.tag_counts
        return dict(Counter(self.tag_map.values()))

    def category(self, tag: str) -> str | None:
        return self.tag_map.get(tag)

    def category_parent(self, cat: str) -> str | None:
        return self.parents.get(cat)

    def _chain(self, cat: str) -> list[str]:
        """cat and its ancestors, top-level first."""
        chain = [cat]
        while (parent := self.parents.get(chain[-1])) is not None and parent not in chain:
            chain.append(parent)
        return chain[::-1]

    def category_depth(self, cat: str) -> int:
        return self.depths.get(cat, len(self._chain(cat)))

    def category_groups(self, cat: str) -> tuple[str, str]:
        if cat in self.groups:
            return self.groups[cat]
        chain = self._chain(cat)
        return chain[0], chain[1] if len(chain) > 1 else cat


def synthetic_ontology(branching: int = 4, tags_per_category: int = 5) -> TreeOntology:
    """Abstract/Physical, each with `branching` children, each with `branching` more."""
    parents: dict[str, str | None] = {}
    for top in ("Abstract", "Physical"):
        parents[top] = None
        for i in range(branching):
            mid = f"{top}{i}"
            parents[mid] = top
            for j in range(branching):
                parents[f"{mid}_{j}"] = mid
    tag_map = {f"{cat}Tag{k}": cat for cat in parents for k in range(tags_per_category)}
    return TreeOntology(parents=parents, tag_map=tag_map)


def _date(rng: np.random.Generator) -> str | None:
    roll = rng.random()
    year = int(rng.integers(1990, 2025))
    if roll < 0.05:
        return None
    if roll < 0.35:
        return str(year)
    if roll < 0.55:
        return f"{year}-{int(rng.integers(1, 13)):02d}"
    return f"{year}-{int(rng.integers(1, 13)):02d}-{int(rng.integers(1, 29)):02d}"


def synthetic_map_input(
    n_docs: int = 200,
    seed: int = 0,
    ontology: TreeOntology | None = None,
    entity_pool: int = 1500,
) -> MapInput:
    """A seeded corpus: ~7 sections, ~47 text nodes and ~15 entities per document."""
    rng = np.random.default_rng(seed)
    onto = ontology or synthetic_ontology()
    tags = sorted(onto.tag_map)
    out = MapInput()
    entity_docs: dict[int, list[str]] = {}
    for d in range(n_docs):
        doc_id = node_id(DOCUMENTS, f"d{d:04d}")
        doc_tags = [tags[int(i)] for i in rng.choice(len(tags), size=4, replace=False)]
        out.documents.append(
            DocumentInput(
                id=doc_id,
                title=f"Synthetic document {d}",
                published_date=_date(rng),
                sumo_tags=doc_tags,
                decay_class=DECAY_CLASSES[int(rng.integers(0, 4))],
            )
        )
        sec_ids: list[str] = []
        n_sec = int(rng.integers(4, 11))
        top: str | None = None
        for s in range(n_sec):
            level = 1 if s == 0 or rng.random() < 0.35 else 2
            sec_id = node_id(SECTIONS, f"d{d:04d}s{s:02d}")
            parent = None if level == 1 else top
            out.sections.append(SectionInput(sec_id, doc_id, level, parent, s, doc_tags[:2], f"Section {s}"))
            out.edges.append(EdgeInput(parent or doc_id, sec_id, HAS_CHILD))
            if level == 1:
                top = sec_id
            sec_ids.append(sec_id)
        mentioned = [int(e) for e in rng.choice(entity_pool, size=15, replace=False)]
        for e in mentioned:
            entity_docs.setdefault(e, []).append(doc_id)
        for p in range(int(rng.integers(35, 61))):
            roll = rng.random()
            kind = "figure" if roll < 0.05 else "table" if roll < 0.10 else "paragraph"
            txt_id = node_id(PARAGRAPHS, f"d{d:04d}p{p:03d}")
            sec_id = sec_ids[int(rng.integers(0, len(sec_ids)))]
            node_tags = [doc_tags[int(rng.integers(0, 4))], tags[int(rng.integers(0, len(tags)))]]
            out.text_nodes.append(TextNodeInput(txt_id, doc_id, sec_id, kind, node_tags, p))
            out.edges.append(EdgeInput(sec_id, txt_id, HAS_CHILD))
            if rng.random() < 0.3:
                entity = node_id(ENTITIES, f"e{mentioned[int(rng.integers(0, 15))]:05d}")
                out.edges.append(EdgeInput(txt_id, entity, MENTIONS))
    for e in sorted(entity_docs):
        out.entities.append(
            EntityInput(node_id(ENTITIES, f"e{e:05d}"), f"Entity {e}", entity_docs[e], len(entity_docs[e]) * 3)
        )
    for _ in range(2 * n_docs):
        a, b = (int(x) for x in rng.choice(n_docs, size=2, replace=False))
        out.edges.append(EdgeInput(out.documents[a].id, out.documents[b].id, SIMILAR_TO))
    return out
