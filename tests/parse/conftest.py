"""Session fixtures for the parser tests: every test document is generated once."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Callable

import pytest

from ohara_lab.parse import parse_file
from ohara_lab.records import ParsedDocument

from parse_builders import (
    build_docx,
    build_encrypted_pdf,
    build_epub,
    build_epub_without_content,
    build_pdf_with_outline,
    build_pdf_without_outline,
    build_scanned_pdf,
)


@pytest.fixture(scope="session")
def docs(tmp_path_factory) -> dict[str, Path]:
    """Every generated test document, built once."""
    root = tmp_path_factory.mktemp("parse_docs")
    return {
        "pdf_outline": build_pdf_with_outline(root / "outline.pdf"),
        "pdf_plain": build_pdf_without_outline(root / "plain.pdf"),
        "pdf_encrypted": build_encrypted_pdf(root / "encrypted.pdf"),
        "pdf_scanned": build_scanned_pdf(root / "scanned.pdf"),
        "docx": build_docx(root / "report.docx"),
        "epub": build_epub(root / "book.epub"),
        "epub_empty": build_epub_without_content(root / "empty.epub"),
    }


@pytest.fixture(scope="session")
def parsed(docs) -> Callable[[str], ParsedDocument]:
    """parse_file on a generated document, once per session (tests only read the result)."""
    cache: dict[str, ParsedDocument] = {}

    def get(name: str) -> ParsedDocument:
        if name not in cache:
            cache[name] = parse_file(docs[name])
        return cache[name]

    return get


@pytest.fixture(scope="session")
def random_bytes() -> bytes:
    return random.Random(20240601).randbytes(4096)
