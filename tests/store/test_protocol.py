"""`GraphStore` states the whole contract: every method the rest of ohara-lab calls on a store is
declared there, and every backend implements each declared method with the same parameters."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from ohara_lab.errors import StoreError
from ohara_lab.store.protocol import GraphStore

ROOT = Path(__file__).resolve().parents[2]
DECLARED = {name for name, _ in inspect.getmembers(GraphStore, inspect.isfunction) if not name.startswith("_")}


def _backends() -> list[type]:
    from ohara_lab.store.sqlite import SqliteStore

    out = [SqliteStore]
    try:
        from ohara_lab.store.arango import ArangoStore
    except StoreError:  # the arango extra is optional: without python-arango the module says so
        return out
    return [*out, ArangoStore]


@pytest.mark.parametrize("backend", _backends(), ids=lambda b: b.__name__)
def test_every_backend_implements_every_declared_method_with_its_parameters(backend):
    for name in sorted(DECLARED):
        impl = getattr(backend, name, None)
        assert impl is not None, f"{backend.__name__} lacks {name}"
        declared = inspect.signature(getattr(GraphStore, name))
        got = inspect.signature(impl)
        assert list(got.parameters) == list(declared.parameters), f"{backend.__name__}.{name}{got} != {declared}"
        for p in declared.parameters.values():
            assert got.parameters[p.name].kind == p.kind, f"{backend.__name__}.{name}: {p.name} kind differs"


def _store_calls(path: Path) -> set[str]:
    """Names of methods called on `store`, `self.store`, `e.store` or `ctx.store` in one module."""
    calls = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if (isinstance(owner, ast.Name) and owner.id == "store") or (
                    isinstance(owner, ast.Attribute) and owner.attr == "store"):
                calls.add(node.func.attr)
    return calls


def test_every_store_method_called_outside_the_store_package_is_declared():
    sources = [p for p in (ROOT / "ohara_lab").rglob("*.py") if "store" not in p.relative_to(ROOT / "ohara_lab").parts]
    sources += list((ROOT / "widgets").rglob("*.py"))
    undeclared = {f"{p.relative_to(ROOT)}: {name}" for p in sources for name in _store_calls(p) - DECLARED}
    assert not undeclared, "called on a store but not declared in GraphStore:\n" + "\n".join(sorted(undeclared))


def test_no_caller_probes_a_store_for_optional_methods():
    probes = []
    for p in [*(ROOT / "ohara_lab").rglob("*.py"), *(ROOT / "widgets").rglob("*.py")]:
        text = p.read_text(encoding="utf-8")
        for needle in ("getattr(store,", "getattr(self.store,", "hasattr(store,", "hasattr(self.store,"):
            if needle in text:
                probes.append(f"{p.relative_to(ROOT)}: {needle}")
    assert not probes, "\n".join(probes)
