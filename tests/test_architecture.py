"""The import rules of docs/architecture.md, as import-linter contracts in pyproject.toml ([tool.importlinter]).

Each contract is checked on the package as it is; then each is shown to break on one new import added
to the package's real import graph (so a kept contract is not kept because it checks nothing), and the
checker itself is run end to end on a small package written to tmp_path: a new violation fails, an
allowlisted one passes, an allowlist entry that no longer matches an import fails.
"""

from __future__ import annotations

import importlib
import re
import sys
import textwrap
from copy import deepcopy
from pathlib import Path
from typing import Any

import grimp
import pytest
from importlinter import configuration
from importlinter.application import use_cases
from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.layers import LayersContract
from importlinter.contracts.protected import ProtectedContract

configuration.configure()  # what the `lint-imports` command does first: registers the readers and renderers
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
OPTIONS = use_cases.read_user_options(str(PYPROJECT))
CONTRACTS = {c["id"]: c for c in OPTIONS.contracts_options}
TYPES: dict[str, Any] = {"forbidden": ForbiddenContract, "layers": LayersContract, "protected": ProtectedContract}


def _lint(config: Path, contract_id: str | None = None) -> bool:
    """import-linter's own entry point (what `lint-imports` runs); prints its report, which pytest shows."""
    importlib.invalidate_caches()
    return use_cases.lint_imports(
        config_filename=str(config),
        limit_to_contracts=(contract_id,) if contract_id else (),
        cache_dir=None,
        no_logo=True,
    )


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("ohara_lab", cache_dir=None, exclude_type_checking_imports=True)


def _kept(contract_id: str, graph: grimp.ImportGraph) -> bool:
    options = CONTRACTS[contract_id]
    contract = TYPES[options["type"]](
        name=options["name"], session_options=OPTIONS.session_options, contract_options=options
    )
    return contract.check(deepcopy(graph), verbose=False).kept


def test_the_contracts_are_the_ones_the_docs_name() -> None:
    assert set(CONTRACTS) == {"store-persists", "stores-own-search", "layers"}
    assert str(OPTIONS.session_options["exclude_type_checking_imports"]).lower() == "true"


@pytest.mark.parametrize("contract_id", sorted(CONTRACTS))
def test_the_package_keeps_the_contract(contract_id: str) -> None:
    # An allowlisted import that is gone fails here too ("unmatched ignore import"): delete its line.
    assert _lint(PYPROJECT, contract_id), f"contract {contract_id!r} broken: see the report above"


def test_the_docs_draw_the_layers_of_the_contract() -> None:
    """docs/architecture.md's layer table lists the contract's layers, in order, with the same siblings."""
    doc = (PYPROJECT.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = doc.split("## Layers", 1)[1].split("###", 1)[0]
    rows = [line.split("|") for line in table.splitlines() if re.match(r"\| \d+ \|", line)]
    drawn = [re.findall(r"`(\w+)`", "|".join(row[2:-2])) for row in rows]
    declared = [re.findall(r"ohara_lab\.(\w+)", layer) for layer in CONTRACTS["layers"]["layers"]]
    assert drawn == declared


# One new import per row, each one the rule exists to stop.
NEW_VIOLATIONS = [
    ("store-persists", "ohara_lab.store.sqlite", "ohara_lab.ingest.linking"),
    ("store-persists", "ohara_lab.store.arango_write", "ohara_lab.entities"),
    ("store-persists", "ohara_lab.store.sqlite_curation", "ohara_lab.entities.changeset"),
    ("stores-own-search", "ohara_lab.retrieval.phases.vector", "ohara_lab.store.vectors"),
    ("stores-own-search", "ohara_lab.embed.minilm", "ohara_lab.store.ann"),
    ("layers", "ohara_lab.store.sqlite", "ohara_lab.retrieval.engine"),  # a store reaching up
    ("layers", "ohara_lab.ingest.pipeline", "ohara_lab.retrieval.engine"),  # write path -> query path
    ("layers", "ohara_lab.settings", "ohara_lab.store.sqlite"),  # the bottom layer reaching up
    ("layers", "ohara_lab.llm.gemini", "ohara_lab.retrieval.engine"),  # llm/, but not an allowlisted module
]


@pytest.mark.parametrize(("contract_id", "importer", "imported"), NEW_VIOLATIONS)
def test_a_new_import_breaks_the_contract(
    graph: grimp.ImportGraph, contract_id: str, importer: str, imported: str
) -> None:
    assert importer in graph.modules and imported in graph.modules
    assert _kept(contract_id, graph)
    changed = deepcopy(graph)
    changed.add_import(importer=importer, imported=imported, line_number=1, line_contents="import x")
    assert not _kept(contract_id, changed)


# ----------------------------------------------------------------------- the checker on a package of its own
CONFIG = """
[tool.importlinter]
root_package = "{package}"

[[tool.importlinter.contracts]]
id = "store-persists"
name = "store imports nothing from ingest"
type = "forbidden"
source_modules = ["{package}.store"]
forbidden_modules = ["{package}.ingest"]
ignore_imports = [{ignore}]
"""


def _toy(root: Path, package: str, ignore: str = "") -> Path:
    for module, body in {
        "__init__": "",
        "records": "",
        "store/__init__": "",
        "store/sqlite": "from .. import records\n",
        "ingest/__init__": "",
        "ingest/pipeline": "from ..store import sqlite\n",
    }.items():
        path = root / package / f"{module}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_text(body)
    config = root / "pyproject.toml"
    config.write_text(textwrap.dedent(CONFIG).format(package=package, ignore=ignore))
    return config


def test_the_checker_on_a_package_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = "toy_" + tmp_path.name.replace("-", "_")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert package not in sys.modules
    assert _lint(_toy(tmp_path, package))  # ingest -> store is allowed

    bad = tmp_path / package / "store" / "common.py"
    bad.write_text("def route():\n    from ..ingest import pipeline\n    return pipeline\n")  # a lazy import counts
    assert not _lint(_toy(tmp_path, package))

    allowed = f'"{package}.store.common -> {package}.ingest.pipeline"'
    assert _lint(_toy(tmp_path, package, ignore=allowed))

    bad.unlink()  # the violation is fixed, its allowlist entry stays: stale, so it fails
    assert not _lint(_toy(tmp_path, package, ignore=allowed))


# ------------------------------------------------------ the counting of benchmarks/architecture_counts.py
def _counts_module(monkeypatch: pytest.MonkeyPatch) -> Any:
    import importlib.util

    path = PYPROJECT.parent / "benchmarks" / "architecture_counts.py"
    spec = importlib.util.spec_from_file_location("architecture_counts", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_the_layering_counts_the_fewest_arrows_pointing_up(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _counts_module(monkeypatch)
    # a -> b -> c -> a is one loop: one arrow must point up, whichever it is; d sits on top of it.
    # e <-> f is a second loop and needs one more; g imports nothing.
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}, "g": set()}
    lay = counts.layering(graph)
    assert len(lay.upward) == 2
    assert sorted(map(sorted, lay.cycles)) == [["a", "b", "c"], ["e", "f"]]
    # whichever arrow of the loop points up, the other two stack a, b, c in three layers
    assert sorted(lay.layers[v] for v in "abc") == [0, 1, 2]
    assert lay.layers["d"] == lay.layers["a"] + 1 and {lay.layers["e"], lay.layers["f"]} == {0, 1}
    assert lay.layers["g"] == 0 and lay.depth == max(3, lay.layers["d"] + 1)
    # the greedy fallback for large loops gives an order with the same count here
    order = counts._order_greedy(["a", "b", "c"], graph)
    assert sorted(order) == ["a", "b", "c"]
    assert sum(order.index(w) > order.index(v) for v in order for w in graph[v]) == 1
