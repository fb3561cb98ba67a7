import pytest

from ohara_lab.ingest.special import cut_toc, extract_specials, find_glossary, is_running_head


def test_toc_with_links_is_cut_and_parsed():
    md = "# Book\n\n## Contents\n\n- [Intro](#intro)\n- [Methods](#methods)\n\n## Intro\n\ntext\n"
    body, toc = cut_toc(md)
    assert [(e.title, e.level) for e in toc] == [("Intro", 1), ("Methods", 1)]
    assert "[Intro]" not in body and "## Intro" in body


def test_dotted_leaders_give_level_two_with_pages_and_bold_pages_zip():
    lines = ["# Table of Contents", "", "1. **Introduction. . . . . . .**", "",
             "What is it . . . . . . 3", "", "2. **How it Works. . . . . .**", "", "**1 15**", "", "# Preface", "x"]
    body, toc = cut_toc("\n".join(lines))
    assert [(e.title, e.level, e.page) for e in toc] == [
        ("Introduction", 1, 1), ("What is it", 2, 3), ("How it Works", 1, 15)]
    assert body.startswith("# Preface")


def test_running_heads_do_not_end_the_toc():
    md = "# Contents\n\n1. **Alpha. . .**\n\n###### Table of Contents | v\n\n2. **Beta. . .**\n\n# Alpha\n\nbody\n"
    _, toc = cut_toc(md)
    assert [e.title for e in toc] == ["Alpha", "Beta"]


def test_running_head_patterns():
    assert is_running_head("History of Bitcoin | 3")
    assert is_running_head("2 | Chapter 1: Introduction")
    assert is_running_head("Table of Contents | vii")
    assert not is_running_head("Digital Currencies Before Bitcoin")


def test_glossary_entries_in_three_forms():
    md = ("## Glossary\n\n**block** - a group of transactions\n\nnonce: a number used once\n\n"
          "| hash | a digest |\n\n## Next\n\nterm: not glossary\n")
    assert find_glossary(md) == [{"term": "block", "definition": "a group of transactions"},
                                 {"term": "nonce", "definition": "a number used once"},
                                 {"term": "hash", "definition": "a digest"}]


def test_no_toc_leaves_markdown_alone():
    md = "# A\n\ntext\n"
    s = extract_specials(md)
    assert s.markdown == md and s.toc == [] and s.toc_source is None


@pytest.mark.timeout(20)
def test_long_dotted_lines_do_not_backtrack_catastrophically():
    line = "**Chapter" + " ." * 400 + " x**"  # dots that never end in a page number
    body, toc = cut_toc("# Contents\n\n" + line + "\n\n# Next\n\ntext\n")
    assert "# Next" in body and toc == []  # one run-together pseudo-entry is not a TOC
