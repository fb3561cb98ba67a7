"""A fetched web page → Markdown of its main content (trafilatura), with the page's own metadata.

trafilatura drops boilerplate — navigation, headers, footers, scripts, styles,
cookie banners — and keeps headings, lists and tables (Barbaresi 2021,
"Trafilatura: A Web Scraping Library and Command-Line Tool for Text Discovery
and Extraction", ACL demo). Title, authors, date and language come from the
page head exactly as for an HTML file (`html.metadata`): trafilatura's own date
search guesses from any year in the text. When trafilatura finds no main content
the page goes through the HTML file parser instead, and `parser` says which ran.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import ParseError
from ..records import ParsedDocument
from . import html, htmlmd, markup

PARSER = "trafilatura"


def parse(path: Path | str, data: bytes) -> ParsedDocument:
    try:
        import trafilatura  # noqa: PLC0415 - the `web` extra
    except ImportError:
        raise ParseError(path, "web pages need trafilatura: pip install 'ohara-lab[web]'") from None
    text = trafilatura.extract(data, output_format="markdown", include_tables=True, include_formatting=True,
                               include_comments=False, include_links=False, include_images=False,
                               favor_recall=True, with_metadata=False)
    if not text or not markup.has_text(text):
        return html.parse(path, data)  # type: ignore[arg-type]
    title, meta = html.metadata(htmlmd.soup_of(data))
    return ParsedDocument(path=str(path), markdown=markup.escape_page_break_lines(markup.tidy(text)),
                          parser=PARSER, title=title, metadata=meta)
