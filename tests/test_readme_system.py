"""The README's system block on a Debian machine, whichever way Node.js got there (issue 25, point 3).

The block runs as .ci/run runs it (`bash -euo pipefail -c BLOCK`) against a small stand-in for Debian's apt:
`apt-get` here keeps the rule that bit a new user — with NodeSource's repository configured, `nodejs` comes
from NodeSource (which bundles npm) and Debian's `npm` package cannot be installed beside it. Only apt and
npm are stand-ins; the block under test is the README's own text.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

APT = r"""#!/bin/bash
# Debian's apt for the test: an install puts node/npm executables (which log their arguments) in $FAKE_BIN.
echo "apt-get $*" >> "$FAKE_LOG"
[[ $1 == update ]] && exit 0
[[ $1 == install ]] || { echo "E: unknown operation $1" >&2; exit 100; }
shift
tool() { printf '#!/bin/bash\necho "$@" >> "$FAKE_NPM_LOG"\n' > "$FAKE_BIN/$1"; "$CHMOD" +x "$FAKE_BIN/$1"; }
for pkg in "$@"; do
  # With NodeSource's repository configured, apt takes its nodejs, which bundles npm and conflicts with
  # Debian's npm package.
  if [[ $pkg == npm && -e $FAKE_STATE/nodesource-repo ]]; then
    echo "The following packages have unmet dependencies: nodejs : Conflicts: npm" >&2; exit 100
  fi
done
for pkg in "$@"; do
  case $pkg in
    nodejs) tool node; [[ -e $FAKE_STATE/nodesource-repo ]] && tool npm ;;
    npm) tool npm ;;
  esac
done
exit 0
"""


def _system_block() -> str:
    sys.path.insert(0, str(ROOT / ".ci"))
    try:
        import readme_blocks  # noqa: PLC0415 - a script beside .ci/run, not a package module
    finally:
        sys.path.pop(0)
    return readme_blocks.block("system", (ROOT / "README.md").read_text(encoding="utf-8"))


def _machine(tmp_path: Path, *, nodesource_repo: bool, node: bool, npm: bool):
    stubs, fake_bin, state = tmp_path / "stubs", tmp_path / "bin", tmp_path / "state"
    for d in (stubs, fake_bin, state):
        d.mkdir()
    (stubs / "apt-get").write_text(APT)
    (stubs / "apt-get").chmod(0o755)
    if nodesource_repo:
        (state / "nodesource-repo").touch()
    for name, present in (("node", node), ("npm", npm)):
        if present:
            (fake_bin / name).write_text('#!/bin/bash\necho "$@" >> "$FAKE_NPM_LOG"\n')
            (fake_bin / name).chmod(0o755)
    return stubs, fake_bin, state


def _run_block(tmp_path: Path, stubs: Path, fake_bin: Path, state: Path):
    log, npm_log = tmp_path / "log", tmp_path / "npm-calls"
    log.touch()
    npm_log.touch()
    env = {"PATH": f"{stubs}:{fake_bin}", "FAKE_BIN": str(fake_bin), "FAKE_STATE": str(state),
           "FAKE_LOG": str(log), "FAKE_NPM_LOG": str(npm_log), "CHMOD": shutil.which("chmod") or "/bin/chmod"}
    bash = shutil.which("bash") or "/bin/bash"
    done = subprocess.run([bash, "-euo", "pipefail", "-c", _system_block()], env=env, cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    return done, log.read_text().splitlines(), npm_log.read_text().split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="the README's block is bash")
@pytest.mark.parametrize(("machine", "expect_installed"), [
    # fresh Debian: Debian's nodejs, then Debian's npm
    ({"nodesource_repo": False, "node": False, "npm": False}, {"nodejs", "npm"}),
    # NodeSource's setup script has run, nodejs not installed yet: nodejs from NodeSource, no Debian npm
    ({"nodesource_repo": True, "node": False, "npm": False}, {"nodejs"}),
    # NodeSource's nodejs already installed (it brings npm): nothing to install
    ({"nodesource_repo": True, "node": True, "npm": True}, set()),
    # Debian's nodejs without npm: npm only
    ({"nodesource_repo": False, "node": True, "npm": False}, {"npm"}),
], ids=["fresh-debian", "nodesource-repo", "nodesource-nodejs", "debian-nodejs-no-npm"])
def test_system_block_installs_node_whichever_source(tmp_path, machine, expect_installed):
    stubs, fake_bin, state = _machine(tmp_path, **machine)
    done, log, npm_calls = _run_block(tmp_path, stubs, fake_bin, state)
    assert done.returncode == 0, done.stderr
    installed = {w for line in log if line.startswith("apt-get install") for w in line.split()[2:]} - {
        "-y", "wordnet-base", "wordnet-sense-index", "chromium"}
    assert installed == expect_installed
    assert npm_calls == ["ci", "--prefix", "tests/browser", "--no-audit", "--no-fund"]
