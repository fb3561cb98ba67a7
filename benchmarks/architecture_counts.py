"""The architecture counts of issue 29, measured on the code as it is: before/after numbers for its closing note.

    python benchmarks/architecture_counts.py            # a table of the counts
    python benchmarks/architecture_counts.py --detail   # plus the upward arrows, the layers and every hit

Import graph (`benchmarks/code_scan.py`, the stdlib-ast scanner `tests/test_import_graph.py` checks loops
with): one node per top-level module or subpackage of `ohara_lab` (a subpackage stands for every module under
it; `ohara_lab/__init__.py` is the node `ohara_lab`), one arrow A -> B when any module of A imports any module
of B, lazy imports inside functions included (they still tie the two together), imports under
`if TYPE_CHECKING:` excluded (they never run). `widgets/` is not
in the graph: it sits on top of the core and nothing in the core imports it.

Layers and upward arrows: the nodes are put in the order, bottom to top, that leaves the fewest arrows
pointing up (a minimum feedback arc set, exact, by dynamic programming over the subsets of each strongly
connected component; components larger than 22 nodes fall back to Eades' greedy order), then each node's
layer is one more than the highest layer it imports along the arrows that point down. An upward arrow is
one that closes a package-level cycle: it cannot be drawn downward in any order without turning another one
up. Zero upward arrows means the packages form a DAG.

Seams and names (`code_scan`, the same rules `tests/store/test_seams.py` and `tests/test_names.py` enforce,
over `ohara_lab/` and `widgets/`):
- `store: Any` -- parameters named `store` annotated `Any` in public functions and methods (no name on the
  way from the module down starts with an underscore), and in every function;
- Atlas returning Any -- public methods and properties of `ohara_lab.atlas.Atlas` whose return annotation
  mentions `Any`;
- relation literals -- string constants equal to one of `records.RELATIONS` (docstrings aside), or quoting
  one inside query text (`relation = 'SIMILAR_TO'`), outside `records.py`;
- id building -- a string starting `"<collection>/"` (`ids.COLLECTIONS`) added to something, or an f-string
  starting so, outside `ids.py`; id parsing -- `.startswith/.partition/.split("<collection>/")` and
  `LIKE '<collection>/%'`-style query text, outside `ids.py`;
- environment reads -- `os.environ`, `os.getenv/putenv/unsetenv`, `from os import environ`, outside
  `settings.py`.
(Before the scanners were folded, this command counted only exact relation constants, `"<collection>/" + x`
and `os.environ/getenv`, with grimp for the graph; the numbers in docs/architecture.md say which.)

The issue's own figures ("33 packages and modules in 12 layers, 155 import arrows, 6 pointing back up")
were taken by a method it does not give; this command's definitions are the ones above, so compare its
before and after numbers with each other.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: the repository's benchmarks/ package is importable
    sys.path.insert(0, str(ROOT))

from benchmarks import code_scan  # noqa: E402

PACKAGE = "ohara_lab"
DP_LIMIT = 22  # exact ordering up to 2**22 subsets per component


# ---------------------------------------------------------------------------------------------- import graph
def package_graph(package: str = PACKAGE) -> dict[str, set[str]]:
    """Top-level node -> the top-level nodes it imports (TYPE_CHECKING imports excluded)."""
    return code_scan.package_graph(ROOT / package)


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
def _files() -> list[tuple[str, Path]]:
    files = sorted((ROOT / PACKAGE).rglob("*.py")) + sorted((ROOT / "widgets").rglob("*.py"))
    return [(str(p.relative_to(ROOT)), p) for p in files]


def store_any(files: list[tuple[str, Path]], public_only: bool = True) -> list[str]:
    hits = []
    for path, p in files:
        hits += code_scan.untyped_store_parameters(p.read_text(encoding="utf-8"), path, public_only=public_only)
    return hits


def atlas_any(files: list[tuple[str, Path]]) -> list[str]:
    tree = ast.parse((ROOT / PACKAGE / "atlas.py").read_text(encoding="utf-8"))
    return [f"{PACKAGE}/atlas.py:{fn.lineno} Atlas.{fn.name} -> {ast.unparse(fn.returns)}"
            for fn in code_scan.public_methods(tree, "Atlas") if fn.returns is not None and code_scan.mentions_any(fn.returns)]


def _string_constants(tree: ast.Module) -> dict[str, str]:
    """Module-level `NAME = "..."` / `NAME: Final = "..."` assignments (records' relation constants)."""
    found = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else getattr(node, "target", None)
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
            found[target.id] = value.value
    return found


def _tuple_constant(path: Path, name: str) -> tuple[str, ...]:
    """A module-level tuple of strings, its items literals or names of string constants (read, not imported:
    the checkout measured need not be the one installed)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = _string_constants(tree)
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets) and isinstance(node.value, ast.Tuple):  # type: ignore[union-attr]
            return tuple(names[e.id] if isinstance(e, ast.Name) else ast.literal_eval(e) for e in node.value.elts)  # type: ignore[union-attr]
    raise LookupError(name)


def name_hits(files: list[tuple[str, Path]]) -> dict[str, list[str]]:
    """rule -> `path:line snippet` of every name outside its home (no allowlist)."""
    rules = code_scan.NameRules(_tuple_constant(ROOT / PACKAGE / "records.py", "RELATIONS"),
                                _tuple_constant(ROOT / PACKAGE / "ids.py", "COLLECTIONS"))
    rel = [(path.removeprefix(PACKAGE + "/"), p) for path, p in files]
    out: dict[str, list[str]] = {rule: [] for rule in code_scan.HOMES}
    for f, rule, line, snippet in rules.package_violations(rel):
        out[rule].append(f"{f}:{line} {snippet}")
    return out


# --------------------------------------------------------------------------------------------------- report
def counts() -> tuple[dict[str, int], dict[str, list[str]]]:
    graph = package_graph()
    lay = layering(graph)
    sources = _files()
    names = name_hits(sources)
    detail = {
        "upward arrows": [f"{a} -> {b}" for a, b in lay.upward],
        "cycles": [" ".join(c) for c in lay.cycles],
        "layers": [
            f"{layer}: " + " ".join(sorted(v for v in lay.layers if lay.layers[v] == layer))
            for layer in range(lay.depth)
        ],
        "store: Any": store_any(sources),
        "Atlas -> Any": atlas_any(sources),
        "relation literals": names["relation"],
        "id building": names["id-build"],
        "id parsing": names["id-parse"],
        "environment reads": names["env"],
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
        "  of them SIMILAR_TO, files": files([h for h in detail["relation literals"] if "SIMILAR_TO" in h.split(" ", 1)[1]]),
        "collection-prefix id building outside ids.py": len(detail["id building"]),
        "  files holding them": files(detail["id building"]),
        "  of them entities/": sum("'entities/" in h or '"entities/' in h for h in detail["id building"]),
        "collection-prefix id parsing outside ids.py": len(detail["id parsing"]),
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
