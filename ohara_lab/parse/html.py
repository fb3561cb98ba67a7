"""HTML → Markdown; title and metadata from <title>, <meta> and <html lang>."""
from __future__ import annotations

from pathlib import Path

from bs4 import BeautifulSoup

from ..records import ParsedDocument
from . import htmlmd
from .metadata import clean, compact, iso_date

_AUTHOR_META = ("author", "dc.creator", "dcterms.creator", "article:author")
_DATE_META = ("date", "dc.date", "dcterms.date", "dcterms.created", "article:published_time", "citation_date")


def _meta(soup: BeautifulSoup, names: tuple[str, ...]) -> list[str]:
    found = []
    for tag in soup.find_all("meta"):
        key = (tag.get("name") or tag.get("property") or "").lower()
        value = clean(tag.get("content"))
        if key in names and value:
            found.append(value)
    return found


def metadata(soup: BeautifulSoup) -> tuple[str | None, dict]:
    """(title, metadata) read from the document head; call before `htmlmd.clean` drops it."""
    title = clean(soup.title.get_text()) if soup.title else None
    html = soup.find("html")
    dates = [d for d in map(iso_date, _meta(soup, _DATE_META)) if d]
    return title, compact(
        {
            "authors": _meta(soup, _AUTHOR_META),
            "date": dates[0] if dates else None,
            "language": clean(html.get("lang") or html.get("xml:lang")) if html else None,
            "description": next(iter(_meta(soup, ("description",))), None),
        }
    )


def parse(path: Path, data: bytes) -> ParsedDocument:
    soup = htmlmd.soup_of(data)
    title, meta = metadata(soup)
    markdown = htmlmd.to_markdown(htmlmd.clean(soup))
    return ParsedDocument(
        path=str(path), markdown=markdown, parser="html+markdownify", title=title, metadata=meta
    )
