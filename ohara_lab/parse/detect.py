"""Which format a fetched resource is, from its bytes first (a web server's labels are hints).

Files are dispatched by extension and then checked (`sniff`); a URL has no
trustworthy extension and its Content-Type may lie, so here the signature
decides: `%PDF`, a zip holding an EPUB or a DOCX, binary data (refused, named),
HTML markup, and otherwise UTF-8 text — Markdown when the server or the path
says so.
"""
from __future__ import annotations

import io
import zipfile

from ..errors import ParseError
from . import sniff
from .registry import FORMATS, Format

_BY_NAME = {f.name: f for f in FORMATS}
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_MARKDOWN_TYPES = ("text/markdown", "text/x-markdown")
_HTML_MARKS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<?xml")
_SNIFF_WINDOW = 1024


def detect_format(name: str, data: bytes, content_type: str | None = None) -> Format:
    """The format of `data` fetched from `name` (a URL); `ParseError` naming what it is when unsupported."""
    head = data[:_SNIFF_WINDOW]
    if b"%PDF-" in head:
        return _BY_NAME["pdf"]
    if data.startswith(b"PK\x03\x04"):
        return _BY_NAME[_zip_kind(name, data)]
    kind = sniff.looks_like(data)
    if kind:
        raise ParseError(name, f"binary content ({kind}), not a document format ohara-lab reads")
    if b"\x00" in data[:65536] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ParseError(name, "binary content (NUL bytes), not a document format ohara-lab reads")
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if content_type in _HTML_TYPES or stripped.startswith(_HTML_MARKS[:2]) or any(m in stripped for m in _HTML_MARKS[1:4]):
        return _BY_NAME["webpage"]
    path = name.split("?", 1)[0].split("#", 1)[0].lower()
    if content_type in _MARKDOWN_TYPES or path.endswith((".md", ".markdown")):
        return _BY_NAME["markdown"]
    return _BY_NAME["text"]


def _zip_kind(name: str, data: bytes) -> str:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ParseError(name, f"corrupt zip archive ({exc})") from None
    if "META-INF/container.xml" in names:
        return "epub"
    if "[Content_Types].xml" in names:
        return "docx"
    raise ParseError(name, "a zip archive, neither an EPUB nor a DOCX")
