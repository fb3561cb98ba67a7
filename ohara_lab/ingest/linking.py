"""Cross-document links (spec §2.10-6..8): SIMILAR_TO by Jaccard of entity sets,
with offline enrichment, CONTRADICTS for supersession and PRECEDES for order.

The original never ran this during ingest (its candidate list was always empty);
here it runs inside the document's write transaction, over an inverted index
(only documents sharing an entity are candidates, never all pairs).

Direction is by publication: the later document points at the earlier one it
discusses, so `similar_to_indegree` counts how many later documents build on a
document (EVERGREEN promotion). Undated pairs fall back to id order, which keeps
the graph independent of ingest order.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..dates import first_day
from ..records import CONTRADICTS, PRECEDES, SIMILAR_TO, Document, DocumentGraph, Edge
from ..store.protocol import LinkContext, Linker, Overlap
from ..store.protocol import jaccard as entity_jaccard

# Dates and amounts are shared by unrelated texts ("2014", "$5"): they do not link documents.
EXCLUDED_TYPES = ("DATE", "AMOUNT")
MAX_SHARED_KEYS = 20
_TITLE_WORDS = re.compile(r"[a-z]+")
_TITLE_STOP = {"the", "a", "an", "of", "and", "in", "on", "for", "to", "edition", "version", "ed", "nd", "rd", "th"}


@dataclass
class LinkFacts:
    jaccard: float
    shared: list[str]
    relation: str  # extends | supersedes | discusses
    newer: Document
    older: Document


def make_linker(threshold: float) -> Linker:
    """A linker writing SIMILAR_TO for every document with Jaccard >= `threshold`."""

    def link(graph: DocumentGraph, ctx: LinkContext) -> list[Edge]:
        doc = graph.document
        mine = {e.slug for e in graph.entities if e.type not in EXCLUDED_TYPES}
        edges: list[Edge] = []
        # min_jaccard lets the store skip loading documents that cannot reach the threshold.
        for other in ctx.entity_overlap(mine, exclude_types=EXCLUDED_TYPES, min_jaccard=threshold):
            facts = _facts(doc, mine, other)
            if facts is None or facts.jaccard < threshold or facts.jaccard <= 0:
                continue
            edges += _edges(facts, _attrs(facts, graph))
        return edges

    return link


def _facts(doc: Document, mine: set[str], other: Overlap) -> LinkFacts | None:
    if len(mine) + other.entity_count - len(other.shared) <= 0:
        return None
    jaccard = entity_jaccard(len(mine), other.entity_count, len(other.shared))
    newer, older = _order(doc, other.document)
    return LinkFacts(jaccard, other.shared, _relation(newer, older, jaccard), newer, older)


def _order(a: Document, b: Document) -> tuple[Document, Document]:
    """(newer, older) by publication date; undated or equal dates fall back to id order."""
    da, db = first_day(a.published_date), first_day(b.published_date)
    if da and db and da != db:
        return (a, b) if da > db else (b, a)
    return (a, b) if a.id > b.id else (b, a)


def _dated_apart(newer: Document, older: Document) -> bool:
    dn, do = first_day(newer.published_date), first_day(older.published_date)
    return bool(dn and do and dn > do)


def _title_words(title: str) -> set[str]:
    return {w for w in _TITLE_WORDS.findall(title.lower()) if w not in _TITLE_STOP}


def same_work(a: str, b: str) -> bool:
    """Two titles name the same work (editions, versions): equal main titles before any subtitle."""
    def main(t: str) -> set[str]:
        return _title_words(re.split(r"[:(—–]| - ", t, maxsplit=1)[0])

    ma, mb = main(a), main(b)
    return bool(ma) and ma == mb


def _relation(newer: Document, older: Document, jaccard: float) -> str:
    """supersedes: a later edition/version of the same work; extends: a later, strongly similar one."""
    if not _dated_apart(newer, older):
        return "discusses"
    if same_work(newer.title, older.title):
        return "supersedes"
    return "extends" if jaccard >= 0.3 else "discusses"


VERBS = {"supersedes": "supersedes", "extends": "builds on", "discusses": "discusses the same entities as"}


def _attrs(facts: LinkFacts, graph: DocumentGraph) -> dict[str, Any]:
    names = {e.slug: e.name for e in graph.entities}
    shared_names = [names.get(s, s) for s in facts.shared[:5]]
    tags = [t for t in facts.newer.sumo_tags[:20] if t in set(facts.older.sumo_tags[:20])][:4]
    def years(d: Document) -> str:
        return f" ({d.published_date[:4]})" if d.published_date else ""

    summary = (f"{facts.newer.title}{years(facts.newer)} {VERBS[facts.relation]} {facts.older.title}"
               f"{years(facts.older)}; shared: {', '.join(shared_names)}")
    return {
        "weight": round(facts.jaccard, 3),
        "jaccard": round(facts.jaccard, 3),
        "shared_entities": len(facts.shared),
        "shared_entity_keys": facts.shared[:MAX_SHARED_KEYS],
        "verb": VERBS[facts.relation],
        "tags": tags,
        "summary": summary[:300],
        "temporal_relation": facts.relation,
        "enriched_by": "offline",
    }


def _edges(facts: LinkFacts, attrs: dict[str, Any]) -> list[Edge]:
    edges = [Edge(facts.newer.id, facts.older.id, SIMILAR_TO, attrs)]
    if facts.relation == "supersedes" or attrs.get("contradiction_note"):
        note = attrs.get("contradiction_note") or attrs["summary"]
        source = "conceptual_conflict" if attrs.get("contradiction_note") else "temporal_supersession"
        edges.append(Edge(facts.newer.id, facts.older.id, CONTRADICTS, {"contradiction_note": note, "source": source}))
    if facts.relation in ("extends", "supersedes"):
        edges.append(Edge(facts.older.id, facts.newer.id, PRECEDES,
                          {"derived_from": SIMILAR_TO, "reason": facts.relation}))
    return edges
