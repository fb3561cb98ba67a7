"""The web as a source: fetch one URL, crawl a site politely, bundle each host's pages, capture a rendering.

* `guard` — which addresses may be contacted (the SSRF guard), enforced in every connection.
* `fetch` / `body` — one resource through httpx: time limit, redirects, size cap, bounded decompression.
* `robots`, `urls`, `crawl` — a resumable breadth-first crawl whose state is the atlas's `crawl` pages.
* `bundle` — one Markdown document per host from its crawled pages, ingested through the replace path.
* `ingest` — `atlas.ingest(["https://…"])`: fetched bytes through the same parse path as files.
* `capture` — the page as headless Chromium renders it (HTML, PDF, PNG).

Needs the `web` extra (httpx, trafilatura, protego); nothing outside this package imports it eagerly.
"""
from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import UsageError

SCHEMES = ("http", "https")


def is_web_url(text: str) -> bool:
    """Does `text` name an http(s) URL rather than a local path?"""
    return isinstance(text, str) and "://" in text and text.split(":", 1)[0].lower() in SCHEMES


def load(module: str) -> ModuleType:
    """`ohara_lab.web.<module>`, or a `UsageError` naming the `web` extra when its libraries are missing."""
    try:
        return importlib.import_module(f"{__name__}.{module}")
    except ImportError as e:
        raise UsageError(f"web sources need the 'web' extra ({e.name} is not installed): "
                         "pip install 'ohara-lab[web]'") from e
