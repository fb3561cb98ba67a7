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


# --------------------------------------------------------------------------- issue 12: hostile names, all or nothing

LONG_TITLE = "A " + "very " * 60 + "long title"  # 306 characters
CJK_HEADING = "海洋生物の観察記録と潮だまりの生態系に関する詳細な調査報告書" * 3  # 90 characters, 270 bytes
HOSTILE = f"# {LONG_TITLE}\n\nIntro text about tide pools.\n\n## {CJK_HEADING}\n\nThe survey cites Index twice, as Index says.\n"


@pytest.fixture
def hostile_atlas(tmp_path):
    from ohara_lab import Atlas
    from tests.support import OFFLINE

    path = tmp_path / "atlas"
    with Atlas.open(path, **OFFLINE, ner="rules") as atlas:
        assert atlas.ingest_text(HOSTILE, title=LONG_TITLE, source_id="hostile").status == "ingested"
        assert [e.slug for e in atlas.store.get_entities()] == ["index"]  # an entity whose slug is `index`
    return path


def test_long_and_cjk_names_are_capped_and_index_is_reserved(hostile_atlas, tmp_path):
    from ohara_lab import Atlas
    from tests.support import OFFLINE

    out = tmp_path / "wiki"
    with Atlas.open(hostile_atlas, **OFFLINE) as atlas:
        assert atlas.export_wiki(out) == {"documents": 1, "sections": 1, "entities": 1}
    names = [p.name for p in out.rglob("*")]
    assert max(len(n.encode("utf-8")) for n in names) <= 130
    entity_index = (out / "entities" / "index.md").read_text()
    assert entity_index.startswith("---\ntitle: \"Entities\"")  # the index, not the entity "Index"
    assert "[[entities/index-2|Index]]" in entity_index and (out / "entities" / "index-2.md").exists()
    (doc,) = (out / "documents").iterdir()
    sections = [p for p in doc.iterdir() if p.name != "index.md"]
    assert len(sections) == 1 and f"# {CJK_HEADING}" in sections[0].read_text()
    assert f"[[{sections[0].stem}|{CJK_HEADING}]]" in (doc / "index.md").read_text()


# Above SQLite's 32 KiB shared-memory file, below the samples wiki's largest page.
FILE_SIZE_LIMIT = 40_000


def _no_signal_on_big_files():
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))


def test_a_failed_export_leaves_the_previous_wiki_untouched(samples_atlas_dir, tmp_path):
    """A real write failure mid-export (files over RLIMIT_FSIZE): one line, exit 1, the old wiki intact."""
    import os
    import subprocess
    import sys

    from tests.support import OFFLINE

    out = tmp_path / "wiki"
    env = {**os.environ, **{f"OHARA_{k.upper()}": str(v) for k, v in OFFLINE.items()}}
    cmd = [sys.executable, "-m", "ohara_lab.cli", "export", str(out), "--atlas", str(samples_atlas_dir)]
    assert subprocess.run(cmd, env=env, capture_output=True, text=True).returncode == 0
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert max(map(len, before.values())) > FILE_SIZE_LIMIT  # so the export below must fail part-way
    failed = subprocess.run(cmd, env=env, capture_output=True, text=True, preexec_fn=_no_signal_on_big_files)
    assert failed.returncode == 1, failed.stderr
    assert failed.stderr.count("\n") == 1 and "cannot write the wiki: File too large" in failed.stderr, failed.stderr
    assert str(out) in failed.stderr and "Traceback" not in failed.stderr
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wiki"]  # no staging folder left behind
