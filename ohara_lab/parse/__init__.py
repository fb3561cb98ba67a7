"""Any supported file → Markdown (`parse_file`), the first stage of ingest (spec §2.3).

Every fault becomes `ParseError(path, reason)` with a one-line reason: missing or
empty files, files over `Settings.max_file_mb`, input whose parsing would cost
more than the settings allow (zip bombs, PDF page amplification), bytes that do not match the
extension, corrupt or encrypted containers and files without extractable text.
Parsers write page breaks as `-----` lines and headings as ATX `#` lines, the two
things the chunker reads.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import ParseError
from ..records import ParsedDocument
from ..settings import Settings
from . import markup, sniff, source
from .registry import FORMATS, SUPPORTED_EXTENSIONS, Format, format_for, unsupported_reason

__all__ = ["parse_file", "parse_read", "parse_bytes", "is_supported", "SUPPORTED_EXTENSIONS", "FORMATS", "Format"]


def is_supported(path: str | Path) -> bool:
    """True when the file's extension names a format `parse_file` can read."""
    return format_for(Path(path)) is not None


def parse_file(path: str | Path, settings: Settings | None = None) -> ParsedDocument:
    """Turn one file into Markdown; raise `ParseError` with a one-line reason on any fault."""
    path = Path(path)
    settings = settings or Settings()
    source.check_path(path)
    fmt = format_for(path)
    if fmt is None:
        raise ParseError(path, unsupported_reason(path))
    return parse_bytes(path, source.read_bytes(path, settings.max_file_mb), fmt, settings)


def parse_read(path: str | Path, data: bytes, settings: Settings | None = None) -> ParsedDocument:
    """`parse_file` for bytes already read from `path` (through `source.read_checked`, by ingest)."""
    path = Path(path)
    fmt = format_for(path)
    if fmt is None:
        raise ParseError(path, unsupported_reason(path))
    return parse_bytes(path, data, fmt, settings or Settings())


def parse_bytes(path: str | Path, data: bytes, fmt: Format, settings: Settings | None = None) -> ParsedDocument:
    """Turn bytes already read (a file's, or a fetched resource's named by its URL) into Markdown as `fmt`.

    `settings` bounds what parsing may cost (zip expansion, PDF pages); defaults when absent.
    """
    settings = settings or Settings()
    sniff.not_empty(path, data)
    try:
        fmt.sniff(path, data)
        fmt.check_cost(path, data, settings)
        doc = fmt.parser()(path, data)
    except ParseError:
        raise
    except Exception as exc:  # a library's own error must reach the user as one line
        detail = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise ParseError(path, f"{fmt.name} parser failed: {detail}") from exc
    if not markup.has_text(doc.markdown):
        raise ParseError(path, fmt.no_text_reason)
    if not doc.title:
        doc.title = markup.first_heading(doc.markdown)
    return doc
