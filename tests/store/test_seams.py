"""Types at the seams (issue 29): a store parameter is a `GraphStore`, never `Any`; the `Atlas` facade says
what it returns; `serve/` and the widgets read the atlas through the facade, never through `atlas.store`."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FACADE_ONLY = [ROOT / "ohara_lab" / "serve", ROOT / "widgets"]


def _mentions_any(annotation: ast.expr | None) -> bool:
    """`Any`, `Any | None`, `Optional[Any]`, `"Any"`, `typing.Any`: anything that lets a store be untyped."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return _mentions_any(ast.parse(annotation.value, mode="eval").body)
    return any(
        (isinstance(n, ast.Name) and n.id == "Any") or (isinstance(n, ast.Attribute) and n.attr == "Any")
        for n in ast.walk(annotation)
    )


def _public(names: list[str]) -> bool:
    return not any(n.startswith("_") and n != "__init__" for n in names)


def untyped_store_parameters(source: str, path: str = "<test>") -> list[str]:
    """`path:line name(store)` for each public function or method whose `store` parameter is typed `Any`."""
    found: list[str] = []

    def visit(node: ast.AST, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, [*scope, child.name])
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = [*scope, child.name]
                a = child.args
                for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
                    if arg.arg == "store" and _mentions_any(arg.annotation) and _public(names):
                        found.append(f"{path}:{child.lineno} {'.'.join(names)}(store)")
                visit(child, names)  # nested functions are not public, but their names start the check again

    visit(ast.parse(source), [])
    return found


def _sources() -> list[Path]:
    return sorted([*(ROOT / "ohara_lab").rglob("*.py"), *(ROOT / "widgets").rglob("*.py")])


def test_the_checker_finds_untyped_store_parameters() -> None:
    source = (
        "from typing import Any, Optional\n"
        "def a(store: Any): ...\n"
        "def b(x, *, store: Optional[Any] = None): ...\n"
        "def _private(store: Any): ...\n"
        "class C:\n"
        "    def __init__(self, store: 'Any | None'): ...\n"
        "    def ok(self, store: GraphStore): ...\n"
    )
    assert untyped_store_parameters(source) == ["<test>:2 a(store)", "<test>:3 b(store)", "<test>:6 C.__init__(store)"]


def test_no_public_signature_takes_an_untyped_store() -> None:
    found = []
    for p in _sources():
        found += untyped_store_parameters(p.read_text(encoding="utf-8"), p.relative_to(ROOT).as_posix())
    assert not found, "type these as ohara_lab.store.protocol.GraphStore:\n" + "\n".join(found)


def test_the_atlas_facade_says_what_it_returns() -> None:
    tree = ast.parse((ROOT / "ohara_lab" / "atlas.py").read_text(encoding="utf-8"))
    atlas = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Atlas")
    methods = [n for n in atlas.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]
    assert len(methods) > 30  # the facade itself, not some other class
    # `Any` inside a container of plain rows (`dict[str, Any]`) is data; `-> Any` (or `Any | None`) is a hole.
    untyped = [m.name for m in methods if m.returns is None or "Any" in ast.unparse(m.returns).split(" | ")]
    assert not untyped, f"Atlas methods returning Any: {untyped}"


def store_reaches(source: str) -> list[int]:
    """Lines that read `.store` off an object, or probe an atlas with getattr/hasattr."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "store":
            lines.append(node.lineno)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and node.args
        ):
            target, name = node.args[0], node.args[1] if len(node.args) > 1 else None
            names_atlas = (isinstance(target, ast.Name) and target.id in ("atlas", "source", "store")) or (
                isinstance(target, ast.Attribute) and target.attr in ("atlas", "store")
            )
            if names_atlas or (isinstance(name, ast.Constant) and name.value == "store"):
                lines.append(node.lineno)
    return sorted(lines)


def test_the_reach_checker_finds_store_reads_and_probes() -> None:
    source = (
        "rows = self.atlas.store.feedback()\n"
        "s = getattr(source, 'store', source)\n"
        "ok = hasattr(atlas, 'query')\n"
        "fine = getattr(result, 'tiers', None)\n"
        "nodes = self.atlas.nodes(ids)\n"
    )
    assert store_reaches(source) == [1, 2, 3]


def test_serve_and_the_widgets_read_the_atlas_through_the_facade_only() -> None:
    found = [
        f"{p.relative_to(ROOT)}:{line}"
        for folder in FACADE_ONLY
        for p in sorted(folder.rglob("*.py"))
        for line in store_reaches(p.read_text(encoding="utf-8"))
    ]
    assert not found, "use an Atlas method (add one if it is missing) instead of atlas.store:\n" + "\n".join(found)
