from ohara_lab.ingest.chunking import chunk_markdown
from ohara_lab.ingest.pipeline import offline_structurer
from ohara_lab.ingest.transform import transform


def build(md: str):
    chunks = chunk_markdown(md, min_chars=1)
    return transform("documents/d", offline_structurer(chunks, md, "documents/d"))


def test_hierarchy_positions_and_edges():
    md = "# Title\n\n## One\n\nFirst paragraph is long enough to stand alone here.\n\n### One.A\n\n" \
         "Second paragraph is also long enough to stand alone.\n\n## Two\n\nThird paragraph, long enough to stand.\n"
    s = build(md)
    assert [(x.title, x.level, x.parent_section_id) for x in s.sections] == [
        ("One", 1, None), ("One.A", 2, s.sections[0].id), ("Two", 1, None)]
    assert [p.doc_position for p in s.paragraphs] == sorted(p.doc_position for p in s.paragraphs)
    edges = {(e.relation, e.from_id, e.to_id) for e in s.edges}
    one, sub, two = (x.id for x in s.sections)
    assert ("HAS_CHILD", "documents/d", one) in edges and ("HAS_CHILD", one, sub) in edges
    assert ("NEXT_SIBLING", one, two) in edges
    assert all(("BELONGS_TO", p.id, "documents/d") in edges for p in s.paragraphs)
    assert not s.needs_review


def test_level_jump_is_flagged_then_clamped():
    md = "# A\n\ntext of chapter a that is long enough.\n\n### Deep\n\ntext of the deep part, long enough too.\n" \
         "\n# B\n\nmore text for chapter b that is long.\n"
    s = build(md)
    assert s.needs_review
    deep = next(x for x in s.sections if x.title == "Deep")
    assert deep.level == 2 and deep.parent_section_id == s.sections[0].id


def test_fragments_reattach_and_artifacts_drop():
    md = "# A\n\nThis is a long enough paragraph that ends without a full\n\nstop and continues here.\n\n" \
         "---\n\n12 Journal Of Things\n\nAnother paragraph that is long enough to stay on its own, by more than sixty.\n"
    s = build(md)
    texts = [p.content for p in s.paragraphs]
    assert texts[0] == "This is a long enough paragraph that ends without a full stop and continues here."
    assert "12 Journal Of Things" not in texts


def test_repeated_heading_only_continues_the_current_section():
    md = "# Ch1\n\n## Introduction\n\nintro one is long enough to be a paragraph.\n\n# Ch2\n\n## Introduction\n\n" \
         "intro two is long enough to be a paragraph.\n"
    s = build(md)
    intros = [x for x in s.sections if x.title == "Introduction"]
    assert len(intros) == 2 and intros[0].parent_section_id != intros[1].parent_section_id


def test_tables_become_table_nodes_with_markdown_and_adjacency():
    md = "# A\n\nBefore the table comes a paragraph.\n\n| k | v |\n|---|---|\n| x | 1 |\n\n" \
         "After the table comes a short paragraph.\n"
    s = build(md)
    [t] = s.tables
    assert t.matrix_data == [["k", "v"], ["x", "1"]]
    assert t.markdown_representation.splitlines()[:2] == ["| k | v |", "|---|---|"]
    adj = {(e.from_id, e.to_id) for e in s.edges if e.relation == "ADJACENT_TO"}
    before, after = s.paragraphs
    assert {(before.id, t.id), (t.id, before.id), (t.id, after.id), (after.id, t.id)} == adj
