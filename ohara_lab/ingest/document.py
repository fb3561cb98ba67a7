"""Stage 5, the document record: title, time, status, TOC and glossary, rolled-up tags and entities."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ..records import Document, Temporal, utc_now
from .prepare import Prepared
from .rollup import rollup
from .special import TocEntry


def document_record(prep: Prepared, origin: str, size: int, title: str, temporal: Temporal,
                    toc: list[TocEntry], builders: dict[str, Any], extra_meta: dict[str, Any]) -> Document:
    """The Document node; who built it (`builders`: extractor, structurer, ontology) and `extra_meta` join
    the parser's metadata, in that order."""
    parsed, structured, structure = prep.parsed, prep.structured, prep.structure
    pending = [c for c in structured if c.llm_pending]
    status = "complete" if not pending else ("failed" if len(pending) == len(structured) else "partial")
    doc_meta = {k: v for k, v in parsed.metadata.items() if k != "toc" and _jsonable(v)}
    doc_meta.update({**builders, "temporal_source": temporal.source}, **extra_meta)
    document = Document(
        id=prep.doc_id, title=title, source_file=Path(parsed.path).name, file_hash=prep.file_hash,
        origin_path=origin, file_size=size, parser_engine=parsed.parser, upload_time=utc_now(),
        published_date=temporal.published_date, temporal_coverage_start=temporal.coverage_start,
        temporal_coverage_end=temporal.coverage_end, temporal_granularity=temporal.granularity,
        temporal_confidence=temporal.confidence, temporal_needs_review=temporal.source != "none",
        decay_class=temporal.decay_class, effective_decay_class=temporal.decay_class,
        ingestion_status=status,
        ingestion_error=f"LLM processing failed for {len(pending)} of {len(structured)} chunk(s)" if pending else None,
        total_chunks=len(structured), completed_chunks=len(structured) - len(pending),
        structure_needs_review=structure.needs_review, meta=doc_meta, source_url=parsed.source_url)
    document.toc_entries = [e.to_dict() for e in toc]
    document.toc_source = "explicit" if toc else None
    document.glossary_entries = prep.specials.glossary
    rollup(document, structure)
    return document


def _jsonable(v: Any) -> bool:
    return isinstance(v, (str, int, float, bool, type(None), list, dict))
