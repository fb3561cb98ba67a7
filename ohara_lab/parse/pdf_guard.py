"""PDF page amplification: what reading a PDF would cost, checked before its pages are read.

A page tree is a tree (ISO 32000-1 §7.7.3.2: every page has one /Parent), but a
hostile file can list one page object in /Kids a hundred thousand times, so 600 KB
reads as 100,000 pages. PDFium counts pages without reading them, so the page
count is capped first (`max_pdf_pages`). When the file is smaller than
`MIN_BYTES_PER_PAGE` per page - no real PDF is, a page's own object and content
take far more - pypdf walks the page tree and a tree naming the same page object
more than once is refused.
"""
from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import ParseError
from ..settings import Settings
from .pdf import open_pdf

# A page object alone ("n 0 obj <</Type/Page/Parent 2 0 R>> endobj" plus its
# xref line) is about 65 bytes; with its content stream real pages take kilobytes.
MIN_BYTES_PER_PAGE = 200


def guard(path: Path, data: bytes, settings: Settings) -> None:
    """Refuse a PDF with too many pages, or whose page tree repeats page objects."""
    doc = open_pdf(path, data)
    try:
        pages = len(doc)
    finally:
        doc.close()
    if pages > settings.max_pdf_pages:
        raise ParseError(path, f"PDF has {pages:,} pages, more than the {settings.max_pdf_pages:,} limit (max_pdf_pages)")
    if pages * MIN_BYTES_PER_PAGE > len(data):
        distinct = distinct_page_objects(data)
        if distinct is not None and distinct < pages:
            raise ParseError(path, f"PDF page tree repeats page objects: {pages:,} pages made of "
                                   f"{distinct:,} distinct page object(s); refusing to read them")


def distinct_page_objects(data: bytes) -> int | None:
    """How many distinct page objects the page tree names, or None when pypdf cannot walk it."""
    from pypdf import PdfReader  # noqa: PLC0415 - only for files that look amplified

    try:
        with _quiet("pypdf"):
            reader = PdfReader(io.BytesIO(data))
            return len({page.indirect_reference.idnum for page in reader.pages if page.indirect_reference})
    except Exception:  # a tree pypdf cannot walk gets no verdict here; PDFium reads it or fails on its own
        return None


@contextmanager
def _quiet(logger_name: str) -> Iterator[None]:
    # pypdf logs every repair it makes; on a hostile file those would reach stderr
    # (logging's last-resort handler) and break the one-line error.
    logger = logging.getLogger(logger_name)
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)
