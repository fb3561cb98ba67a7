"""DOCX → HTML (mammoth) → Markdown; metadata from the package's core properties.

mammoth maps Word's Heading 1–6 styles to <h1>–<h6>, lists to <ul>/<ol> and
tables to <table>; the first table row becomes the Markdown header row, whether
or not Word marked it as a repeating header.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import mammoth

from ..records import ParsedDocument
from . import htmlmd
from .metadata import clean, compact, iso_date

# Styles Word documents use that mammoth does not map on its own.
_STYLE_MAP = "\n".join(
    (
        "p[style-name='Title'] => h1:fresh",
        "p[style-name='Subtitle'] => p:fresh",
    )
)
_CORE = "docProps/core.xml"
_NS = {
    "dc": "http://purl.org/dc/elements/1.1/",
    "dcterms": "http://purl.org/dc/terms/",
    "cp": "http://schemas.openxmlformats.org/package/2006/metadata/core-properties",
}


def _alt_text_only(image) -> dict[str, str]:
    # Inline the alt text, never the picture: mammoth would otherwise embed every
    # image as a base64 data URI.
    return {"alt": image.alt_text or ""}


def core_properties(data: bytes) -> tuple[str | None, dict]:
    """(title, metadata) from docProps/core.xml; empty when the part is absent."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        if _CORE not in archive.namelist():
            return None, {}
        root = ElementTree.fromstring(archive.read(_CORE))

    def field(name: str) -> str | None:
        node = root.find(name, _NS)
        return clean(node.text) if node is not None else None

    creator = field("dc:creator")
    authors = [a.strip() for a in creator.split(";") if a.strip()] if creator else []
    return field("dc:title"), compact(
        {
            "authors": authors,
            "date": iso_date(field("dcterms:created")),
            "modified": iso_date(field("dcterms:modified")),
            "language": field("dc:language"),
            "subject": field("dc:subject"),
            "keywords": field("cp:keywords"),
        }
    )


def parse(path: Path, data: bytes) -> ParsedDocument:
    result = mammoth.convert_to_html(
        io.BytesIO(data),
        style_map=_STYLE_MAP,
        convert_image=mammoth.images.img_element(_alt_text_only),
    )
    title, meta = core_properties(data)
    return ParsedDocument(
        path=str(path),
        markdown=htmlmd.html_to_markdown(result.value),
        parser="mammoth+markdownify",
        title=title,
        metadata=meta,
    )
