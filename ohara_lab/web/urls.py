"""URLs as the crawler keys them: canonical form, host, scope, and the links a page holds.

Canonical (RFC 3986 §6.2.2–6.2.3 normalisation): scheme and host lower-cased,
default port dropped, dot segments resolved, an empty path written `/`, the
fragment dropped (it names a place in the same page) and the query kept (it
often names a different page). Links are read with lxml, relative to the page's
`<base href>` when it has one.
"""
from __future__ import annotations

from urllib.parse import urljoin, urlsplit, urlunsplit

import lxml.html
from lxml import etree

from . import is_web_url

_DEFAULT_PORTS = {"http": 80, "https": 443}


def canonical(url: str) -> str:
    """The canonical form of an absolute http(s) URL (see the module docstring)."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if ":" in host:
        host = f"[{host}]"  # IPv6 literal
    port = parts.port
    netloc = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    path = _remove_dot_segments(parts.path) or "/"
    return urlunsplit((scheme, netloc, path, parts.query, ""))


def host_of(url: str) -> str:
    """Lower-case host name without port."""
    return (urlsplit(url).hostname or "").rstrip(".")


def origin_of(url: str) -> str:
    """scheme://host[:port] of a canonical URL."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def links(html: bytes, base_url: str, limit: int | None = None) -> list[str]:
    """Canonical http(s) targets of the page's `<a href>` / `<area href>` links, in page order, without repeats.

    At most `limit` of them (the first ones): a page holding 100,000 links costs no more than one holding `limit`.
    """
    if limit is not None and limit <= 0:
        return []
    try:
        doc = lxml.html.document_fromstring(html, base_url=base_url)
    except (etree.ParserError, ValueError):
        return []
    base = doc.find(".//base[@href]")
    root = urljoin(base_url, base.get("href").strip()) if base is not None else base_url
    found: dict[str, None] = {}
    for element in doc.iter("a", "area"):
        href = (element.get("href") or "").strip()
        if not href or href.startswith("#"):
            continue
        target = urljoin(root, href)
        if is_web_url(target):
            try:
                found.setdefault(canonical(target))
            except ValueError:  # an unparseable port or host: not a link we can follow
                continue
            if limit is not None and len(found) >= limit:
                break
    return list(found)


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4, through urljoin (which implements it) against a neutral base."""
    if "." not in path:
        return path
    return urlsplit(urljoin("http://x/", path)).path
