"""Ingest throughput, offline: documents/s, paragraphs/s and the per-stage time split.

    python benchmarks/bench_ingest.py [--shared ../shared] [--embedder none|wordllama|minilm] [--ner auto|rules]

Corpora: the real books and report in ../shared/samples/ (one file at a time) and
the MuSiQue corpus (one Wikipedia title = one document, through batched
`ingest_texts`). The `other` column is wall time outside every document's timer:
imports and model loading, and in batched ingest the per-batch NER, tagging and
vectors. Each run starts from an empty atlas in a temporary directory. This is a benchmark, not a test: it prints, it asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from ohara_lab import Atlas

STAGES = ("hash", "parse", "structure", "tag_entities", "time", "embed", "persist", "similarity", "other")


def musique_docs(shared: Path) -> list[tuple[str, str]]:
    corpus = json.loads((shared / "datasets/musique/musique_train_100_corpus.json").read_text())
    merged: dict[str, list[str]] = defaultdict(list)
    for row in corpus:
        merged[row["title"]].append(row["text"])
    return [(title, "\n\n".join(texts)) for title, texts in merged.items()]


def report(name: str, outcomes: list, seconds: float, stats: dict) -> dict:
    stages: dict[str, float] = defaultdict(float)
    for o in outcomes:
        for k, v in o.timings_s.items():
            stages[k] += v
    # Wall time no document's timer accounts for: imports and model loading (once per run) and,
    # in batched ingest, NER, tagging and vectors done once per batch.
    stages["other"] = max(seconds - sum(stages.values()), 0.0)
    staged = sum(stages.values()) or 1.0
    docs = sum(1 for o in outcomes if o.status != "failed")
    row = {"corpus": name, "documents": docs, "paragraphs": stats["paragraphs"], "seconds": round(seconds, 2),
           "docs_per_s": round(docs / seconds, 2), "paragraphs_per_s": round(stats["paragraphs"] / seconds, 1),
           "entities": stats["entities"], "similar_to": stats["edges"].get("SIMILAR_TO", 0),
           "split_pct": {k: round(100 * stages.get(k, 0.0) / staged, 1) for k in STAGES}}
    print(json.dumps(row))
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--shared", default="../shared", type=Path)
    ap.add_argument("--embedder", default="none")
    ap.add_argument("--ner", default="auto")
    args = ap.parse_args()
    overrides = {"embedder": args.embedder, "ner": args.ner, "embed_paragraphs": args.embedder != "none"}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        with Atlas.open(Path(tmp) / "samples", **overrides) as atlas:
            t0 = time.perf_counter()
            rep = atlas.ingest([args.shared / "samples"], progress=False)
            rows.append(report("shared/samples", rep.outcomes, time.perf_counter() - t0, atlas.stats()))
        with Atlas.open(Path(tmp) / "musique", **overrides) as atlas:
            t0 = time.perf_counter()
            rep = atlas.ingest_texts([{"text": text, "title": title, "source_id": f"musique:{title}"}
                                      for title, text in musique_docs(args.shared)], progress=False)
            rows.append(report("musique", rep.outcomes, time.perf_counter() - t0, atlas.stats()))
    print("\n| corpus | docs | paragraphs | s | docs/s | paragraphs/s | " + " | ".join(STAGES) + " |")
    print("|---" * (6 + len(STAGES)) + "|")
    for r in rows:
        split = " | ".join(f"{r['split_pct'][k]}%" for k in STAGES)
        print(f"| {r['corpus']} | {r['documents']} | {r['paragraphs']} | {r['seconds']} | {r['docs_per_s']} |"
              f" {r['paragraphs_per_s']} | {split} |")


if __name__ == "__main__":
    main()
