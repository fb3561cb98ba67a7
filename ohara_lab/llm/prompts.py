"""Prompt registry: `prompts/<name>.md` templates with their `<name>.schema.json` reply schemas.

A template file starts with front matter::

    ---
    version: 3
    description: one line saying what the prompt does
    variables:
      query (text): the user's question
      passages (numbered, optional): passage texts, rendered as [1] ... [n]
    ---
    body with $query and $passages placeholders (string.Template, so JSON braces need no escaping)

The `variables` block is the contract between callers and the template: rendering
refuses unknown or missing variables and values of the wrong kind, and a test checks
that the template uses exactly the documented names. Kinds:

* ``text``     a string, inserted as is
* ``int``      an integer
* ``bool``     true / false
* ``json``     any JSON value, pretty-printed
* ``numbered`` a list of strings, rendered ``[1] first`` ... ``[n] last``
* ``lines``    a list of strings, one per line

Missing optional variables render as ``(none)``. Document text is data, never
instructions: templates put it between ``<<<BEGIN X>>>`` / ``<<<END X>>>`` markers, and
rendering defuses any ``<<<`` inside a value so a document cannot close the block early.
"""
from __future__ import annotations

import functools
import json
import re
import string
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import UsageError

KINDS = ("text", "int", "bool", "json", "numbered", "lines")
NONE_TEXT = "(none)"

_VAR_LINE = re.compile(r"^\s+(\w+)\s*\((\w+)(\s*,\s*optional)?\)\s*:\s*(.+?)\s*$")


@dataclass(frozen=True)
class Variable:
    name: str
    kind: str
    optional: bool
    help: str


@dataclass(frozen=True)
class Prompt:
    """One named prompt: template, reply schema and its documented variables."""

    name: str
    version: str
    description: str
    template: str
    schema: dict[str, Any]
    variables: dict[str, Variable] = field(default_factory=dict)

    def placeholders(self) -> set[str]:
        """Names the template refers to."""
        names = set()
        for match in string.Template.pattern.finditer(self.template):
            name = match.group("named") or match.group("braced")
            if name:
                names.add(name)
        return names

    def render(self, variables: dict[str, Any]) -> str:
        """The prompt text for `variables`; UsageError on unknown, missing or mistyped ones."""
        values = {}
        unknown = sorted(set(variables) - set(self.variables))
        if unknown:
            raise UsageError(
                f"prompt {self.name!r}: unknown variable(s) {', '.join(unknown)}; "
                f"documented: {', '.join(sorted(self.variables))}"
            )
        for var in self.variables.values():
            value = variables.get(var.name)
            if value is None:
                if not var.optional:
                    raise UsageError(f"prompt {self.name!r}: missing variable {var.name!r} ({var.help})")
                values[var.name] = NONE_TEXT
                continue
            values[var.name] = _format(self.name, var, value)
        return string.Template(self.template).substitute(values)

    def cache_variables(self, variables: dict[str, Any]) -> dict[str, Any]:
        """`variables` without None-valued entries, so absent and None key the same."""
        return {k: v for k, v in variables.items() if v is not None}


_MARKER_RUN = re.compile(r"<{3,}|>{3,}")


def _defuse(text: str) -> str:
    """`text` with every run of three or more `<` or `>` broken into pairs: "<<<<<" -> "<< << <".

    A document containing "<<<END DOCUMENT>>>" must not end its own data block. The
    result holds no such run, so defusing it again changes nothing (a fixed point);
    replacing "<<<" once left "<<<<<" as "<< <<<", a marker again.
    """

    def pairs(m: re.Match[str]) -> str:
        run = m.group()
        if run[0] == "<":  # pairs from the left for "<", from the right for ">": "<< <END X> >>"
            return " ".join(run[i:i + 2] for i in range(0, len(run), 2))
        return " ".join(run[max(0, i - 2):i] for i in range(len(run) % 2 or 2, len(run) + 1, 2))

    return _MARKER_RUN.sub(pairs, text)


def _format(prompt: str, var: Variable, value: Any) -> str:
    def wrong(expected: str) -> UsageError:
        return UsageError(f"prompt {prompt!r}: variable {var.name!r} must be {expected}, got {type(value).__name__}")

    if var.kind == "text":
        if not isinstance(value, str):
            raise wrong("a string")
        return _defuse(value)
    if var.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise wrong("an integer")
        return str(value)
    if var.kind == "bool":
        if not isinstance(value, bool):
            raise wrong("a boolean")
        return "true" if value else "false"
    if var.kind == "json":
        try:
            return _defuse(json.dumps(value, ensure_ascii=False, indent=2, sort_keys=False))
        except (TypeError, ValueError):
            raise wrong("JSON-serialisable") from None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise wrong("a list of strings")
    if not value:
        return NONE_TEXT
    if var.kind == "numbered":
        return "\n\n".join(f"[{i}] {_defuse(v)}" for i, v in enumerate(value, 1))
    return "\n".join(_defuse(v) for v in value)  # lines


# --------------------------------------------------------------------------- loading


@functools.lru_cache(maxsize=1)
def _prompt_dir():
    # Installed (also editable): `prompts/` is the package `ohara_lab.prompts` through
    # setuptools' package-dir. Run from a source checkout without installing, that
    # mapping does not exist, so use the top-level folder next to the package.
    try:
        return resources.files("ohara_lab.prompts")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "prompts"


def _parse_front_matter(name: str, text: str) -> tuple[dict[str, str], dict[str, Variable], str]:
    if not text.startswith("---\n"):
        raise UsageError(f"prompt {name!r}: missing front matter")
    end = text.find("\n---\n", 4)
    if end < 0:
        raise UsageError(f"prompt {name!r}: unterminated front matter")
    head, body = text[4:end], text[end + 5 :]
    meta: dict[str, str] = {}
    variables: dict[str, Variable] = {}
    in_vars = False
    for line in head.splitlines():
        if not line.strip():
            continue
        if line[0].isspace():
            if not in_vars:
                raise UsageError(f"prompt {name!r}: indented front-matter line outside 'variables': {line!r}")
            m = _VAR_LINE.match(line)
            if not m or m.group(2) not in KINDS:
                raise UsageError(f"prompt {name!r}: bad variable line {line!r}; kinds: {', '.join(KINDS)}")
            variables[m.group(1)] = Variable(m.group(1), m.group(2), bool(m.group(3)), m.group(4))
            continue
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        in_vars = key == "variables"
        if not in_vars:
            meta[key] = value
    for required in ("version", "description"):
        if not meta.get(required):
            raise UsageError(f"prompt {name!r}: front matter lacks {required!r}")
    return meta, variables, body


@functools.cache
def load_prompt(name: str) -> Prompt:
    """The prompt `name` (template + schema); UsageError naming the known prompts if absent."""
    base = _prompt_dir()
    template_file = base / f"{name}.md"
    schema_file = base / f"{name}.schema.json"
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or not template_file.is_file():
        raise UsageError(f"unknown prompt {name!r}; known prompts: {', '.join(prompt_names())}")
    if not schema_file.is_file():
        raise UsageError(f"prompt {name!r} has no schema file {name}.schema.json")
    meta, variables, body = _parse_front_matter(name, template_file.read_text(encoding="utf-8"))
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    return Prompt(name, meta["version"], meta["description"], body, schema, variables)


def prompt_names() -> list[str]:
    """Names of every packaged prompt template."""
    return sorted(
        entry.name[:-3]
        for entry in _prompt_dir().iterdir()
        if entry.name.endswith(".md") and not entry.name.startswith(("_", "README"))
    )


def list_prompts() -> list[dict[str, Any]]:
    """name, version, description and variables of every prompt (for docs and `ohara prompts`)."""
    out = []
    for name in prompt_names():
        p = load_prompt(name)
        out.append(
            {
                "name": p.name,
                "version": p.version,
                "description": p.description,
                "variables": {
                    v.name: f"{v.kind}{', optional' if v.optional else ''}: {v.help}" for v in p.variables.values()
                },
            }
        )
    return out
