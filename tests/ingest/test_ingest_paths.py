"""Which files a directory ingest reads (issue 12, point 4): links out of the folder are skipped."""
from __future__ import annotations

from pathlib import Path

import pytest

from ohara_lab import Atlas
from ohara_lab.ingest.sources import expand_paths

from tests.support import OFFLINE


@pytest.fixture
def folder(tmp_path) -> tuple[Path, Path]:
    """A downloaded folder: one note, a link to a file outside, a link to a file inside, a link loop."""
    outside = tmp_path / "private" / "passwd.md"
    outside.parent.mkdir()
    outside.write_text("# Private\n\nroot:x:0:0:root:/root:/bin/bash\n")
    notes = tmp_path / "notes"
    (notes / "sub").mkdir(parents=True)
    (notes / "note.md").write_text("# Note\n\nAlice Smith counted crabs.\n")
    (notes / "passwd.md").symlink_to(outside)
    (notes / "sub" / "again.md").symlink_to(notes / "note.md")
    (notes / "loop.md").symlink_to(notes / "loop.md")
    return notes, outside


def test_links_out_of_the_folder_are_skipped_with_the_reason(folder):
    notes, outside = folder
    files, outcomes = expand_paths([notes])
    assert files == [notes / "note.md", notes / "sub" / "again.md"]  # a link that stays inside is read
    (skipped,) = outcomes
    assert skipped.status == "skipped" and skipped.path == str(notes / "passwd.md")
    assert f"symbolic link to {outside}, outside {notes}" in skipped.reason and "--follow-links" in skipped.reason


def test_follow_links_reads_them(folder):
    notes, _ = folder
    files, outcomes = expand_paths([notes], follow_links=True)
    assert notes / "passwd.md" in files and outcomes == []


def test_a_link_named_directly_is_read(folder):
    notes, _ = folder
    assert expand_paths([notes / "passwd.md"]) == ([notes / "passwd.md"], [])


def test_the_linked_file_never_reaches_the_atlas(folder, tmp_path):
    notes, _ = folder
    with Atlas.open(tmp_path / "atlas", **OFFLINE, ner="rules") as atlas:
        report = atlas.ingest([notes], progress=False)
        # the link out is skipped; the link in repeats note.md, so it is "unchanged"
        assert report.ok and [o.status for o in report.outcomes] == ["skipped", "ingested", "skipped"]
        assert all("root:x" not in p["content"] for d in atlas.documents()
                   for p in atlas.store.document_nodes(d.id)["paragraphs"])
