"""Read commands against a missing, locked or corrupt atlas, through the real `ohara` command (issue 12, point 8).

Read commands open the atlas read-only: they never make one at a mistyped path, never
wait behind a writer, and every SQLite failure reaches the user as one line, exit 1.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support import offline_env, write_lock_held

ENV = offline_env()

READ_COMMANDS = [("stats",), ("check",), ("ls",), ("query", "licence"), ("answer", "What is the GPL?"),
                 ("export", "OUT")]


def run(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ohara_lab.cli", *args], capture_output=True, text=True,
                          env=env or ENV, timeout=timeout)


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ohara: error: "), proc.stderr
    return lines[0]


@pytest.mark.parametrize("command", READ_COMMANDS, ids=lambda c: c[0])
def test_read_commands_never_create_an_atlas(tmp_path, command):
    mistyped = tmp_path / "atals"
    args = [str(tmp_path / "out") if a == "OUT" else a for a in command]
    line = one_line_error(run(*args, "--atlas", str(mistyped)))
    assert line == f"ohara: error: no atlas at {mistyped}"
    assert not mistyped.exists()


@pytest.fixture
def writer_holding_the_lock(fresh_copy):
    with write_lock_held(fresh_copy):
        yield fresh_copy


def test_stats_does_not_wait_behind_a_writer(writer_holding_the_lock):
    # Before: every open ran the schema set-up under the write lock and waited the whole busy timeout (60 s).
    # With a busy timeout of 0 an open that needed the lock fails at once ("database is locked"), so
    # success shows stats never asked for it, with no stopwatch (the process timeout only bounds a hang).
    env = {**ENV, "OHARA_BUSY_TIMEOUT_S": "0"}
    proc = run("stats", "--json", "--atlas", str(writer_holding_the_lock), env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["documents"] == 7


def test_query_reads_beside_a_writer(writer_holding_the_lock):
    proc = run("query", "GNU General Public License", "--json", "--atlas", str(writer_holding_the_lock), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["results"]


def test_a_writer_locked_out_past_the_busy_timeout_says_so_in_one_line(writer_holding_the_lock):
    env = {**ENV, "OHARA_BUSY_TIMEOUT_S": "0.5"}
    proc = run("rm", "documents/0000", "--atlas", str(writer_holding_the_lock), env=env, timeout=30)
    line = one_line_error(proc)
    assert str(writer_holding_the_lock) in line and "database is locked" in line
    assert "of OHARA_BUSY_TIMEOUT_S=0.5 for another writer's lock" in line  # how long it waited, not a guess


def test_a_corrupt_atlas_is_one_line(tmp_path):
    (tmp_path / "atlas.db").write_bytes(b"not a database " * 500)
    for command in (("stats",), ("ingest", str(tmp_path / "atlas.db"))):
        line = one_line_error(run(*command, "--atlas", str(tmp_path)))
        assert "file is not a database" in line
