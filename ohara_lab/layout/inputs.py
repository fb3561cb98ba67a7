"""What the map layout reads: a plain snapshot of the atlas and an ontology view.

The layout never touches a store. The caller (the atlas adapter) copies what the
map needs into a `MapInput`; the SUMO category tree is read through the small
`OntologyCategories` protocol, which `ohara_lab.ontology` implements and tests
replace with a hand-made tree.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

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


@dataclass(frozen=True)
class DocumentInput:
    id: str
    title: str = ""
    published_date: str | None = None  # YYYY | YYYY-MM | YYYY-MM-DD
    coverage_start: str | None = None  # used when published_date is missing or unreadable
    sumo_tags: Sequence[str] = ()  # frequency-ordered; index 0 is the dominant tag
    effective_decay_class: str | None = None
    decay_class: str | None = None


@dataclass(frozen=True)
class SectionInput:
    id: str
    document_id: str
    level: int
    parent_section_id: str | None = None
    doc_position: int = 0  # reading order inside the document
    sumo_tags: Sequence[str] = ()
    title: str = ""


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class EntityInput:
    id: str
    name: str
    document_ids: Sequence[str] = ()
    mention_count: int = 0
    community: int | None = None  # its community from `ohara analyze`, if any


@dataclass(frozen=True)
class EdgeInput:
    from_id: str
    to_id: str
    relation: str


@dataclass
class MapInput:
    """Everything the map draws, as plain records (no store, no ORM objects)."""

    documents: list[DocumentInput] = field(default_factory=list)
    sections: list[SectionInput] = field(default_factory=list)
    text_nodes: list[TextNodeInput] = field(default_factory=list)
    entities: list[EntityInput] = field(default_factory=list)
    edges: list[EdgeInput] = field(default_factory=list)

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
            edges=list(self.edges),
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
