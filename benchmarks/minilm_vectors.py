"""Real all-MiniLM-L6-v2 vectors for the ANN benchmark, topped up to N by perturbation.

    python benchmarks/minilm_vectors.py --n 100000 --out /work/cache/ann/minilm-100k.npz

Texts: every distinct paragraph and sentence (>= 40 characters) of the shared data
(MuSiQue corpus and questions, MultiHop-RAG queries, QASPER papers, the sample books),
encoded with the project's embedder (`ohara_lab.embed.minilm.MiniLMEmbedder`), up to
--max-real texts or --budget-s seconds of encoding. The rest up to N are perturbed copies
of those real vectors: v' = normalise(v + sigma * g / sqrt(d)), g standard normal, sigma
chosen (0.35) so a copy keeps cosine ~0.94 to its source, as a paraphrase would; copies
are not duplicates (the boilerplate case is measured separately in eval/scale/ann-atlas.md).
--queries real vectors are held out first (no copy of them is made, so a query's neighbours
are other texts', not its own copies); the output holds `vectors` (N rows, the first `real`
of them real), `queries` and the median cosine of a copy to its source. --reuse FILE takes
the real vectors of an earlier output instead of encoding again.
"""
from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1] / ".." / "shared"
SIGMA = 0.35


def texts() -> list[str]:
    pool: list[str] = []
    ds = DATA / "datasets"
    for p in json.loads((ds / "musique/musique_train_100_corpus.json").read_text(encoding="utf-8")):
        pool.append(p["text"])
    for q in json.loads((ds / "musique/musique_train_100.json").read_text(encoding="utf-8")):
        pool.append(q.get("question", ""))
        pool += [p.get("paragraph_text", "") for p in q.get("paragraphs", [])]
    for name in ("multihop/multihop_queries.json", "qasper/qasper_queries.json"):
        rows = json.loads((ds / name).read_text(encoding="utf-8"))
        rows = rows if isinstance(rows, list) else next(v for v in rows.values() if isinstance(v, list))
        pool += [str(r.get("query") or r.get("question") or "") for r in rows if isinstance(r, dict)]
    for line in (ds / "qasper/leval_scientific_qa.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        pool += re.split(r"\n\s*\n", str(row.get("input") or row.get("context") or ""))
    for md in sorted((DATA / "samples").glob("*.md")):
        pool += re.split(r"\n\s*\n", md.read_text(encoding="utf-8"))
    out, seen = [], set()
    for chunk in pool:
        for piece in [chunk, *re.split(r"(?<=[.!?])\s+", chunk)]:
            unit = " ".join(piece.split())[:1000]
            if len(unit) >= 40 and unit not in seen:
                seen.add(unit)
                out.append(unit)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--max-real", type=int, default=40_000)
    ap.add_argument("--budget-s", type=float, default=900)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--reuse", default="", help="an earlier output whose real vectors (and queries) to reuse")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    if args.reuse:
        with np.load(args.reuse) as f:
            real = f["vectors"][: int(f["real"])]
            if "queries" in f:
                real = np.vstack([f["queries"], real])
        print(f"reused {len(real)} real vectors of {args.reuse}", flush=True)
    else:
        from ohara_lab.embed.minilm import MiniLMEmbedder

        pool = texts()
        order = rng.permutation(len(pool))[: args.max_real]
        pool = [pool[i] for i in order]
        print(f"{len(pool)} distinct real texts", flush=True)
        emb = MiniLMEmbedder(batch_size=64)
        parts, t0, done = [], time.perf_counter(), 0
        for start in range(0, len(pool), 512):
            parts.append(emb.embed(pool[start:start + 512]))
            done = start + len(parts[-1])
            if time.perf_counter() - t0 > args.budget_s:
                break
        real = np.vstack(parts).astype(np.float32)
        print(f"encoded {done} texts in {time.perf_counter() - t0:.0f} s", flush=True)
    held = rng.choice(len(real), size=args.queries, replace=False)
    keep = np.ones(len(real), dtype=bool)
    keep[held] = False
    queries, real = real[held], real[keep]
    need = max(0, args.n - len(real))
    src = rng.integers(0, len(real), need)
    noise = rng.standard_normal((need, real.shape[1]), dtype=np.float32) * (SIGMA / np.sqrt(real.shape[1]))
    extra = real[src] + noise
    extra /= np.linalg.norm(extra, axis=1, keepdims=True)
    cos = float(np.median(np.einsum("ij,ij->i", extra, real[src]))) if need else 1.0
    np.savez(args.out, vectors=np.vstack([real, extra]).astype(np.float32), queries=queries, real=len(real),
             median_cos=cos)
    print(f"{len(real)} real + {need} perturbed (median cosine to source {cos:.3f}) -> {args.out}", flush=True)


if __name__ == "__main__":
    main()
