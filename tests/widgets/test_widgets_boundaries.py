"""ARCHITECTURE rules 7 and 8: the core never imports the widgets; the map notebook holds no logic."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import ohara_lab

CORE = Path(ohara_lab.__file__).resolve().parent
NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "07_space_time_map.ipynb"
JUPYTER_MODULES = ("ohara_lab.widgets", "widgets", "ipywidgets", "pythreejs", "ipydatawidgets", "IPython",
                   "ipykernel", "jupyterlab", "jupyter_client")


def _imports(tree: ast.AST, package: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the module's package
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                found.add(f"{base}.{node.module}" if node.module else base)
            elif node.module:
                found.add(node.module)
    return found


def test_no_core_module_imports_the_jupyter_layer() -> None:
    offenders = []
    for path in CORE.rglob("*.py"):
        package = "ohara_lab." + ".".join(path.relative_to(CORE).parent.parts) if path.parent != CORE else "ohara_lab"
        for name in _imports(ast.parse(path.read_text(encoding="utf-8")), package.rstrip(".")):
            if any(name == m or name.startswith(m + ".") for m in JUPYTER_MODULES):
                offenders.append(f"{path.relative_to(CORE)}: {name}")
    assert offenders == []


def test_importing_the_core_and_the_map_adapter_loads_no_widget_module() -> None:
    code = ("import sys, ohara_lab, ohara_lab.atlas, ohara_lab.layout, ohara_lab.layout.from_atlas; "
            f"bad = [m for m in sys.modules if m.split('.')[0] in {list(JUPYTER_MODULES)!r} "
            "or m.startswith('ohara_lab.widgets')]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _code_cells() -> list[dict]:
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def test_notebook_has_one_typed_commented_parameters_cell() -> None:
    cells = [c for c in _code_cells() if "parameters" in c["metadata"].get("tags", [])]
    assert len(cells) == 1
    source = "".join(cells[0]["source"])
    tree = ast.parse(source)
    assert tree.body and all(isinstance(s, ast.AnnAssign) and isinstance(s.value, ast.Constant) for s in tree.body)
    names = [s.target.id for s in tree.body]  # type: ignore[union-attr]
    assert {"atlas_dir", "corpus", "resolution", "out_dir"} <= set(names)
    for line in source.splitlines():
        assert "  # " in line, f"parameter without a comment: {line}"


def test_notebook_cells_hold_no_logic() -> None:
    forbidden = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.While, ast.If, ast.Try,
                 ast.With, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp, ast.Lambda, ast.IfExp)
    cells = _code_cells()
    assert len(cells) >= 2  # the parameters cell and at least one that calls the package
    for cell in cells:
        tree = ast.parse("".join(cell["source"]))
        bad = [type(n).__name__ for n in ast.walk(tree) if isinstance(n, forbidden)]
        assert bad == [], "".join(cell["source"])


def test_notebook_is_committed_without_outputs() -> None:
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    cells = _code_cells()
    assert cells and all(c["outputs"] == [] and c["execution_count"] is None for c in cells)
    assert "widgets" not in nb["metadata"]  # no saved widget state (megabytes of buffers)
