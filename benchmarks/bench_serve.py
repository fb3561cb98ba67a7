"""Serving load: `POST /query` on the MuSiQue atlas at 1, 4 and 16 concurrent clients (issue 15).

    python benchmarks/bench_serve.py [--shared ../shared] [--embedder minilm] [--requests 160]

Builds (or reuses, through the eval harness's cache) the MuSiQue atlas, then in one run:

1. in-process `atlas.query` latency over the 100 MuSiQue questions on a read-only Atlas,
   on a worker thread (the baseline every HTTP figure is set against: the server runs each
   request on a worker thread) and on the main thread (where torch's OpenMP team spins, and
   on a busy machine the query encoder gets many times slower);
2. `ohara serve` on a free loopback port (a subprocess, uvicorn): requests/s, p50 and p95
   of `POST /query` at 1, 4 and 16 concurrent clients, each client a thread with its own
   keep-alive connection, `--requests` requests per level (bounded; loopback only);
3. a slow query beside fast ones: the fast questions' latency with one client looping on a
   slow request (Chain-of-Retrieval over a 4,000-character question, seconds long), against
   the same questions alone. A slow query that blocked the others would push the fast p50
   up towards its own duration.

Both processes share the machine's cores, so the client's own work is in the figures.
Prints a Markdown table; asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import numpy as np

from ohara_lab import Atlas
from ohara_lab.eval.build import build_atlas
from ohara_lab.eval.runner import prepare_dataset
from ohara_lab.settings import Settings

LEVELS = (1, 4, 16)


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else 0.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(atlas: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str, float]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "ohara_lab.cli", "serve", "--atlas", str(atlas), "--port",
                             str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"ohara serve exited: {proc.stderr.read()}")
        try:
            httpx.get(url + "/stats", timeout=5).raise_for_status()
            return proc, url, time.perf_counter() - t0
        except httpx.TransportError:
            time.sleep(0.2)


def in_process(atlas: Atlas, questions: list[str], limit: int) -> list[float]:
    out = []
    for q in questions:
        t0 = time.perf_counter()
        atlas.query(q, result_limit=limit)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def load(url: str, questions: list[str], clients: int, requests: int, limit: int) -> dict[str, float]:
    """`requests` POST /query spread over `clients` threads; latency per request and overall throughput."""
    latencies: list[float] = []
    failures: list[int] = []
    counter = iter(range(requests))
    lock = threading.Lock()

    def client() -> None:
        with httpx.Client(base_url=url, timeout=300) as c:
            while True:
                with lock:
                    i = next(counter, None)
                if i is None:
                    return
                t0 = time.perf_counter()
                r = c.post("/query", json={"text": questions[i % len(questions)], "limit": limit})
                latencies.append((time.perf_counter() - t0) * 1000)
                if r.status_code != 200:
                    failures.append(r.status_code)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {"rps": requests / wall, "p50": statistics.median(latencies), "p95": pct(latencies, 95),
            "failures": len(failures)}


def slow_beside_fast(url: str, questions: list[str], slow_text: str, n: int) -> dict[str, float]:
    """Fast questions one after another, alone and then while another client loops on a slow request."""
    def fast_run() -> list[float]:
        out = []
        with httpx.Client(base_url=url, timeout=300) as c:
            for q in questions[:n]:
                t0 = time.perf_counter()
                c.post("/query", json={"text": q, "limit": 10}).raise_for_status()
                out.append((time.perf_counter() - t0) * 1000)
        return out

    alone = fast_run()
    stop = threading.Event()
    slow: list[float] = []

    def slow_client() -> None:
        with httpx.Client(base_url=url, timeout=600) as c:
            while not stop.is_set():
                t0 = time.perf_counter()
                c.post("/query", json={"text": slow_text, "mode": "cor", "limit": 100}).raise_for_status()
                slow.append((time.perf_counter() - t0) * 1000)

    t = threading.Thread(target=slow_client)
    t.start()
    time.sleep(0.5)  # the slow request is in flight before the fast ones start
    beside = fast_run()
    stop.set()
    t.join()
    return {"alone_p50": statistics.median(alone), "alone_p95": pct(alone, 95),
            "beside_p50": statistics.median(beside), "beside_p95": pct(beside, 95),
            "slow_p50": statistics.median(slow), "slow_n": len(slow)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default="../shared", type=Path)
    ap.add_argument("--cache", default="/tmp/ohara-bench-serve", type=Path, help="where the built atlas is cached")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--requests", default=160, type=int, help="requests per concurrency level")
    ap.add_argument("--limit", default=10, type=int, help="`limit` of every query")
    args = ap.parse_args()

    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    dataset = prepare_dataset("musique", args.shared / "datasets")
    settings = Settings().override(llm="offline")
    with build_atlas(dataset, args.cache, embedder=args.embedder, settings=settings, progress=False) as built:
        directory, info = Path(built.info.directory), built.info
    questions = [q.text for q in dataset.queries]
    env = {**os.environ, "OHARA_EMBEDDER": info.embedder, "OHARA_LLM": "offline",
           "OHARA_REFERENCE_DATE": info.reference_date}
    env.pop("OHARA_API_TOKEN", None)

    with Atlas.open(directory, read_only=True, embedder=info.embedder, llm="offline",
                    reference_date=info.reference_date) as atlas:
        atlas.query("warm up the embedder and caches")
        main_thread = in_process(atlas, questions, args.limit)
        worker: list[float] = []  # the server runs every request on a worker thread; so does this baseline
        t = threading.Thread(target=lambda: worker.extend(in_process(atlas, questions, args.limit)))
        t.start()
        t.join()
        stats = atlas.stats()
    base = statistics.median(worker)

    proc, url, ready = start_server(directory, env)
    try:
        for q in questions[:10]:  # warm the server's caches as the in-process run was warmed
            httpx.post(url + "/query", json={"text": q, "limit": args.limit}, timeout=300)
        levels = {c: load(url, questions, c, args.requests, args.limit) for c in LEVELS}
        slow_text = " ".join(questions)[:4000]  # the longest question a request may send, in CoR mode
        slow = slow_beside_fast(url, questions, slow_text, 40)
    finally:
        proc.terminate()
        proc.wait(30)

    print(f"load average before the run: {load_before}")
    print(f"MuSiQue: {stats['documents']} documents, {stats['paragraphs']} paragraphs, vectors {stats['vectors']}, "
          f"embedder {info.embedder}; {len(questions)} questions, limit {args.limit}; server ready in {ready:.1f} s; "
          f"{os.cpu_count()} CPUs shared by client and server")
    print("\n| run | clients | requests/s | p50 ms | p95 ms | p50 / in-process p50 | failures |")
    print("|---|---|---|---|---|---|---|")
    for name, lat in (("in-process `atlas.query`, worker thread", worker),
                      ("in-process `atlas.query`, main thread", main_thread)):
        print(f"| {name} | 1 | {1000 / statistics.mean(lat):.1f} | {statistics.median(lat):.1f} | {pct(lat, 95):.1f} "
              f"| {statistics.median(lat) / base:.2f} | 0 |")
    for c, r in levels.items():
        print(f"| `POST /query` | {c} | {r['rps']:.1f} | {r['p50']:.1f} | {r['p95']:.1f} | {r['p50'] / base:.2f} "
              f"| {r['failures']} |")
    print(f"\nslow beside fast ({slow['slow_n']} slow CoR requests, p50 {slow['slow_p50']:.0f} ms):")
    print(f"  fast queries alone:            p50 {slow['alone_p50']:.1f} ms, p95 {slow['alone_p95']:.1f} ms")
    print(f"  fast queries beside the slow:  p50 {slow['beside_p50']:.1f} ms, p95 {slow['beside_p95']:.1f} ms "
          f"(x{slow['beside_p50'] / slow['alone_p50']:.2f}; blocking would mean ~{slow['slow_p50']:.0f} ms)")


if __name__ == "__main__":
    main()
