"""Issue 12: what parsing a file may cost - zip expansion, PDF pages, HTML depth.

The inputs are the hostile corpus's own builders (`tests/hostile/builders.py`),
kept small here by lowering the limits through `Settings`; the suite in
`tests/hostile/` runs the full-size ones through the CLI under resource limits.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from ohara_lab.errors import ParseError
from ohara_lab.parse import parse_file
from ohara_lab.parse.htmlmd import MAX_DEPTH, html_to_markdown
from ohara_lab.settings import Settings

from tests.hostile import builders as b


def _refused(path: Path, settings: Settings, *reasons: str) -> str:
    with pytest.raises(ParseError) as err:
        parse_file(path, settings)
    message = str(err.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    for reason in reasons:
        assert reason in message, message
    return message


def test_members_declaring_more_than_max_unpacked_mb_are_refused_before_reading(tmp_path):
    path = b.epub_bomb(tmp_path / "bomb.epub", 3)
    _refused(path, Settings(max_unpacked_mb=2, max_unpack_ratio=1e6), "zip bomb?", "3.0 MiB", "'c0.xhtml'",
             "over the 2 MiB limit (max_unpacked_mb)")
    # Under a higher limit the chapter is read (and found to hold only blanks).
    _refused(path, Settings(max_unpacked_mb=4, max_unpack_ratio=1e6), ": no extractable text")


def test_a_member_inflating_past_max_unpack_ratio_is_refused(tmp_path):
    path = b.docx_text_bomb(tmp_path / "text.docx", 2)  # 2 MiB of repeated text in ~8 KB
    message = _refused(path, Settings(), "'word/document.xml'", "over the 100:1 limit (max_unpack_ratio)")
    assert ":1)" in message
    assert "Words of text" in parse_file(path, Settings(max_unpack_ratio=10_000)).markdown


def test_small_members_are_never_refused_for_their_ratio(tmp_path):
    # 900 KB of one repeated paragraph compresses ~1000:1, but a member under 1 MiB cannot hurt.
    body = "".join(b._docx_paragraph("The same sentence again and again.") for _ in range(12_000))
    path = b.docx(tmp_path / "repetitive.docx", body)
    assert "The same sentence" in parse_file(path, Settings()).markdown


def test_an_archive_with_too_many_members_is_refused(tmp_path):
    import zipfile

    from ohara_lab.parse.archive import MAX_MEMBERS

    path = b.epub(tmp_path / "many.epub", {"c0.xhtml": "<html><body><p>Hello.</p></body></html>"})
    with zipfile.ZipFile(path, "a") as z:
        for i in range(MAX_MEMBERS):
            z.writestr(f"junk/{i}", b"")
    _refused(path, Settings(), f"zip archive lists {MAX_MEMBERS + 4:,} members, more than {MAX_MEMBERS:,}")


def test_content_types_part_is_read_with_a_cap(tmp_path):
    path = b.docx_content_types_bomb(tmp_path / "types.docx", 3)
    _refused(path, Settings(max_unpack_ratio=1e6), "zip member '[Content_Types].xml' is larger than 1.0 MiB")


def test_a_member_understating_its_size_is_never_inflated_past_it(tmp_path):
    path = b.docx_understated(tmp_path / "liar.docx", 8)  # claims 100 KiB, inflates to 8 MiB
    _refused(path, Settings(), "docx parser failed: Bad CRC-32 for file 'word/document.xml'")


def test_pdf_over_max_pdf_pages_is_refused_before_its_pages_are_read(tmp_path):
    path = b.pdf_pages(tmp_path / "long.pdf", 30)
    _refused(path, Settings(max_pdf_pages=20), "PDF has 30 pages, more than the 20 limit (max_pdf_pages)")
    assert parse_file(path, Settings(max_pdf_pages=30)).page_count == 30


def test_pdf_page_tree_repeating_one_page_is_refused(tmp_path):
    path = b.pdf_repeated_page(tmp_path / "pages.pdf", 2000)
    _refused(path, Settings(), "page tree repeats page objects: 2,000 pages made of 1 distinct page object(s)")


@pytest.mark.parametrize("tag", ["div", "b", "li", "blockquote"])
def test_html_nested_thousands_deep_keeps_its_text(tag):
    markdown = html_to_markdown(b.deep_html(5000, tag))
    for text in ("Text before the nesting.", "Deep text survives the flattening.", "A second", "deep",
                 "paragraph.", "Text after the nesting."):
        assert text in markdown, markdown
    assert markdown.index("before") < markdown.index("Deep text") < markdown.index("second") < markdown.index("after")


def test_html_within_the_depth_cap_is_converted_as_before():
    nested = "<div>" * (MAX_DEPTH - 5) + "<ul><li>one</li><li>two <b>bold</b></li></ul>" + "</div>" * (MAX_DEPTH - 5)
    assert html_to_markdown(f"<html><body>{nested}</body></html>").strip() == "- one\n- two **bold**"


def test_deep_html_file_parses_end_to_end(tmp_path):
    path = tmp_path / "deep.html"
    path.write_text(b.deep_html(5000), encoding="utf-8")
    doc = parse_file(path)
    assert doc.title == "Deep Page" and "Deep text survives the flattening." in doc.markdown
