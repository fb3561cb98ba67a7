"""Issue 28.8: a folder ingest stops at the first full-disk write with one line, and the next run resumes.

The full disk is SQLite's own: `PRAGMA max_page_count` on the atlas's writer makes the
next page SQLite needs fail with SQLITE_FULL, exactly as a full file system does (the
pager reports both as SQLITE_FULL), at the same document every run. In process the
test sets the pragma on the store's connection; through the `ohara` command it is
the declared setting OHARA_ATLAS_MAX_MB, which sets that pragma.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ohara_lab import Atlas
from ohara_lab.errors import StoreError
from ohara_lab.samples import corpus_dir

from tests.support import OFFLINE, offline_env

ONE_LINE = re.compile(r"disk full after (\d+) documents; the atlas is consistent; free space and run again to resume"
                      r" \(atlas .+: the disk is full \((SQLITE_FULL|OHARA_ATLAS_MAX_MB=[\d.]+ reached)\)\)")
ROOM_PAGES = 200  # free pages past an empty atlas: two of the seven sample documents fit


def _edges(atlas: Atlas) -> set:
    return {(e.from_id, e.to_id, e.relation, json.dumps(e.attrs, sort_keys=True)) for e in atlas.store.edges()}


@pytest.mark.parametrize("group", [1, 64])
def test_the_first_full_disk_write_stops_the_ingest(tmp_path, samples_atlas_dir, group):
    """One document per transaction: those before the full disk stand. In write groups (issue 30.2) SQLite
    rolls the open group back with the write that hit the full disk: the report counts only what committed."""
    src = tmp_path / "src"
    shutil.copytree(corpus_dir(), src)
    files = sorted(src.iterdir())
    with Atlas.open(tmp_path / "atlas", **OFFLINE, write_group_docs=group) as atlas:
        conn = atlas.store.conn
        conn.execute(f"PRAGMA max_page_count={conn.execute('PRAGMA page_count').fetchone()[0] + ROOM_PAGES}")
        with pytest.raises(StoreError) as raised:
            atlas.ingest([src], progress=False)
        found = ONE_LINE.fullmatch(str(raised.value))
        assert found, str(raised.value)
        done = int(found.group(1))
        assert (0 < done < len(files)) if group == 1 else (0 <= done < len(files))
        report = raised.value.report
        # nothing after the full disk was tried: no file failed, the outcomes are the documents written
        assert [o.status for o in report.outcomes] == ["ingested"] * done
        assert [o.path for o in report.outcomes] == [str(f) for f in files[:done]]
        assert len(atlas.documents()) == done
        assert [p for p in atlas.check() if p.severity == "error"] == []
    assert not (tmp_path / "atlas" / "atlas.db-wal").exists()  # checkpointed when the store closed
    with Atlas.open(tmp_path / "atlas", **OFFLINE) as atlas, Atlas.open(samples_atlas_dir, **OFFLINE) as ref:
        again = atlas.ingest([src], progress=False)  # room again: the run resumes where it stopped
        assert [o.status for o in again.outcomes] == ["skipped"] * done + ["ingested"] * (len(files) - done)
        ner = "ner_cache"  # its hit counters differ by design: the resumed run read its cache
        assert {k: v for k, v in atlas.stats().items() if k != ner} == {k: v for k, v in ref.stats().items() if k != ner}
        assert _edges(atlas) == _edges(ref)


@pytest.mark.slow
def test_ohara_ingest_says_it_in_one_line(tmp_path):
    """The same through the command, the cap from OHARA_ATLAS_MAX_MB: exit 1, one error line, no file failed."""
    src = tmp_path / "src"
    shutil.copytree(corpus_dir(), src)
    # One document per write group: a full disk rolls back the open group, and this test counts the documents
    # committed before it (test_ingest_disk_full covers larger groups, where that count may be 0).
    env = {**offline_env(), "OHARA_ATLAS_MAX_MB": "1.1", "OHARA_WRITE_GROUP_DOCS": "1"}
    proc = subprocess.run([sys.executable, "-m", "ohara_lab.cli", "ingest", str(src), "--atlas", str(tmp_path / "a")],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 1
    lines = proc.stderr.replace("\r", "\n").splitlines()
    errors = [line for line in lines if line.strip() and not line.startswith("ingest:")]  # not the progress bar
    assert len(errors) == 1 and errors[0].startswith("ohara: error: disk full after "), proc.stderr
    assert ONE_LINE.search(errors[0]) and "OHARA_ATLAS_MAX_MB=1.1 reached" in errors[0]
    written = [line for line in proc.stdout.splitlines() if line.startswith("ingested")]
    assert int(ONE_LINE.search(errors[0]).group(1)) == len(written) > 0
    assert not Path(tmp_path / "a" / "atlas.db-wal").exists()  # the WAL went when the writer closed
    check = subprocess.run([sys.executable, "-m", "ohara_lab.cli", "check", "--atlas", str(tmp_path / "a")],
                           capture_output=True, text=True, env=offline_env(), timeout=600)
    assert check.returncode == 0, check.stdout + check.stderr
