"""One home per name (issue 29, point 5): node ids are built and parsed only through `ids.py`,
relation names come only from `records`, and the environment is read only by `settings.py`.

The checker reads the source (ast), so a docstring or comment that names a relation is fine;
a string constant equal to a relation name, `"entities/" + slug`, `f"entities/{slug}"`,
`nid.startswith("documents/")` or `os.environ` outside the homes is not.

`python tests/test_names.py [-v] [PACKAGE_DIR]` prints the counts per rule, with and without the allowlist.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import Counter
from pathlib import Path

import ohara_lab
import pytest
from ohara_lab.ids import COLLECTIONS
from ohara_lab.records import RELATIONS

ROOT = Path(ohara_lab.__file__).parent
WIDGETS = ROOT.parent / "widgets"

# The homes of each kind of name.
HOMES = {
    "relation": {"records.py"},
    "id-build": {"ids.py"},
    "id-parse": {"ids.py"},
    "env": {"settings.py"},
}
# Nothing may be added here: every name has its home (the write path folded at the writeset merge).
ALLOWLIST: set[str] = set()

# A line that ends in this comment holds a string that only looks like a name (a wiki path "documents/...").
EXEMPT = "# names:"
_PREFIXES = tuple(f"{c}/" for c in COLLECTIONS)
_RELATIONS = frozenset(RELATIONS)
# A relation name quoted inside a longer string: a query's text (`relation = 'SIMILAR_TO'`), not prose.
_QUOTED = re.compile(r"""(["'])(?:""" + "|".join(RELATIONS) + r""")\1""")
# A collection prefix quoted alone inside a longer string: LIKE 'documents/%', STARTS_WITH(id, "documents/").
_QUOTED_PREFIX = re.compile(r"""(["'])(?:""" + "|".join(COLLECTIONS) + r""")/%?\1""")


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (they may name relations freely)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _collection_prefix(node: ast.AST) -> bool:
    """`node` is a string that starts with `collection/` (a constant, or an f-string's first piece)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.startswith(_PREFIXES)
    if isinstance(node, ast.JoinedStr) and node.values:
        return _collection_prefix(node.values[0])
    return False


def violations(source: str) -> list[tuple[str, int, str]]:
    """(rule, line, snippet) for every name spelled outside its home in `source`."""
    tree = ast.parse(source)
    lines = source.splitlines()
    docs = _docstrings(tree)
    in_fstring = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    out: list[tuple[str, int, str]] = []

    def hit(rule: str, node: ast.AST) -> None:
        line = getattr(node, "lineno", 0)
        if line and EXEMPT in lines[line - 1]:  # a string that only looks like a name, said so on its line
            return
        out.append((rule, getattr(node, "lineno", 0), ast.unparse(node)[:80]))

    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in _RELATIONS and id(node) not in docs:
            hit("relation", node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _QUOTED.search(node.value):
            hit("relation", node)  # SQL/AQL text: build it from the constant, f"relation = '{SIMILAR_TO}'"
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _QUOTED_PREFIX.search(node.value):
            hit("id-parse", node)  # SQL/AQL text: LIKE 'documents/%' -> f"LIKE '{DOCUMENTS}/%'"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _collection_prefix(node.left):
            hit("id-build", node)
        if isinstance(node, ast.JoinedStr) and id(node) not in in_fstring and _collection_prefix(node):
            hit("id-build", node)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "partition", "split")
            and node.args
        ):
            arg = node.args[0]
            parts = arg.elts if isinstance(arg, ast.Tuple) else [arg]
            if any(_collection_prefix(p) for p in parts):
                hit("id-parse", node)
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("environ", "getenv", "putenv", "unsetenv")
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            hit("env", node)
        if (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(a.name in ("environ", "getenv") for a in node.names)
        ):
            hit("env", node)
    return out


def package_violations(allowlist: set[str] = ALLOWLIST) -> list[tuple[str, str, int, str]]:
    """(file, rule, line, snippet) over ohara_lab/, skipping each rule's home and `allowlist`."""
    out = []
    # widgets/ installs as ohara_lab.widgets from the repo's top-level folder: checked where it is present.
    paths = sorted(ROOT.rglob("*.py")) + sorted(WIDGETS.rglob("*.py"))
    for path in paths:
        rel = path.relative_to(ROOT if path.is_relative_to(ROOT) else ROOT.parent).as_posix()
        if rel in allowlist:
            continue
        for rule, line, snippet in violations(path.read_text()):
            if rel not in HOMES[rule]:
                out.append((rel, rule, line, snippet))
    return out


def test_names_live_in_their_homes() -> None:
    found = package_violations()
    assert found == [], "names spelled outside ids.py / records.py / settings.py:\n" + "\n".join(
        f"  {f}:{line} [{rule}] {snippet}" for f, rule, line, snippet in found
    )


def test_allowlist_names_files_that_exist() -> None:
    """A file the other branch removes (store/common.py is to disappear) leaves the list with it."""
    assert [rel for rel in sorted(ALLOWLIST) if not (ROOT / rel).is_file()] == []


def test_checker_catches_each_kind() -> None:
    source = "\n".join(
        [
            "import os",
            "def f(slug, nid):",
            '    """Adds SIMILAR_TO edges (a docstring may say so)."""',
            '    a = "entities/" + slug',
            '    b = f"paragraphs/{nid}-00001"',
            '    c = nid.startswith("documents/")',
            '    d = ("x", "SIMILAR_TO")',
            "    q = \"SELECT 1 FROM edges WHERE relation = 'MENTIONS' AND x = ?\"",
            "    m = 'has no MENTIONS edge'",
            "    w = \"WHERE node NOT LIKE 'documents/%'\"",
            '    e = os.environ.get("OHARA_X")',
            '    g = os.getenv("HOME")',
            '    h = f"documents/{slug}/index"  # names: a wiki path, not a node id',
            "    return a, b, c, d, e, g, h",
        ]
    )
    found = violations(source)
    assert Counter(rule for rule, _, _ in found) == {"relation": 2, "id-build": 2, "id-parse": 2, "env": 2}
    assert [line for rule, line, _ in found if rule == "id-build"] == [4, 5]


def test_checker_passes_the_spelled_through_homes_form() -> None:
    source = "\n".join(
        [
            "from ohara_lab import ids",
            "from ohara_lab.records import Rel",
            "def f(slug, nid, settings):",
            '    return ids.entity_id(slug), ids.in_collection(nid, "documents"), Rel.SIMILAR_TO,'
            ' f"FILTER e.relation == \'{Rel.SIMILAR_TO}\'", settings.atlas, "similar_to", "entities"',
        ]
    )
    assert violations(source) == []


def counts(allowlist: set[str]) -> Counter[str]:
    return Counter(rule for _, rule, _, _ in package_violations(allowlist))


if __name__ == "__main__":
    # python tests/test_names.py [-v] [PACKAGE_DIR]: the counts for another checkout (e.g. main's ohara_lab/)
    verbose = "-v" in sys.argv
    paths = [a for a in sys.argv[1:] if a != "-v"]
    if paths:
        ROOT = Path(paths[0]).resolve()
    for label, allow in (("all files", set()), ("outside the allowlist", ALLOWLIST)):
        found = package_violations(allow)
        by_rule = Counter(rule for _, rule, _, _ in found)
        files = {rule: len({f for f, r, _, _ in found if r == rule}) for rule in by_rule}
        print(f"{label}: " + ", ".join(f"{r}={by_rule[r]} in {files[r]} files" for r in sorted(by_rule)))
        if verbose:
            for f, rule, line, snippet in found:
                print(f"  {f}:{line} [{rule}] {snippet}")


def test_ids_build_and_parse_one_grammar() -> None:
    from ohara_lab import ids

    assert ids.entity_id("ha-noi") == "entities/ha-noi" and ids.slug_of("entities/ha-noi") == "ha-noi"
    assert ids.document_id("4f2a") == ids.document_id("documents/4f2a") == "documents/4f2a"
    assert ids.section_id("4f2a-00003") == "sections/4f2a-00003"
    assert ids.in_collection("tables/x-00001", ids.PARAGRAPHS, ids.TABLES)
    assert not ids.in_collection("documentsx/y", ids.DOCUMENTS)  # the slash is part of the prefix
    assert ids.parse_id("paragraphs/4f2a-00012") == ("paragraphs", "4f2a-00012")
    for bad in ("paragraphs/..", "paragraphs/a%2Fb", "nodes/a", "paragraphs/", "paragraphs/-a"):
        with pytest.raises(ValueError):
            ids.parse_id(bad)


def test_settings_are_grouped_by_concern_with_flat_access() -> None:
    from dataclasses import fields

    from ohara_lab.settings import GROUPS, Settings, describe, group_of

    settings = Settings.from_env({"OHARA_API_MAX_LIMIT": "7", "OHARA_BM25_WEIGHT": "0.25"})
    assert settings.api_max_limit == 7 and settings.bm25_weight == 0.25  # flat attributes, same OHARA_* names
    assert group_of("api_max_limit") == "serve" and group_of("bm25_weight") == "retrieval"
    assert settings.group("serve")["api_max_limit"] == 7
    owned = [f.name for cls in GROUPS.values() for f in fields(cls)]
    assert len(owned) == len(set(owned)), "a field in two concerns"
    assert set(owned) | {"env_file"} == {f.name for f in fields(Settings)}
    assert [d.group for d in describe()][:1] == ["store"] and describe()[-1].name == "env_file"
