"""Checks that a file's bytes are what its extension claims, before a parser sees them.

Each check raises `ParseError` with a one-line reason; the reason names what the
bytes look like instead, when a well-known signature says so.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

from ..errors import ParseError
from .archive import read_capped

_SIGNATURES = (
    (b"%PDF-", "a PDF"),
    (b"PK\x03\x04", "a zip archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an OLE2 file (legacy Office or password-protected OOXML)"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\x1f\x8b", "a gzip file"),
    (b"7z\xbc\xaf", "a 7z archive"),
)

# [Content_Types].xml lists a few dozen part types; anything near this size is not a DOCX.
_CONTENT_TYPES_CAP = 1 << 20
# Readers accept %PDF- anywhere in the first KiB and %%EOF in the last KiB; we allow
# a little more slack at the end for writers that append padding.
_PDF_HEADER_WINDOW = 1024
_PDF_TRAILER_WINDOW = 4096


def looks_like(data: bytes) -> str | None:
    """What a well-known signature says the bytes are, if any."""
    for magic, name in _SIGNATURES:
        if data.startswith(magic):
            return name
    return None


def _refuse(path: Path, reason: str, data: bytes) -> ParseError:
    kind = looks_like(data)
    return ParseError(path, f"{reason} (looks like {kind})" if kind else reason)


def not_empty(path: Path, data: bytes) -> None:
    """Fail on 0 bytes or whitespace only (a UTF-8 BOM counts as whitespace)."""
    if not data:
        raise ParseError(path, "empty file (0 bytes)")
    if not data.removeprefix(b"\xef\xbb\xbf").strip():
        raise ParseError(path, f"empty file (only whitespace, {len(data)} bytes)")


def decode_utf8(path: Path, data: bytes) -> str:
    """The text of a UTF-8 file (BOM allowed); fail at the first NUL or invalid byte, naming its offset."""
    nul = data.find(b"\x00")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
        offset = exc.start + bom
        if 0 <= nul < offset:
            raise ParseError(path, f"not UTF-8 text: NUL byte at byte offset {nul}") from None
        raise _refuse(
            path, f"not UTF-8 text: invalid byte 0x{data[offset]:02x} at byte offset {offset}", data
        ) from None
    if nul >= 0:
        raise _refuse(path, f"not UTF-8 text: NUL byte at byte offset {nul}", data)
    return text


def utf8_text(path: Path, data: bytes) -> None:
    decode_utf8(path, data)


def html(path: Path, data: bytes) -> None:
    """HTML may use any declared charset, so only reject what is clearly binary."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return  # UTF-16 with BOM legitimately contains NUL bytes
    nul = data.find(b"\x00", 0, 65536)
    if nul >= 0:
        raise _refuse(path, f"not HTML: binary data (NUL byte at byte offset {nul})", data)


def pdf(path: Path, data: bytes) -> None:
    if b"%PDF-" not in data[:_PDF_HEADER_WINDOW]:
        raise _refuse(path, "not a PDF: missing %PDF header", data)
    if b"%%EOF" not in data[-_PDF_TRAILER_WINDOW:]:
        raise ParseError(path, "truncated PDF: no %%EOF marker at the end of the file")


def _zip(path: Path, data: bytes, kind: str) -> zipfile.ZipFile:
    if not data.startswith(b"PK"):
        raise _refuse(path, f"not {kind}: not a zip archive", data)
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ParseError(path, f"not {kind}: corrupt zip archive ({exc})") from None


def docx(path: Path, data: bytes) -> None:
    with _zip(path, data, "a DOCX") as archive:
        names = set(archive.namelist())
        if "[Content_Types].xml" not in names:
            raise ParseError(path, "a zip archive but not a DOCX (no [Content_Types].xml)")
        types = read_capped(path, archive, "[Content_Types].xml", _CONTENT_TYPES_CAP)
    if b"wordprocessingml.document.main" not in types and b"ms-word.document" not in types:
        raise ParseError(path, "a zip archive but not a DOCX (no Word document part)")


def epub(path: Path, data: bytes) -> None:
    with _zip(path, data, "an EPUB") as archive:
        if "META-INF/container.xml" not in archive.namelist():
            raise ParseError(path, "a zip archive but not an EPUB (no META-INF/container.xml)")
