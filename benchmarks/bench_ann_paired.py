"""ANN libraries measured side by side under the same load: build CPU time, interleaved queries.

    python benchmarks/bench_ann_paired.py --vectors V.npz --libs faiss-cpu usearch --ef 64 128 256

On a shared machine the wall-clock build time and query latency of `bench_ann.py` move with
the other processes' load (the same usearch build took 460 s and 267 s in one run of
eval/scale/ann-minilm-100k.md). Here each index is built on one thread and its build is also
timed in CPU seconds of this process (`time.process_time`, which other processes do not
inflate), and the queries are interleaved: query i is asked of every library in turn before
query i + 1, so each library's p50 is taken under the same load. Recall@10 is against the
exact search, as in bench_ann.py. Writes eval/scale/<stem>.md.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_ann as b  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--libs", nargs="+", default=["faiss-cpu", "usearch"])
    ap.add_argument("--ef", type=int, nargs="+", default=[64, 128, 256])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--stem", default="ann-minilm-100k-paired")
    args = ap.parse_args()
    load0 = os.getloadavg()
    data, queries, label = b.npz_data(args.vectors, args.queries, 0)
    truth, _ = b.exact_top(data, queries)
    built, rows = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.libs:
            engine = b.LIBS[name][0]()
            w0, c0 = time.perf_counter(), time.process_time()
            engine.build(data, Path(tmp) / name)
            built[name] = (engine, time.perf_counter() - w0, time.process_time() - c0,
                           sum(f.stat().st_size for f in Path(tmp).glob(name + "*")) / 1e6)
            print(f"{name}: built in {built[name][1]:.1f} s wall, {built[name][2]:.1f} s CPU", flush=True)
    for ef in args.ef:
        wall = {n: [] for n in built}
        cpu = {n: [] for n in built}
        hits = dict.fromkeys(built, 0)
        for q, want in zip(queries, truth.rows):
            for name, (engine, *_rest) in built.items():
                w0, c0 = time.perf_counter(), time.process_time()
                got = engine.search(q, ef)
                wall[name].append((time.perf_counter() - w0) * 1e3)
                cpu[name].append((time.process_time() - c0) * 1e3)
                hits[name] += len(want & set(got))
        for name, (_, build_wall, build_cpu, mb) in built.items():
            rows.append((name, ef, build_wall, build_cpu, statistics.median(wall[name]),
                         float(np.percentile(wall[name], 95)), statistics.mean(cpu[name]),
                         hits[name] / (b.K * len(queries)), mb))
            print(rows[-1], flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], check=False, cwd=b.REPO, capture_output=True,
                            text=True).stdout.strip()
    load = "/".join(f"{x:.2f}" for x in load0), "/".join(f"{x:.2f}" for x in os.getloadavg())
    versions = ", ".join(f"{n} {b._version(b.LIBS[n][1])}" for n in args.libs)
    lines = [f"# ANN libraries side by side on {label}\n",
             f"`python benchmarks/bench_ann_paired.py {' '.join(sys.argv[1:])}` on {platform.machine()}, "
             f"CPython {platform.python_version()}, 2 shared cores; commit {commit}; {versions}; load average "
             f"(1/5/15 min) {load[0]} at the start, {load[1]} at the end. M = {b.M}, ef_construction = "
             f"{b.EF_CONSTRUCTION}, one build thread; {len(queries)} held-out real queries, asked of the libraries "
             "in turn (same load for each); recall@10 by id against the exact search.\n",
             "| library | ef | build s (wall) | build s (CPU) | p50 ms | p95 ms | mean CPU ms | recall@10 | index MB |",
             "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.1f} | {r[4]:.3f} | {r[5]:.3f} | {r[6]:.3f} | {r[7]:.4f} | "
              f"{r[8]:.0f} |" for r in sorted(rows, key=lambda r: (r[1], r[0]))]
    (b.REPO / "eval" / "scale" / f"{args.stem}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
