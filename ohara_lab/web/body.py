"""Reading a response body under a size cap and a deadline, decompressing it ourselves.

httpx would inflate a whole network chunk at once, so a small gzip "bomb" could
expand to gigabytes before any cap is checked. Here the raw bytes are read and
each decompression step may emit at most the room left under the cap plus one
byte: one byte over means refused, whatever the compression ratio.
"""
from __future__ import annotations

import time
import zlib

import httpx

from ..errors import FetchError

MIB = 1024 * 1024
# gzip or zlib header, detected from the stream (zlib: 32 + window bits).
_AUTO_HEADER = 32 + zlib.MAX_WBITS
DECODED = ("identity", "gzip", "x-gzip", "deflate")


def too_large(url: str, limit: int, what: str) -> FetchError:
    return FetchError(url, f"{what} is larger than the {limit / MIB:g} MiB limit (web_max_mb)")


def read_capped(response: httpx.Response, url: str, limit: int, deadline: float) -> bytes:
    """The decoded body of `response`; FetchError when it passes `limit` bytes or `deadline` (monotonic)."""
    encoding = response.headers.get("content-encoding", "identity").strip().lower() or "identity"
    if encoding not in DECODED:
        raise FetchError(url, f"unsupported content encoding {encoding!r} (gzip and deflate are read)")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large(url, limit, f"response ({int(declared) / MIB:.1f} MiB declared)")
    inflate = None if encoding == "identity" else zlib.decompressobj(_AUTO_HEADER)
    out = bytearray()
    for raw in response.iter_raw():  # each network read as it arrives: counted and timed at once
        if time.monotonic() > deadline:
            raise FetchError(url, "body not complete within the time limit (web_timeout_s)")
        if inflate is None:
            out += raw
        else:
            _inflate_into(out, inflate, raw, url, limit)
        if len(out) > limit:
            raise too_large(url, limit, "response")
    if inflate is not None and not inflate.eof and out:
        raise FetchError(url, f"truncated {encoding} body")
    return bytes(out)


def _inflate_into(out: bytearray, inflate: zlib._Decompress, raw: bytes, url: str, limit: int) -> None:
    data = raw
    while data:
        try:
            piece = inflate.decompress(data, limit - len(out) + 1)
        except zlib.error as e:
            raise FetchError(url, f"corrupt compressed body ({e})") from None
        out += piece
        if len(out) > limit:
            raise too_large(url, limit, "decompressed response")
        data = inflate.unconsumed_tail
