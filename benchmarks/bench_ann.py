"""Approximate k-NN (HNSW) next to the exact search it replaces: recall@10 and latency, per library.

    python benchmarks/bench_ann.py                          # 100k x 384, hnswlib / faiss-cpu / usearch
    python benchmarks/bench_ann.py --n 1000000 --libs hnswlib   # the 1M point, one library
    python benchmarks/bench_ann.py --data clustered         # vectors with structure, like real embeddings

Per library and search breadth (ef): build time, single-query latency p50/p95 (k = 10, one
thread, as the engine asks), recall@10 against the exact top 10 of `ohara_lab.embed.index.knn`
(measured in the same run, its latency the baseline of the speed-up column), index size on disk.
Data: "uniform" = i.i.d. random unit vectors (the issue's 1M point; the hardest case for a graph
index, since no neighbour is much nearer than any other), "clustered" = unit vectors around 2,000
random centres (closer to what sentence embeddings look like). Queries are fresh vectors drawn
the same way. Writes eval/scale/ann.md (and .csv) unless --out is empty.
"""
from __future__ import annotations

import argparse
import csv
import importlib
import platform
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DIM = 384  # all-MiniLM-L6-v2
K = 10
M = 16  # graph degree, the same for every library
EF_CONSTRUCTION = 200  # --ef-construction; ohara_lab.embed.ann builds with 200


@dataclass
class Row:
    library: str
    data: str
    n: int
    ef: int
    build_s: float
    p50_ms: float
    p95_ms: float
    exact_p50_ms: float
    recall_at_10: float
    speedup: float
    index_mb: float


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def make_data(kind: str, n: int, queries: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        return unit(rng.standard_normal((n, DIM), dtype=np.float32)), unit(rng.standard_normal((queries, DIM), dtype=np.float32))
    centres = unit(rng.standard_normal((2000, DIM), dtype=np.float32))

    def around(count: int) -> np.ndarray:
        out = np.empty((count, DIM), np.float32)
        for start in range(0, count, 100_000):  # in parts: a 1M x 384 float64 temporary would be 3 GB
            part = slice(start, min(count, start + 100_000))
            pick = rng.integers(0, len(centres), part.stop - part.start)
            out[part] = centres[pick] + 0.8 * rng.standard_normal((part.stop - part.start, DIM), dtype=np.float32) / np.sqrt(DIM)
        return unit(out)

    return around(n), around(queries)


def atlas_data(atlas_dir: str, queries: int, seed: int) -> tuple[np.ndarray, np.ndarray, str]:
    """An atlas's own vectors (its largest model), with `queries` random rows held out as the questions."""
    from ohara_lab.store.sqlite import SqliteStore

    with SqliteStore(atlas_dir, read_only=True) as store:
        model = max(store.vector_models().items(), key=lambda kv: kv[1])[0]
        _, matrix = store.vector_matrix(model)
    rng = np.random.default_rng(seed)
    held = rng.choice(len(matrix), size=queries, replace=False)
    keep = np.ones(len(matrix), dtype=bool)
    keep[held] = False
    return np.ascontiguousarray(matrix[keep]), np.ascontiguousarray(matrix[held]), f"atlas ({model})"


def exact_top(data: np.ndarray, queries: np.ndarray) -> tuple[list[set[int]], list[float]]:
    from ohara_lab.embed.index import knn

    ids = [str(i) for i in range(len(data))]
    truth, times = [], []
    for q in queries:
        t0 = time.perf_counter()
        found = knn(ids, data, q, K)
        times.append((time.perf_counter() - t0) * 1e3)
        truth.append({int(i) for i, _ in found})
    return truth, times


class Library:
    """One ANN library under test; `ef_construction` is its build breadth (--ef-construction)."""

    def __init__(self, ef_construction: int = EF_CONSTRUCTION):
        self.ef_construction = ef_construction


class Hnswlib(Library):
    name = "hnswlib"

    def build(self, data: np.ndarray, path: Path) -> None:
        import hnswlib

        self.index = hnswlib.Index(space="ip", dim=data.shape[1])
        self.index.init_index(max_elements=len(data), ef_construction=self.ef_construction, M=M, random_seed=0)
        self.index.set_num_threads(2)
        self.index.add_items(data, np.arange(len(data)))
        self.index.save_index(str(path))
        self.index.set_num_threads(1)

    def search(self, q: np.ndarray, ef: int) -> list[int]:
        self.index.set_ef(max(ef, K))
        labels, _ = self.index.knn_query(q, k=K)
        return labels[0].tolist()


class Faiss(Library):
    name = "faiss-cpu"

    def build(self, data: np.ndarray, path: Path) -> None:
        import faiss

        self.faiss = faiss
        self.index = faiss.IndexHNSWFlat(data.shape[1], M, faiss.METRIC_INNER_PRODUCT)
        self.index.hnsw.efConstruction = self.ef_construction
        self.index.add(data)
        faiss.write_index(self.index, str(path))
        faiss.omp_set_num_threads(1)

    def search(self, q: np.ndarray, ef: int) -> list[int]:
        self.index.hnsw.efSearch = max(ef, K)
        _, labels = self.index.search(q.reshape(1, -1), K)
        return labels[0].tolist()


class Usearch(Library):
    name = "usearch"

    def build(self, data: np.ndarray, path: Path) -> None:
        from usearch.index import Index

        self.index = Index(ndim=data.shape[1], metric="ip", dtype="f32", connectivity=M,
                           expansion_add=self.ef_construction)
        self.index.add(np.arange(len(data)), data)
        self.index.save(str(path))

    def search(self, q: np.ndarray, ef: int) -> list[int]:
        self.index.expansion_search = max(ef, K)
        return self.index.search(q, K, threads=1).keys.tolist()


LIBS = {"hnswlib": (Hnswlib, "hnswlib"), "faiss-cpu": (Faiss, "faiss"), "usearch": (Usearch, "usearch")}


def measure(lib: type, data: np.ndarray, queries: np.ndarray, truth: list[set[int]], exact_ms: float,
            efs: list[int], label: str, ef_construction: int = EF_CONSTRUCTION) -> list[Row]:
    engine = lib(ef_construction)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "index.bin"
        t0 = time.perf_counter()
        engine.build(data, path)
        build_s = time.perf_counter() - t0
        size_mb = path.stat().st_size / 1e6
    rows = []
    for ef in efs:
        times, hits = [], 0
        for q, want in zip(queries, truth):
            t0 = time.perf_counter()
            got = engine.search(q, ef)
            times.append((time.perf_counter() - t0) * 1e3)
            hits += len(want & set(got))
        p50 = statistics.median(times)
        rows.append(Row(lib.name, label, len(data), ef, build_s, p50, float(np.percentile(times, 95)), exact_ms,
                        hits / (K * len(queries)), exact_ms / p50, size_mb))
        print(f"  {lib.name:<9} ef {ef:>4}: recall@10 {rows[-1].recall_at_10:.4f}  p50 {p50:6.3f} ms  "
              f"({rows[-1].speedup:5.1f}x exact)  build {build_s:6.1f} s  {size_mb:7.1f} MB", flush=True)
    return rows


def table(rows: list[Row]) -> str:
    lines = ["| library | data | vectors | ef | build s | p50 ms | p95 ms | exact p50 ms | recall@10 | speed-up | index MB |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.library} | {r.data} | {r.n:,} | {r.ef} | {r.build_s:.1f} | {r.p50_ms:.3f} | {r.p95_ms:.3f} | "
                     f"{r.exact_p50_ms:.2f} | {r.recall_at_10:.4f} | {r.speedup:.1f}x | {r.index_mb:.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[100_000])
    parser.add_argument("--libs", nargs="+", default=list(LIBS), choices=list(LIBS))
    parser.add_argument("--data", nargs="+", default=["uniform", "clustered"], choices=["uniform", "clustered"])
    parser.add_argument("--ef", type=int, nargs="+", default=[64, 128, 256, 512])
    parser.add_argument("--atlas", default="", help="use this atlas's vectors (held-out rows as queries) instead")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ef-construction", type=int, default=EF_CONSTRUCTION,
                        help="build breadth (lower builds faster, with a slightly worse graph)")
    parser.add_argument("--out", default=str(REPO / "eval" / "scale"), help="folder for ann.md/ann.csv ('' = print only)")
    args = parser.parse_args(argv)
    rows: list[Row] = []
    plan = [(n, kind) for n in args.n for kind in args.data] if not args.atlas else [(0, "atlas")]
    for n, kind in plan:
        if kind == "atlas":
            data, queries, label = atlas_data(args.atlas, args.queries, args.seed)
        else:
            data, queries = make_data(kind, n, args.queries, args.seed)
            label = kind
        truth, times = exact_top(data, queries)
        exact_ms = statistics.median(times)
        print(f"{label} {len(data):,} x {DIM}: exact k-NN p50 {exact_ms:.2f} ms", flush=True)
        for name in args.libs:
            cls, module = LIBS[name]
            try:
                importlib.import_module(module)
            except ImportError:
                print(f"  {name}: not installed, skipped")
                continue
            rows += measure(cls, data, queries, truth, exact_ms, args.ef, label, args.ef_construction)
        del data
    text = table(rows)
    print(text)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        stem = "ann-atlas" if args.atlas else "ann" if args.n == [100_000] else "ann-" + "-".join(map(str, args.n))
        machine = f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}"
        (out / f"{stem}.md").write_text(
            f"# Approximate vs exact k-NN\n\n`python benchmarks/bench_ann.py {' '.join(sys.argv[1:])}` on {machine} "
            f"(2 shared cores; build on 2 threads, queries on 1). M = {M}, ef_construction = {args.ef_construction}, "
            f"k = {K}, {args.queries} queries; recall@10 against `ohara_lab.embed.index.knn` in the same run.\n\n"
            + text + "\n", encoding="utf-8")
        with open(out / f"{stem}.csv", "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(asdict(rows[0])))
            writer.writeheader()
            writer.writerows(asdict(r) for r in rows)


if __name__ == "__main__":
    main()
