"""Markdown pass-through, plain-text heuristics and HTML cleaning."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from ohara_lab.errors import ParseError
from ohara_lab.parse import parse_file
from ohara_lab.parse.markup import PAGE_BREAK, headings

GPL3 = Path("/usr/share/common-licenses/GPL-3")


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


# --------------------------------------------------------------------------- Markdown


def test_markdown_passes_through(tmp_path):
    text = "# Title\n\nSome *text*.\n\n-----\n\n## Next page\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n"
    doc = parse_file(_write(tmp_path, "a.md", text))
    assert doc.markdown == text
    assert doc.parser == "markdown"
    assert doc.title == "Title"


def test_markdown_bom_and_crlf_are_accepted(tmp_path):
    doc = parse_file(_write(tmp_path, "b.markdown", b"\xef\xbb\xbf# Caf\xc3\xa9\r\n\r\nText\r\n"))
    assert doc.markdown == "# Café\n\nText\n"


@pytest.mark.parametrize(
    "data, reason",
    [
        (b"# Title\n\nok\x00binary", "not UTF-8 text: NUL byte at byte offset 11"),
        (b"# Title\n\xff\xfe broken", "not UTF-8 text: invalid byte 0xff at byte offset 8"),
        (b"\xef\xbb\xbf# T\n\xc3", "not UTF-8 text: invalid byte 0xc3 at byte offset 7"),
    ],
)
def test_markdown_must_be_utf8(tmp_path, data, reason):
    path = _write(tmp_path, "bad.md", data)
    with pytest.raises(ParseError) as err:
        parse_file(path)
    assert err.value.reason == reason
    assert str(path) in str(err.value)


# --------------------------------------------------------------------------- plain text

LICENCE = """\
                         THE TIDE POOL LICENCE
                        Version 1, 1 June 2024

 Copyright (C) 2024 Nobody in Particular.
 Everyone may copy this text.

                              Preamble

  This licence is written for the tests of a plain-text parser.  Its
lines are wrapped by hand at about seventy characters, like the licences
that ship with every Linux system, and its paragraphs must come out of
the parser as single lines with every word intact.

                         TERMS AND CONDITIONS

  0. Definitions.

  "Pool" means any hollow in the rock that holds sea water when the tide
is out, however small or large it may be.

  1. Permissions.

  You may observe any pool, subject to these conditions:

    a) You must not remove the animals living in the pool or
    disturb the rocks around it.

    b) You must put back any stone that you lift.

    mkdir pools
    cd pools

Methods
=======

Counting starts at low tide.
\f
NO WARRANTY

  2. Warranty.  There is no warranty of any kind, and this run-in
numbered heading opens a section of its own, a sibling of the others.

  3. This clause has a number but no title of its own, so it stays a
paragraph of the section above.

# not a heading, just a hash in plain text

--------------------------------
"""


def test_text_headings_from_centring_capitals_numbers_and_underlines(tmp_path):
    doc = parse_file(_write(tmp_path, "licence.txt", LICENCE))
    assert doc.parser == "text-heuristics"
    assert headings(doc.markdown) == [
        (1, "THE TIDE POOL LICENCE"),
        (2, "Preamble"),
        (2, "TERMS AND CONDITIONS"),
        (3, "0. Definitions."),
        (3, "1. Permissions."),
        (1, "Methods"),
        (2, "NO WARRANTY"),
        (3, "2. Warranty."),
    ]
    assert doc.title == "THE TIDE POOL LICENCE"


def test_text_reflows_prose_and_keeps_list_items_and_short_lines(tmp_path):
    blocks = parse_file(_write(tmp_path, "licence.txt", LICENCE)).markdown.split("\n\n")
    assert (
        "This licence is written for the tests of a plain-text parser.  Its lines are wrapped by hand at "
        "about seventy characters, like the licences that ship with every Linux system, and its "
        "paragraphs must come out of the parser as single lines with every word intact."
    ) in blocks
    assert "a) You must not remove the animals living in the pool or disturb the rocks around it." in blocks
    assert "mkdir pools\ncd pools" in blocks  # short lines keep their breaks
    assert "Version 1, 1 June 2024" in blocks


def test_text_form_feed_is_a_page_break_and_lookalikes_are_escaped(tmp_path):
    doc = parse_file(_write(tmp_path, "licence.txt", LICENCE))
    lines = doc.markdown.split("\n")
    assert lines.count(PAGE_BREAK) == 1
    assert doc.page_count == 2
    assert "\\# not a heading, just a hash in plain text" in lines
    assert "\\--------------------------------" in lines


def _words(markdown: str) -> list[str]:
    """The text's words with the Markdown this parser adds taken away."""
    words = []
    for line in markdown.split("\n"):
        if line == PAGE_BREAK:
            continue
        line = re.sub(r"^#{1,6} ", "", line)
        line = re.sub(r"^(\s*)\\", r"\1", line)
        words += line.split()
    return words


def test_text_keeps_every_word(tmp_path):
    doc = parse_file(_write(tmp_path, "licence.txt", LICENCE))
    source = [w for w in LICENCE.replace("\f", " ").split() if not re.fullmatch(r"=+", w)]
    assert _words(doc.markdown) == source


@pytest.mark.skipif(not GPL3.exists(), reason=f"{GPL3} not installed")
def test_real_gpl3_licence(tmp_path):
    path = shutil.copy(GPL3, tmp_path / "GPL-3.txt")
    doc = parse_file(path)
    found = headings(doc.markdown)
    assert found[:3] == [(1, "GNU GENERAL PUBLIC LICENSE"), (2, "Preamble"), (2, "TERMS AND CONDITIONS")]
    sections = [text for level, text in found if level == 3]
    assert sections[0] == "0. Definitions." and sections[-1] == "17. Interpretation of Sections 15 and 16."
    assert len(sections) == 18
    assert (2, "How to Apply These Terms to Your New Programs") in found
    assert _words(doc.markdown) == GPL3.read_text(encoding="utf-8").split()


# --------------------------------------------------------------------------- HTML

PAGE = """<!doctype html>
<html lang="en"><head><title>Rock Pool Guide</title>
<meta name="author" content="Ann Author"><meta name="date" content="2021-03-04">
<style>.x { color: red }</style><script>alert("script text")</script></head>
<body>
<header><a href="/">Home</a> site banner</header>
<nav><ul><li>Navigation link</li></ul></nav>
<main><article>
<header><h1>Guide to Rock Pools</h1></header>
<p>Read <a href="https://example.org/pools">the survey</a> and
<a href="other.html">our notes</a> first.</p>
<h2>What Lives There</h2>
<ul><li>anemones</li><li>crabs<ul><li>shore crabs</li></ul></li></ul>
<ol><li>look</li><li>count</li></ol>
<table><tr><th>Animal</th><th>Seen</th></tr><tr><td>Crab</td><td>12</td></tr></table>
<h3>Equipment</h3>
<p>-----</p>
<pre>count --pool 3
  --verbose

# a shell comment, not a heading
-----</pre>
</article></main>
<footer>copyright footer</footer>
</body></html>
"""


def test_html_drops_chrome_and_keeps_structure(tmp_path):
    doc = parse_file(_write(tmp_path, "guide.html", PAGE))
    md = doc.markdown
    for gone in ("site banner", "Navigation link", "script text", "color: red", "copyright footer"):
        assert gone not in md
    assert headings(md) == [(1, "Guide to Rock Pools"), (2, "What Lives There"), (3, "Equipment")]
    assert "Read [the survey](https://example.org/pools) and our notes first." in md
    assert "- anemones\n- crabs\n  - shore crabs" in md
    assert "1. look\n2. count" in md
    assert "| Animal | Seen |\n| --- | --- |\n| Crab | 12 |" in md
    # Code keeps its lines, blank line, "#" and dashes: the chunker skips fences.
    assert "```\ncount --pool 3\n  --verbose\n\n# a shell comment, not a heading\n-----\n```" in md
    assert "\\-----" in md.split("\n")  # a dash run in text is not a page break


def test_html_metadata(tmp_path):
    doc = parse_file(_write(tmp_path, "guide.htm", PAGE))
    assert doc.title == "Rock Pool Guide"
    assert doc.metadata == {"authors": ["Ann Author"], "date": "2021-03-04", "language": "en"}


# --------------------------------------------------------------------------- numbered and lettered headings

CORPUS = Path(__file__).parents[2] / "ohara_lab" / "samples" / "corpus"
FIXTURES = Path(__file__).parent / "fixtures"
MPL2 = Path("/usr/share/common-licenses/MPL-2.0")


def _headings_of(path: Path) -> list[tuple[int, str]]:
    return headings(parse_file(path).markdown)


def test_apache_licence_sections_are_siblings():
    path = CORPUS / "Apache-2.0.txt"
    doc = parse_file(path)
    terms = [(3, t) for t in (
        "1. Definitions.", "2. Grant of Copyright License.", "3. Grant of Patent License.", "4. Redistribution.",
        "5. Submission of Contributions.", "6. Trademarks.", "7. Disclaimer of Warranty.",
        "8. Limitation of Liability.", "9. Accepting Warranty or Additional Liability.")]
    assert headings(doc.markdown) == [
        (1, "Apache License"), (2, "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION"), *terms,
        (2, "END OF TERMS AND CONDITIONS"), (2, "APPENDIX: How to apply the Apache License to your work."),
    ]
    blocks = doc.markdown.split("\n\n")
    # The run-in heading leaves its body a paragraph of its own; the lettered conditions stay text.
    assert any(b.startswith("Subject to the terms and conditions of this License, each Contributor") for b in blocks)
    assert any(b.startswith("(a) You must give any other recipients") for b in blocks)
    assert _words(doc.markdown) == path.read_text(encoding="utf-8").split()


def test_rfc_style_text():
    path = FIXTURES / "rfc-9999-tide-pool.txt"
    doc = parse_file(path)
    assert headings(doc.markdown) == [
        (1, "The Tide Pool Observation Protocol"), (2, "Abstract"), (2, "Status of This Memo"),
        (2, "Table of Contents"), (2, "1. Introduction"), (3, "1.1. Requirements Language"),
        (2, "2. Protocol Overview"), (3, "2.1. Message Format"), (3, "2.2. Error Handling"),
        (2, "3. Security Considerations"), (2, "4. References"), (2, "Appendix A. Example Session"),
        (2, "Author's Address"),
    ]
    # Not headings: the numbered steps inside section 2, the lettered fields of 2.1, the page
    # footer and header, the TOC lines and the author's initial in the address.
    blocks = [b.strip() for b in doc.markdown.split("\n\n")]
    assert "3.  The observer sends its counts and closes the connection." in blocks
    assert "(b) the number of animals seen." in blocks
    assert any(b.startswith("Rockpool ") and b.endswith("[Page 1]") for b in blocks)
    assert "A. Rockpool\nExample Pools\nEmail: observer@example.org" in blocks
    assert _words(doc.markdown) == path.read_text(encoding="utf-8").replace("\f", " ").split()


def test_statute_style_text():
    path = FIXTURES / "tide-pool-protection-act.txt"
    doc = parse_file(path)
    assert headings(doc.markdown) == [
        (1, "TIDE POOL PROTECTION ACT OF 2024"), (2, "AN ACT"),
        (3, "SECTION 1. SHORT TITLE."),
        (3, "TITLE I--PROTECTION OF TIDE POOLS"),
        (4, "SEC. 101. DEFINITIONS."), (5, "(1) ADMINISTRATOR.--"), (5, "(2) TIDE POOL.--"),
        (4, "SEC. 102. PROTECTION PROGRAM."), (5, "(a) IN GENERAL.--"), (5, "(b) PERMITS.--"),
        (6, "(1) IN GENERAL.--"), (6, "(2) APPLICATIONS.--"), (5, "(c) EXCEPTIONS.--"),
        (3, "TITLE II--ENFORCEMENT"),
        (4, "SEC. 201. PENALTIES."), (5, "(a) CIVIL PENALTY.--"), (5, "(b) USE OF PENALTIES.--"),
    ]
    blocks = doc.markdown.split("\n\n")
    # Clauses in lower case are items of the paragraph above them, not subdivisions with a heading.
    assert "(A) the name of the applicant;" in blocks
    assert "(1) a researcher acting under section 201; or" in blocks
    # Every character kept; "ADMINISTRATOR.--The" is split between the heading and its paragraph.
    assert "".join(_words(doc.markdown)) == "".join(path.read_text(encoding="utf-8").split())


NUMBERED_LISTS = """\
A GUIDE TO ROCK POOLS

1. Scope

This guide is short.  Before you start, check three things:

1) the tide table;
2) your boots;
3) a bucket.

1. Look at the pool.

2. Count the crabs.

3. Write the count down.

  0. This clause has a number and is written as a sentence, so it is a
paragraph of section 1 and not a section of its own.

2. Terms

Counting starts at low tide.

1. Bring a pencil.

A lone numbered line inside section 2 that does not continue the outline is text.
"""


def test_numbered_lists_and_clauses_are_not_headings(tmp_path):
    doc = parse_file(_write(tmp_path, "guide.txt", NUMBERED_LISTS))
    assert headings(doc.markdown) == [(1, "A GUIDE TO ROCK POOLS"), (2, "1. Scope"), (2, "2. Terms")]
    assert "3. Write the count down." in doc.markdown.split("\n\n")
    assert "1. Bring a pencil." in doc.markdown.split("\n\n")


def test_gpl2_clauses_without_titles_stay_paragraphs():
    found = _headings_of(CORPUS / "GPL-2.txt")
    assert not [t for _, t in found if t[:1].isdigit()]  # "0. This License applies to any program ..."
    assert (2, "NO WARRANTY") in found


@pytest.mark.skipif(not MPL2.exists(), reason=f"{MPL2} not installed")
def test_real_mpl2_subsections_nest_under_underlined_sections(tmp_path):
    found = _headings_of(Path(shutil.copy(MPL2, tmp_path / "MPL-2.0.txt")))
    at = found.index((2, "2. License Grants and Conditions"))
    assert found[at + 1:at + 3] == [(3, "2.1. Grants"), (3, "2.2. Effective Date")]
    assert (2, "3. Responsibilities") in found and (2, "Exhibit A - Source Code Form License Notice") in found
