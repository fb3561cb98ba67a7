"""Graph analytics on built atlases: community methods compared, and the cost of a full `analyze`.

    python benchmarks/bench_analytics.py ATLAS_DIR [ATLAS_DIR ...] [--repeat 3]

For each atlas: the RELATED_TO graph's size; per community method (networkx
Louvain, leidenalg Leiden, networkx label propagation) the median seconds over
`--repeat` runs, the ratio to Louvain measured in the same run, the number of
communities of size >= 2 and the modularity, and whether two runs with the same
seed agree; then one full `analyze` with its counts and per-part seconds. This
is a benchmark, not a test: it prints, it asserts nothing.
"""
from __future__ import annotations

import argparse
import functools
import json
import statistics
import time

from ohara_lab import Atlas
from ohara_lab.analytics import communities
from ohara_lab.analytics.graph import related_graph


def timed(fn, repeat: int):  # type: ignore[no-untyped-def]
    out, times = None, []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return out, statistics.median(times)


def bench(path: str, repeat: int) -> None:
    with Atlas.open(path) as atlas:
        g, load_s = timed(lambda: related_graph(atlas.store), 1)
        print(json.dumps({"atlas": path, "entities": atlas.stats()["entities"], "graph_nodes": g.number_of_nodes(),
                          "graph_edges": g.number_of_edges(), "load_s": round(load_s, 3)}))
        base = None
        for method in communities.METHODS:
            try:
                parts, secs = timed(functools.partial(communities.detect, g, method, seed=42), repeat)
            except Exception as e:  # noqa: BLE001 - a missing optional library is reported, not fatal
                print(json.dumps({"method": method, "error": str(e)}))
                continue
            again = communities.detect(g, method, seed=42)
            base = base or secs
            kept = [p for p in parts if len(p) >= communities.MIN_SIZE]
            print(json.dumps({"method": method, "seconds": round(secs, 3), "vs_louvain": round(secs / base, 2),
                              "communities": len(kept), "members": sum(len(p) for p in kept),
                              "modularity": round(communities.modularity(g, parts), 4),
                              "deterministic": sorted(map(sorted, parts)) == sorted(map(sorted, again))}))
        t = time.perf_counter()
        report = atlas.analyze()
        print(json.dumps({"analyze_s": round(time.perf_counter() - t, 2), **report.to_dict()}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("atlases", nargs="+")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for path in args.atlases:
        bench(path, args.repeat)


if __name__ == "__main__":
    main()
