"""`ohara --help` wall time, next to a bare interpreter start measured in the same run.

    python benchmarks/bench_cli.py [--runs 15] [--baseline main]

Runs `ohara --help` from this working tree and from a baseline checkout
(`git archive <ref>`), interleaved, next to a bare `python -c pass`, and prints the
median and minimum of each, what the CLI adds on top of Python's own start-up, and
the modules `import ohara_lab.cli` pulls in that weigh most (`python -X importtime`).
A benchmark: it prints, it asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HELP = "import sys; from ohara_lab.cli import main; sys.argv[0] = 'ohara'; main()"


def once(cmd: list[str], src: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, cwd=src, env={**os.environ, "PYTHONPATH": str(src)})
    return time.perf_counter() - t0


def checkout(ref: str, into: Path) -> Path:
    data = subprocess.run(["git", "-C", str(REPO), "archive", ref, "ohara_lab", "widgets", "pyproject.toml"],
                          check=True, capture_output=True).stdout
    (into / "src.tar").write_bytes(data)
    with tarfile.open(into / "src.tar") as tar:
        tar.extractall(into, filter="data")
    return into


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
    ap.add_argument("--baseline", default="main", help="git ref measured in the same run ('' for none)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sources = {"this": REPO}
        if args.baseline:
            sources["baseline"] = checkout(args.baseline, Path(tmp))
        times: dict[str, list[float]] = {"python -c pass": []} | {f"ohara --help ({n})": [] for n in sources}
        for _ in range(args.runs):  # interleaved, so a burst of load hits every command alike
            times["python -c pass"].append(once([sys.executable, "-c", "pass"], REPO))
            for name, src in sources.items():
                times[f"ohara --help ({name})"].append(once([sys.executable, "-c", HELP, "--help"], src))
    bare = statistics.median(times["python -c pass"])
    for name, t in times.items():
        print(f"{name:<24} median {statistics.median(t) * 1000:7.1f} ms   min {min(t) * 1000:7.1f} ms   "
              f"above python: {(statistics.median(t) - bare) * 1000:7.1f} ms")
    print("heaviest imports of ohara_lab.cli (cumulative µs):")
    for us, name in heaviest_imports():
        print(f"  {us:>8}  {name}")


if __name__ == "__main__":
    main()
