"""Markdown passes through unchanged, apart from unified newlines."""
from __future__ import annotations

from pathlib import Path

from ..records import ParsedDocument
from .sniff import decode_utf8


def parse(path: Path, data: bytes) -> ParsedDocument:
    # Dash runs are left alone: in Markdown input they are the page breaks
    # (spec §2.5), e.g. in the LiteParse output the original system ingested.
    text = decode_utf8(path, data).replace("\r\n", "\n").replace("\r", "\n")
    return ParsedDocument(path=str(path), markdown=text.rstrip("\n") + "\n", parser="markdown")
