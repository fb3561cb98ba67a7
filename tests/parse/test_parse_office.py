"""DOCX and EPUB parsing: headings, tables with their header row, lists, metadata."""
from __future__ import annotations


import pytest

from parse_builders import SAMPLES
from ohara_lab.parse import parse_file
from ohara_lab.parse.markup import headings


def test_docx_headings_keep_their_levels(parsed):
    doc = parsed("docx")
    assert doc.parser == "mammoth+markdownify"
    assert headings(doc.markdown) == [
        (1, "Quarterly Report"),  # Word's Title style
        (1, "Overview"),
        (2, "Regional Results"),
        (1, "Outlook"),
    ]


def test_docx_table_keeps_its_real_header_row(parsed):
    lines = parsed("docx").markdown.split("\n")
    at = lines.index("| Region | Revenue | Growth |")
    assert lines[at + 1] == "| --- | --- | --- |"
    assert lines[at + 2 : at + 4] == ["| North | 120 | 5% |", "| South | 80 | -2% |"]
    assert "|  |  |  |" not in lines  # markitdown's empty header row


def test_docx_bullets_and_metadata(parsed):
    doc = parsed("docx")
    assert "- Northern stores opened early\n- Southern stores closed for repairs" in doc.markdown
    assert doc.title == "Quarterly Report"
    assert doc.metadata["authors"] == ["Jane Doe"]
    assert doc.metadata["date"] == "2023-05-17"


def test_epub_follows_the_spine_and_skips_the_nav(parsed):
    doc = parsed("epub")
    assert doc.parser == "ebooklib+markdownify"
    # z_one.xhtml comes first in the spine although it sorts last by name; the
    # nav's links to both chapters would add a second mention of each title.
    assert headings(doc.markdown) == [(1, "Chapter One"), (2, "Counting Crabs"), (1, "Chapter Two")]
    assert doc.markdown.count("Chapter One") == 1


def test_epub_tables_lists_and_metadata(parsed):
    doc = parsed("epub")
    assert "| Species | Count |\n| --- | --- |\n| Shore crab | 14 |\n| Hermit crab | 9 |" in doc.markdown
    assert "- limpets\n- periwinkles" in doc.markdown
    assert doc.title == "Rock Pools and Their Keepers"
    assert doc.metadata["authors"] == ["Rhea Shore"]
    assert doc.metadata["date"] == "2019-06-01"
    assert doc.metadata["language"] == "en"


@pytest.mark.skipif(
    not (SAMPLES / "mastering-bitcoin-3rd.epub").exists(),
    reason=f"real sample EPUB not available ({SAMPLES} is absent)",
)
def test_real_epub_mastering_bitcoin():
    doc = parse_file(SAMPLES / "mastering-bitcoin-3rd.epub")
    chapters = [text for level, text in headings(doc.markdown) if text.startswith("Chapter ")]
    assert chapters[:3] == ["Chapter 1. Introduction", "Chapter 2. How Bitcoin Works",
                            "Chapter 3. Bitcoin Core: The Reference Implementation"]
    assert len(chapters) == 14
    paragraphs = [b for b in doc.markdown.split("\n\n") if len(b) > 200 and b[0].isalpha()]
    assert len(paragraphs) > 1000
    assert doc.title.startswith("Mastering Bitcoin")
    assert doc.metadata["language"] == "en"  # its parse time is benchmarks/bench_ingest.py's, not a test's
