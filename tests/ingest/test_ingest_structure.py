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


def _levels(md: str) -> list[tuple[str, int]]:
    return [(n["title"], n["metadata"]["level"]) for n in nodes_of(md) if n["type"] in ("Chapter", "Section",
                                                                                        "Subsection", "Part")]


def test_numbered_headings_at_one_markdown_depth_nest_by_their_labels():
    md = ("# Doc\n\n## 1. Intro\n\nt\n\n## 1.1 Scope\n\nt\n\n## 1.2 Terms\n\nt\n\n## 2. Methods\n\nt\n\n"
          "## Article I\n\nt\n\n## Section 1\n\nt\n\n## (a) Notice\n\nt\n\n## Section 2\n\nt\n\n## Article II\n\nt\n")
    assert _levels(md) == [("1. Intro", 1), ("1.1 Scope", 2), ("1.2 Terms", 2), ("2. Methods", 1),
                           ("Article I", 1), ("Section 1", 2), ("(a) Notice", 3), ("Section 2", 2),
                           ("Article II", 1)]


def test_unlabelled_headings_years_and_nested_markdown_keep_their_depth():
    md = ("# Doc\n\n## 2019\n\nt\n\n## 2020\n\nt\n\n## 1. Intro\n\nt\n\n## Background\n\nt\n\n## 1.1 Scope\n\nt\n\n"
          "## 2. Methods\n\nt\n\n### 2.1 Data\n\nt\n")
    # "Background" closes section 1, so "1.1" has no "1." above it at its depth and stays a sibling.
    assert _levels(md) == [("2019", 1), ("2020", 1), ("1. Intro", 1), ("Background", 1), ("1.1 Scope", 1),
                           ("2. Methods", 1), ("2.1 Data", 2)]


def _tree(path):
    from ohara_lab.ingest.prepare import offline_structurer, prepare
    from ohara_lab.parse import parse_file
    from ohara_lab.settings import Settings
    from ohara_lab.timing import Timer

    structure = prepare(parse_file(path, Settings()), "0" * 64, Settings(), offline_structurer, "offline",
                        Timer()).structure
    titles = {s.id: s.title for s in structure.sections}
    return [(s.title, titles.get(s.parent_section_id)) for s in structure.sections], structure


def test_apache_licence_section_tree_has_its_sections_as_siblings():
    from tests.parse.test_parse_text import CORPUS

    tree, structure = _tree(CORPUS / "Apache-2.0.txt")
    terms = "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION"
    under_terms = [title for title, parent in tree if parent == terms]
    assert under_terms == ["1. Definitions.", "2. Grant of Copyright License.", "3. Grant of Patent License.",
                           "4. Redistribution.", "5. Submission of Contributions.", "6. Trademarks.",
                           "7. Disclaimer of Warranty.", "8. Limitation of Liability.",
                           "9. Accepting Warranty or Additional Liability."]
    section_of = {s.id: s.title for s in structure.sections}
    grant = next(p for p in structure.paragraphs if p.content.startswith("Subject to the terms")
                 and "patent license" in p.content)
    assert section_of[grant.section_id] == "3. Grant of Patent License."
    assert not structure.needs_review


def test_statute_and_rfc_trees(tmp_path):
    from tests.parse.test_parse_text import FIXTURES

    tree, _ = _tree(FIXTURES / "tide-pool-protection-act.txt")
    parent = dict(tree)
    assert parent["SEC. 102. PROTECTION PROGRAM."] == "TITLE I--PROTECTION OF TIDE POOLS"
    assert parent["(b) PERMITS.--"] == "SEC. 102. PROTECTION PROGRAM."
    assert parent["SEC. 201. PENALTIES."] == "TITLE II--ENFORCEMENT"
    assert [t for t, p in tree if p == "(b) PERMITS.--"] == ["(1) IN GENERAL.--", "(2) APPLICATIONS.--"]
    tree, _ = _tree(FIXTURES / "rfc-9999-tide-pool.txt")
    assert [t for t, p in tree if p is None] == [
        "Abstract", "Status of This Memo", "1. Introduction", "2. Protocol Overview", "3. Security Considerations",
        "4. References", "Appendix A. Example Session", "Author's Address"]  # the TOC is read apart
    assert [t for t, p in tree if p == "2. Protocol Overview"] == ["2.1. Message Format", "2.2. Error Handling"]


def test_a_citation_names_the_section_that_holds_the_passage(tmp_path):
    from ohara_lab import Atlas
    from tests.parse.test_parse_text import CORPUS
    from tests.support import OFFLINE

    with Atlas.open(tmp_path / "atlas", **OFFLINE) as atlas:
        assert atlas.ingest([CORPUS / "Apache-2.0.txt"], progress=False).ok
        result = atlas.query("patent litigation against any entity alleging infringement terminates licenses")
        top = result.views[result.results[0].id]
    assert top.content.startswith("Subject to the terms and conditions of this License")
    assert top.section_path == ["TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION",
                                "3. Grant of Patent License."]
