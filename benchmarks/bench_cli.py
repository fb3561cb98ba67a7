"""`ohara --help` wall time, next to a bare interpreter start measured in the same run.

    python benchmarks/bench_cli.py [--runs 15]

Prints the median and minimum of each and what the CLI adds on top of Python's
own start-up, plus the modules `import ohara_lab.cli` pulls in that weigh most
(`python -X importtime`). A benchmark: it prints, it asserts nothing.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time


def wall(cmd: list[str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        out.append(time.perf_counter() - t0)
    return out


def heaviest_imports(n: int = 6) -> list[tuple[int, str]]:
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", "import ohara_lab.cli"], capture_output=True,
                         text=True, check=True).stderr
    rows = []
    for line in err.splitlines()[1:]:  # "import time: self | cumulative | name"
        _, cumulative, name = line.split("|")
        rows.append((int(cumulative), name.rstrip()))
    return sorted(rows, reverse=True)[:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    ohara = shutil.which("ohara") or sys.exit("the `ohara` command is not installed (pip install -e .)")
    python = wall([sys.executable, "-c", "pass"], args.runs)
    helps = wall([ohara, "--help"], args.runs)
    for name, t in (("python -c pass", python), ("ohara --help", helps)):
        print(f"{name:<16} median {statistics.median(t) * 1000:7.1f} ms   min {min(t) * 1000:7.1f} ms")
    print(f"ohara --help adds {(statistics.median(helps) - statistics.median(python)) * 1000:.1f} ms (median) "
          f"to the interpreter's start-up")
    print("heaviest imports of ohara_lab.cli (cumulative µs):")
    for us, name in heaviest_imports():
        print(f"  {us:>8}  {name}")


if __name__ == "__main__":
    main()
