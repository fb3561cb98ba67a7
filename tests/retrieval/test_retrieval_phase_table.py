"""One declaration per phase (issue 29.3): `phase_table.PHASE_TABLE` and every place that names a phase agree.

Each test fails when a phase is declared in one place only: in the table and not in the engine, the
settings or the docs, or the other way round; and when code spells a phase name the table does not know.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

import ohara_lab
from ohara_lab.phase_table import MODES, PHASE, PHASE_NAMES, PHASE_TABLE
from ohara_lab.retrieval import engine, fusion, hits, result
from ohara_lab.settings import ORIGINAL_PROFILE, Settings, describe

ROOT = Path(ohara_lab.__file__).resolve().parents[1]
# A prior, a stopping threshold, and the floor BM25's own weight is raised to inside one long document.
NOT_PHASE_WEIGHTS = {"temporal_weight", "explorer_stop_weight", "long_document_bm25_weight"}
NOT_PHASE_SKIPS = {"synonymy"}  # the graph walk says its SYNONYM_OF edges are missing under this key


def test_names_are_unique_and_the_engine_runs_each_phase_once():
    assert len(PHASE_NAMES) == len(PHASE_TABLE) == len(set(PHASE_NAMES))
    assert sorted(engine.RUN_ORDER) == sorted(PHASE_NAMES)
    assert engine.RUN_ORDER[0] == "bm25" and engine.RUN_ORDER[-1] == "structural"  # seeds first, after TOC last
    assert all(set(p.feeds) <= set(PHASE_NAMES) for p in PHASE_TABLE)


def test_hits_and_fusion_read_the_table_in_its_order():
    assert hits.PHASES == PHASE_NAMES
    assert list(fusion.base_weights(Settings())) == list(PHASE_NAMES)
    assert list(fusion.MODE_MULTIPLIERS) == list(MODES)
    for i, mode in enumerate(MODES):
        assert fusion.MODE_MULTIPLIERS[mode] == {p.name: p.modes[i] for p in PHASE_TABLE}


@pytest.mark.parametrize("phase", PHASE_NAMES)
def test_a_phase_weight_is_read_from_its_own_setting(phase):
    spec = PHASE[phase]
    base = Settings(**{p.gate: True for p in PHASE_TABLE if p.gate})
    moved = base.override(**{spec.weight: 7.5})
    before, after = fusion.base_weights(base), fusion.base_weights(moved)
    assert after[phase] == 7.5
    assert {k: v for k, v in after.items() if k != phase} == {k: v for k, v in before.items() if k != phase}
    if spec.gate:  # its gate off: weight 0 whatever the setting says
        assert fusion.base_weights(moved.override(**{spec.gate: False}))[phase] == 0.0


def test_every_phase_weight_setting_is_in_the_table_and_the_other_way_round():
    known = {f.name: f for f in dataclasses.fields(Settings)}
    weights = {name for name in known if name.endswith("_weight")} - NOT_PHASE_WEIGHTS
    assert weights == {p.weight for p in PHASE_TABLE}
    for p in PHASE_TABLE:
        assert known[p.weight].default == p.default_weight, p.name  # the `default` profile's value
        assert p.gate is None or known[p.gate].type == "bool", p.name  # a switch


def test_the_original_profile_sets_the_tables_weights_and_no_other_phase_weight():
    phase_fields = {p.weight for p in PHASE_TABLE}
    assert {k: v for k, v in ORIGINAL_PROFILE.items() if k in phase_fields} == {
        p.weight: p.original_weight for p in PHASE_TABLE if p.original_weight is not None
    }
    original = Settings.from_env(env={"OHARA_PROFILE": "original"})
    for p in PHASE_TABLE:
        want = p.default_weight if p.original_weight is None else p.original_weight
        assert getattr(original, p.weight) == want, p.name


def test_explain_and_the_widgets_name_only_table_phases():
    assert set(result.WHY) <= set(PHASE_NAMES)
    cards = ROOT / "widgets" / "cards.py"
    assert "PHASE_TABLE" in cards.read_text(encoding="utf-8")  # badges come from the table, not a copy


def test_the_docs_list_every_phase_and_only_those():
    engine_page = (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| ", engine_page, re.M)
    assert rows == list(PHASE_NAMES)
    settings_page = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    env = {d.name: d.env for d in describe()}
    assert all(f"| `{env[p.weight]}` |" in settings_page for p in PHASE_TABLE)


def _phase_literals(tree: ast.AST) -> list[tuple[int, str]]:
    """String constants code uses as a phase name: `Hit(id, doc, "x", ...)`, `Contribution("x", ...)`,
    `.best("x")`, `<...>.hits["x"]` / `.hits.get("x")`, `<...>.skipped["x"]`."""
    found = []
    for node in ast.walk(tree):
        arg = None
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name == "Hit" and len(node.args) >= 3:
                arg = node.args[2]
            elif (
                name in ("Contribution", "best")
                and node.args
                or (
                    name == "get"
                    and isinstance(func, ast.Attribute)
                    and isinstance(func.value, ast.Attribute)
                    and func.value.attr == "hits"
                    and node.args
                )
            ):
                arg = node.args[0]
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr in ("hits", "skipped")
        ):
            arg = node.slice
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            found.append((node.lineno, arg.value))
    return found


def test_code_spells_no_phase_the_table_does_not_know():
    unknown = []
    checked = 0
    for path in sorted([*(ROOT / "ohara_lab").rglob("*.py"), *(ROOT / "widgets").rglob("*.py")]):
        for line, name in _phase_literals(ast.parse(path.read_text(encoding="utf-8"))):
            checked += 1
            if name not in PHASE_NAMES and name not in NOT_PHASE_SKIPS:
                unknown.append(f"{path.relative_to(ROOT)}:{line}: {name!r}")
    assert checked > 20  # the scan sees the phases' own hits (a scan that matches nothing proves nothing)
    assert unknown == []


def test_the_scan_catches_an_old_name():
    tree = ast.parse('state.hits["fulltext"] = []\nf.best("cross_doc_edge")\nHit("a", "d", "cluster_summary", 1.0)')
    assert sorted(name for _, name in _phase_literals(tree)) == ["cluster_summary", "cross_doc_edge", "fulltext"]


def test_a_query_reports_every_phase_by_its_one_name(samples_atlas):
    r = samples_atlas.query("What does the GPL require when you distribute a modified program?", profile="original")
    assert list(r.weights) == list(PHASE_NAMES)
    assert {c.phase for f in r.fused for c in f.contributions} <= set(PHASE_NAMES)
    assert set(r.skipped) - NOT_PHASE_SKIPS <= set(PHASE_NAMES)
    for name in PHASE_NAMES:  # each phase ran (a step) or says why not
        assert name in r.steps or name in r.skipped, name
    shown = r.explain(r.results[0].id)
    assert all(f"  {c.phase}: raw" in shown for c in r.results[0].contributions)
