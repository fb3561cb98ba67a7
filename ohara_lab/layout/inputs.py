"""What the map layout reads: a plain snapshot of the atlas and an ontology view.

The layout never touches a store. The caller (the atlas adapter) copies what the
map needs into a `MapInput`; the SUMO category tree is read through the small
`OntologyCategories` protocol, which `ohara_lab.ontology` implements and tests
replace with a hand-made tree.
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from ohara_lab.errors import UsageError

# Node kinds in the order their codes are assigned in `MapLayout.kinds`.
NODE_KINDS: tuple[str, ...] = ("document", "section", "paragraph", "figure", "table", "entity", "tag")
TEXT_KINDS: tuple[str, ...] = ("paragraph", "figure", "table")


def text_kind(node_type: str) -> str:
    """Map a text node's `node_type` (spec §1.1) to its map kind.

    Figures and tables get their own shapes; every other text-like type
    (Paragraph, ListItem, Abstract, Bibliography, ...) is drawn as a paragraph,
    as the original viewer did.
    """
    lowered = (node_type or "").lower()
    return lowered if lowered in ("figure", "table") else "paragraph"


@dataclass(frozen=True, slots=True)
class DocumentInput:
    id: str
    title: str = ""
    published_date: str | None = None  # YYYY | YYYY-MM | YYYY-MM-DD
    coverage_start: str | None = None  # used when published_date is missing or unreadable
    sumo_tags: Sequence[str] = ()  # frequency-ordered; index 0 is the dominant tag
    effective_decay_class: str | None = None
    decay_class: str | None = None


@dataclass(frozen=True, slots=True)
class SectionInput:
    id: str
    document_id: str
    level: int
    parent_section_id: str | None = None
    doc_position: int = 0  # reading order inside the document
    sumo_tags: Sequence[str] = ()
    title: str = ""


@dataclass(frozen=True, slots=True)
class TextNodeInput:
    """A paragraph, figure or table (any text-like node of spec §1.1)."""

    id: str
    document_id: str
    section_id: str | None = None
    kind: str = "paragraph"  # one of TEXT_KINDS; see `text_kind`
    sumo_tags: Sequence[str] = ()
    doc_position: int = 0  # reading order; ties keep input order
    label: str = ""
    community: int | None = None  # the entity community most of its entities belong to (`ohara analyze`)

    def __post_init__(self) -> None:
        if self.kind not in TEXT_KINDS:
            raise UsageError(f"text node {self.id!r}: kind {self.kind!r} is not one of {TEXT_KINDS}")


@dataclass(frozen=True, slots=True)
class EntityInput:
    id: str
    name: str
    document_ids: Sequence[str] = ()
    mention_count: int = 0
    community: int | None = None  # its community from `ohara analyze`, if any


@dataclass(frozen=True, slots=True)
class EdgeInput:
    from_id: str
    to_id: str
    relation: str


class EdgeTable:
    """Edges as three integer columns over an interned node-id list: no Python object per edge.

    An atlas has several map edges per node (477k for 118k paragraphs); as one
    `EdgeInput` each they were most of the map's memory. Here an edge costs
    9 bytes (int32 from, int32 to, uint8 relation) and a node id is stored once
    however many edges touch it. Iterating still yields `EdgeInput`s, made on
    the fly, so callers that read records keep working.
    """

    def __init__(self, edges: Iterable[EdgeInput] = ()):
        self.node_ids: list[str] = []  # code -> node id
        self._code: dict[str, int] = {}
        self.relation_names: list[str] = []  # code -> relation, in first-seen order
        self._from, self._to, self._relation = array("i"), array("i"), array("B")
        for edge in edges:
            self.append(edge)

    def add(self, from_id: str, to_id: str, relation: str) -> None:
        if relation not in self.relation_names:
            if len(self.relation_names) == 256:
                raise UsageError("an edge table holds at most 256 relations")
            self.relation_names.append(relation)
        self._from.append(self._intern(from_id))
        self._to.append(self._intern(to_id))
        self._relation.append(self.relation_names.index(relation))

    def append(self, edge: EdgeInput) -> None:
        self.add(edge.from_id, edge.to_id, edge.relation)

    def _intern(self, node_id: str) -> int:
        code = self._code.get(node_id)
        if code is None:
            code = self._code[node_id] = len(self.node_ids)
            self.node_ids.append(node_id)
        return code

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(from codes, to codes, relation codes): views of the columns, indices into `node_ids`/`relation_names`."""
        return (
            np.frombuffer(self._from, dtype=np.int32),
            np.frombuffer(self._to, dtype=np.int32),
            np.frombuffer(self._relation, dtype=np.uint8),
        )

    def copy(self) -> EdgeTable:
        out = EdgeTable()
        out.node_ids, out._code, out.relation_names = list(self.node_ids), dict(self._code), list(self.relation_names)
        out._from, out._to, out._relation = array("i", self._from), array("i", self._to), array("B", self._relation)
        return out

    def nbytes(self) -> int:
        """Bytes of the three columns (the interned ids are the nodes' own strings)."""
        return sum(len(c) * c.itemsize for c in (self._from, self._to, self._relation))

    def __len__(self) -> int:
        return len(self._from)

    def __iter__(self) -> Iterator[EdgeInput]:
        ids, names = self.node_ids, self.relation_names
        for a, b, r in zip(self._from, self._to, self._relation):
            yield EdgeInput(ids[a], ids[b], names[r])


@dataclass
class MapInput:
    """Everything the map draws: plain records per document, section, text node and entity; edges as columns."""

    documents: list[DocumentInput] = field(default_factory=list)
    sections: list[SectionInput] = field(default_factory=list)
    text_nodes: list[TextNodeInput] = field(default_factory=list)
    entities: list[EntityInput] = field(default_factory=list)
    edges: EdgeTable = field(default_factory=EdgeTable)  # a list of `EdgeInput` is taken and converted

    def __post_init__(self) -> None:
        if not isinstance(self.edges, EdgeTable):
            self.edges = EdgeTable(self.edges)

    def node_count(self) -> int:
        """Documents + sections + text nodes + entities (the original benchmark's "nodes")."""
        return len(self.documents) + len(self.sections) + len(self.text_nodes) + len(self.entities)

    def subset(self, document_ids: Collection[str]) -> MapInput:
        """The part of the corpus that belongs to the given documents (a viewer selection).

        Entities are kept when they occur in at least one kept document; edges are
        kept as they are, since `build_layout` drops edges whose ends are absent.
        """
        keep = set(document_ids)
        return MapInput(
            documents=[d for d in self.documents if d.id in keep],
            sections=[s for s in self.sections if s.document_id in keep],
            text_nodes=[t for t in self.text_nodes if t.document_id in keep],
            entities=[e for e in self.entities if keep.intersection(e.document_ids)],
            edges=self.edges.copy(),
        )


@runtime_checkable
class OntologyCategories(Protocol):
    """The SUMO category tree as the map sees it (spec §1.4, §6).

    `categories` fixes each category's index (it drives the category colour);
    `category_parent` returns the nearest ancestor that is itself a category,
    or None for a top-level category (the virtual root is implicit).
    """

    @property
    def categories(self) -> list[str]: ...

    @property
    def category_tag_counts(self) -> dict[str, int]: ...

    def category(self, tag: str) -> str | None: ...

    def category_parent(self, cat: str) -> str | None: ...

    def category_depth(self, cat: str) -> int: ...

    def category_groups(self, cat: str) -> tuple[str, str]: ...
