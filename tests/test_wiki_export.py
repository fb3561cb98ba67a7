import json

import pytest

from ohara_lab.errors import UsageError


def test_wiki_export_writes_documents_sections_entities(samples_atlas, tmp_path):
    out = tmp_path / "wiki"
    counts = samples_atlas.export_wiki(out)
    stats = samples_atlas.stats()
    assert counts == {"documents": stats["documents"], "sections": stats["sections"], "entities": stats["entities"]}
    index = (out / "index.md").read_text()
    assert "title: \"Doc Ohara Knowledge Base\"" in index and index.count("[[documents/") == stats["documents"]
    docs = sorted((out / "documents").iterdir())
    assert len(docs) == stats["documents"]  # equal titles do not overwrite each other
    timeline = next(d for d in docs if "timeline" in d.name)
    section_files = [f for f in timeline.iterdir() if f.name != "index.md"]
    assert any("| Licence | Version |" in f.read_text() for f in section_files)  # tables are rendered
    fsf = (out / "entities" / "free-software-foundation.md").read_text()
    assert "## Mentioned in" in fsf and "[[documents/" in fsf and "tags: [\"entity\", " in fsf
    samples_atlas.export_wiki(out)  # a wiki we wrote is rebuilt in place
    assert (out / "index.md").exists()


def test_export_refuses_a_foreign_non_empty_directory(samples_atlas, tmp_path):
    (tmp_path / "important.txt").write_text("keep me")
    with pytest.raises(UsageError):
        samples_atlas.export_wiki(tmp_path)
    assert (tmp_path / "important.txt").read_text() == "keep me"


def test_json_export_counts_match_stats(samples_atlas, tmp_path):
    counts = samples_atlas.export_json(tmp_path / "atlas.json")
    data = json.loads((tmp_path / "atlas.json").read_text())
    stats = samples_atlas.stats()
    assert counts["paragraphs"] == stats["paragraphs"] == len(data["paragraphs"])
    assert len(data["edges"]) == sum(stats["edges"].values())
