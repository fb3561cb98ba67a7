"""The one table of supported formats: it drives dispatch and the "unsupported" message."""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..records import ParsedDocument
from ..settings import Settings
from . import sniff


@dataclass(frozen=True)
class Format:
    name: str
    extensions: tuple[str, ...]
    sniff: Callable[[Path, bytes], None]
    module: str  # sibling module exposing parse(path, data) -> ParsedDocument
    no_text_reason: str = "no extractable text"
    # Sibling module exposing guard(path, data, settings): checks what parsing would cost
    # (zip expansion, PDF page count) before the parser runs; imported on first use too.
    guard: str | None = None

    def parser(self) -> Callable[[Path, bytes], ParsedDocument]:
        # Imported on first use: `import ohara_lab.parse` stays cheap and a
        # Markdown-only run never loads pdfium, lxml or mammoth.
        return importlib.import_module(f"{__package__}.{self.module}").parse

    def check_cost(self, path: Path, data: bytes, settings: Settings) -> None:
        """Refuse input whose parsing would cost more than the settings allow (ParseError)."""
        if self.guard:
            importlib.import_module(f"{__package__}.{self.guard}").guard(path, data, settings)


FORMATS: tuple[Format, ...] = (
    Format("markdown", (".md", ".markdown"), sniff.utf8_text, "markdown"),
    Format("text", (".txt",), sniff.utf8_text, "text"),
    Format("pdf", (".pdf",), sniff.pdf, "pdf", "no extractable text (scanned?)", guard="pdf_guard"),
    Format("docx", (".docx",), sniff.docx, "docx", guard="archive"),
    Format("epub", (".epub",), sniff.epub, "epub", guard="archive"),
    Format("html", (".html", ".htm", ".xhtml"), sniff.html, "html"),
    # Web pages (no extension: `detect.detect_format` picks it from fetched bytes): main content via trafilatura.
    Format("webpage", (), sniff.html, "webpage", "no main content found"),
)

SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(sorted(e for f in FORMATS for e in f.extensions))

_BY_EXTENSION = {ext: f for f in FORMATS for ext in f.extensions}


def format_for(path: Path) -> Format | None:
    """The format claimed by the file's extension (case-insensitive), or None."""
    return _BY_EXTENSION.get(path.suffix.lower())


def unsupported_reason(path: Path) -> str:
    ext = path.suffix.lower()
    what = f"extension {ext!r}" if ext else "file without an extension"
    return f"unsupported {what} (supported: {', '.join(SUPPORTED_EXTENSIONS)})"
