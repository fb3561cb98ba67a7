"""No import loops between ohara_lab's modules, counting the imports inside functions too: a lazy
import only postpones a loop, it still ties the two modules together."""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import ohara_lab

ROOT = Path(ohara_lab.__file__).parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
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


def _running_nodes(tree: ast.AST) -> list[ast.AST]:
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


def import_graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in files}
    for module, path in files.items():
        for node in _running_nodes(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                targets = _resolve(module, path.name == "__init__.py", node, set(files))
            graph[module] |= {t for t in targets if t in files and t != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (networkx), each sorted."""
    g = nx.DiGraph()
    g.add_nodes_from(graph)
    g.add_edges_from((a, b) for a, targets in graph.items() for b in targets)
    return sorted(sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1)


def test_the_checker_finds_a_loop() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_package_has_no_import_loops() -> None:
    # The last ones were ingest.pipeline <-> ingest.batching and cli <-> eval.commands.
    assert cycles(import_graph()) == []
