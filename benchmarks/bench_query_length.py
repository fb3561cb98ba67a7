"""Query cost against query length, offline: wall time and peak Python memory of one full-engine query
of 10 to 100,000 words (MuSiQue paragraphs repeated), on a MuSiQue atlas (issue 30.4).

    python benchmarks/bench_query_length.py [--shared ../shared] [--atlas DIR] [--out eval/speed/query_length.md]

Without `--atlas` it builds one (MuSiQue, one document per title, `OHARA_EMBEDDER=none`) in a
temporary directory. Every length runs `--repeats` times after a warm-up query (model and profile
loading are start-up); the best time counts. Peak memory is `tracemalloc`'s peak over one more run
(tracemalloc slows Python, so that run is not timed). Queries over `OHARA_QUERY_MAX_WORDS` words are
reduced before retrieval (`ohara_lab/retrieval/query_reduce.py`); the benchmark lifts the shells'
`OHARA_QUERY_MAX_CHARS` only in the sense that it calls `Atlas.query` directly, which has no cap.
A benchmark: it prints and writes its table, it asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
LENGTHS = (10, 30, 100, 300, 1_000, 3_000, 10_000, 30_000, 100_000)
OFFLINE = {"embedder": "none", "embed_paragraphs": False, "llm": "offline", "reference_date": "2026-11-29"}


def musique_rows(shared: Path) -> list[dict]:
    return json.loads((shared / "datasets/musique/musique_train_100_corpus.json").read_text())


def build_atlas(shared: Path, into: Path) -> None:
    from ohara_lab import Atlas  # noqa: PLC0415

    merged = defaultdict(list)
    for row in musique_rows(shared):
        merged[row["title"]].append(row["text"])
    with Atlas.open(into, **OFFLINE) as atlas:
        atlas.ingest_texts([{"text": "\n\n".join(t), "title": k, "source_id": f"musique:{k}"}
                            for k, t in merged.items()], progress=False)


def query_of(words: list[str], n: int) -> str:
    return " ".join((words * (n // len(words) + 1))[:n])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default="../shared", type=Path)
    ap.add_argument("--atlas", type=Path, help="a MuSiQue atlas built before (default: build one)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--out", type=Path, help="write the table as Markdown here")
    args = ap.parse_args()
    from ohara_lab import Atlas  # noqa: PLC0415

    words = " ".join(r["text"] for r in musique_rows(args.shared)).split()
    with tempfile.TemporaryDirectory() as tmp:
        atlas_dir = args.atlas or Path(tmp) / "atlas"
        if args.atlas is None:
            build_atlas(args.shared, atlas_dir)
        rows = []
        load_before = os.getloadavg()
        with Atlas.open(atlas_dir, read_only=True, **OFFLINE) as atlas:
            atlas.query("warm up the engine", result_limit=1)
            for n in LENGTHS:
                text = query_of(words, n)
                best = float("inf")
                for _ in range(args.repeats):
                    t0 = time.perf_counter()
                    result = atlas.query(text)
                    best = min(best, time.perf_counter() - t0)
                tracemalloc.start()
                atlas.query(text)
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
                row = {"words": n, "chars": len(text), "ms": round(1000 * best, 1),
                       "us_per_word": round(1e6 * best / n, 1), "peak_mib": round(peak / 2**20, 1),
                       "keywords": len(result.query.keywords), "results": len(result.results)}
                rows.append(row)
                print(json.dumps(row), flush=True)
        load_after = os.getloadavg()
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip()
    command = "python benchmarks/bench_query_length.py " + " ".join(sys.argv[1:])
    table = [f"| words | characters | ms (best of {args.repeats}) | µs per word | peak MiB | keywords used | results |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    table += [f"| {r['words']:,} | {r['chars']:,} | {r['ms']} | {r['us_per_word']} | {r['peak_mib']} | "
              f"{r['keywords']} | {r['results']} |" for r in rows]
    curve = ascii_curve(rows)
    text = "\n".join(["# Query cost against query length", "", "```bash", command, "```", "",
                      f"Commit `{commit}` (plus the working tree), load average before "
                      f"{', '.join(f'{x:.2f}' for x in load_before)}, after {', '.join(f'{x:.2f}' for x in load_after)}"
                      " (2 cores, shared).", "", *table, "", "ms against words, log-log:", "", "```", *curve, "```", ""])
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)


def ascii_curve(rows: list[dict], width: int = 50) -> list[str]:
    """One bar per length, its length proportional to log10(ms)."""
    import math  # noqa: PLC0415

    top = max(math.log10(max(r["ms"], 1.0)) for r in rows) or 1.0
    return [f"{r['words']:>7,} words {'#' * max(1, round(width * math.log10(max(r['ms'], 1.0)) / top)):<{width}} "
            f"{r['ms']} ms" for r in rows]


if __name__ == "__main__":
    main()
