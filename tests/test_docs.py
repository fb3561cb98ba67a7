"""The README tells the truth, and the CLI mirrors `Atlas` (sqlite-utils' `tests/test_docs.py` habit).

* every public `Atlas` method is called by a CLI command on the atlas it opened, or has a written
  exemption below; every method is in the README's Python reference table;
* every CLI command, subcommands included, has a row in the README's command-line table, and
  every row names a command that exists;
* CI runs the README's test command; the settings the README names exist.
"""
from __future__ import annotations

import ast
import inspect
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from ohara_lab.atlas import Atlas
from ohara_lab.cli import main
from ohara_lab.settings import describe

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()

# Public `Atlas` methods with no CLI command, and why (a gap nobody wrote down fails the test).
NOT_ON_THE_CLI = {
    "open": "every command opens its atlas from --atlas (default $OHARA_ATLAS)",
    "close": "every command closes the atlas it opened",
    "ingest_text": "Python only: one in-memory text under a caller-chosen source id (the evaluation harness); "
                   "the CLI ingests files and URLs",
    "ingest_texts": "Python only: batches of in-memory texts (the evaluation harness)",
    "link_synonyms": "ingest and embed run it after every write (`ohara ingest`, `ohara embed`); called alone "
                     "only by the evaluation harness, which sweeps synonymy_threshold",
}
# Methods whose command needs no atlas and calls what the method calls: method -> command.
MIRRORED_WITHOUT_AN_ATLAS = {"capture": "capture"}


def _commands(group: click.Group = main, prefix: str = "") -> Iterator[tuple[str, click.Command]]:
    """(path, command) for every leaf command, e.g. ("ontology build", ...); lazy groups load here."""
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        path = f"{prefix}{name}"
        if isinstance(command, click.Group):
            yield from _commands(command, path + " ")
        else:
            yield path, command


def _public_methods() -> set[str]:
    return {name for name, member in vars(Atlas).items()
            if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, classmethod))}


def _called_on_opened_atlases() -> set[str]:
    """Attributes the command modules call on a name bound by `with ... as a:` (the opened atlas)."""
    modules = {sys.modules[inspect.unwrap(cmd.callback).__module__] for _, cmd in _commands() if cmd.callback}
    called: set[str] = set()
    for module in modules:
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if not isinstance(node, ast.With):
                continue
            bound = {item.optional_vars.id for item in node.items if isinstance(item.optional_vars, ast.Name)}
            for inner in (n for stmt in node.body for n in ast.walk(stmt)):
                if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                        and isinstance(inner.func.value, ast.Name) and inner.func.value.id in bound):
                    called.add(inner.func.attr)
    return called


def _table_after(heading: str) -> list[str]:
    """First cells of the Markdown table under `heading` (up to the next heading)."""
    section = README.split(heading, 1)[1].split("\n#", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]  # minus header and rule
    return [re.split(r"(?<!\\)\|", row)[1] for row in rows]


def _documented_commands() -> list[str]:
    """Every `ohara ...` snippet in the first column of the command-line reference.

    A row may abbreviate a group's subcommands: in `ohara entities merge ...`, `split ...`, the
    second snippet reads as `ohara entities split ...`.
    """
    groups = {name for name, command in main.commands.items() if isinstance(command, click.Group)}
    found = []
    for cell in _table_after("### Command line"):
        group = None
        for snippet in re.findall(r"`([^`]+)`", cell):
            words = snippet.split()
            if words[0] == "ohara":
                found.append(snippet)
                group = words[1] if len(words) > 1 and words[1] in groups else None
            elif group is not None:
                found.append(f"ohara {group} {snippet}")
    return found


def test_every_public_atlas_method_has_a_cli_command_or_an_exemption():
    mirrored = _called_on_opened_atlases()
    assert mirrored, "found no command calling a method on its opened atlas: is the scan broken?"
    missing = _public_methods() - mirrored - set(NOT_ON_THE_CLI) - set(MIRRORED_WITHOUT_AN_ATLAS)
    assert missing == set(), "add a CLI command for these Atlas methods, or an exemption with the reason"


def test_exemptions_are_still_needed():
    methods, mirrored, commands = _public_methods(), _called_on_opened_atlases(), dict(_commands())
    assert set(NOT_ON_THE_CLI) <= methods and set(MIRRORED_WITHOUT_AN_ATLAS) <= methods
    assert set(NOT_ON_THE_CLI) & mirrored == set(), "a command mirrors it now: drop the exemption"
    assert set(MIRRORED_WITHOUT_AN_ATLAS.values()) <= set(commands)


def test_every_public_atlas_method_is_in_the_python_reference():
    cells = _table_after("### Python (`Atlas`)")
    listed = {name for cell in cells for name in re.findall(r"`(?:Atlas)?\.(\w+)\(", cell)}
    assert _public_methods() - listed == set()
    assert listed - _public_methods() == set(), "the README lists methods Atlas does not have"


@pytest.mark.parametrize("path", [p for p, _ in _commands()])
def test_every_cli_command_is_in_the_reference_table(path):
    documented = _documented_commands()
    assert any(re.match(rf"ohara {re.escape(path)}(\s|$)", doc) for doc in documented), \
        f"`ohara {path}` has no row in the README's command-line table"


def test_every_reference_row_names_a_command():
    paths = [p for p, _ in _commands()]
    stale = [doc for doc in _documented_commands()
             if not any(re.match(rf"ohara {re.escape(p)}(\s|$)", doc) for p in paths)]
    assert stale == []


def _ci_block(name: str) -> str:
    sys.path.insert(0, str(ROOT / ".ci"))
    try:
        import readme_blocks  # noqa: PLC0415 - a script beside .ci/run, not a package module
    finally:
        sys.path.pop(0)
    return readme_blocks.block(name, README)


def test_ci_runs_the_readme_blocks_verbatim():
    """.ci/run takes the README's system block and its two commands from README.md itself (no copy that
    could drift) and runs them with no step of its own before them; command 2 is the README's test command."""
    ci = (ROOT / ".ci/run").read_text()
    commands = [line for line in _ci_block("commands").splitlines() if line.strip() and not line.startswith("#")]
    assert commands[0].startswith("python3 -m venv .venv && . .venv/bin/activate && pip install torch==2.13.0")
    assert commands[-1] == "python -m pytest"
    assert 'bash -euo pipefail -c "$(readme commands)"' in ci
    assert 'bash -euo pipefail -c "$(readme system)"' in ci
    before = [line for line in ci.split('"$(readme commands)"', 1)[0].splitlines()
              if not line.lstrip().startswith("#")]
    assert not [line for line in before if re.search(r"\bpip\b|python -m pip|uv ", line)], \
        ".ci/run must not install anything before the README's commands"
    assert "apt-get install" in _ci_block("system")


def test_readme_settings_exist():
    known = {doc.env for doc in describe()}
    mentioned = set(re.findall(r"`(OHARA_[A-Z_]+)`", README))
    expanded = set()
    for name in mentioned:
        expanded.add(name)
    brace = re.findall(r"`OHARA_DECAY_RATE_\{([A-Z,]+)\}`", README)
    for group in brace:
        expanded |= {f"OHARA_DECAY_RATE_{x}" for x in group.split(",")}
    assert expanded - known == set(), "README mentions settings that do not exist"
