"""EPUB → Markdown: content documents in spine order, each through the HTML converter.

Navigation documents (the EPUB 3 nav, an EPUB 2 guide's "toc" page) are skipped:
the chunker finds a TOC in the text on its own (spec §2.4), and a second TOC
would only duplicate every chapter title. Metadata comes from the OPF's Dublin
Core fields.
"""
from __future__ import annotations

import io
import warnings
from pathlib import Path

import ebooklib
from ebooklib import epub

from ..errors import ParseError
from ..records import ParsedDocument
from . import htmlmd
from .metadata import clean, compact, iso_date

_HTML_TYPES = ("application/xhtml+xml", "text/html")


def _dc(book: epub.EpubBook, name: str) -> list[tuple[str, dict]]:
    return [(value, attrs or {}) for value, attrs in book.get_metadata("DC", name) if clean(value)]


def _identifier(book: epub.EpubBook) -> str | None:
    ids = _dc(book, "identifier")
    for value, attrs in ids:
        if any("isbn" in str(v).lower() for v in attrs.values()) or "isbn" in value.lower():
            return clean(value)
    return clean(ids[0][0]) if ids else None


def metadata(book: epub.EpubBook) -> tuple[str | None, dict]:
    """(title, metadata) from the package document's Dublin Core fields."""
    titles = _dc(book, "title")
    dates = [d for d in (iso_date(v) for v, _ in _dc(book, "date")) if d]
    return (clean(titles[0][0]) if titles else None), compact(
        {
            "authors": [clean(v) for v, _ in _dc(book, "creator")],
            "date": dates[0] if dates else None,
            "language": next((clean(v) for v, _ in _dc(book, "language")), None),
            "publisher": next((clean(v) for v, _ in _dc(book, "publisher")), None),
            "identifier": _identifier(book),
        }
    )


def content_documents(book: epub.EpubBook) -> list[epub.EpubItem]:
    """The spine's (X)HTML documents in reading order, without navigation documents."""
    toc_pages = {
        (ref.get("href") or "").split("#")[0]
        for ref in getattr(book, "guide", [])
        if (ref.get("type") or "").lower() == "toc"
    }
    docs = []
    for idref, _linear in book.spine:
        item = book.get_item_with_id(idref)
        # ebooklib reads the EPUB 3 nav as an EpubNav typed ITEM_DOCUMENT, without
        # its "nav" property, so the class is the reliable test.
        if item is None or isinstance(item, epub.EpubNav) or item.get_type() == ebooklib.ITEM_NAVIGATION:
            continue
        if getattr(item, "media_type", None) not in _HTML_TYPES:
            continue
        if "nav" in getattr(item, "properties", []) or item.get_name() in toc_pages:
            continue
        docs.append(item)
    return docs


def parse(path: Path, data: bytes) -> ParsedDocument:
    with warnings.catch_warnings():
        # ebooklib warns about its own future defaults on every read.
        warnings.simplefilter("ignore")
        book = epub.read_epub(io.BytesIO(data), options={"ignore_ncx": True})  # the bytes parse_file checked
    docs = content_documents(book)
    if not docs:
        raise ParseError(path, "EPUB has no content documents in its spine")
    parts = [htmlmd.html_to_markdown(item.get_content()) for item in docs]
    title, meta = metadata(book)
    return ParsedDocument(
        path=str(path),
        markdown="\n".join(part for part in parts if part.strip()),
        parser="ebooklib+markdownify",
        title=title,
        metadata=meta,
    )
