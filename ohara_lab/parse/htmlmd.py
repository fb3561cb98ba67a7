"""HTML → Markdown, shared by the HTML, DOCX (mammoth's HTML) and EPUB parsers.

BeautifulSoup (lxml) cleans the tree, markdownify writes the Markdown: ATX
headings, `-` bullets, pipe tables whose first row is the header row, fenced code.
"""
from __future__ import annotations

import re
import warnings

from bs4 import BeautifulSoup, NavigableString, PageElement, Tag, XMLParsedAsHTMLWarning
from bs4.element import PreformattedString
from markdownify import MarkdownConverter

from . import markup

# Never content: code, styling, embedded objects, and navigation (an EPUB's TOC
# is found again by the chunker, spec §2.4).
_DROP = ("script", "style", "noscript", "template", "nav", "svg", "iframe", "object", "embed", "head")
# Page chrome, dropped unless it belongs to an article or section, where
# <header> usually holds the article's own title.
_CHROME = ("header", "footer")
_KEEP_CHROME_INSIDE = ("article", "section")
_EXTERNAL = ("http://", "https://", "mailto:")
_PREFORMATTED = ("pre", "textarea")
_WHITESPACE = re.compile(r"\s+")
# markdownify converts recursively, about three Python frames per level: deeper
# trees are flattened first (`_flatten_deep`), which keeps their text.
MAX_DEPTH = 64


class _Converter(MarkdownConverter):
    def convert_a(self, el, text, parent_tags):  # type: ignore[override]
        # Relative links point into the source container (chapter files, anchors)
        # and mean nothing once the document is in the atlas.
        href = el.get("href") or ""
        if not href.startswith(_EXTERNAL):
            return text
        return super().convert_a(el, text, parent_tags)

    def convert_p(self, el, text, parent_tags):  # type: ignore[override]
        # A paragraph that starts with "#" is text, not a heading.
        return super().convert_p(el, markup.escape_plain_line(text), parent_tags)

    def convert_sup(self, el, text, parent_tags):  # type: ignore[override]
        # "2<sup>256</sup>" must not read as the number 2256.
        return "^" + text if text.strip() else text

    def convert_img(self, el, text, parent_tags):  # type: ignore[override]
        # Keep what the image says, not where it lived inside the container.
        return " ".join((el.get("alt") or "").split())


_OPTIONS = {
    "heading_style": "ATX",
    "bullets": "-",
    "table_infer_header": True,  # mammoth and most pages write the header row as <td>
    "escape_asterisks": False,  # keep the text verbatim (identifiers, footnote marks)
    "escape_underscores": False,
    "strip_document": "strip",
}


def soup_of(html: str | bytes) -> BeautifulSoup:
    """Parse HTML or XHTML leniently; bytes are decoded by their declared charset."""
    with warnings.catch_warnings():
        # EPUB chapters are XHTML; the HTML parser reads them correctly.
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        return BeautifulSoup(html, "lxml")


def clean(soup: BeautifulSoup) -> Tag:
    """Remove non-content elements in place; return the element to convert (the body if any)."""
    # One walk over the tree: bs4's find_* calls cost ~0.1 ms each, which adds
    # seconds on a book with tens of thousands of nodes.
    doomed: list[PageElement] = []
    for node in soup.descendants:
        if isinstance(node, Tag):
            if node.name in _DROP or (node.name in _CHROME and not _inside(node, _KEEP_CHROME_INSIDE)):
                doomed.append(node)
        elif isinstance(node, PreformattedString):
            doomed.append(node)  # comments, doctypes, <?xml?> declarations
        elif isinstance(node, NavigableString) and not _inside(node, _PREFORMATTED):
            # Source line wrapping is not content: collapse it, so a paragraph is
            # one line and whitespace-only nodes cannot split it with a blank line.
            collapsed = _WHITESPACE.sub(" ", node)
            if collapsed != node:
                doomed.append(node)
                node.insert_before(NavigableString(collapsed))
    for node in doomed:
        node.extract()
    root = soup.body or soup
    _flatten_deep(root, MAX_DEPTH)
    return root


def _flatten_deep(root: Tag, max_depth: int) -> None:
    """Replace each element deeper than `max_depth` by the leaves inside it; the text stays in place.

    Leaves are elements without child elements (a paragraph of plain text, a link)
    and loose text, in reading order, so the deepest content keeps its own markup
    and only the nesting above it goes. Iterative, and each node is moved at most
    once: the tree may be thousands of levels deep.
    """
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        for child in [c for c in node.contents if isinstance(c, Tag)]:
            if depth + 1 <= max_depth:
                stack.append((child, depth + 1))
            elif any(isinstance(c, Tag) for c in child.contents):
                child.replace_with(*_leaves(child))


def _leaves(node: Tag) -> list[PageElement]:
    """Loose strings and childless elements under `node`, in reading order, detached."""
    out: list[PageElement] = []
    stack: list[PageElement] = list(reversed(node.contents))
    while stack:
        item = stack.pop()
        if isinstance(item, Tag) and any(isinstance(c, Tag) for c in item.contents):
            stack.extend(reversed(item.contents))
        else:
            out.append(item)
    for item in out:
        item.extract()
    return out


def _inside(node: PageElement, names: tuple[str, ...]) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.name in names:
            return True
        parent = parent.parent
    return False


def to_markdown(root: Tag) -> str:
    """Markdown for an already cleaned element."""
    text = _Converter(**_OPTIONS).convert_soup(root)
    return markup.escape_page_break_lines(markup.tidy(text))


def html_to_markdown(html: str | bytes) -> str:
    """Clean and convert an HTML document or fragment."""
    return to_markdown(clean(soup_of(html)))
