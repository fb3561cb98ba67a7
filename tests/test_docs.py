"""The documentation tells the truth, and the CLI mirrors `Atlas` (sqlite-utils' `tests/test_docs.py` habit).

The README is the first ten minutes; the reference lives in `docs/`. This file fails when:

* a CLI command, subcommands included, has no row in `docs/cli.md`, or a row names no command;
* a public `Atlas` method is missing from `docs/python.md`, its row's parameters differ from the
  method's, or it has neither a CLI command that calls it nor a written exemption below;
* the generated parts (`docs/settings.md`: every setting of `describe()`; `docs/cli.md`: every
  command's `--help`; `docs/engine.md`: the phase table) are stale (regenerate:
  `cog -r docs/settings.md docs/cli.md docs/engine.md`);
* an `OHARA_` name in README.md or `docs/` is neither a setting nor a variable read where the
  settings page says;
* a relative link in README.md or `docs/*.md` points at nothing; README.md passes 250 lines;
* CI no longer runs the README's blocks verbatim.
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
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
GENERATED = ["docs/settings.md", "docs/cli.md", "docs/engine.md"]  # cog blocks inside
README_MAX_LINES = 250

# Public `Atlas` methods with no CLI command, and why (a gap nobody wrote down fails the test).
NOT_ON_THE_CLI = {
    "open": "every command opens its atlas from --atlas (default $OHARA_ATLAS)",
    "close": "every command closes the atlas it opened",
    "ingest_text": "Python only: one in-memory text under a caller-chosen source id (the evaluation harness); "
                   "the CLI ingests files and URLs",
    "ingest_texts": "Python only: batches of in-memory texts (the evaluation harness)",
    "link_synonyms": "ingest and embed run it after every write (`ohara ingest`, `ohara embed`); called alone "
                     "only by the evaluation harness, which sweeps synonymy_threshold",
    # What the servers and the widgets read the atlas with (`ohara serve`, `ohara mcp`: documents, nodes, neighbours).
    **dict.fromkeys(("snapshot", "document", "nodes", "edges", "neighbours", "text_search", "feedback_log"),
                    "a reader's primitive: `ohara serve` / `ohara mcp` and the widgets read the atlas with it"),
}
# Methods whose command needs no atlas and calls what the method calls: method -> command.
MIRRORED_WITHOUT_AN_ATLAS = {"capture": "capture"}
# Environment variables that are not `Settings` fields (they say where files go), and the module
# that reads each: docs/settings.md lists them, and the module must still name them.
NOT_SETTINGS = {
    "OHARA_EVAL_DATA": "ohara_lab/eval/paths.py",
    "OHARA_EVAL_CACHE": "ohara_lab/eval/paths.py",
    "OHARA_ONNX_CACHE": "ohara_lab/embed/onnx_export.py",
}


def _page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


# ---------------------------------------------------------------------- the command line


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


def _table_after(text: str, heading: str) -> list[str]:
    """First cells of the Markdown table under `heading` (up to the next heading)."""
    assert heading in text, f"no {heading!r} heading"
    section = text.split(heading, 1)[1].split("\n#", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]  # minus header and rule
    return [re.split(r"(?<!\\)\|", row)[1] for row in rows]


def _documented_commands(text: str) -> list[str]:
    """Every `ohara ...` snippet in the first column of the command table of `docs/cli.md`.

    A row may abbreviate a group's subcommands: in `ohara entities merge ...`, `split ...`, the
    second snippet reads as `ohara entities split ...`.
    """
    groups = {name for name, command in main.commands.items() if isinstance(command, click.Group)}
    found = []
    for cell in _table_after(text, "## Commands"):
        group = None
        for snippet in re.findall(r"`([^`]+)`", cell):
            words = snippet.split()
            if words[0] == "ohara":
                found.append(snippet)
                group = words[1] if len(words) > 1 and words[1] in groups else None
            elif group is not None:
                found.append(f"ohara {group} {snippet}")
    return found


def _names_a_command(doc: str, path: str) -> bool:
    return re.match(rf"ohara {re.escape(path)}(\s|$)", doc) is not None


@pytest.mark.parametrize("path", [p for p, _ in _commands()])
def test_every_cli_command_is_in_the_reference_table(path):
    documented = _documented_commands(_page("cli.md"))
    assert any(_names_a_command(doc, path) for doc in documented), f"`ohara {path}` has no row in docs/cli.md"


def test_every_reference_row_names_a_command():
    paths = [p for p, _ in _commands()]
    documented = _documented_commands(_page("cli.md"))
    assert len(documented) >= len(paths), "the command table of docs/cli.md was not found whole"
    stale = [doc for doc in documented if not any(_names_a_command(doc, p) for p in paths)]
    assert stale == []


# ---------------------------------------------------------------------- the Python facade


def _public_methods() -> dict[str, inspect.Signature]:
    out = {}
    for name, member in vars(Atlas).items():
        if name.startswith("_"):
            continue
        if isinstance(member, classmethod):
            out[name] = inspect.signature(member.__func__)
        elif inspect.isfunction(member):
            out[name] = inspect.signature(member)
    return out


def _parameter_names(signature: inspect.Signature) -> list[str]:
    """What a reader sees: `**overrides` for a **kwargs, nothing for self/cls."""
    names = []
    for p in list(signature.parameters.values())[1:]:
        names.append(f"**{p.name}" if p.kind is p.VAR_KEYWORD else f"*{p.name}" if p.kind is p.VAR_POSITIONAL
                     else p.name)
    return names


def _documented_methods(text: str) -> dict[str, list[str]]:
    """method -> parameter names, from every `.name(a, b=1, **overrides)` snippet of the Atlas table."""
    found: dict[str, list[str]] = {}
    for cell in _table_after(text, "## `Atlas`"):
        for name, params in re.findall(r"`(?:Atlas)?\.(\w+)\(([^`]*)\)`", cell):
            parts = [p.strip() for p in re.split(r",(?![^()\[\]]*[)\]])", params) if p.strip()]
            found[name] = [re.split(r"\s*=", p, maxsplit=1)[0] for p in parts]
    return found


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


def test_every_public_atlas_method_has_a_cli_command_or_an_exemption():
    mirrored = _called_on_opened_atlases()
    assert mirrored, "found no command calling a method on its opened atlas: is the scan broken?"
    missing = set(_public_methods()) - mirrored - set(NOT_ON_THE_CLI) - set(MIRRORED_WITHOUT_AN_ATLAS)
    assert missing == set(), "add a CLI command for these Atlas methods, or an exemption with the reason"


def test_exemptions_are_still_needed():
    methods, mirrored, commands = set(_public_methods()), _called_on_opened_atlases(), dict(_commands())
    assert set(NOT_ON_THE_CLI) <= methods and set(MIRRORED_WITHOUT_AN_ATLAS) <= methods
    assert set(NOT_ON_THE_CLI) & mirrored == set(), "a command mirrors it now: drop the exemption"
    assert set(MIRRORED_WITHOUT_AN_ATLAS.values()) <= set(commands)


def test_every_public_atlas_method_is_in_the_python_reference():
    listed = _documented_methods(_page("python.md"))
    assert set(_public_methods()) - set(listed) == set(), "docs/python.md misses these Atlas methods"
    assert set(listed) - set(_public_methods()) == set(), "docs/python.md lists methods Atlas does not have"


def test_the_python_reference_gives_each_method_its_parameters():
    listed = _documented_methods(_page("python.md"))
    wrong = {name: (listed[name], _parameter_names(sig)) for name, sig in _public_methods().items()
             if name in listed and listed[name] != _parameter_names(sig)}
    assert wrong == {}, "docs/python.md (documented, actual) parameters differ"


# ---------------------------------------------------------------------- settings and generated pages


def test_generated_reference_is_current():
    """docs/settings.md holds every setting of describe(), docs/cli.md every command's --help and docs/engine.md
    the phase table, through cog."""
    cogapp = pytest.importorskip("cogapp", reason="cogapp (in [test]) regenerates the docs")
    status = cogapp.Cog().main(["cog", "--check", "--diff", "--check-fail-msg", "run: cog -r " + " ".join(GENERATED),
                                *(str(ROOT / page) for page in GENERATED)])
    assert status == 0, "docs are stale: cog -r " + " ".join(GENERATED)


def test_every_setting_is_in_the_settings_page():
    rows = set(re.findall(r"^\| `([A-Z0-9_]+)` \|", _page("settings.md"), re.M))
    assert {doc.env for doc in describe()} - rows == set(), "regenerate: cog -r docs/settings.md"


def _mentioned_variables(text: str) -> Iterator[str]:
    """Every OHARA_ name in `text`: `OHARA_X`, `OHARA_DECAY_RATE_{A,B}` (each), `OHARA_WEB_*` (a prefix, kept
    with its `*`); file names (`OHARA_SPEC.md`) and templates (`OHARA_<NAME>_WEIGHT`) are not names."""
    for m in re.finditer(r"\bOHARA_([A-Z0-9_]*)", text):
        stem, after = m.group(1), text[m.end():m.end() + 40]
        braces = re.match(r"\{([A-Z0-9,]+)\}", after)
        if braces:
            yield from (f"OHARA_{stem}{x}" for x in braces.group(1).split(","))
        elif after.startswith("*"):
            yield f"OHARA_{stem}*"
        elif stem and not re.match(r"[<.][A-Za-z]", after):
            yield f"OHARA_{stem}"


def test_every_variable_the_docs_name_exists():
    known = {doc.env for doc in describe()} | set(NOT_SETTINGS)
    unknown = set()
    for page in PAGES:
        for name in _mentioned_variables(page.read_text(encoding="utf-8")):
            exists = any(k.startswith(name[:-1]) for k in known) if name.endswith("*") else name in known
            if not exists:
                unknown.add(f"{page.relative_to(ROOT)}: {name}")
    assert unknown == set(), "the docs name variables that are neither settings nor in NOT_SETTINGS"


def test_variables_outside_settings_are_still_read_where_documented():
    settings_page = _page("settings.md")
    for name, module in NOT_SETTINGS.items():
        assert f'"{name}"' in (ROOT / module).read_text(encoding="utf-8"), f"{module} no longer reads {name}"
        assert re.search(rf"^\| `{name}` \|.*`{re.escape(module)}` \|$", settings_page, re.M), \
            f"docs/settings.md has no row for {name} naming {module}"


# ---------------------------------------------------------------------- links and length


def _relative_links(text: str) -> Iterator[str]:
    """Targets of Markdown links that are not URLs or in-page anchors; code blocks are skipped."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if not re.match(r"[a-z][a-z0-9+.-]*:|#", target):
            yield target.split("#", 1)[0]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_at_a_file(page):
    links = list(_relative_links(page.read_text(encoding="utf-8")))
    broken = [t for t in links if not (page.parent / t).exists()]
    assert broken == [], f"{page.relative_to(ROOT)} links to files that do not exist"


def test_every_in_page_anchor_exists():
    """`page.md#anchor` links name a heading of that page (GitHub's slugs: lower case, punctuation dropped)."""
    def slugs(path: Path) -> set[str]:
        headings = re.findall(r"^#+ (.+)$", re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S),
                              re.M)
        return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}

    broken = []
    for page in PAGES:
        prose = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target, anchor in re.findall(r"\]\(([^)\s#:]*)#([^)\s]+)\)", prose):
            path = (page.parent / target) if target else page
            if path.suffix == ".md" and anchor not in slugs(path):
                broken.append(f"{page.relative_to(ROOT)}: {target}#{anchor}")
    assert broken == []


def test_the_readme_is_the_first_ten_minutes():
    lines = README.count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move reference material to docs/"
    assert "[`docs/`](docs/README.md)" in README, "the README must lead to the reference"


def test_no_page_is_left_out_of_the_index():
    index = _page("README.md")
    unlisted = [p.name for p in DOCS.glob("*.md") if p.name != "README.md" and f"]({p.name})" not in index]
    assert unlisted == [], "docs/README.md does not list these pages"


# ---------------------------------------------------------------------- CI runs the README


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
