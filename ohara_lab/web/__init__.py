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
import os
import re
from types import ModuleType

from ..errors import UsageError

SCHEMES = ("http", "https")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:")  # two letters at least: "C:" is a drive, not a scheme


def is_web_url(text: str) -> bool:
    """Does `text` name an http(s) URL rather than a local path?"""
    return isinstance(text, str) and "://" in text and text.split(":", 1)[0].lower() in SCHEMES


def names_a_url(text: object) -> bool:
    """Is `text` meant as a URL rather than a local path? http(s) URLs, and any other `scheme:` text that
    is not an existing path (file:, data:, ftp:, "http:\\\\host"), so the guard refuses it naming why
    instead of reporting "no such file"."""
    if is_web_url(text):  # type: ignore[arg-type]
        return True
    return isinstance(text, str) and bool(_SCHEME.match(text)) and not os.path.lexists(text)


def load(module: str) -> ModuleType:
    """`ohara_lab.web.<module>`, or a `UsageError` naming the `web` extra when its libraries are missing."""
    try:
        return importlib.import_module(f"{__name__}.{module}")
    except ImportError as e:
        raise UsageError(f"web sources need the 'web' extra ({e.name} is not installed): "
                         "pip install 'ohara-lab[web]'") from e
