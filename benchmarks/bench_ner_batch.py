"""spaCy NER throughput by `nlp.pipe` batch size and worker processes, on MuSiQue paragraphs (issue 30.1).

    python benchmarks/bench_ner_batch.py [--shared ../shared] [--texts 600] [--rounds 2]

Runs `SpacyExtractor.extract` (the NER component only, as ingest runs it) over the same texts for each
(batch size, processes) pair, alternating the pairs round by round so a neighbour's load counts against
all of them; the best round counts. Prints paragraphs/s and the load average. A benchmark: it asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ohara_lab.entities.extract import SpacyExtractor  # noqa: E402

CONFIGS = [(16, 1), (64, 1), (128, 1), (256, 1), (512, 1), (128, 2)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default="../shared", type=Path)
    ap.add_argument("--texts", type=int, default=600)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    rows = json.loads((args.shared / "datasets/musique/musique_train_100_corpus.json").read_text())
    texts = [r["text"] for r in rows][: args.texts]
    best: dict[tuple[int, int], float] = {}
    print("load average before", os.getloadavg())
    for _ in range(args.rounds):
        for batch, procs in CONFIGS:
            ex = SpacyExtractor(batch_size=batch, processes=procs)
            ex.extract(texts[:8])  # start-up (and the worker pool) is not counted
            t0 = time.perf_counter()
            ex.extract(texts)
            pps = len(texts) / (time.perf_counter() - t0)
            best[(batch, procs)] = max(best.get((batch, procs), 0.0), pps)
            print(json.dumps({"batch_size": batch, "processes": procs, "paragraphs_per_s": round(pps, 1)}), flush=True)
    print("load average after", os.getloadavg())
    print("| batch size | processes | paragraphs/s (best) |\n|---:|---:|---:|")
    for (batch, procs), pps in best.items():
        print(f"| {batch} | {procs} | {pps:.1f} |")


if __name__ == "__main__":
    main()
