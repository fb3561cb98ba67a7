"""Issue 30.2: an ingest writes several whole documents per transaction (a write group).

A document is reported only once its group is committed (another connection sees it);
a write that fails inside a group takes back only itself; Ctrl-C commits the documents
written whole and counts exactly those; grouped and per-document ingest build the same atlas.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ohara_lab import Atlas
from ohara_lab.errors import IngestInterrupted
from ohara_lab.ingest.pipeline import TextItem
from ohara_lab.records import FileOutcome

from tests.support import OFFLINE, table_dump

TEXTS = [TextItem(f"# Note {i}\n\nAda Lovelace wrote note {i} in London about the Analytical Engine, page {i}.",
                  f"Note {i}", f"note:{i}") for i in range(7)]


def committed_documents(atlas: Path) -> set[str]:
    """The documents another connection sees: what is committed."""
    con = sqlite3.connect(f"file:{atlas / 'atlas.db'}?mode=ro", uri=True)
    try:
        return {r[0] for r in con.execute("SELECT id FROM documents")}
    finally:
        con.close()


def test_an_outcome_is_reported_once_its_group_is_committed(tmp_path: Path) -> None:
    atlas_dir = tmp_path / "atlas"
    seen: list[tuple[str, int]] = []
    with Atlas.open(atlas_dir, **OFFLINE, write_group_docs=3, write_group_s=3600) as atlas:

        def on_outcome(o: FileOutcome) -> None:
            now = committed_documents(atlas_dir)
            assert o.document_id in now, "reported before its group was committed"
            seen.append((o.status, len(now)))

        atlas.ingestor.ingest_texts(TEXTS, progress=False, on_outcome=on_outcome)
    # groups of three commit as one: the committed count moves 3, 6, then the last one at the end
    assert seen == [("ingested", 3)] * 3 + [("ingested", 6)] * 3 + [("ingested", 7)]


def test_a_failed_write_in_a_group_takes_back_only_itself(tmp_path: Path) -> None:
    with Atlas.open(tmp_path / "atlas", **OFFLINE) as atlas:
        store = atlas.store
        with store.write_group():
            store.set_meta("first", 1)
            with pytest.raises(ValueError), store.transaction() as c:
                c.execute("INSERT INTO meta(key, value) VALUES ('second', '2')")
                raise ValueError("a write that fails half way")
            store.set_meta("third", 3)
            con = sqlite3.connect(f"file:{store.path}?mode=ro", uri=True)
            assert con.execute("SELECT key FROM meta WHERE key IN ('first', 'third')").fetchall() == []
            store.commit_writes()
            assert {r[0] for r in con.execute("SELECT key FROM meta")} >= {"first", "third"}
            con.close()
        assert store.get_meta("second") is None and store.get_meta("third") == 3


def test_ctrl_c_commits_the_whole_documents_of_the_open_group_and_counts_them(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for item in TEXTS:
        (src / f"{item.source_id.replace(':', '-')}.md").write_text(item.text)
    atlas_dir = tmp_path / "atlas"
    opened: list[Path] = []

    def interrupt_at_the_fifth(path: Path) -> None:
        opened.append(path)
        if len(opened) == 5:
            raise KeyboardInterrupt

    with Atlas.open(atlas_dir, **OFFLINE, write_group_docs=10, write_group_s=3600) as atlas:
        atlas.ingestor.after_check = interrupt_at_the_fifth
        with pytest.raises(IngestInterrupted) as stopped:
            atlas.ingestor.ingest([src], progress=False)
    assert stopped.value.done == 4 and stopped.value.total == 7
    assert len(committed_documents(atlas_dir)) == 4  # the group of four was committed, the fifth never written
    with Atlas.open(atlas_dir, **OFFLINE) as atlas:
        assert [p for p in atlas.check() if p.severity == "error"] == []
        report = atlas.ingest([src], progress=False)
    assert sorted(o.status for o in report.outcomes) == ["ingested"] * 3 + ["skipped"] * 4


def test_grouped_and_per_document_ingest_build_the_same_atlas(tmp_path: Path) -> None:
    dumps = []
    for docs in (1, 4):
        atlas_dir = tmp_path / f"atlas-{docs}"
        with Atlas.open(atlas_dir, **OFFLINE, write_group_docs=docs) as atlas:
            atlas.ingest_texts(TEXTS, progress=False)
        dumps.append(table_dump(atlas_dir / "atlas.db", skip_meta=frozenset({"created_at"}), wall_clock=False))
    assert dumps[0] == dumps[1]


def lock_is_free(atlas: Path) -> bool:
    """Whether another connection can take the write lock now (it is not held by an open group)."""
    con = sqlite3.connect(atlas / "atlas.db", timeout=0)
    try:
        con.execute("BEGIN IMMEDIATE")
        con.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        con.close()


def test_the_group_is_committed_before_a_file_too_big_to_parse_within_its_time(tmp_path: Path) -> None:
    # A file parsed inside an open group keeps every other writer waiting: a big one next (predicted from the
    # seconds per byte of the last file) is preceded by a commit; a small one keeps the group open.
    src = tmp_path / "src"
    src.mkdir()
    for item in TEXTS[:3]:
        (src / f"{item.source_id.replace(':', '-')}.md").write_text(item.text)
    with (src / "note-9-big.md").open("wb") as big:  # sparse: never read (the interrupt comes first)
        big.truncate(10**11)
    atlas_dir = tmp_path / "atlas"
    free: dict[str, bool] = {}

    def look(path: Path) -> None:
        free[path.name] = lock_is_free(atlas_dir)
        if path.name == "note-9-big.md":
            raise KeyboardInterrupt  # what happens before its parse is the point; the parse itself is not

    # An hour's group: only a prediction of 10^11 bytes at any small file's pace (>= 1e-8 s a byte) reaches it.
    with Atlas.open(atlas_dir, **OFFLINE, write_group_docs=10, write_group_s=3600) as atlas:
        atlas.ingestor.after_check = look
        with pytest.raises(IngestInterrupted):
            atlas.ingestor.ingest([src], progress=False)
    assert free == {"note-0.md": True, "note-1.md": False, "note-2.md": False, "note-9-big.md": True}
    assert len(committed_documents(atlas_dir)) == 3
