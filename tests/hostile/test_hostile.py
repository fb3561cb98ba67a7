"""The hostile corpus through the real `ohara ingest`, each case in a confined subprocess.

A refused input ends in exactly one line on stderr naming the file and the
reason, exit status 1, within its CPU and memory budget, and the atlas reads the
same before and after (`ohara stats --json`, `ohara check --json`, and the database
file byte for byte). Hostile-looking
input that holds real text (one paragraph of a megabyte, HTML nested 5,000 deep)
is ingested within budget and leaves a sound atlas.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ohara_lab import Atlas

from tests.support import OFFLINE

from tests.hostile.cases import CASES, Case
from tests.hostile.runner import Limits, Run, ohara

ENV = {**os.environ, **{f"OHARA_{k.upper()}": str(v) for k, v in OFFLINE.items()}, "OHARA_NER": "rules"}
SEED = "# Field Notes\n\nAlice Smith counted crabs in Brittany on 3 March 2021.\n\nThe tide returned at noon.\n"


@pytest.fixture(scope="module")
def seed_atlas(tmp_path_factory) -> Path:
    """An atlas holding one small document; each case works on its own copy."""
    root = tmp_path_factory.mktemp("hostile_seed")
    (root / "notes.md").write_text(SEED)
    with Atlas.open(root / "atlas", **OFFLINE, ner="rules") as atlas:
        assert atlas.ingest([root / "notes.md"], progress=False).ok
    return root / "atlas"


@pytest.fixture(scope="module")
def seed_snapshot(seed_atlas: Path) -> tuple[str, str, int]:
    return snapshot(seed_atlas)


def snapshot(atlas: Path) -> tuple[str, str, int]:
    """What the atlas says about itself: stats and check, as JSON text, and check's exit status."""
    stats = ohara("stats", "--atlas", str(atlas), "--json", env=ENV)
    check = ohara("check", "--atlas", str(atlas), "--json", env=ENV)
    assert stats.returncode == 0, stats.stderr
    return stats.stdout, check.stdout, check.returncode


def db_bytes(atlas: Path) -> bytes:
    """The atlas's database file as it is on disk once every connection is closed."""
    return (atlas / "atlas.db").read_bytes()


def run_case(case: Case, seed: Path, tmp: Path) -> tuple[Run, Path, Path, Path]:
    atlas = tmp / "atlas"
    shutil.copytree(seed, atlas)
    inputs = tmp / "inputs"
    inputs.mkdir()
    target = case.build(inputs)
    limits = Limits(cpu_s=int(case.cpu_s * 3), wall_s=int(case.cpu_s * 20))
    run = ohara("ingest", str(target), "--atlas", str(atlas), env={**ENV, **case.env}, limits=limits, cwd=tmp)
    return run, target, inputs, atlas


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c.name, marks=[pytest.mark.slow] if c.slow else []) for c in CASES]
)
def test_hostile_input(case: Case, seed_atlas: Path, seed_snapshot: tuple[str, str, int], tmp_path: Path) -> None:
    run, target, inputs, atlas = run_case(case, seed_atlas, tmp_path)
    report = f"exit {run.returncode}, {run.cpu_s:.1f} s CPU, {run.peak_mib:.0f} MiB\n{run.stdout}\n{run.stderr}"
    assert "Traceback" not in run.stderr, report
    lines = run.lines(case.expect)
    assert len(lines) == 1 and str(target) in lines[0] and case.reason in lines[0], report
    assert run.cpu_s < case.cpu_s and run.peak_mib < case.peak_mib, report
    if case.expect == "ingested":
        assert run.returncode == 0 and run.stderr.strip() == "", report
        stats, _, check_status = snapshot(atlas)
        assert check_status == 0 and '"documents": 2' in stats
    else:
        assert run.returncode == (1 if case.expect == "failed" else 0), report
        if case.expect == "failed":
            assert run.stderr.strip().splitlines() == lines, report  # exactly one error line
        assert snapshot(atlas) == seed_snapshot  # the copy reads exactly as the seed
        assert db_bytes(atlas) == db_bytes(seed_atlas)  # and is byte for byte what it was
    if case.verify:
        case.verify(inputs, atlas)
