from ohara_lab.ingest.chunking import chunk_markdown


def test_page_breaks_count_pages_and_leave_the_text():
    md = "# One\n\nalpha text\n\n-----\n\nbeta text\n\n------\n\ngamma text\n"
    [chunk] = chunk_markdown(md, min_chars=1)
    assert chunk.page_source == "physical"
    assert (chunk.start_page, chunk.end_page) == (1, 3)
    assert "-----" not in chunk.text
    pages = dict(zip(chunk.text.splitlines(), chunk.line_pages))
    assert (pages["alpha text"], pages["beta text"], pages["gamma text"]) == (1, 2, 3)


def test_virtual_pages_without_breaks():
    md = "\n".join(f"line {i:03d} " + "x" * 40 for i in range(100))  # ~5,000 chars
    [chunk] = chunk_markdown(md, virtual_page_size=1000, min_chars=1)
    assert chunk.page_source == "virtual"
    assert chunk.start_page == 1 and chunk.end_page == 5


def test_headings_split_once_a_chunk_is_big_enough():
    body = "para " * 700  # 3,500 chars
    md = f"# A\n\n{body}\n\n# B\n\nshort b\n\n# C\n\n{body}\n"
    chunks = chunk_markdown(md, min_chars=1)
    assert [c.heading for c in chunks] == ["A", "B"]
    assert chunks[1].text.startswith("# B") and "# C" in chunks[1].text


def test_size_limit_closes_at_a_blank_line():
    md = "\n\n".join("word " * 200 for _ in range(30))  # 30 paragraphs of 1,000 chars
    chunks = chunk_markdown(md, max_chars=4000, min_chars=1)
    assert len(chunks) == 8
    assert all(c.text.rstrip().endswith("word") for c in chunks)


def test_small_chunks_merge_into_neighbours():
    md = "# A\n\n" + "a " * 2000 + "\n\n# B\n\ntiny\n"
    chunks = chunk_markdown(md, min_chars=500)
    assert len(chunks) == 1 and "tiny" in chunks[0].text


def test_code_fences_hide_headings_and_breaks():
    md = "# Real\n\n```\n# not a heading\n-----\n```\n\ntext\n"
    [chunk] = chunk_markdown(md, min_chars=1)
    assert chunk.page_source == "virtual" or chunk.end_page == 1
    assert "# not a heading" in chunk.text and "-----" in chunk.text
