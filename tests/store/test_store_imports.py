"""Stores persist, they do not decide (issue 29.1): no store module imports ingest, entity or embedder code."""

from __future__ import annotations

import ast
from pathlib import Path

import ohara_lab.store

STORE = Path(ohara_lab.store.__file__).parent
FORBIDDEN = ("ohara_lab.ingest", "ohara_lab.entities", "ohara_lab.embed")
# The vector index is moving under store/ (issue 29.2); until it lands the stores still import it.
MOVING = {"ohara_lab.embed.index", "ohara_lab.embed.ann"}


def imported(path: Path) -> set[str]:
    """Absolute names of every module `path` imports, at any depth (lazy imports included)."""
    package = "ohara_lab.store"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            name = ".".join(p for p in (base, node.module or "") if p)
            out.add(name)
            out |= {f"{name}.{a.name}" for a in node.names}
    return out


def test_store_modules_import_no_domain_code() -> None:
    modules = sorted(STORE.glob("*.py"))
    assert len(modules) > 10
    offending = {
        p.name: sorted(
            m
            for m in imported(p)
            if m.startswith(FORBIDDEN) and not any(m.startswith(x) for x in MOVING) and m not in {"ohara_lab.embed"}
        )
        for p in modules
    }
    assert {k: v for k, v in offending.items() if v} == {}


def test_the_rule_sees_relative_imports() -> None:
    names = imported(STORE / "sqlite.py")
    assert "ohara_lab.store.protocol" in names and "ohara_lab.errors" in names
