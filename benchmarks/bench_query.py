"""Query latency and a first look at multi-hop recall on MuSiQue (issue 3).

    python benchmarks/bench_query.py [--shared ../shared] [--atlas DIR] [--embedder minilm] [--as-is]
                                     [--dataset musique|<generic or BEIR folder>] [--baseline REF]

Builds (or reuses) an atlas of the MuSiQue corpus (one Wikipedia title = one
document), then runs its 100 questions through: the store's raw BM25 (the
"BM25 alone" floor), the engine with the bm25_only config, the engine with the
vector_only config, reciprocal-rank fusion of the two, the spec's engine (the
`original` profile), the graph walk alone and the full (default) engine.
Reports p50/p95 latency (total and per phase) with ratios against BM25 alone
measured in the same run, the p50 CPU time of this process per query (what a query
costs when it need not wait for a shared machine's cores), the load average,
Recall@2/@5 of the gold supporting titles over the distinct documents of each
ranking, and the graph walk's matrix: build time and memory. `--as-is` queries a
given atlas (e.g. a copy of an evaluation atlas) without ingesting the corpus into
it. `--dataset` takes any dataset `ohara eval` loads (a generic or BEIR folder too), so the
same figures come from another corpus's eval atlas. `--baseline REF` compares this
working tree with a git ref instead: one query process each (`git archive` of the ref
on PYTHONPATH), the full and `bm25_only` engines asked question by question, the order
of code and config alternating, per-phase p50 of both, and whether every fused ranking
(ids and scores) and every result (`to_dict()` but the timings) is identical. Prints;
asserts nothing.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from bench_ingest import checkout  # the package at a git ref, unpacked (this folder is on sys.path)

from ohara_lab import Atlas
from ohara_lab.eval.configs import CONFIGS
from ohara_lab.eval.datasets.registry import load_dataset
from ohara_lab.text import tokenize

RUNS = ("bm25_only", "vector_only", "rrf", "original", "ppr_only", "full")
AB_RUNS = ("full", "bm25_only")
REPO = Path(__file__).resolve().parent.parent


def build(atlas: Atlas, dataset) -> None:
    if atlas.stats()["documents"] >= len(dataset.documents):
        return
    atlas.ingest_texts([{"text": d.text, "title": d.title, "source_id": f"{dataset.name}:{d.id}"} for d in dataset.documents])


def doc_ranking(result, doc_of: dict[str, str]) -> list[str]:
    seen: list[str] = []
    for f in result.results:
        d = doc_of.get(f.document_id)
        if d and d not in seen:
            seen.append(d)
    return seen


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else 0.0


def compare_cache(atlas: Atlas, dataset, repeat: int) -> None:
    """Node cache off (the baseline: every get_nodes reads SQLite) against on, alternating per question."""
    engine, cache = atlas.engine, atlas.store.node_cache
    lat: dict[tuple[str, bool], list[float]] = defaultdict(list)
    load, same, total = [os.getloadavg()[0]], 0, 0
    for p in range(repeat):
        for i, q in enumerate(dataset.queries):
            for run in ("bm25_only", "full"):
                out = {}
                for on in ((False, True) if (i + p) % 2 else (True, False)):
                    cache.enabled = on
                    engine.clear_query_cache()
                    t0 = time.perf_counter()
                    result = engine.query(q.text, **CONFIGS[run].overrides)
                    lat[(run, on)].append((time.perf_counter() - t0) * 1000)
                    d = result.to_dict()
                    d.pop("timings_ms", None)
                    out[on] = json.dumps(d, sort_keys=True, default=str)
                same += out[True] == out[False]
                total += 1
        load.append(os.getloadavg()[0])
    cache.enabled = True
    print(f"load average (1 min) at the start and after each pass: {', '.join(f'{x:.2f}' for x in load)}")
    print(f"results identical with and without the node cache: {same}/{total}")
    print("| run | cache off p50 | off p95 | cache on p50 | on p95 |\n|---|---|---|---|---|")
    for run in ("bm25_only", "full"):
        off, on_ = lat[(run, False)], lat[(run, True)]
        print(f"| {run} | {statistics.median(off):.2f} | {pct(off, 95):.2f} | {statistics.median(on_):.2f} |"
              f" {pct(on_, 95):.2f} |")


def compare_encode_ahead(atlas: Atlas, dataset, repeat: int) -> None:
    """The full engine with the query embedded ahead on a worker thread and inline, alternating per question."""
    from ohara_lab.retrieval.engine import Engine  # noqa: PLC0415

    engine, ahead = atlas.engine, Engine._encode_ahead
    lat: dict[bool, list[float]] = {True: [], False: []}
    same = True
    try:
        for _ in range(repeat):
            for i, q in enumerate(dataset.queries):
                ranked = {}
                for on in (True, False) if i % 2 else (False, True):
                    engine._encode_ahead = ahead.__get__(engine) if on else (lambda state: None)
                    engine.clear_query_cache()
                    t0 = time.perf_counter()
                    result = engine.query(q.text, **CONFIGS["full"].overrides)
                    lat[on].append((time.perf_counter() - t0) * 1000)
                    ranked[on] = [(f.id, f.score) for f in result.fused]
                same &= ranked[True] == ranked[False]
    finally:
        del engine._encode_ahead
    on, off = statistics.median(lat[True]), statistics.median(lat[False])
    print(f"full engine p50: query embedded ahead {on:.2f} ms, inline {off:.2f} ms ({off - on:+.2f} ms saved); "
          f"rankings identical: {same}; load {os.getloadavg()[0]:.2f}")


def serve_queries(atlas: Atlas, dataset) -> None:
    """`--worker`: answer "<question index> <config>" lines on stdin with one JSON line each."""
    engine = atlas.engine
    for q in dataset.queries[:5]:  # warm: the embedder, the walk's matrix, the node cache
        atlas.query(q.text)
    print("ready", flush=True)
    for line in sys.stdin:
        index, run = line.split()
        engine.clear_query_cache()  # every query pays for its own embedding
        t0, c0 = time.perf_counter(), time.process_time()
        result = engine.query(dataset.queries[int(index)].text, **CONFIGS[run].overrides)
        ms, cpu = (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000
        d = result.to_dict()
        d.pop("timings_ms", None)
        print(json.dumps({"ms": ms, "cpu": cpu, "phases": result.timings_ms,
                          "fused": [[f.id, f.score] for f in result.fused],
                          "result": hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()}),
              flush=True)


def compare_baseline(args: argparse.Namespace, dataset) -> None:
    """This tree against `args.baseline`, one process each, alternating per question and config."""
    with tempfile.TemporaryDirectory() as tmp:
        sources = {f"baseline {args.baseline}": checkout(args.baseline, Path(tmp) / "baseline"), "this tree": REPO}
        command = [sys.executable, __file__, "--worker", "--as-is", "--atlas", str(args.atlas), "--dataset",
                   args.dataset, "--shared", str(args.shared), "--embedder", args.embedder]
        procs = {}
        for label, src in sources.items():
            procs[label] = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                            env={**os.environ, "PYTHONPATH": str(src)})
            if procs[label].stdout.readline().strip() != "ready":
                raise SystemExit(f"{label}: the query process did not start")
        labels = list(procs)
        lat: dict[tuple[str, str], list[float]] = defaultdict(list)
        cpu: dict[tuple[str, str], list[float]] = defaultdict(list)
        phases: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        out: dict[tuple[str, str, int], tuple[list, str]] = {}
        load = [os.getloadavg()[0]]
        for p in range(args.repeat):
            for i in range(len(dataset.queries)):
                # which config and which code go first alternate independently: every pairing occurs as often
                for run in AB_RUNS if (i // 2 + p) % 2 else AB_RUNS[::-1]:
                    for label in labels if (i + p) % 2 else labels[::-1]:
                        proc = procs[label]
                        proc.stdin.write(f"{i} {run}\n")
                        proc.stdin.flush()
                        got = json.loads(proc.stdout.readline())
                        lat[(label, run)].append(got["ms"])
                        cpu[(label, run)].append(got["cpu"])
                        for k, v in got["phases"].items():
                            phases[(label, run)][k].append(v)
                        out[(label, run, i)] = (got["fused"], got["result"])
            load.append(os.getloadavg()[0])
        for proc in procs.values():
            proc.stdin.close()
            proc.wait()
    print(f"{dataset.name}: {len(dataset.queries)} questions x {args.repeat} passes; load average (1 min) at the "
          f"start and after each pass: {', '.join(f'{x:.2f}' for x in load)} on {os.cpu_count()} cores")
    print("\n| code | full p50 ms | bm25_only p50 ms | full / bm25_only | full CPU p50 ms | bm25_only CPU p50 ms |")
    print("|---|---|---|---|---|---|")
    for label in labels:
        full, bm25 = statistics.median(lat[(label, "full")]), statistics.median(lat[(label, "bm25_only")])
        print(f"| {label} | {full:.2f} | {bm25:.2f} | {full / bm25:.2f}x | {statistics.median(cpu[(label, 'full')]):.2f}"
              f" | {statistics.median(cpu[(label, 'bm25_only')]):.2f} |")
    a, b = labels
    for run in AB_RUNS:
        n = len(dataset.queries)
        fused = sum(out[(a, run, i)][0] == out[(b, run, i)][0] for i in range(n))
        whole = sum(out[(a, run, i)][1] == out[(b, run, i)][1] for i in range(n))
        print(f"{run}: fused rankings (ids and scores) identical for {fused}/{n} questions, whole results "
              f"(to_dict() but timings) for {whole}/{n}")
    for run in AB_RUNS:
        print(f"\nper-phase p50 ms, {run}:\n| phase | {a} | {b} |\n|---|---|---|")
        names = sorted({k for label in labels for k in phases[(label, run)]},
                       key=lambda k: -statistics.median(phases[(a, run)].get(k) or [0.0]))
        for k in names:
            cells = [f"{statistics.median(phases[(label, run)][k]):.2f}" if phases[(label, run)].get(k) else "-"
                     for label in labels]
            if any(c not in ("0.00", "-") for c in cells):
                print(f"| {k} | {' | '.join(cells)} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--shared", default="../shared", type=Path)
    ap.add_argument("--atlas", default="/tmp/ohara-bench/musique", type=Path)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--dataset", default="musique", help="a named dataset under --shared/datasets, or a folder")
    ap.add_argument("--repeat", default=1, type=int, help="passes over the questions (latency only)")
    ap.add_argument("--as-is", action="store_true", help="query the atlas as it is (ingest nothing into it)")
    ap.add_argument("--baseline-no-cache", action="store_true",
                    help="only: full and bm25_only with the store's node cache off and on, interleaved in one run "
                         "(results compared: to_dict() minus timings)")
    ap.add_argument("--encode-ahead-ab", action="store_true",
                    help="only: the full engine with the query embedded ahead and inline, alternating per question")
    ap.add_argument("--baseline", default="", help="only: full and bm25_only of this tree against this git ref, "
                                                     "one process each, alternating (run with --as-is)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    dataset = load_dataset(args.dataset, args.shared / "datasets")
    if args.baseline:
        compare_baseline(args, dataset)
        return
    settings = {"embedder": args.embedder, "llm": "offline", "reference_date": "2026-11-29"}
    with Atlas.open(args.atlas, **settings) as atlas:
        if not args.as_is:
            build(atlas, dataset)
        doc_of = {d.id: d.origin_path.split(":", 1)[-1] for d in atlas.documents()}  # bench or eval atlas
        if args.worker:
            serve_queries(atlas, dataset)
            return
        engine = atlas.engine
        atlas.query("warm up the embedder and caches")
        if args.baseline_no_cache:
            compare_cache(atlas, dataset, args.repeat)
            return
        if args.encode_ahead_ab:
            compare_encode_ahead(atlas, dataset, max(args.repeat, 2))
            return
        from ohara_lab.retrieval.graph import build_passage_graph  # noqa: PLC0415
        from ohara_lab.retrieval.phases.ppr import describe  # noqa: PLC0415

        t0 = time.perf_counter()
        graph = build_passage_graph(atlas.store)
        graph_ms = (time.perf_counter() - t0) * 1000
        lat: dict[str, list[float]] = defaultdict(list)
        cpu: dict[str, list[float]] = defaultdict(list)
        load = [os.getloadavg()[0]]
        phases: dict[str, dict[str, list[float]]] = {r: defaultdict(list) for r in RUNS}
        recall: dict[str, dict[int, list[float]]] = {r: {2: [], 5: []} for r in RUNS}
        for _ in range(args.repeat):
            for q in dataset.queries:
                t0, c0 = time.perf_counter(), time.process_time()
                atlas.store.bm25_search(tokenize(q.text), 40)
                lat["bm25_raw"].append((time.perf_counter() - t0) * 1000)
                cpu["bm25_raw"].append((time.process_time() - c0) * 1000)
                gold = set(q.gold_doc_ids)
                for run in RUNS:
                    engine.clear_query_cache()  # every run pays for its own query embedding
                    t0, c0 = time.perf_counter(), time.process_time()
                    result = engine.query(q.text, **CONFIGS[run].overrides)
                    lat[run].append((time.perf_counter() - t0) * 1000)
                    cpu[run].append((time.process_time() - c0) * 1000)
                    for k, v in result.timings_ms.items():
                        phases[run][k].append(v)
                    ranking = doc_ranking(result, doc_of)
                    for k in (2, 5):
                        recall[run][k].append(len(gold & set(ranking[:k])) / len(gold))
            load.append(os.getloadavg()[0])
        base = statistics.median(lat["bm25_raw"])
        eng_bm25 = statistics.median(lat["bm25_only"])
        print(f"{dataset.name}: {len(dataset.documents)} documents, {len(dataset.queries)} questions, "
              f"embedder {args.embedder}, stats {json.dumps({k: v for k, v in atlas.stats().items() if k != 'edges'})}")
        print(f"load average (1 min) at the start and after each pass: {', '.join(f'{x:.2f}' for x in load)}"
              f" on {os.cpu_count()} cores")
        print("\n| run | p50 ms | p95 ms | p50 / raw BM25 | p50 / engine bm25_only | CPU p50 ms | Recall@2 | Recall@5 |")
        print("|---|---|---|---|---|---|---|---|")
        print(f"| raw store BM25 | {base:.2f} | {pct(lat['bm25_raw'], 95):.2f} | 1.00 | - |"
              f" {statistics.median(cpu['bm25_raw']):.2f} | - | - |")
        for run in RUNS:
            p50 = statistics.median(lat[run])
            print(f"| {run} | {p50:.2f} | {pct(lat[run], 95):.2f} | {p50 / base:.1f} | {p50 / eng_bm25:.2f} |"
                  f" {statistics.median(cpu[run]):.2f} | {np.mean(recall[run][2]):.3f} |"
                  f" {np.mean(recall[run][5]):.3f} |")
        size = describe(graph)
        print(f"\ngraph walk matrix: {size['passages']} passages, {size['entities']} entities, {size['edges']} "
              f"nonzeros ({size['synonym_edges']} synonym links), {size['bytes'] / 1e6:.1f} MB, built in "
              f"{graph_ms:.0f} ms (once per atlas version)")
        for run in ("full", "original"):
            print(f"\nper-phase p50 / p95 ms of the {run} engine:")
            for k, v in sorted(phases[run].items(), key=lambda kv: -statistics.median(kv[1])):
                print(f"  {k:<14} {statistics.median(v):7.2f} {pct(v, 95):7.2f}")


if __name__ == "__main__":
    main()
