from ohara_lab.ingest.chunking import chunk_markdown
from ohara_lab.ingest.structure import plan_headings, structure_document


def nodes_of(md: str):
    chunks = chunk_markdown(md, min_chars=1)
    return [n for nodes in structure_document(chunks, md) for n in nodes]


def test_lone_h1_is_the_title_and_levels_shift():
    md = "# My Report\n\n## Overview\n\nSome text here.\n\n### Detail\n\nMore text.\n"
    assert plan_headings(md).title == "My Report"
    got = [(n["type"], n.get("title") or n.get("content"), n.get("metadata", {}).get("level")) for n in nodes_of(md)]
    assert got == [("Title", "My Report", None), ("Chapter", "Overview", 1), ("Paragraph", "Some text here.", None),
                   ("Section", "Detail", 2), ("Paragraph", "More text.", None)]


def test_chapter_label_merges_with_the_next_heading():
    md = "# CHAPTER 1\n\n## Introduction\n\ntext\n\n# CHAPTER 2\n\n## How It Works\n\nmore\n"
    heads = [(n["type"], n["title"], n.get("label"), n["metadata"]["level"]) for n in nodes_of(md) if "title" in n]
    assert heads == [("Chapter", "Introduction", "CHAPTER 1", 1), ("Chapter", "How It Works", "CHAPTER 2", 1)]


def test_blocks_become_typed_nodes():
    md = ("# Doc\n\n## Body\n\nA paragraph with **bold** and [a link](http://x).\n\n- first item\n- second item\n\n"
          "| a | b |\n|---|---|\n| 1 | 2 |\n\n![A diagram](fig.png)\n\n```\ncode here\n```\n")
    nodes = nodes_of(md)
    kinds = [n["type"] for n in nodes]
    assert kinds == ["Title", "Chapter", "Paragraph", "ListItem", "ListItem", "Table", "Figure", "Code"]
    assert nodes[2]["content"] == "A paragraph with bold and a link."
    assert nodes[3]["content"] == "- first item"
    assert nodes[5]["table"]["content_data"] == [["a", "b"], ["1", "2"]]
    assert nodes[6]["caption"] == "A diagram"


def test_special_sections_type_their_text_and_part():
    md = ("# Paper\n\n## Abstract\n\nWe study things.\n\n## Method\n\nWe did things.\n\n"
          "## References\n\n- Smith 2020. A paper.\n\n## Appendix A\n\nExtra.\n")
    got = [(n["type"], n["part"]) for n in nodes_of(md) if "content" in n and n["type"] != "Title"]
    assert got == [("Abstract", "front_matter"), ("Paragraph", "body_matter"), ("Bibliography", "back_matter"),
                   ("Appendix", "back_matter")]


def test_running_heads_are_not_headings_and_pages_are_kept():
    md = "# A\n\ntext one\n\n-----\n\n###### A | 2\n\ntext two\n"
    nodes = nodes_of(md)
    assert [n.get("title") for n in nodes if n["type"] in ("Chapter", "Section", "Subsection")] == ["A"]
    assert [n["metadata"]["page"] for n in nodes if n["type"] == "Paragraph"] == [1, 2]
