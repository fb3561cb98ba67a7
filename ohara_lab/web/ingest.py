"""`atlas.ingest(["https://…"])`: one URL fetched, then parsed and ingested exactly like a file.

The format is sniffed from the bytes (`parse.detect`), the document records
`source_url` (the URL after redirects) and the validators the server sent, so
the next ingest of the same URL asks with If-None-Match / If-Modified-Since: a
304 is skipped without a download, and a changed body replaces the document
(content hash and origin = the canonical URL, as for a file at a path).
Nothing is written to disk.
"""
from __future__ import annotations

from hashlib import sha256
from typing import Any

from ..errors import OharaError
from ..parse import parse_bytes
from ..parse.detect import detect_format
from ..records import FileOutcome, utc_now
from .fetch import Fetcher
from .guard import check_url
from .urls import canonical


def ingest_url(ingestor: Any, fetcher: Fetcher, url: str, *, force: bool = False) -> FileOutcome:
    """Fetch `url` and ingest it through `ingestor.ingest_parsed`; failures become a `failed` outcome."""
    try:
        check_url(url)
        origin = canonical(url)
        previous = [d for d in ingestor.store.find_documents(origin_path=origin) if d.ingestion_status == "complete"]
        http = (previous[0].meta.get("http") or {}) if previous and not force else {}
        res = fetcher.fetch(origin, etag=http.get("etag"), last_modified=http.get("last_modified"))
        if res.not_modified:
            return FileOutcome(url, "skipped", previous[0].id, "unchanged since last ingest (HTTP 304)")
        parsed = parse_bytes(url, res.data, detect_format(res.url, res.data, res.content_type), ingestor.settings)
    except OharaError as e:
        return FileOutcome(url, "failed", None, getattr(e, "reason", str(e)))
    parsed.source_url = res.url
    parsed.metadata["http"] = {"etag": res.etag, "last_modified": res.last_modified,
                               "content_type": res.content_type, "fetched_at": utc_now()}
    return ingestor.ingest_parsed(parsed, content_hash=sha256(res.data).hexdigest(), origin=origin,
                                  size=len(res.data), force=force)
