"""PDF parsing: headings from the outline or from font sizes, page breaks, metadata."""
from __future__ import annotations

import glob
from pathlib import Path

import pytest

from ohara_lab.parse import parse_file
from ohara_lab.parse.markup import PAGE_BREAK, headings
from parse_builders import LOREM


def _blocks(markdown: str) -> list[str]:
    return [b.strip("\n") for b in markdown.split("\n\n") if b.strip()]


def test_outline_pdf_headings_follow_bookmark_depth(parsed):
    doc = parsed("pdf_outline")
    assert doc.parser == "pypdfium2+outline"
    assert headings(doc.markdown) == [
        (1, "1 Introduction"),
        (2, "1.1 Scope"),  # bookmark "Scope" found on the page with its number
        (1, "2 Methods"),
        (2, "2.1 Data Collection"),
        (1, "3 Results"),
        (2, "3.1 Field Sketches"),  # bookmark title printed nowhere: inserted at its target
    ]


def test_outline_heading_is_the_line_below_the_bookmark_not_the_running_header(parsed):
    blocks = _blocks(parsed("pdf_outline").markdown)
    page2 = blocks.index(PAGE_BREAK) + 1
    # The running header "2 Methods" stays text; the heading is the next line.
    assert blocks[page2 : page2 + 2] == ["2 Methods", "# 2 Methods"]


def test_inserted_outline_heading_sits_at_its_target_position(parsed):
    blocks = _blocks(parsed("pdf_outline").markdown)
    at = blocks.index("## 3.1 Field Sketches")
    assert blocks[at + 1] == "Sketch text follows here."
    assert blocks[at - 1].startswith("Results paragraph.")


def test_pdf_pages_are_separated_by_page_break_lines(parsed):
    doc = parsed("pdf_outline")
    assert doc.page_count == 3
    assert doc.markdown.split("\n").count(PAGE_BREAK) == 2


def test_pdf_paragraphs_are_reflowed_and_separated(parsed):
    blocks = _blocks(parsed("pdf_outline").markdown)
    assert "Intro first paragraph. " + LOREM in blocks
    assert "Intro second paragraph. " + LOREM in blocks


def test_pdf_metadata_comes_from_the_info_dictionary(parsed):
    doc = parsed("pdf_outline")
    assert doc.title == "Field Notes Report"
    assert doc.metadata["authors"] == ["Ann Analyst"]
    assert doc.metadata["date"] == "2000-01-01"  # ReportLab's invariant creation date


def test_pdf_without_outline_gets_headings_from_font_sizes(parsed):
    doc = parsed("pdf_plain")
    assert doc.parser == "pypdfium2+font-size"
    assert headings(doc.markdown) == [
        (1, "Survey of Tide Pools"),
        (2, "Background"),
        (3, "Species Counts"),
        (2, "Discussion"),
        (3, "Limitations"),
    ]
    assert doc.page_count == 2
    assert doc.markdown.split("\n").count(PAGE_BREAK) == 1
    # No title in the info dictionary: the largest line on page 1 is the title.
    assert doc.title == "Survey of Tide Pools"


def _system_pdfs() -> list[str]:
    return sorted(glob.glob("/usr/share/doc/**/*.pdf", recursive=True))[:4]


@pytest.mark.parametrize("path", _system_pdfs() or [pytest.param(None, marks=pytest.mark.skip(
    reason="no PDFs under /usr/share/doc on this machine"))])
def test_real_pdf_outline_titles_become_headings(path):
    pypdf = pytest.importorskip("pypdf")
    doc = parse_file(path)  # its speed is a benchmark's to measure, not a test's to assert
    assert doc.markdown.split("\n").count(PAGE_BREAK) == doc.page_count - 1
    # Cross-check with another library: pypdf's reading of the same outline.
    top_level = [item.title for item in pypdf.PdfReader(path).outline if not isinstance(item, list)]
    if not top_level:
        pytest.skip(f"{path} has no outline")
    found = " ".join(text.lower() for _, text in headings(doc.markdown))
    missing = [t for t in top_level if " ".join(t.lower().split()) not in found]
    assert not missing


@pytest.mark.parametrize("path", _system_pdfs() or [pytest.param(None, marks=pytest.mark.skip(
    reason="no PDFs under /usr/share/doc on this machine"))])
def test_font_size_headings_agree_with_the_outline_on_real_pdfs(path):
    """Measure the no-outline heuristic where the truth is known: a PDF that has an outline."""
    from ohara_lab.parse import pdf, pdf_headings

    source = Path(path)
    document = pdf.open_pdf(source, source.read_bytes())
    try:
        pages, marks = pdf.read_pages(document), pdf.bookmarks(document)
    finally:
        document.close()
    if not marks:
        pytest.skip(f"{path} has no outline to compare with")
    pdf_headings.by_font_size(pages)
    found = [line.text for lines in pages for line in lines if line.heading]
    recovered = [m.title for m in marks if any(pdf_headings.matches(text, m.title) for text in found)]
    assert len(recovered) >= 0.8 * len(marks), sorted({m.title for m in marks} - set(recovered))
