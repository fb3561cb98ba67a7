"""One Markdown document per crawled host (spec §2.11 crawl-domain bundling), ingested through the replace path.

The bundle is `# <host>`, then per page `## <title>`, `<!-- url: … -->` and the
page's Markdown with its headings moved two levels down (so every page is one
section and its own headings nest inside it), pages joined by `---` rules. A
page's title is its first heading, else its `<title>`, else its URL path. Only
pages of the host's latest crawl run that were fetched or found unchanged go
in, ordered by depth then URL, so an unchanged site gives a byte-identical
bundle (skipped) and a changed one a new hash at the same origin (replaced, as
`--force` would: one transaction, no duplicate edges, entity counts rolled back).
"""
from __future__ import annotations

from hashlib import sha256
from typing import Any
from urllib.parse import urlsplit

from ..parse import markup
from ..records import CrawlPage, FileOutcome, ParsedDocument
from ..store.protocol import GraphStore
from .urls import host_of, origin_of

CONTENT_STATES = ("fetched", "unchanged")
PARSER = "crawl-bundle"


def bundle_origin(host: str) -> str:
    """The origin_path of a host's bundle document."""
    return f"crawl://{host}"


def host_pages(store: GraphStore, domain: str | None = None) -> dict[str, list[CrawlPage]]:
    """Pages with content of each host's latest run, per host (hosts under `domain` only, when given)."""
    wanted = _domain(domain) if domain else None
    by_host: dict[str, list[CrawlPage]] = {}
    for page in store.crawl_pages():
        if wanted is None or page.host == wanted or page.host.endswith("." + wanted):
            by_host.setdefault(page.host, []).append(page)
    out = {}
    for host, pages in sorted(by_host.items()):
        latest = max(p.run for p in pages)
        keep = [p for p in pages if p.run == latest and p.state in CONTENT_STATES and p.markdown]
        if keep:
            out[host] = sorted(keep, key=lambda p: (p.depth, p.url))
    return out


def bundle_markdown(host: str, pages: list[CrawlPage]) -> str:
    """The host's bundle (see the module docstring)."""
    sections = []
    for page in pages:
        title = page_title(page)
        body = markup.demote_headings(_without_leading_heading(page.markdown or "", title), 2)
        sections.append(f"{markup.heading(2, title)}\n\n<!-- url: {page.url} -->\n\n{body.strip()}")
    return f"{markup.heading(1, host)}\n\n" + "\n\n---\n\n".join(sections) + "\n"


def page_title(page: CrawlPage) -> str:
    found = markup.first_heading(page.markdown or "")
    return " ".join((found or page.title or urlsplit(page.url).path or page.url).split())


def ingest_bundles(ingestor: Any, store: GraphStore, domain: str | None = None, *,
                   force: bool = False) -> list[FileOutcome]:
    """Bundle and ingest every crawled host (under `domain`); one outcome per host."""
    hosts = host_pages(store, domain)
    if not hosts:
        where = f" for {domain}" if domain else ""
        return [FileOutcome(domain or "crawl", "failed", None,
                            f"no crawled pages{where} (run `ohara crawl URL` first)")]
    outcomes = []
    for host, pages in hosts.items():
        text = bundle_markdown(host, pages)
        parsed = ParsedDocument(path=bundle_origin(host), markdown=text, parser=PARSER, title=host,
                                metadata={"pages": len(pages)}, source_url=origin_of(pages[0].url))
        outcomes.append(ingestor.ingest_parsed(parsed, content_hash=sha256(text.encode("utf-8")).hexdigest(),
                                               origin=bundle_origin(host), size=len(text.encode("utf-8")),
                                               force=force))
    return outcomes


def _domain(domain: str) -> str:
    """A host name from DOMAIN given as a name or a URL."""
    return (host_of(domain) if "://" in domain else domain.split("/", 1)[0].split(":", 1)[0]).lower().rstrip(".")


def _without_leading_heading(markdown: str, title: str) -> str:
    """The page's Markdown without its first line when that line is the heading used as the section title."""
    lines = markdown.lstrip().split("\n", 1)
    if lines and markup.headings(lines[0]) and " ".join(markup.headings(lines[0])[0][1].split()) == title:
        return lines[1] if len(lines) > 1 else ""
    return markdown
