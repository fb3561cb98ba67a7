"""Offline behaviours built from the core's own offline pieces.

`offline_builtin.BUILTIN` answers the prompts that need nothing but their
variables; the prompts here need the core: the Markdown structurer, the SUMO
lexicon tagger, the entity extractor, the query parser and the date rules. With
them registered (``CORE``, merged by `offline_behaviours()`), the offline provider
answers every packaged prompt, so each LLM-backed feature runs without a key.

Imports of the core happen inside the functions: importing ``ohara_lab.llm`` stays
cheap and free of side effects.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from ..records import TEXT_NODE_TYPES
from ..text import first_h1

# Schema bounds (prompts/ingest_document.schema.json) the offline nodes are clipped to.
MAX_LEVEL = 3
MAX_CELL_CHARS = 2000
MAX_ROWS, MAX_COLS = 500, 60
MAX_ENTITIES_PER_NODE = 40
MAX_CONTEXT_CHARS = 120
TAGS_PER_NODE = 4
UNSURE_CONFIDENCE = 0.5  # the prompt's "0.5 when unsure"

_PAGE_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+))?\s*$")
# Text node types that get tags and entities offline (code listings, author lists and tables do not here).
_TEXT_TYPES = frozenset(TEXT_NODE_TYPES) - {"Code", "Authors", "Table"}


@functools.lru_cache(maxsize=1)
def _default_extractor() -> Any:
    from ..entities.extract import get_extractor  # noqa: PLC0415

    return get_extractor("auto")


def _ontology() -> Any:
    from ..ontology import load_ontology  # noqa: PLC0415

    return load_ontology()


# --------------------------------------------------------------------------- ingest_document


def page_range(text: str | None) -> tuple[int, int]:
    """`"3-5"` -> (3, 5); `"4"` -> (4, 4); anything else -> (1, 1)."""
    m = _PAGE_RANGE.match(text or "")
    if not m:
        return 1, 1
    first = int(m.group(1))
    return first, max(first, int(m.group(2) or first))


def ingest_document(v: dict[str, Any], *, extractor: Any = None, ontology: Any = None) -> dict[str, Any]:
    """DoCO nodes for one chunk: the offline Markdown structurer, lexicon tags, extractor entities.

    Heading depth maps to the level directly (``#`` 1, ``##`` 2, ...) in every chunk, so
    chunks structured independently agree on levels; a lone leading H1 is the title.
    """
    from ..ingest.structure import HeadingPlan, OfflineStructurer, plan_headings  # noqa: PLC0415
    from ..records import Chunk  # noqa: PLC0415

    text = v["chunk_text"]
    first, last = page_range(v.get("page_range"))
    chunk = Chunk(index=0, text=text, heading=v.get("chunk_heading"), heading_level=v.get("heading_level"),
                  start_page=first, end_page=last)
    title = plan_headings(text).title
    structurer = OfflineStructurer(HeadingPlan(title=title, shift=0))
    if title is None:
        # Only a document's opening chunk has front matter before its first heading.
        structurer.part, structurer.seen_body_heading = "body_matter", True
    nodes = [_fit_schema(n) for n in structurer.structure(chunk)]
    _annotate(nodes, extractor or _default_extractor(), ontology or _ontology())
    return {"nodes": nodes, "temporal": chunk_temporal(text)}


def node_text(node: dict[str, Any]) -> str:
    """The text of a structured node that tags and entities are read from."""
    if node.get("type") == "Table":
        cells = [str(c) for row in (node.get("table") or {}).get("content_data") or [] for c in row if c]
        return "; ".join(cells)
    for key in ("content", "caption", "title"):
        value = node.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _fit_schema(node: dict[str, Any]) -> dict[str, Any]:
    meta = dict(node.get("metadata") or {})
    if isinstance(meta.get("level"), int):
        meta["level"] = max(0, min(MAX_LEVEL, meta["level"]))
    node["metadata"] = {k: v for k, v in meta.items() if k in ("page", "level")}
    if isinstance(node.get("label"), str):
        node["label"] = node["label"][:100]
    table = node.get("table")
    if isinstance(table, dict):
        rows = table.get("content_data") or []
        table["content_data"] = [[str(c)[:MAX_CELL_CHARS] for c in row[:MAX_COLS]] for row in rows[:MAX_ROWS]]
    return node


def _annotate(nodes: list[dict[str, Any]], extractor: Any, ontology: Any) -> None:
    targets = [n for n in nodes if n.get("type") in _TEXT_TYPES | {"Table"} and node_text(n).strip()]
    texts = [node_text(n) for n in targets]
    if not texts:
        return
    for node, tags, mentions in zip(targets, ontology.tag_texts(texts, k=TAGS_PER_NODE), extractor.extract(texts)):
        node["sumo_candidate_tags"] = list(tags)
        node["candidate_entities"] = [_entity(m) for m in mentions[:MAX_ENTITIES_PER_NODE]]


def _entity(m: Any) -> dict[str, Any]:
    return {"name": m.name[:200], "canonical": (m.canonical or m.name)[:200], "type": m.type,
            "confidence": max(0.0, min(1.0, float(m.confidence))), "context": (m.context or "")[:MAX_CONTEXT_CHARS],
            "aliases": [a[:200] for a in (m.aliases or [])][:10]}


def chunk_temporal(text: str) -> dict[str, Any]:
    """The document-level temporal object as far as one chunk's dates tell (date rules)."""
    from ..ingest.temporal import extract_temporal  # noqa: PLC0415

    t = extract_temporal(text)
    return {"published_date": t.published_date, "temporal_coverage_start": t.coverage_start,
            "temporal_coverage_end": t.coverage_end, "temporal_granularity": t.granularity,
            "temporal_confidence": t.confidence if t.published_date else UNSURE_CONFIDENCE,
            "decay_class": t.decay_class}


# --------------------------------------------------------------------------- document context


PROSE_MIN_CHARS = 60
_NOT_PROSE = re.compile(r"^\s*(#|\||[-*+]\s|\d+[.)]\s|>|```)")


def document_context(v: dict[str, Any]) -> dict[str, Any]:
    """The first three sentences of the opening prose (headings, tables, lists and short lines
    such as "Published: ..." skipped), at most 600 chars."""
    from ..text import sentences  # noqa: PLC0415

    blocks = [" ".join(b.split()) for b in re.split(r"\n\s*\n", v["document_start"]) if b.strip()]
    prose = [b for b in blocks if not _NOT_PROSE.match(b) and len(b) >= PROSE_MIN_CHARS] or \
        [b for b in blocks if not _NOT_PROSE.match(b)]
    text = re.sub(r"[*_`]+", "", " ".join(prose))
    summary = " ".join(sentences(text)[:3])[:600].strip() or "A document without body text in its opening part."
    return {"summary": summary}


# --------------------------------------------------------------------------- query fingerprint


def extract_query_fingerprint(v: dict[str, Any], *, extractor: Any = None, ontology: Any = None) -> dict[str, Any]:
    """Phase 0 heuristics (`parse_query`), lexicon hints for tags, the extractor for entities."""
    from ..ids import slugify  # noqa: PLC0415
    from ..retrieval.query import parse_query  # noqa: PLC0415

    q = parse_query(v["query"])
    tags = list((ontology or _ontology()).query_hints(q.raw, k=6)) if q.raw.strip() else []
    entities, seen = [], set()
    for m in (extractor or _default_extractor()).extract([q.raw])[0]:
        slug = slugify(m.canonical or m.name)
        if slug not in seen and not slug.startswith("u-"):
            seen.add(slug)
            entities.append({"canonical": (m.canonical or m.name)[:200], "type": m.type, "slug": slug[:200]})
    intent = q.temporal_intent if q.temporal_intent in ("current_state", "historical_fact", "influence_chain") \
        else "none"  # "ordering" is our own intent; the prompt's enum does not have it
    rng = q.date_range or {}
    date_range = {"from": rng.get("from"), "to": rng.get("to")} if rng else None
    return {"sumo_tags": tags[:6], "entities": entities[:10], "temporal_intent": intent, "date_range": date_range}


# --------------------------------------------------------------------------- TOC and metadata


def extract_toc(v: dict[str, Any]) -> dict[str, Any]:
    """A printed TOC when the text has one (explicit), else its Markdown headings (implicit)."""
    from ..ingest.special import ANY_HEADING, extract_specials, is_running_head  # noqa: PLC0415

    text = v["document_text"]
    printed = extract_specials(text).toc
    if printed:
        entries: list[dict[str, Any]] = [{"title": e.title[:300], "level": max(1, min(6, e.level)), "page": e.page, "children": []}
                   for e in printed if e.title.strip()]
        return {"toc_source": "explicit", "toc": entries[:300]}
    entries = []
    for line in text.splitlines():
        m = ANY_HEADING.match(line)
        if m and m.group(2).strip() and not is_running_head(m.group(2)):
            entries.append({"title": m.group(2).strip()[:300], "level": len(m.group(1)), "page": None, "children": []})
    return {"toc_source": "implicit", "toc": entries[:300]}


_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+[^\s\"<>.,;])")
_AUTHOR_LINE = re.compile(r"^\s*(?:\*\*)?(?:authors?|by)(?:\*\*)?\s*[:\-]?\s+(.+?)\s*$", re.I)
_REVIEW = re.compile(r"^\s*(received|revised|accepted)\s*[:\-]?\s+(.+?)\s*$", re.I)
_SPLIT_NAMES = re.compile(r"\s*(?:,|;|\band\b|&)\s*")


def document_metadata(v: dict[str, Any]) -> dict[str, Any]:
    """Title (first H1), authors ("Author:"/"By" lines), DOI, dates (date rules), review dates."""
    from ..dates import parse_date  # noqa: PLC0415
    from ..ingest.temporal import extract_temporal  # noqa: PLC0415

    head = v["document_head"]
    title = first_h1(head)
    authors: list[dict[str, Any]] = []
    review: dict[str, str | None] = {"received": None, "revised": None, "accepted": None}
    for line in head.splitlines():
        if not authors and (m := _AUTHOR_LINE.match(line)):
            names = [n.strip(" *_.") for n in _SPLIT_NAMES.split(m.group(1)) if n.strip(" *_.")]
            authors = [{"name": n[:300], "affiliation": None, "email": None} for n in names[:100]]
        if (m := _REVIEW.match(line)) and (parsed := parse_date(m.group(2))):
            review[m.group(1).lower()] = parsed[0]
    doi = _DOI.search(head)
    return {
        "title": title[:500] if title else None,
        "authors": authors,
        "journal": None, "volume": None, "issue": None, "pages": None,
        "doi": doi.group(1)[:200] if doi else None,
        "published_date": extract_temporal(head).published_date,
        "review_dates": review if any(review.values()) else None,
    }


CORE: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "ingest_document": ingest_document,
    "document_context": document_context,
    "extract_query_fingerprint": extract_query_fingerprint,
    "extract_toc": extract_toc,
    "document_metadata": document_metadata,
}
