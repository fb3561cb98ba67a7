"""Types at the seams (issue 29): a store parameter is a `GraphStore`, never `Any`; the `Atlas` facade says
what it returns; `serve/` and the widgets read the atlas through the facade, never through `atlas.store`."""

from __future__ import annotations

import ast
from pathlib import Path

from benchmarks import code_scan

ROOT = Path(__file__).resolve().parents[2]

FACADE_ONLY = [ROOT / "ohara_lab" / "serve", ROOT / "widgets"]


mentions_any = code_scan.mentions_any
untyped_store_parameters = code_scan.untyped_store_parameters


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
    methods = code_scan.public_methods(tree, "Atlas")
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
