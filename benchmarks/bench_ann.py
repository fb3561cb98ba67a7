"""Approximate k-NN (HNSW) next to the exact search it replaces: recall@10 and latency, per library.

    python benchmarks/bench_ann.py                          # 100k x 384, hnswlib / faiss-cpu / usearch
    python benchmarks/bench_ann.py --n 1000000 --libs hnswlib   # the 1M point, one library
    python benchmarks/bench_ann.py --data clustered         # vectors with structure, like real embeddings
    python benchmarks/bench_ann.py --atlas DIR --libs hnswlib ohara --m 16 32 --ef-construction 200 400

Per library, graph degree M, build breadth ef_construction and search breadth ef: build time,
single-query latency p50/p95 (k = 10, one thread, as the engine asks), recall@10 against the exact
top 10 of `ohara_lab.store.vectors.knn` (measured in the same run, its latency the baseline of the
speed-up column), index size on disk. "ohara" is the engine's own index
(`ohara_lab.store.ann.HnswIndex`: faiss-cpu over the distinct vectors, duplicates expanded; hnswlib before
format 3, so the "ohara" rows of the tables measured before it are hnswlib's).

Recall is given twice. By id: the share of the exact top 10's ids returned. Tie-aware, the
field's standard (ann-benchmarks: Aumüller, Bernhardsson & Faithfull, "ANN-Benchmarks: A
benchmarking tool for approximate nearest neighbor algorithms", Information Systems 87, 2020):
a returned neighbour counts when its true distance is at most the exact 10th distance + ε,
ε = 1e-3 (distance = 1 − cosine, recomputed from the vectors, not taken from the index), so an
equal-scoring duplicate that the exact search did not pick is not a miss.
Data: "uniform" = i.i.d. random unit vectors (the issue's 1M point; the hardest case for a graph
index, since no neighbour is much nearer than any other), "clustered" = unit vectors around 2,000
random centres (closer to what sentence embeddings look like), "boilerplate" = clustered with 13%
of the rows (and of the queries) copies of other rows, as in the scale atlas. Queries are fresh
vectors drawn the same way. Writes eval/scale/ann.md (and .csv) unless --out is empty.
"""
from __future__ import annotations

import argparse
import csv
import importlib
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DIM = 384  # all-MiniLM-L6-v2
K = 10
EPSILON = 1e-3  # ann-benchmarks' distance slack for the tie-aware recall
M = 16  # graph degree (--m), the same for every library; ohara_lab.store.ann builds with its own M
EF_CONSTRUCTION = 200  # --ef-construction; ohara_lab.store.ann builds with 200


@dataclass
class Row:
    library: str
    data: str
    n: int
    distinct: int
    m: int
    ef_construction: int
    ef: int
    build_s: float
    p50_ms: float
    p95_ms: float
    exact_p50_ms: float
    recall_at_10: float
    recall_tie_aware: float
    speedup: float
    index_mb: float
    same_twice: str  # "yes"/"no": a second build answered every query alike (--twice); "" when not checked


@dataclass
class Truth:
    """The exact top 10 of each query: its row numbers and its 10th cosine."""

    rows: list[set[int]]
    kth: list[float]


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

    data, asked = around(n), around(queries)
    if kind == "boilerplate":
        copy_rows(rng, data, asked)
    return data, asked


def copy_rows(rng: np.random.Generator, data: np.ndarray, asked: np.ndarray, share: float = 0.13,
              sources: int = 1500) -> None:
    """Turn `share` of the rows into copies of the first `sources` rows, in place.

    The scale atlas's profile: 12.7% of its MiniLM rows repeat another (boilerplate paragraphs), and
    its most repeated vector takes 376 of those 3,628 copies; here the source of each copy is drawn
    Zipf-like (weight 1/rank^1.1), so the most copied row takes about 1/6 of the copies. The same
    share of the queries is one of the copied vectors, as a held-out boilerplate paragraph would be.
    """
    weights = 1.0 / np.arange(1, sources + 1) ** 1.1
    weights /= weights.sum()
    targets = rng.choice(np.arange(sources, len(data)), size=int(share * len(data)), replace=False)
    data[targets] = data[rng.choice(sources, size=len(targets), p=weights)]
    some = rng.choice(len(asked), size=int(share * len(asked)), replace=False)
    asked[some] = data[rng.choice(sources, size=len(some), p=weights)]


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


def npz_data(path: str, queries: int, seed: int) -> tuple[np.ndarray, np.ndarray, str]:
    """Vectors of `benchmarks/minilm_vectors.py`, with its held-out real texts as the questions."""
    with np.load(path) as f:
        matrix, real, asked = f["vectors"], int(f["real"]), f["queries"][:queries]
    label = f"MiniLM ({real:,} real + {len(matrix) - real:,} perturbed)"
    return np.ascontiguousarray(matrix), np.ascontiguousarray(asked), label


def row_ids(n: int) -> list[str]:
    """Row numbers as ids that sort as numbers (the exact search breaks ties by id)."""
    return [f"{i:08d}" for i in range(n)]


def exact_top(data: np.ndarray, queries: np.ndarray) -> tuple[Truth, list[float]]:
    from ohara_lab.store.vectors import knn

    ids = row_ids(len(data))
    truth, times = Truth([], []), []
    for q in queries:
        t0 = time.perf_counter()
        found = knn(ids, data, q, K)
        times.append((time.perf_counter() - t0) * 1e3)
        truth.rows.append({int(i) for i, _ in found})
        truth.kth.append(found[-1][1])
    return truth, times


def tie_aware_hits(data: np.ndarray, q: np.ndarray, got: list[int], kth: float) -> int:
    """Returned rows whose distance is within EPSILON of the exact 10th (ann-benchmarks' recall)."""
    rows = [r for r in got[:K] if r >= 0]
    distances = 1.0 - data[rows] @ q
    return int(np.sum(distances <= (1.0 - kth) + EPSILON))


class Library:
    """One ANN library under test: graph degree `m`, build breadth `ef_construction`, build threads."""

    def __init__(self, m: int = M, ef_construction: int = EF_CONSTRUCTION, threads: int = 1):
        self.m, self.ef_construction, self.threads = m, ef_construction, threads
        self.distinct = 0  # graph nodes, when the library indexes fewer than the rows


class Hnswlib(Library):
    name = "hnswlib"

    def build(self, data: np.ndarray, path: Path) -> None:
        import hnswlib

        self.index = hnswlib.Index(space="ip", dim=data.shape[1])
        self.index.init_index(max_elements=len(data), ef_construction=self.ef_construction, M=self.m, random_seed=0)
        self.index.set_num_threads(self.threads)
        self.index.add_items(data, np.arange(len(data)))
        self.index.save_index(str(path))
        self.index.set_num_threads(1)

    def search(self, q: np.ndarray, ef: int) -> list[int]:
        self.index.set_ef(max(ef, K))
        labels, _ = self.index.knn_query(q, k=K)
        return labels[0].tolist()


class Ohara(Library):
    """The engine's index: one node per distinct vector, built on one thread (for determinism)."""

    name = "ohara"

    def build(self, data: np.ndarray, path: Path) -> None:
        from ohara_lab.store.ann import HnswIndex

        self.index = HnswIndex.build("bench", row_ids(len(data)), data, 1, self.m, self.ef_construction)
        self.index.save(path)
        self.distinct = len(self.index.keys)

    def search(self, q: np.ndarray, ef: int) -> list[int]:
        return [int(i) for i, _ in self.index.search(q, K, ef)]


class Faiss(Library):
    name = "faiss-cpu"

    def build(self, data: np.ndarray, path: Path) -> None:
        import faiss

        self.faiss = faiss
        faiss.omp_set_num_threads(self.threads)
        self.index = faiss.IndexHNSWFlat(data.shape[1], self.m, faiss.METRIC_INNER_PRODUCT)
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

        self.index = Index(ndim=data.shape[1], metric="ip", dtype="f32", connectivity=self.m,
                           expansion_add=self.ef_construction)
        self.index.add(np.arange(len(data)), data, threads=self.threads)
        self.index.save(str(path))

    def search(self, q: np.ndarray, ef: int) -> list[int]:
        self.index.expansion_search = max(ef, K)
        return self.index.search(q, K, threads=1).keys.tolist()


def _version(module: str) -> str:
    from importlib import metadata

    try:
        return metadata.version({"faiss": "faiss-cpu"}.get(module, module))
    except metadata.PackageNotFoundError:
        return "?"


LIBS = {"hnswlib": (Hnswlib, "hnswlib"), "ohara": (Ohara, "faiss"), "faiss-cpu": (Faiss, "faiss"),
        "usearch": (Usearch, "usearch")}


@dataclass
class Setup:
    """One index configuration under test."""

    lib: type
    m: int
    ef_construction: int
    threads: int
    twice: bool = False  # build a second time and compare every answer


def measure(setup: Setup, data: np.ndarray, queries: np.ndarray, truth: Truth, exact_ms: float,
            efs: list[int], label: str) -> list[Row]:
    engine = setup.lib(setup.m, setup.ef_construction, setup.threads)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "index"
        t0 = time.perf_counter()
        engine.build(data, path)
        build_s = time.perf_counter() - t0
        size_mb = sum(f.stat().st_size for f in Path(tmp).iterdir()) / 1e6
        again = setup.lib(setup.m, setup.ef_construction, setup.threads) if setup.twice else None
        if again is not None:
            again.build(data, Path(tmp) / "again")
    rows = []
    for ef in efs:
        times, hits, tie_hits, same = [], 0, 0, True
        for q, want, kth in zip(queries, truth.rows, truth.kth):
            t0 = time.perf_counter()
            got = engine.search(q, ef)
            times.append((time.perf_counter() - t0) * 1e3)
            hits += len(want & set(got))
            tie_hits += tie_aware_hits(data, q, got, kth)
            same = same and (again is None or again.search(q, ef) == got)
        p50 = statistics.median(times)
        rows.append(Row(setup.lib.name, label, len(data), engine.distinct or len(data), setup.m,
                        setup.ef_construction, ef, build_s, p50, float(np.percentile(times, 95)), exact_ms,
                        hits / (K * len(queries)), tie_hits / (K * len(queries)), exact_ms / p50, size_mb,
                        "" if again is None else "yes" if same else "no"))
        r = rows[-1]
        print(f"  {r.library:<9} M {r.m:>2} efC {r.ef_construction:>3} ef {ef:>4}: recall@10 {r.recall_at_10:.4f} "
              f"(tie-aware {r.recall_tie_aware:.4f})  p50 {p50:6.3f} ms ({r.speedup:5.1f}x exact)  "
              f"build {build_s:6.1f} s  {size_mb:7.1f} MB", flush=True)
    return rows


def table(rows: list[Row]) -> str:
    lines = ["| library | data | vectors | graph nodes | M | efC | ef | build s | p50 ms | p95 ms | exact p50 ms "
             "| recall@10 by id | recall@10 tie-aware | speed-up | index MB | same twice |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.library} | {r.data} | {r.n:,} | {r.distinct:,} | {r.m} | {r.ef_construction} | {r.ef} | "
                     f"{r.build_s:.1f} | {r.p50_ms:.3f} | {r.p95_ms:.3f} | {r.exact_p50_ms:.2f} | "
                     f"{r.recall_at_10:.4f} | {r.recall_tie_aware:.4f} | {r.speedup:.1f}x | {r.index_mb:.0f} | "
                     f"{r.same_twice or '–'} |")
    return "\n".join(lines)


def configurations(ms: list[int], efcs: list[int]) -> list[tuple[int, int]]:
    """(M, ef_construction) pairs: position by position when both lists are given, else each M with the one efC."""
    if len(ms) == len(efcs):
        return list(zip(ms, efcs))
    return [(m, efc) for m in ms for efc in efcs]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[100_000])
    parser.add_argument("--libs", nargs="+", default=list(LIBS), choices=list(LIBS))
    parser.add_argument("--data", nargs="+", default=["uniform", "clustered"], choices=["uniform", "clustered", "boilerplate"])
    parser.add_argument("--ef", type=int, nargs="+", default=[64, 128, 256, 512])
    parser.add_argument("--atlas", default="", help="use this atlas's vectors (held-out rows as queries) instead")
    parser.add_argument("--vectors", default="", help="use the .npz of benchmarks/minilm_vectors.py instead")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--m", type=int, nargs="+", default=[M], help="graph degrees to try")
    parser.add_argument("--ef-construction", type=int, nargs="+", default=[EF_CONSTRUCTION],
                        help="build breadths to try (lower builds faster, with a slightly worse graph)")
    parser.add_argument("--build-threads", type=int, default=1,
                        help="threads to build with (the engine builds on 1: the graph is then deterministic)")
    parser.add_argument("--out", default=str(REPO / "eval" / "scale"), help="folder for ann.md/ann.csv ('' = print only)")
    parser.add_argument("--twice", action="store_true",
                        help="build each index twice and say whether the two answer every query alike")
    parser.add_argument("--stem", default="", help="file name of the table (default: ann, ann-<n>, ann-atlas)")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    rows: list[Row] = []
    plan = [(0, "atlas")] if args.atlas else [(0, "npz")] if args.vectors else \
        [(n, kind) for n in args.n for kind in args.data]
    for n, kind in plan:
        if kind == "atlas":
            data, queries, label = atlas_data(args.atlas, args.queries, args.seed)
        elif kind == "npz":
            data, queries, label = npz_data(args.vectors, args.queries, args.seed)
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
            for m, efc in configurations(args.m, args.ef_construction):
                rows += measure(Setup(cls, m, efc, args.build_threads, args.twice), data, queries, truth, exact_ms, args.ef, label)
        del data
    text = table(rows)
    print(text)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        stem = args.stem or ("ann-atlas" if args.atlas else "ann" if args.n == [100_000] else
                             "ann-" + "-".join(map(str, args.n)))
        machine = f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}"
        load = "/".join(f"{x:.2f}" for x in load_before), "/".join(f"{x:.2f}" for x in os.getloadavg())
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], check=False, cwd=REPO, capture_output=True,
                                text=True).stdout.strip()
        versions = ", ".join(f"{name} {_version(LIBS[name][1])}" for name in args.libs)
        (out / f"{stem}.md").write_text(
            f"# Approximate vs exact k-NN\n\n`python benchmarks/bench_ann.py {' '.join(sys.argv[1:])}` on {machine} "
            f"(2 shared cores; build on {args.build_threads} thread(s), queries on 1). k = {K}, {args.queries} "
            f"queries; recall@10 against `ohara_lab.store.vectors.knn` in the same run, by id and tie-aware "
            f"(ann-benchmarks: a returned neighbour within ε = {EPSILON:g} of the exact 10th distance counts). "
            f"\"graph nodes\": the vectors the index holds (\"ohara\" indexes each distinct vector once). "
            f"Commit {commit}; {versions}; load average (1/5/15 min, `uptime`) {load[0]} at the start, "
            f"{load[1]} at the end.\n\n"
            + text + "\n", encoding="utf-8")
        with open(out / f"{stem}.csv", "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(asdict(rows[0])))
            writer.writeheader()
            writer.writerows(asdict(r) for r in rows)


if __name__ == "__main__":
    main()
