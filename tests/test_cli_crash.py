"""Issue 28.10: kill -9 during `entities merge`, `analyze`, `embed` and `export`, then `check`, then compare.

The ingest crash test (`tests/test_cli_ingest.py::test_kill_at_any_moment_...`) extended
to the other write commands. Each runs once to completion on a copy of the samples
atlas (the clean run: its duration sets the window, its result is the reference);
then, on fresh copies, it is killed with SIGKILL at seeded random moments in that
window. After each kill:

* `ohara check` finds the atlas sound;
* nothing is lost: every row the atlas held before that the clean run kept is still
  there, and nothing is there that neither the atlas before nor the clean run holds
  (a merge, one transaction, leaves exactly one of the two);
* running the command again gives exactly the clean run's atlas (and export's files).

Rows are compared table by table (`tests.support.table_dump`), timings left out, and so is
`graph_version`, a counter every write moves (a re-run that relinks the same SYNONYM_OF
edges moves it again).
"""
from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import offline_env, table_dump

KILLS = 4  # per command
SEED = 2810
ENV = {**offline_env(), "OHARA_EMBED_PARAGRAPHS": "False"}

# name -> (arguments after `ohara`, TARGET replaced by the export path; one transaction?)
COMMANDS = {
    "merge": (["entities", "merge", "gnu", "--into", "free-software-foundation"], True),
    "analyze": (["analyze", "--seed", "7"], False),
    "embed": (["embed", "--embedder", "wordllama"], False),
    "export": (["export", "TARGET"], False),
    "export-json": (["export", "TARGET", "--format", "json"], False),
}


def ohara(args: list[str], atlas: Path, target: Path) -> list[str]:
    return [sys.executable, "-m", "ohara_lab.cli", *[str(target) if a == "TARGET" else a for a in args],
            "--atlas", str(atlas)]


def files(target: Path) -> dict[str, bytes]:
    """An export as {relative path: bytes} (a file export is one entry); {} when absent."""
    if target.is_file():
        return {".": target.read_bytes()}
    if not target.is_dir():
        return {}
    return {str(p.relative_to(target)): p.read_bytes() for p in sorted(target.rglob("*")) if p.is_file()}


COUNTERS = frozenset({"graph_version"})


def dump(atlas: Path) -> dict:
    return table_dump(atlas / "atlas.db", skip_meta=COUNTERS)


def state(atlas: Path, target: Path) -> tuple[dict, dict]:
    return dump(atlas), files(target)


def run(args: list[str], atlas: Path, target: Path) -> float:
    t0 = time.monotonic()
    proc = subprocess.run(ohara(args, atlas, target), capture_output=True, text=True, env=ENV, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return time.monotonic() - t0


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_kill_at_seeded_moments_loses_nothing_and_rerun_matches_a_clean_run(name, samples_atlas_dir, tmp_path):
    args, atomic = COMMANDS[name]
    target = "wiki" if name == "export" else "atlas.json"
    clean, clean_target = tmp_path / "clean", tmp_path / "clean-out" / target
    shutil.copytree(samples_atlas_dir, clean)
    clean_target.parent.mkdir()
    before = dump(clean)
    window = run(args, clean, clean_target)  # how long a whole run takes here: the kills fall inside it
    after, after_files = state(clean, clean_target)
    assert after_files or not name.startswith("export")
    rng = random.Random(f"{SEED}-{name}")
    for i, moment in enumerate(sorted(rng.uniform(0.0, window) for _ in range(KILLS))):
        atlas, out = tmp_path / f"killed-{i}", tmp_path / f"out-{i}" / target
        shutil.copytree(samples_atlas_dir, atlas)
        out.parent.mkdir()
        proc = subprocess.Popen(ohara(args, atlas, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=ENV)
        time.sleep(moment)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        checked = subprocess.run(ohara(["check"], atlas, out), capture_output=True, text=True, env=ENV, timeout=600)
        assert checked.returncode == 0, (name, moment, checked.stdout, checked.stderr)
        rows, written = state(atlas, out)
        if atomic:
            assert rows in (before, after), (name, moment)
        for table in set(before) | set(after) | set(rows):
            had, kept, now = set(before.get(table, [])), set(after.get(table, [])), set(rows.get(table, []))
            assert had & kept <= now, (name, moment, table, "lost", sorted(had & kept - now, key=repr)[:3])
            assert now <= had | kept, (name, moment, table, "foreign", sorted(now - had - kept, key=repr)[:3])
        assert written in ({}, after_files), (name, moment, "a partial export in place")
        if not (atomic and rows == after):  # a merge that committed cannot run again: its source is gone
            run(args, atlas, out)
        assert state(atlas, out) == (after, after_files), (name, moment, "the re-run differs from a clean run")
