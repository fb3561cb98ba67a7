"""Issue 28.9: an intact atlas on a read-only mount is read, and writes to it fail with one line.

In a folder nobody may write, a WAL reader cannot make `atlas.db-shm`, so `mode=ro` alone
failed ("unable to open database file") for every command, reads included. The store
now opens such an atlas read-only (`immutable=1` when no WAL is pending).

A real read-only file system: as root (who ignores permissions, so chmod proves nothing),
a read-only bind mount in a private mount namespace (`unshare -m`, the mount gone with the
namespace); as another user, the folder and file made unwritable with chmod.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import offline_env

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {
    "stats": ["stats", "--json"],
    "query": ["query", "patent licence", "--json"],
    "check": ["check"],
    "entities": ["entities", "ls", "--limit", "3"],
    "ingest": ["ingest", "NEW"],
    "merge": ["entities", "merge", "gnu", "--into", "license"],
}
# Runs inside the read-only view: every command against ATLAS, their results as JSON on stdout.
PROBE = """
import json, subprocess, sys
atlas, new, commands = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
out = {}
for name, args in commands.items():
    args = [new if a == "NEW" else a for a in args]
    p = subprocess.run([sys.executable, "-m", "ohara_lab.cli", *args, "--atlas", atlas], capture_output=True,
                       text=True, timeout=600)
    out[name] = [p.returncode, p.stdout, p.stderr]
print(json.dumps(out))
"""


def _can_bind_read_only() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount --bind / /mnt && mount -o remount,bind,ro /mnt"],
                           capture_output=True)
    return probe.returncode == 0


def run_read_only(atlas: Path, view: Path, new: Path) -> dict[str, list]:
    """The commands against `atlas` seen read-only at `view` (a bind mount as root, else chmod'ed in place)."""
    env = {**offline_env(), "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-c", PROBE, str(view), str(new), json.dumps(COMMANDS)]
    if os.geteuid() == 0:
        if not _can_bind_read_only():
            pytest.skip("running as root without mount namespaces: no read-only file system to test on")
        view.mkdir()
        script = f'mount --bind "{atlas}" "{view}" && mount -o remount,bind,ro "{view}" && exec "$@"'
        argv = ["unshare", "-m", "sh", "-c", script, "sh", *argv]
    else:
        view = atlas
        argv[3] = str(atlas)
        for p in (atlas / "atlas.db", atlas):
            p.chmod(0o555)
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=1200, cwd=ROOT)
    finally:
        for p in (atlas, atlas / "atlas.db"):
            p.chmod(0o755)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.slow
def test_an_atlas_on_a_read_only_mount_is_read_and_refuses_writes(fresh_copy, tmp_path):
    new = tmp_path / "new.md"
    new.write_text("# Herons\n\nGrey herons nest by the Brevik dam.\n")
    before = (fresh_copy / "atlas.db").read_bytes()
    writable = subprocess.run([sys.executable, "-m", "ohara_lab.cli", "query", "patent licence", "--json",
                               "--atlas", str(fresh_copy)], capture_output=True, text=True, env=offline_env(),
                              cwd=ROOT, timeout=600)
    for leftover in ("atlas.db-wal", "atlas.db-shm"):  # as a writer that closed leaves it: no WAL pending
        (fresh_copy / leftover).unlink(missing_ok=True)
    out = run_read_only(fresh_copy, tmp_path / "view", new)
    for name in ("stats", "query", "check", "entities"):
        code, stdout, stderr = out[name]
        assert code == 0, (name, stderr)
    assert json.loads(out["stats"][1])["documents"] == 7
    assert json.loads(out["query"][1])["results"] == json.loads(writable.stdout)["results"]
    assert "atlas is sound" in out["check"][1]
    for name in ("ingest", "merge"):
        code, stdout, stderr = out[name]
        lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("ingest:")]
        assert code == 1 and len(lines) == 1, (name, stderr)
        assert "is read-only (" in lines[0] and "): this command writes to it" in lines[0], lines[0]
    assert (fresh_copy / "atlas.db").read_bytes() == before
