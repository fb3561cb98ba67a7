"""Which files a directory ingest reads (issue 12, point 4): links out of the folder are skipped."""
from __future__ import annotations

import hashlib
import shutil
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


# ---------------------------------------------------------------------------- issue 28.1: a file swapped after its check


def _swap_for_link(path: Path, target: Path) -> None:
    path.unlink()
    path.symlink_to(target)


@pytest.fixture
def inbox(tmp_path) -> tuple[Path, Path]:
    """Two notes in a folder, and a private file beside it."""
    secret = tmp_path / "private" / "salaries.md"
    secret.parent.mkdir()
    secret.write_text("# Salaries\n\nThe keeper of the Brevik dam earns 91,000 crowns.\n")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Herons\n\nGrey herons nest by the dam.\n")
    (notes / "b.md").write_text("# Otters\n\nOtters fish below the weir.\n")
    return notes, secret


def _texts(atlas: Atlas) -> str:
    return " ".join(p["content"] for d in atlas.documents() for p in atlas.store.document_nodes(d.id)["paragraphs"])


def test_a_file_swapped_for_a_link_after_the_listing_is_refused(inbox, tmp_path):
    """b.md passes the folder's link check, then becomes a link out while a.md is ingested (the public
    `on_outcome` callback is the moment): the file opened is checked, not the name listed."""
    notes, secret = inbox
    # One document per commit: a write group reports a.md only once it commits, after b.md (issue 30.2).
    with Atlas.open(tmp_path / "atlas", **OFFLINE, ner="rules", write_group_docs=1) as atlas:
        swap = lambda o: _swap_for_link(notes / "b.md", secret) if o.path.endswith("a.md") else None  # noqa: E731
        report = atlas.ingest([notes], progress=False, on_outcome=swap)
        assert (notes / "b.md").is_symlink()
        assert "91,000" not in _texts(atlas)
        (a, b) = report.outcomes
        assert a.status == "ingested" and b.status == "failed"
        assert b.reason == f"the file opened is {secret}, outside {notes}: refused"


def test_the_seam_between_check_and_open_sees_the_swap_refused(inbox, tmp_path):
    """The narrowest window: after `read_checked` checked the path, before it opens it."""
    notes, secret = inbox
    swapped: list[Path] = []

    def swap(path: Path) -> None:
        if path.name == "a.md":
            _swap_for_link(path, secret)
            swapped.append(path)

    with Atlas.open(tmp_path / "atlas", **OFFLINE, ner="rules") as atlas:
        atlas.ingestor.after_check = swap
        report = atlas.ingest([notes], progress=False)
        assert swapped == [notes / "a.md"]
        assert [o.status for o in report.outcomes] == ["failed", "ingested"]
        assert report.outcomes[0].reason == "became a symbolic link after it was checked: refused"
        assert "91,000" not in _texts(atlas)


def test_a_parent_folder_swapped_for_a_link_is_refused_by_the_opened_file(inbox, tmp_path):
    """O_NOFOLLOW guards the last name only; a folder on the way swapped for a link out is caught by the
    real path of the descriptor (/proc/self/fd)."""
    notes, secret = inbox
    sub = notes / "sub"
    sub.mkdir()
    (sub / "salaries.md").write_text("# Sub\n\nA harmless note.\n")

    def swap(path: Path) -> None:
        if path.parent == sub:
            shutil.rmtree(sub)
            sub.symlink_to(secret.parent, target_is_directory=True)

    with Atlas.open(tmp_path / "atlas", **OFFLINE, ner="rules") as atlas:
        atlas.ingestor.after_check = swap
        report = atlas.ingest([notes], progress=False)
        (failed,) = report.failed
        assert failed.path == str(sub / "salaries.md")
        assert f"the file opened is {secret}, outside {notes}: refused" in failed.reason
        assert "91,000" not in _texts(atlas)


def test_a_changed_file_is_hashed_and_parsed_from_one_read(inbox, tmp_path):
    """The hash names the bytes stored: a file rewritten after the open cannot pair one hash with other text."""
    notes, _ = inbox
    with Atlas.open(tmp_path / "atlas", **OFFLINE, ner="rules") as atlas:
        atlas.ingest([notes / "a.md"], progress=False)
        (doc,) = atlas.documents()
        assert doc.file_hash == hashlib.sha256((notes / "a.md").read_bytes()).hexdigest()
