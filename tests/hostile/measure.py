"""Measure the hostile corpus: CPU, wall time, peak memory and the message, per case.

    python -m tests.hostile.measure                      # this checkout
    python -m tests.hostile.measure --src /path/to/other/checkout --cpu 120
    python -m tests.hostile.measure --slow --cases epub_member_1gib,markdown_line_1mb_spacy

Each case runs `ohara ingest` once in a fresh copy of a one-document atlas, under
the same limits as the test suite (`--cpu` caps CPU seconds; over it the run is
killed and reported as such). `--src` runs another checkout's code (PYTHONPATH)
with these same inputs, for before/after tables. Prints Markdown; asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import tempfile
from pathlib import Path

from tests.hostile.cases import CASES, Case
from tests.hostile.runner import Limits, Run, ohara
from tests.support import OFFLINE

SEED = "# Field Notes\n\nAlice Smith counted crabs in Brittany on 3 March 2021.\n\nThe tide returned at noon.\n"


def message(run: Run) -> str:
    """The line a user reads: the per-file report, else how the process ended."""
    if run.returncode < 0:
        return f"killed by {signal.Signals(-run.returncode).name}"
    for status in ("failed", "skipped", "ingested", "replaced"):
        if lines := run.lines(status):
            return lines[0]
    tail = [line for line in run.stderr.splitlines() if line.strip()]
    return tail[-1] if tail else f"(exit {run.returncode}, no output)"


def measure(case: Case, seed: Path, env: dict[str, str], cpu_s: int) -> Run:
    with tempfile.TemporaryDirectory() as tmp:
        atlas = Path(tmp) / "atlas"
        shutil.copytree(seed, atlas)
        inputs = Path(tmp) / "inputs"
        inputs.mkdir()
        target = case.build(inputs)
        run = ohara("ingest", str(target), "--atlas", str(atlas), env={**env, **case.env},
                    limits=Limits(cpu_s=cpu_s, wall_s=cpu_s * 20), cwd=Path(tmp))
        run.stdout = run.stdout.replace(str(inputs) + "/", "")
        run.stderr = run.stderr.replace(str(inputs) + "/", "")
        return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, help="checkout whose code runs (default: the installed ohara_lab)")
    parser.add_argument("--cpu", type=int, default=120, help="CPU seconds before a run is killed")
    parser.add_argument("--slow", action="store_true", help="include the slow cases")
    parser.add_argument("--cases", help="comma-separated case names (default: all fast ones)")
    args = parser.parse_args()
    env = {**os.environ, **{f"OHARA_{k.upper()}": str(v) for k, v in OFFLINE.items()}, "OHARA_NER": "rules"}
    if args.src:
        env["PYTHONPATH"] = str(args.src.resolve())
    wanted = set(args.cases.split(",")) if args.cases else None
    cases = [c for c in CASES if (c.name in wanted if wanted else args.slow or not c.slow)]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "notes.md").write_text(SEED)
        seeded = ohara("ingest", str(Path(tmp) / "notes.md"), "--atlas", str(Path(tmp) / "seed"), env=env)
        assert seeded.returncode == 0, seeded.stderr
        print(f"code: {args.src or 'installed'}; CPU cap {args.cpu} s\n")
        print("| case | exit | CPU s | wall s | peak MiB | message |")
        print("|---|---|---|---|---|---|")
        for case in cases:
            run = measure(case, Path(tmp) / "seed", env, args.cpu)
            text = message(run).replace("|", "\\|")
            text = text if len(text) <= 160 else text[:157] + "..."
            print(f"| {case.name} | {run.returncode} | {run.cpu_s:.1f} | {run.wall_s:.1f} | {run.peak_mib:.0f} | {text} |",
                  flush=True)


if __name__ == "__main__":
    main()
