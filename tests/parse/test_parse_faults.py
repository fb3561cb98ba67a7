"""Every fault becomes ParseError(path, reason): one line naming the file and the reason."""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from ohara_lab.errors import IngestError, ParseError
from ohara_lab.parse import SUPPORTED_EXTENSIONS, is_supported, parse_file
from ohara_lab.settings import Settings

from parse_builders import build_zip


def _fails(path: Path, reason: str, settings: Settings | None = None) -> ParseError:
    with pytest.raises(ParseError) as err:
        parse_file(path, settings)
    exc = err.value
    assert isinstance(exc, IngestError)
    assert exc.path == str(path)
    assert str(path) in str(exc) and reason in str(exc), str(exc)
    assert "\n" not in str(exc)
    return exc


def test_supported_extensions_and_is_supported():
    for ext in (".md", ".markdown", ".txt", ".pdf", ".docx", ".epub", ".html", ".htm"):
        assert ext in SUPPORTED_EXTENSIONS
        assert is_supported(f"some/file{ext.upper()}")
    assert not is_supported("notes.rtf")
    assert not is_supported("README")


def test_missing_file(tmp_path):
    _fails(tmp_path / "nope.pdf", "file does not exist")


def test_directory(tmp_path):
    folder = tmp_path / "folder.md"
    folder.mkdir()
    _fails(folder, "is a directory")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this platform")
def test_named_pipe_is_not_read(tmp_path):
    path = tmp_path / "pipe.md"
    os.mkfifo(path)
    _fails(path, "not a regular file")


@pytest.mark.parametrize("name", ["empty.md", "empty.pdf", "empty.docx"])
def test_zero_byte_file(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"")
    _fails(path, "empty file (0 bytes)")


def test_whitespace_only_file(tmp_path):
    path = tmp_path / "blank.txt"
    path.write_bytes(b"\xef\xbb\xbf  \n\t\n  ")
    _fails(path, "empty file (only whitespace")


def test_file_over_the_size_limit(tmp_path):
    path = tmp_path / "big.md"
    path.write_text("# Big\n" + "word " * 1000)
    exc = _fails(path, "larger than the 0.001 MiB limit", Settings(max_file_mb=0.001))
    assert "max_file_mb" in exc.reason


def test_unsupported_extension_lists_the_supported_ones(tmp_path):
    path = tmp_path / "slides.pptx"
    path.write_bytes(b"PK\x03\x04 whatever")
    exc = _fails(path, "unsupported extension '.pptx'")
    for ext in SUPPORTED_EXTENSIONS:
        assert ext in exc.reason


def test_random_bytes_named_pdf(tmp_path, random_bytes):
    path = tmp_path / "random.pdf"
    path.write_bytes(random_bytes)
    _fails(path, "not a PDF: missing %PDF header")


def test_docx_named_pdf_says_what_it_looks_like(tmp_path, docs):
    path = tmp_path / "report.pdf"
    path.write_bytes(docs["docx"].read_bytes())
    _fails(path, "not a PDF: missing %PDF header (looks like a zip archive)")


def test_truncated_pdf(tmp_path, docs):
    data = docs["pdf_outline"].read_bytes()
    path = tmp_path / "truncated.pdf"
    path.write_bytes(data[: len(data) // 2])
    _fails(path, "truncated PDF")


def test_corrupt_pdf_body(tmp_path, random_bytes):
    path = tmp_path / "corrupt.pdf"
    path.write_bytes(b"%PDF-1.7\n" + random_bytes + b"\n%%EOF\n")
    _fails(path, "corrupt PDF")


def test_encrypted_pdf_without_password(docs):
    _fails(docs["pdf_encrypted"], "encrypted PDF: a password is required")


def test_scanned_pdf_has_no_text(docs):
    _fails(docs["pdf_scanned"], "no extractable text (scanned?)")


def test_docx_that_is_not_a_zip(tmp_path):
    path = tmp_path / "letter.docx"
    path.write_text("Dear reader, this is plain text.")
    _fails(path, "not a DOCX: not a zip archive")


def test_zip_that_is_not_a_docx(tmp_path):
    path = build_zip(tmp_path / "archive.docx", {"hello.txt": b"hello"})
    _fails(path, "a zip archive but not a DOCX")


def test_docx_with_broken_xml_is_wrapped(tmp_path):
    types = (
        b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        b'<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
        b'officedocument.wordprocessingml.document.main+xml"/></Types>'
    )
    path = build_zip(tmp_path / "broken.docx", {"[Content_Types].xml": types, "word/document.xml": b"<w:document"})
    exc = _fails(path, "docx parser failed:")
    assert exc.__cause__ is not None  # the library's exception is kept for debugging


def test_epub_without_content_documents(docs):
    _fails(docs["epub_empty"], "EPUB has no content documents")


def test_zip_that_is_not_an_epub(tmp_path):
    path = build_zip(tmp_path / "book.epub", {"chapter.html": b"<p>hi</p>"})
    _fails(path, "a zip archive but not an EPUB")


def test_binary_named_html(tmp_path, random_bytes):
    path = tmp_path / "page.html"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + random_bytes)
    _fails(path, "not HTML: binary data")


def test_html_without_text(tmp_path):
    path = tmp_path / "empty.html"
    path.write_text("<html><head><title>t</title><script>x()</script></head><body><nav>menu</nav></body></html>")
    _fails(path, "no extractable text")


@pytest.mark.parametrize("kind", ["pdf_outline", "docx", "epub"])
def test_damaged_files_fail_with_parse_error_only(tmp_path, docs, kind):
    """Seeded byte damage and truncation: a document or a ParseError, never a library exception."""
    rng = random.Random(kind)
    original = docs[kind].read_bytes()
    outcomes = set()
    for i in range(20):
        data = bytearray(original)
        for _ in range(rng.randint(1, 20)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if i % 3 == 0:
            data = data[: rng.randrange(len(data))]
        path = tmp_path / f"damaged{i}{docs[kind].suffix}"
        path.write_bytes(bytes(data))
        try:
            parse_file(path)
            outcomes.add("parsed")
        except ParseError as exc:
            assert "\n" not in str(exc) and str(path) in str(exc)
            outcomes.add("refused")
    assert "refused" in outcomes
