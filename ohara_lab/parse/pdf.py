"""PDF → Markdown with PDFium (pypdfium2): text, outline, font sizes, metadata.

Measured on this machine (notes/nlp_deps.md §4), PDFium extracts text at about
1 ms/page against 10–30 ms for pypdf and pdfminer, and markitdown's PDF path
drops headings and invents tables. Headings come from the outline when the PDF
has one, else from font sizes (`pdf_headings`); pages are separated by `-----`
lines, which the chunker counts as physical page breaks.

The outline is read through PDFium as well (`FPDFBookmark_*`): the same titles,
depths and target pages as pypdf's `outline`, without parsing the file a second
time (0.2 ms against 30 ms for the 36-page libtasn1 manual).
"""
from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ..errors import ParseError
from ..records import ParsedDocument
from . import markup, pdf_headings
from .metadata import clean, compact, iso_date
from .pdf_blocks import PageWriter, usual_gap
from .pdf_lines import Line, page_lines

_OPEN_ERRORS = {
    pdfium_c.FPDF_ERR_PASSWORD: "encrypted PDF: a password is required to open it",
    pdfium_c.FPDF_ERR_SECURITY: "encrypted PDF: unsupported security handler",
    pdfium_c.FPDF_ERR_FORMAT: "corrupt PDF: not in a readable PDF format",
    pdfium_c.FPDF_ERR_FILE: "corrupt PDF: cannot be opened",
}
_FILE_NAME_TITLES = (".doc", ".docx", ".pdf", ".tex", ".dvi", ".odt", ".indd")
# Defaults some writers fill in when the author left a field empty (ReportLab, Word).
_PLACEHOLDERS = {"unspecified", "untitled", "anonymous", "unknown", "(anonymous)", "author"}


def open_pdf(path: Path, data: bytes) -> pdfium.PdfDocument:
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise ParseError(path, _OPEN_ERRORS.get(exc.err_code, "corrupt PDF: PDFium cannot load it")) from None


def _target_y(bookmark) -> tuple[int | None, float | None]:
    dest = bookmark.get_dest()
    if dest is None:
        return None, None
    mode, pos = dest.get_view()
    if mode == pdfium_c.PDFDEST_VIEW_XYZ and len(pos) >= 2:
        return dest.get_index(), pos[1]
    if mode in (pdfium_c.PDFDEST_VIEW_FITH, pdfium_c.PDFDEST_VIEW_FITBH) and pos:
        return dest.get_index(), pos[0]
    return dest.get_index(), None


def bookmarks(doc: pdfium.PdfDocument) -> list[pdf_headings.Bookmark]:
    """The outline in document order; entries without a target page are left out."""
    marks = []
    for item in doc.get_toc(max_depth=6):
        title = clean(item.get_title())
        page, y = _target_y(item)
        if title and page is not None:
            marks.append(pdf_headings.Bookmark(title, item.level, page, y))
    return marks


def metadata(doc: pdfium.PdfDocument) -> tuple[str | None, dict]:
    """(title, metadata) from the document information dictionary."""
    info = {
        key: value
        for key, value in doc.get_metadata_dict(skip_empty=True).items()
        if value.strip().lower() not in _PLACEHOLDERS
    }
    title = clean(info.get("Title"))
    if title and title.lower().endswith(_FILE_NAME_TITLES):
        title = None  # a file name, not a title ("Microsoft Word - report.docx")
    author = clean(info.get("Author"))
    return title, compact(
        {
            "authors": [a.strip() for a in author.split(";") if a.strip()] if author else [],
            "date": iso_date(info.get("CreationDate")),
            "modified": iso_date(info.get("ModDate")),
            "subject": clean(info.get("Subject")),
            "keywords": clean(info.get("Keywords")),
            "producer": clean(info.get("Producer")),
        }
    )


def read_pages(doc: pdfium.PdfDocument) -> list[list[Line]]:
    pages = []
    for index in range(len(doc)):
        page = doc[index]
        textpage = page.get_textpage()
        try:
            pages.append(page_lines(textpage))
        finally:
            textpage.close()
            page.close()
    return pages


def parse(path: Path, data: bytes) -> ParsedDocument:
    doc = open_pdf(path, data)
    try:
        pages = read_pages(doc)
        marks = bookmarks(doc)
        title, meta = metadata(doc)
    finally:
        doc.close()
    title = title or pdf_headings.display_title(pages)
    if marks:
        pdf_headings.from_outline(pages, marks)
        engine = "pypdfium2+outline"
    else:
        pdf_headings.by_font_size(pages)
        engine = "pypdfium2+font-size"
    writer = PageWriter(pdf_headings.body_size(pages), usual_gap(pages))
    markdown = f"\n\n{markup.PAGE_BREAK}\n\n".join(writer.markdown(lines) for lines in pages)
    return ParsedDocument(
        path=str(path),
        markdown=markup.tidy(markdown),
        parser=engine,
        title=title,
        metadata=meta,
        page_count=len(pages),
    )
