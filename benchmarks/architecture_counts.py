"""The architecture counts of issue 29, measured on the code as it is: before/after numbers for its closing note.

    python benchmarks/architecture_counts.py            # a table of the counts
    python benchmarks/architecture_counts.py --detail   # plus the upward arrows, the layers and every hit

Import graph (grimp, the graph library under import-linter): one node per top-level module or subpackage of
`ohara_lab` (a subpackage stands for every module under it; `ohara_lab/__init__.py` is the node `ohara_lab`),
one arrow A -> B when any module of A imports any module of B, lazy imports inside functions included (they
still tie the two together), imports under `if TYPE_CHECKING:` excluded (they never run). `widgets/` is not
in the graph: it sits on top of the core and nothing in the core imports it.

Layers and upward arrows: the nodes are put in the order, bottom to top, that leaves the fewest arrows
pointing up (a minimum feedback arc set, exact, by dynamic programming over the subsets of each strongly
connected component; components larger than 22 nodes fall back to Eades' greedy order), then each node's
layer is one more than the highest layer it imports along the arrows that point down. An upward arrow is
one that closes a package-level cycle: it cannot be drawn downward in any order without turning another one
up. Zero upward arrows means the packages form a DAG.

Seams and names (stdlib ast over `ohara_lab/` and `widgets/`):
- `store: Any` -- parameters named `store` annotated `Any` in public functions and methods (name without a
  leading underscore, in a class or module not private), and in every function;
- Atlas returning Any -- public methods and properties of `ohara_lab.atlas.Atlas` whose return annotation
  mentions `Any`;
- relation literals -- string constants exactly equal to one of `records.RELATIONS`, outside `records.py`
  (SQL/AQL text that merely contains a name is not counted: its relation is a bind parameter or a column);
- id building -- `"<collection>/" + x` and `f"<collection>/{x}"` for a collection of `ids.COLLECTIONS`,
  outside `ids.py`;
- environment reads -- `os.environ` (any use) and `os.getenv(...)` outside `settings.py`.

The issue's own figures ("33 packages and modules in 12 layers, 155 import arrows, 6 pointing back up")
were taken by a method it does not give; this command's definitions are the ones above, so compare its
before and after numbers with each other.
"""

from __future__ import annotations

import argparse
import ast
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "ohara_lab"
DP_LIMIT = 22  # exact ordering up to 2**22 subsets per component


# ---------------------------------------------------------------------------------------------- import graph
def package_graph(package: str = PACKAGE) -> dict[str, set[str]]:
    """Top-level node -> the top-level nodes it imports (grimp, TYPE_CHECKING imports excluded)."""
    import grimp

    graph = grimp.build_graph(package, cache_dir=None, exclude_type_checking_imports=True)

    def top(module: str) -> str:
        parts = module.split(".")
        return parts[0] if len(parts) == 1 else parts[1]

    out: dict[str, set[str]] = {top(m): set() for m in graph.modules}
    for module in graph.modules:
        for target in graph.find_modules_directly_imported_by(module):
            a, b = top(module), top(target)
            if a != b:
                out[a].add(b)
    return out


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected components, each sorted, in reverse topological order (a component
    before its importers): networkx's condensation, read from the imported end."""
    g = nx.DiGraph()
    g.add_nodes_from(sorted(graph))
    g.add_edges_from((a, b) for a in sorted(graph) for b in sorted(graph[a]))
    condensed = nx.condensation(g)
    order = list(nx.lexicographical_topological_sort(condensed, key=lambda c: min(condensed.nodes[c]["members"])))
    return [sorted(condensed.nodes[c]["members"]) for c in reversed(order)]


def _order_exact(nodes: list[str], graph: dict[str, set[str]]) -> list[str]:
    """Bottom-to-top order of one component with the fewest arrows pointing up (DP over subsets)."""
    n = len(nodes)
    pos = {v: i for i, v in enumerate(nodes)}
    # importers[i]: bitmask of the nodes that import node i
    importers = [0] * n
    for v in nodes:
        for w in graph[v]:
            if w in pos:
                importers[pos[w]] |= 1 << pos[v]
    best = [0] + [-1] * ((1 << n) - 1)
    choice = [0] * (1 << n)
    for mask in range(1 << n):
        if best[mask] < 0:
            continue
        for i in range(n):
            if mask & (1 << i):
                continue
            # node i goes on top of `mask`: every node of mask that imports i points up
            cost = best[mask] + bin(importers[i] & mask).count("1")
            nxt = mask | (1 << i)
            if best[nxt] < 0 or cost < best[nxt]:
                best[nxt] = cost
                choice[nxt] = i
    order: list[str] = []
    mask = (1 << n) - 1
    while mask:
        i = choice[mask]
        order.append(nodes[i])
        mask &= ~(1 << i)
    return order[::-1]


def _order_greedy(nodes: list[str], graph: dict[str, set[str]]) -> list[str]:
    """Eades, Lin & Smyth (1993) greedy order, bottom to top, for components too large for the DP."""
    rest = set(nodes)
    bottom: list[str] = []
    top: list[str] = []
    while rest:
        changed = True
        while changed:
            changed = False
            for v in sorted(rest):
                if not graph[v] & rest:  # imports nothing left: bottom
                    bottom.append(v)
                    rest.discard(v)
                    changed = True
                elif not any(v in graph[u] for u in rest):  # imported by nothing left: top
                    top.append(v)
                    rest.discard(v)
                    changed = True
        if rest:
            v = max(sorted(rest), key=lambda x: sum(x in graph[u] for u in rest) - len(graph[x] & rest))
            top.append(v)
            rest.discard(v)
    return bottom + top[::-1]


@dataclass
class Layering:
    layers: dict[str, int]
    upward: list[tuple[str, str]]
    cycles: list[list[str]] = field(default_factory=list)

    @property
    def depth(self) -> int:
        return max(self.layers.values(), default=-1) + 1


def layering(graph: dict[str, set[str]]) -> Layering:
    """Layers (0 = imports nothing of the package) and the arrows that point back up."""
    order: list[str] = []
    cycles = []
    for comp in strongly_connected(graph):
        if len(comp) > 1:
            cycles.append(comp)
        order += _order_exact(comp, graph) if len(comp) <= DP_LIMIT else _order_greedy(comp, graph)
    rank = {v: i for i, v in enumerate(order)}
    upward = sorted((a, b) for a in graph for b in graph[a] if rank[b] > rank[a])
    layers: dict[str, int] = {}
    for v in order:  # bottom to top: everything v imports downward is placed already
        below = [layers[w] for w in graph[v] if rank[w] < rank[v]]
        layers[v] = 1 + max(below) if below else 0
    return Layering(layers, upward, cycles)


# ------------------------------------------------------------------------------------------- seams and names
def _sources() -> list[tuple[str, ast.Module]]:
    files = sorted((ROOT / PACKAGE).rglob("*.py")) + sorted((ROOT / "widgets").rglob("*.py"))
    return [(str(p.relative_to(ROOT)), ast.parse(p.read_text(), filename=str(p))) for p in files]


def _mentions_any(node: ast.AST | None) -> bool:
    if node is None:
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a quoted annotation
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return False
    return any(
        (isinstance(n, ast.Name) and n.id == "Any") or (isinstance(n, ast.Attribute) and n.attr == "Any")
        for n in ast.walk(node)
    )


def _public_functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    out = []

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
                out.append((prefix + node.name, node))
            elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                walk(node.body, prefix + node.name + ".")
            elif isinstance(node, (ast.If, ast.Try)):
                walk(node.body, prefix)

    walk(tree.body, "")
    return out


def store_any(sources: list[tuple[str, ast.Module]], public_only: bool = True) -> list[str]:
    hits = []
    for path, tree in sources:
        functions = (
            _public_functions(tree)
            if public_only
            else [(n.name, n) for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        )
        for name, fn in functions:
            args = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
            hits += [f"{path}:{fn.lineno} {name}" for a in args if a.arg == "store" and _mentions_any(a.annotation)]
    return hits


def atlas_any(sources: list[tuple[str, ast.Module]]) -> list[str]:
    tree = dict(sources)[f"{PACKAGE}/atlas.py"]
    hits = []
    for name, fn in _public_functions(tree):
        if name.startswith("Atlas.") and _mentions_any(fn.returns):
            hits.append(f"{PACKAGE}/atlas.py:{fn.lineno} {name} -> {ast.unparse(fn.returns)}")  # type: ignore[arg-type]
    return hits


def _string_constants(tree: ast.Module) -> dict[str, str]:
    """Module-level `NAME = "..."` / `NAME: Final = "..."` assignments (records' relation constants)."""
    found = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else getattr(node, "target", None)
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
            found[target.id] = value.value
    return found


def _tuple_constant(tree: ast.Module, name: str) -> tuple[str, ...]:
    """A module-level tuple of strings, its items literals or names of string constants."""
    names = _string_constants(tree)
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets) and isinstance(node.value, ast.Tuple):  # type: ignore[union-attr]
            return tuple(names[e.id] if isinstance(e, ast.Name) else ast.literal_eval(e) for e in node.value.elts)  # type: ignore[union-attr]
    raise LookupError(name)


def relation_literals(sources: list[tuple[str, ast.Module]]) -> list[str]:
    relations = set(_tuple_constant(dict(sources)[f"{PACKAGE}/records.py"], "RELATIONS"))
    hits = []
    for path, tree in sources:
        if path == f"{PACKAGE}/records.py":
            continue
        docstrings = {
            id(n.body[0].value)  # type: ignore[attr-defined]
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body
            and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)
        }
        for n in ast.walk(tree):
            if isinstance(n, ast.Constant) and n.value in relations and id(n) not in docstrings:
                hits.append(f"{path}:{n.lineno} {n.value}")
    return hits


def id_building(sources: list[tuple[str, ast.Module]]) -> list[str]:
    prefixes = {c + "/" for c in _tuple_constant(dict(sources)[f"{PACKAGE}/ids.py"], "COLLECTIONS")}
    hits = []
    for path, tree in sources:
        if path == f"{PACKAGE}/ids.py":
            continue
        for n in ast.walk(tree):
            if (
                isinstance(n, ast.BinOp)
                and isinstance(n.op, ast.Add)
                and isinstance(n.left, ast.Constant)
                and n.left.value in prefixes
            ):
                hits.append(f'{path}:{n.lineno} "{n.left.value}" +')
            elif (
                isinstance(n, ast.JoinedStr)
                and len(n.values) >= 2
                and isinstance(n.values[0], ast.Constant)
                and n.values[0].value in prefixes
            ):
                hits.append(f'{path}:{n.lineno} f"{n.values[0].value}{{..}}"')
    return hits


def environment_reads(sources: list[tuple[str, ast.Module]]) -> list[str]:
    hits = []
    for path, tree in sources:
        if path == f"{PACKAGE}/settings.py":
            continue
        for n in ast.walk(tree):
            if (
                isinstance(n, ast.Attribute)
                and n.attr in ("environ", "getenv")
                and (isinstance(n.value, ast.Name) and n.value.id == "os")
            ):
                hits.append(f"{path}:{n.lineno} os.{n.attr}")
    return hits


# --------------------------------------------------------------------------------------------------- report
def counts() -> tuple[dict[str, int], dict[str, list[str]]]:
    graph = package_graph()
    lay = layering(graph)
    sources = _sources()
    detail = {
        "upward arrows": [f"{a} -> {b}" for a, b in lay.upward],
        "cycles": [" ".join(c) for c in lay.cycles],
        "layers": [
            f"{layer}: " + " ".join(sorted(v for v in lay.layers if lay.layers[v] == layer))
            for layer in range(lay.depth)
        ],
        "store: Any": store_any(sources),
        "Atlas -> Any": atlas_any(sources),
        "relation literals": relation_literals(sources),
        "id building": id_building(sources),
        "environment reads": environment_reads(sources),
    }

    def files(hits: list[str]) -> int:
        return len({h.split(":")[0] for h in hits})

    table = {
        "nodes (top-level modules and packages)": len(graph),
        "import arrows": sum(len(v) for v in graph.values()),
        "layers": lay.depth,
        "upward arrows": len(lay.upward),
        "nodes in package cycles": sum(len(c) for c in lay.cycles),
        "public params `store: Any`": len(detail["store: Any"]),
        "  all params `store: Any` (private too)": len(store_any(sources, public_only=False)),
        "Atlas methods returning Any": len(detail["Atlas -> Any"]),
        "relation-name literals outside records.py": len(detail["relation literals"]),
        "  files holding them ": files(detail["relation literals"]),
        "  of them SIMILAR_TO, files": files([h for h in detail["relation literals"] if h.endswith("SIMILAR_TO")]),
        "collection-prefix id building outside ids.py": len(detail["id building"]),
        "  files holding them": files(detail["id building"]),
        "  of them entities/": sum('"entities/' in h for h in detail["id building"]),
        "environment reads outside settings.py": len(detail["environment reads"]),
    }
    return table, detail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--detail", action="store_true", help="list every upward arrow, layer and hit")
    args = parser.parse_args()
    table, detail = counts()
    width = max(map(len, table))
    for key, value in table.items():
        print(f"{key:<{width}}  {value}")
    if args.detail:
        for key, hits in detail.items():
            print(f"\n## {key} ({len(hits)})")
            for hit, n in Counter(hits).items():
                print(f"  {hit}" + (f"  x{n}" if n > 1 else ""))


if __name__ == "__main__":
    main()
