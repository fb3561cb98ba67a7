"""The README tells the truth: every command is documented and CI runs the README's test command."""
from __future__ import annotations

import re
from pathlib import Path

from ohara_lab.cli import main
from ohara_lab.settings import describe

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_every_cli_command_is_in_the_readme():
    missing = [name for name in main.commands if f"ohara {name}" not in README]
    assert missing == []


def test_ci_runs_the_readme_test_command():
    block = re.search(r"# 2\. Run the tests.*?\n(.+?)\n", README).group(1).strip()
    ci_lines = [line.strip() for line in (ROOT / ".ci/run").read_text().splitlines()
                if line.strip() and not line.strip().startswith("#")]
    assert ci_lines[-1] == block


def test_readme_settings_exist():
    known = {env for _, env, _, _ in describe()}
    mentioned = set(re.findall(r"`(OHARA_[A-Z_]+)`", README))
    expanded = set()
    for name in mentioned:
        expanded.add(name)
    brace = re.findall(r"`OHARA_DECAY_RATE_\{([A-Z,]+)\}`", README)
    for group in brace:
        expanded |= {f"OHARA_DECAY_RATE_{x}" for x in group.split(",")}
    assert expanded - known == set(), "README mentions settings that do not exist"
