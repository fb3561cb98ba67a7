"""The one source scanner (stdlib ast) behind the architecture checks and counts.

`benchmarks/architecture_counts.py` counts with it and the tests enforce with it
(`tests/test_import_graph.py`: no import loops; `tests/store/test_seams.py`: no `store: Any`;
`tests/test_names.py`: names in their homes), so a count and the rule it measures cannot drift apart.

- `import_graph(root)`: module -> the package modules it imports, lazy imports inside functions
  included (they still tie the two together), imports under `if TYPE_CHECKING:` excluded (they never
  run); `package_graph` folds it to one node per top-level module or subpackage.
- `mentions_any`, `untyped_store_parameters`: annotations that let a store be untyped.
- `name_violations`: relation names, collection-prefix ids and environment reads spelled outside
  their homes (`records.py`, `ids.py`, `settings.py`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterable
from pathlib import Path

# ------------------------------------------------------------------------------------------------ import graph


def module_name(path: Path, root: Path) -> str:
    """`ohara_lab/store/sqlite.py` -> `ohara_lab.store.sqlite`; a package's `__init__.py` is the package."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom, modules: set[str]) -> list[str]:
    """The modules a `from X import a, b` runs: each of a, b that is a module itself, else X."""
    if node.level == 0:
        base = node.module or ""
    else:
        anchor = module.split(".") if is_package else module.split(".")[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join(anchor + ([node.module] if node.module else []))
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]


def running_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node but those under `if TYPE_CHECKING:` (they never run)."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo += node.orelse
            continue
        todo += list(ast.iter_child_nodes(node))
    return out


def _nearest_module(name: str, modules: set[str]) -> str | None:
    """`name` if it is a module of the package, else its closest enclosing one (`import a.b.c` runs `a.b`)."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in modules:
            return ".".join(parts)
        parts.pop()
    return None


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of the package at `root` it imports (itself excluded)."""
    files = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    modules = set(files)
    graph: dict[str, set[str]] = {m: set() for m in files}
    for module, path in files.items():
        for node in running_nodes(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                targets = _resolve(module, path.name == "__init__.py", node, modules)
            found = {_nearest_module(t, modules) for t in targets}
            graph[module] |= {t for t in found if t is not None and t != module}
    return graph


def top_level(module: str) -> str:
    """The node a module counts under: `ohara_lab.store.sqlite` -> `store`; `ohara_lab` itself stays."""
    parts = module.split(".")
    return parts[0] if len(parts) == 1 else parts[1]


def package_graph(root: Path) -> dict[str, set[str]]:
    """Top-level node -> the top-level nodes it imports (one arrow however many modules import)."""
    modules = import_graph(root)
    out: dict[str, set[str]] = {top_level(m): set() for m in modules}
    for module, targets in modules.items():
        for target in targets:
            a, b = top_level(module), top_level(target)
            if a != b:
                out[a].add(b)
    return out


# ------------------------------------------------------------------------------------------------------ seams


def mentions_any(annotation: ast.AST | None) -> bool:
    """`Any`, `Any | None`, `Optional[Any]`, `"Any"`, `typing.Any`: anything that lets a value be untyped."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):  # a quoted annotation
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return False
    return any(
        (isinstance(n, ast.Name) and n.id == "Any") or (isinstance(n, ast.Attribute) and n.attr == "Any")
        for n in ast.walk(annotation)
    )


def _public(names: list[str]) -> bool:
    return not any(n.startswith("_") and n != "__init__" for n in names)


def untyped_store_parameters(source: str, path: str = "<test>", *, public_only: bool = True) -> list[str]:
    """`path:line name(store)` for each (public) function or method whose `store` parameter is typed `Any`."""
    found: list[str] = []

    def visit(node: ast.AST, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, [*scope, child.name])
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = [*scope, child.name]
                a = child.args
                for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
                    if arg.arg == "store" and mentions_any(arg.annotation) and (_public(names) or not public_only):
                        found.append(f"{path}:{child.lineno} {'.'.join(names)}(store)")
                visit(child, names)  # nested functions are not public, but their names start the check again
            else:
                visit(child, scope)

    visit(ast.parse(source), [])
    return found


def public_methods(tree: ast.Module, class_name: str) -> list[ast.FunctionDef]:
    """The public methods (and properties) of a module-level class."""
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    return [n for n in cls.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]


# ------------------------------------------------------------------------------------------------------ names

# The homes of each kind of name.
HOMES = {
    "relation": {"records.py"},
    "id-build": {"ids.py"},
    "id-parse": {"ids.py"},
    "env": {"settings.py"},
}
# A line that ends in this comment holds a string that only looks like a name (a wiki path "documents/...").
EXEMPT = "# names:"


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (they may name relations freely)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


class NameRules:
    """The literal rules over a package's relation names and collection names."""

    def __init__(self, relations: Iterable[str], collections: Iterable[str]):
        relations, collections = list(relations), list(collections)
        self.relations = frozenset(relations)
        self.prefixes = tuple(f"{c}/" for c in collections)
        # A relation name quoted inside a longer string: a query's text (`relation = 'SIMILAR_TO'`), not prose.
        self.quoted = re.compile(r"""(["'])(?:""" + "|".join(relations) + r""")\1""")
        # A collection prefix quoted alone inside a longer string: LIKE 'documents/%', STARTS_WITH(id, "documents/").
        self.quoted_prefix = re.compile(r"""(["'])(?:""" + "|".join(collections) + r""")/%?\1""")

    def collection_prefix(self, node: ast.AST) -> bool:
        """`node` is a string that starts with `collection/` (a constant, or an f-string's first piece)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value.startswith(self.prefixes)
        if isinstance(node, ast.JoinedStr) and node.values:
            return self.collection_prefix(node.values[0])
        return False

    def violations(self, source: str) -> list[tuple[str, int, str]]:
        """(rule, line, snippet) for every name spelled outside its home in `source`."""
        tree = ast.parse(source)
        lines = source.splitlines()
        docs = docstrings(tree)
        in_fstring = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
        out: list[tuple[str, int, str]] = []

        def hit(rule: str, node: ast.AST) -> None:
            line = getattr(node, "lineno", 0)
            if line and EXEMPT in lines[line - 1]:  # a string that only looks like a name, said so on its line
                return
            out.append((rule, line, ast.unparse(node)[:80]))

        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in self.relations and id(node) not in docs:
                hit("relation", node)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and self.quoted.search(node.value):
                hit("relation", node)  # SQL/AQL text: build it from the constant, f"relation = '{SIMILAR_TO}'"
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and self.quoted_prefix.search(node.value):
                hit("id-parse", node)  # SQL/AQL text: LIKE 'documents/%' -> f"LIKE '{DOCUMENTS}/%'"
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and self.collection_prefix(node.left):
                hit("id-build", node)
            if isinstance(node, ast.JoinedStr) and id(node) not in in_fstring and self.collection_prefix(node):
                hit("id-build", node)
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("startswith", "partition", "split")
                and node.args
            ):
                arg = node.args[0]
                parts = arg.elts if isinstance(arg, ast.Tuple) else [arg]
                if any(self.collection_prefix(p) for p in parts):
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

    def package_violations(
        self, paths: Iterable[tuple[str, Path]], allowlist: Collection[str] = ()
    ) -> list[tuple[str, str, int, str]]:
        """(file, rule, line, snippet) over (relative name, path) pairs, skipping each rule's home and `allowlist`."""
        out = []
        for rel, path in paths:
            if rel in allowlist:
                continue
            for rule, line, snippet in self.violations(path.read_text(encoding="utf-8")):
                if rel not in HOMES[rule]:
                    out.append((rel, rule, line, snippet))
        return out
