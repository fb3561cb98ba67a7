"""The MiniLM encoder on each runtime, against torch measured in the same run.

    python benchmarks/bench_encoder.py [--shared ../shared] [--paragraphs 2000] [--repeats 3]

Documents: the first N paragraphs of the MuSiQue corpus and the shared books
(real text, the mix ingest sees). Queries: MuSiQue's questions and their
sub-questions, one at a time as the engine encodes them. Prints, per backend,
paragraphs/s (best of `--repeats`, so another engineer's job on the shared
machine counts once at most), query encode p50/p95 in ms, the speed-up over
torch, and how far the vectors are from torch's: mean and minimum cosine over
all paragraphs (a backend is accepted at mean >= 0.995), and dense retrieval on
MuSiQue with each runtime's vectors: the 100 questions against the corpus's 1,890
paragraphs, Recall@5 of the gold supporting titles over distinct titles and MRR
of the first one. A benchmark: it prints, it asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from ohara_lab.embed.registry import EMBEDDERS

BACKENDS = ("torch", "onnx", "onnx-int8")


def paragraphs(shared: Path, n: int) -> list[str]:
    corpus = json.loads((shared / "datasets/musique/musique_train_100_corpus.json").read_text())
    texts = [row["text"] for row in corpus]
    for book in sorted((shared / "samples").glob("*.md")):
        texts += [b.strip() for b in book.read_text().split("\n\n") if len(b.strip()) >= 20]
    half = n // 2
    return texts[:half] + texts[len(corpus):len(corpus) + n - half]


def queries(shared: Path) -> list[str]:
    rows = json.loads((shared / "datasets/musique/musique_train_100.json").read_text())
    out = [r["question"] for r in rows]
    out += [d["question"] for r in rows for d in r.get("question_decomposition", []) if "#" not in d["question"]]
    return out


def musique(shared: Path) -> tuple[list[str], list[str], list[str], list[set[str]]]:
    """(paragraph texts, their titles, questions, gold supporting titles per question)."""
    corpus = json.loads((shared / "datasets/musique/musique_train_100_corpus.json").read_text())
    rows = json.loads((shared / "datasets/musique/musique_train_100.json").read_text())
    gold = [{p["title"] for p in r["paragraphs"] if p["is_supporting"]} for r in rows]
    return [c["text"] for c in corpus], [c["title"] for c in corpus], [r["question"] for r in rows], gold


def dense_recall(embedder, texts: list[str], titles: list[str], questions: list[str],
                 gold: list[set[str]]) -> tuple[float, float]:
    """Recall@5 (gold titles among the first 5 distinct titles) and MRR of the first gold title."""
    docs = embedder.embed(texts, "document")
    recall, rr = [], []
    for q, want in zip(questions, gold):
        order = np.argsort(-(docs @ embedder.embed([q], "query")[0]), kind="stable")
        ranked = list(dict.fromkeys(titles[i] for i in order))
        recall.append(len(want & set(ranked[:5])) / len(want))
        rr.append(next((1 / (k + 1) for k, t in enumerate(ranked) if t in want), 0.0))
    return round(float(np.mean(recall)), 4), round(float(np.mean(rr)), 4)


def measure(backend: str, docs: list[str], qs: list[str], repeats: int, retrieval: tuple | None = None
            ) -> tuple[dict, np.ndarray]:
    embedder = EMBEDDERS["minilm"][1](32, backend)
    embedder.embed(docs[:32])  # warm-up: first-call allocations and lazy init
    best, vectors = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        vectors = embedder.embed(docs, "document")
        best = min(best, time.perf_counter() - t0)
    lat = []
    for q in qs:
        t0 = time.perf_counter()
        embedder.embed([q], "query")
        lat.append((time.perf_counter() - t0) * 1000)
    lat.sort()
    row = {"backend": backend, "paragraphs_per_s": round(len(docs) / best, 1),
           "query_p50_ms": round(statistics.median(lat), 2), "query_p95_ms": round(lat[int(0.95 * len(lat))], 2)}
    if retrieval is not None:
        row["recall@5"], row["mrr"] = dense_recall(embedder, *retrieval)
    return row, vectors


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default="../shared", type=Path)
    ap.add_argument("--paragraphs", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--backends", default=",".join(BACKENDS))
    args = ap.parse_args()
    docs, qs, retrieval = paragraphs(args.shared, args.paragraphs), queries(args.shared), musique(args.shared)
    rows, ref = [], None
    for backend in ["torch", *[b for b in args.backends.split(",") if b != "torch"]]:
        row, vecs = measure(backend, docs, qs, args.repeats, retrieval)
        if ref is None:
            ref, base = vecs, row
        cos = (vecs * ref).sum(axis=1)
        row.update(speedup=round(row["paragraphs_per_s"] / base["paragraphs_per_s"], 2),
                   query_speedup=round(base["query_p50_ms"] / row["query_p50_ms"], 2),
                   mean_cosine=round(float(cos.mean()), 5), min_cosine=round(float(cos.min()), 5))
        rows.append(row)
        print(json.dumps(row), flush=True)
    print(f"\n{len(docs)} paragraphs, {len(qs)} queries")
    print("| backend | paragraphs/s | × torch | query p50 ms | query p95 ms | × torch (query) | mean cos | min cos"
          " | MuSiQue dense R@5 | MRR |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['backend']} | {r['paragraphs_per_s']} | {r['speedup']} | {r['query_p50_ms']} | "
              f"{r['query_p95_ms']} | {r['query_speedup']} | {r['mean_cosine']} | {r['min_cosine']} | "
              f"{r['recall@5']} | {r['mrr']} |")


if __name__ == "__main__":
    main()
