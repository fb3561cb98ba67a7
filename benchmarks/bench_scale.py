"""The cost curve of an atlas from 10k to 100k paragraphs, fitted on log-log axes and extrapolated to 1M.

    python benchmarks/scale_corpus.py                         # once: the corpus (Debian documentation)
    nice -n 15 python benchmarks/bench_scale.py               # 10k -> 30k -> 100k, offline, then vectors
    python benchmarks/bench_scale.py --sizes 2000 5000 --out /tmp/scale   # a quick look

One atlas grows through the sizes: each step ingests the manifest's next files (so the time to
reach a size is the time to ingest that prefix from scratch, in the same order), then measures
at that size, each in a fresh child process (so peak RSS is that step's own):
  ingest      seconds (cumulative) and paragraphs/s of the step; peak RSS while ingesting;
              offline: no LLM, no embedder (`OHARA_EMBED_PARAGRAPHS=false`)
  vectors     `atlas.embed()` over the step's new paragraphs (`--embedder`, MiniLM by default): the
              with-vectors ingest costs ingest + this (the same encoder ingest would run); vectors/s
  atlas       size on disk (atlas.db with its WAL, and the HNSW graphs under ann/)
  queries     p50/p95 of `bm25_only`, `vector_only` and the default engine over the same
              questions at every size (sentences cut from paragraphs of the first size, seeded),
              after one warm-up query each; peak RSS while querying (read-only open)
  check       `atlas.check()` seconds
  re-ingest   the same files again, nothing changed (every file skipped): seconds
Writes OUT/curve.md (table, fitted exponents, the 1M extrapolation said as such), OUT/curve.csv and
OUT/curve.png. The machine is shared: numbers carry the load they were measured under.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from scale_corpus import DEFAULT_OUT, load_manifest, prefix  # noqa: E402

SIZES = (10_000, 30_000, 100_000)
CONFIGS = ("bm25_only", "vector_only", "default", "original")
# default = the engine's default profile (dense-seeded PPR walk); original = OHARA_PROFILE=original
PROFILES = {"default": {}, "original": {"profile": "original"}}
WARM_UP = "how do I configure the server"  # not one of the timed questions
EMBEDDER = "minilm"  # --embedder; the vectors step and the query encoder use the same
BASE = {"llm": "offline", "reference_date": "2026-11-29"}
QUESTION_WORDS = 12


@dataclass
class Point:
    paragraphs: int
    documents: int
    files: int
    ingest_s: float  # cumulative: the prefix from scratch
    step_paragraphs_per_s: float
    rss_ingest_mb: float
    embed_s: float | None  # cumulative
    step_vectors_per_s: float | None
    rss_embed_mb: float | None
    atlas_mb: float
    check_s: float
    reingest_s: float
    rss_query_mb: float
    query_ms: dict[str, dict[str, float]] = field(default_factory=dict)  # config -> {p50, p95}


# ----------------------------------------------------------------------------- child steps
def _maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _open(atlas_dir: str, read_only: bool = False, **extra: Any) -> Any:
    from ohara_lab import Atlas

    return Atlas.open(atlas_dir, read_only=read_only, **BASE, ner=os.environ.get("OHARA_NER", "auto"), **extra)


def child_ingest(atlas_dir: str, files: list[str]) -> dict[str, Any]:
    with _open(atlas_dir, embedder="none", embed_paragraphs=False) as atlas:
        t0 = time.perf_counter()
        report = atlas.ingest(files, progress=False)
        seconds = time.perf_counter() - t0
        failed = [f"{o.path}: {o.error}" for o in report.outcomes if o.status == "failed"][:5]
        stats = atlas.stats()
    return {"seconds": seconds, "rss_mb": _maxrss_mb(), "failed": failed,
            "statuses": _count(o.status for o in report.outcomes), "stats": stats}


def child_embed(atlas_dir: str, embedder: str) -> dict[str, Any]:
    with _open(atlas_dir, embedder=embedder) as atlas:
        t0 = time.perf_counter()
        out = atlas.embed(progress=False)
        return {"seconds": time.perf_counter() - t0, "rss_mb": _maxrss_mb(), "result": out}


def child_check(atlas_dir: str) -> dict[str, Any]:
    with _open(atlas_dir, read_only=True) as atlas:
        t0 = time.perf_counter()
        problems = atlas.check()
        return {"seconds": time.perf_counter() - t0, "problems": len(problems)}


def child_questions(atlas_dir: str, n: int, seed: int) -> dict[str, Any]:
    """`n` questions: the first words of randomly chosen paragraphs of at least 200 characters."""
    with _open(atlas_dir, read_only=True) as atlas:
        docs = sorted(d.id for d in atlas.documents())
        rng = random.Random(seed)
        out: list[str] = []
        for doc in rng.sample(docs, min(len(docs), 4 * n)):
            paras = [p["content"] for p in atlas.store.document_nodes(doc)["paragraphs"] if len(p["content"]) >= 200]
            if paras:
                out.append(" ".join(rng.choice(paras).split()[:QUESTION_WORDS]))
            if len(out) == n:
                break
    return {"questions": out}


def child_queries(atlas_dir: str, questions: list[str], embedder: str) -> dict[str, Any]:
    from ohara_lab.eval.configs import CONFIGS as EVAL

    timings: dict[str, dict[str, float]] = {}
    vectors = embedder != "none"
    extra = {"embedder": embedder}
    with _open(atlas_dir, read_only=True, **extra) as atlas:
        for name in CONFIGS:
            if name == "vector_only" and not vectors:
                continue
            overrides = dict(PROFILES[name]) if name in PROFILES else dict(EVAL[name].overrides)
            atlas.query(WARM_UP, **overrides)  # warm-up: engine, encoder, vector matrix, PPR graph
            times = []
            for q in questions:
                t0 = time.perf_counter()
                atlas.query(q, **overrides)
                times.append((time.perf_counter() - t0) * 1e3)
            timings[name] = {"p50": statistics.median(times), "p95": _pct(times, 95)}
    return {"query_ms": timings, "rss_mb": _maxrss_mb()}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def _count(items: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in items:
        out[i] = out.get(i, 0) + 1
    return out


CHILDREN = {"ingest": child_ingest, "embed": child_embed, "check": child_check, "questions": child_questions,
            "queries": child_queries}


def run_child(kind: str, *args: Any) -> dict[str, Any]:
    """Run one step in a fresh interpreter (its own peak RSS); returns its JSON."""
    with open(Path(args[0]).parent / f".{kind}.json", "w", encoding="utf-8") as fh:
        json.dump(list(args), fh)
    proc = subprocess.run([sys.executable, __file__, "--child", kind, fh.name], check=False, capture_output=True,
                          text=True, env={**os.environ, "OHARA_LOG_LEVEL": "WARNING"})
    if proc.returncode != 0:
        raise RuntimeError(f"{kind} step failed (rc {proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- the run
def disk_mb(directory: Path) -> float:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file() and "llm_cache" not in p.parts) / 1e6


def run(corpus: Path, atlas_dir: Path, sizes: list[int], embedder: str, n_questions: int, seed: int,
        done_size: Callable[[list[Point]], object] = lambda points: None) -> list[Point]:
    """Grow the atlas through `sizes`; `done_size` gets the points so far after each (a stopped run keeps them)."""
    vectors = embedder != "none"
    entries = load_manifest(corpus)
    done = 0
    ingest_total = embed_total = 0.0
    questions: list[str] = []
    points: list[Point] = []
    before = 0
    for size in sizes:
        files = prefix(entries, size)
        new = [str(corpus / e.path) for e in files[done:]]
        print(f"== {size:,}: {len(new):,} new files ({len(files):,} in all)", flush=True)
        ing = run_child("ingest", str(atlas_dir), new)
        ingest_total += ing["seconds"]
        stats = ing["stats"]
        paragraphs = int(stats.get("paragraphs", 0)) + int(stats.get("tables", 0))
        step_rate = (paragraphs - before) / ing["seconds"] if ing["seconds"] else 0.0
        print(f"   ingest {ing['seconds']:.0f} s ({step_rate:.1f} paragraphs/s), {ing['statuses']}, "
              f"RSS {ing['rss_mb']:.0f} MB; failed: {ing['failed']}", flush=True)
        emb = None
        if vectors:
            emb = run_child("embed", str(atlas_dir), embedder)
            embed_total += emb["seconds"]
            print(f"   embed {emb['seconds']:.0f} s, RSS {emb['rss_mb']:.0f} MB", flush=True)
        if not questions:
            questions = run_child("questions", str(atlas_dir), n_questions, seed)["questions"]
        check = run_child("check", str(atlas_dir))
        again = run_child("ingest", str(atlas_dir), [str(corpus / e.path) for e in files])
        queries = run_child("queries", str(atlas_dir), questions, embedder)
        point = Point(
            paragraphs=paragraphs, documents=int(stats.get("documents", 0)), files=len(files),
            ingest_s=ingest_total, step_paragraphs_per_s=step_rate, rss_ingest_mb=ing["rss_mb"],
            embed_s=embed_total if vectors else None,
            step_vectors_per_s=(paragraphs - before) / emb["seconds"] if emb and emb["seconds"] else None,
            rss_embed_mb=emb["rss_mb"] if emb else None, atlas_mb=disk_mb(atlas_dir), check_s=check["seconds"],
            reingest_s=again["seconds"], rss_query_mb=queries["rss_mb"], query_ms=queries["query_ms"])
        points.append(point)
        print(f"   {point.paragraphs:,} paragraphs, {point.atlas_mb:.0f} MB, check {point.check_s:.1f} s "
              f"({check['problems']} problems), re-ingest {point.reingest_s:.1f} s, queries "
              + ", ".join(f"{k} p50 {v['p50']:.0f} ms" for k, v in point.query_ms.items()), flush=True)
        done, before = len(files), paragraphs
        done_size(points)
    return points


# ----------------------------------------------------------------------------- report
def series(points: list[Point]) -> dict[str, list[float | None]]:
    out: dict[str, list[float | None]] = {
        "ingest s": [p.ingest_s for p in points],
        "ingest + vectors s": [p.ingest_s + p.embed_s if p.embed_s is not None else None for p in points],
        "atlas MB": [p.atlas_mb for p in points],
        "RSS ingest MB": [p.rss_ingest_mb for p in points],
        "RSS query MB": [p.rss_query_mb for p in points],
        "check s": [p.check_s for p in points],
        "re-ingest s": [p.reingest_s for p in points],
    }
    for name in CONFIGS:
        out[f"{name} p50 ms"] = [p.query_ms.get(name, {}).get("p50") for p in points]
        out[f"{name} p95 ms"] = [p.query_ms.get(name, {}).get("p95") for p in points]
    return out


def exponent(xs: list[float], ys: list[float | None]) -> float | None:
    """Slope of log y on log x (least squares): y ∝ x^b."""
    pairs = [(x, y) for x, y in zip(xs, ys) if y is not None and y > 0]
    if len(pairs) < 2:
        return None
    lx = [math.log(x) for x, _ in pairs]
    ly = [math.log(y) for _, y in pairs]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    den = sum((a - mx) ** 2 for a in lx)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / den if den else None


def report(points: list[Point], out: Path, command: str, embedder: str) -> str:
    xs = [float(p.paragraphs) for p in points]
    cols = series(points)
    head = "| paragraphs | documents | " + " | ".join(cols) + " |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for i, p in enumerate(points):
        cells = [f"{p.paragraphs:,}", f"{p.documents:,}"] + [_fmt(v[i]) for v in cols.values()]
        lines.append("| " + " | ".join(cells) + " |")
    fits = ["| cost | exponent b (y ∝ paragraphs^b) | at 1M paragraphs (extrapolated) |", "|---|---|---|"]
    for name, ys in cols.items():
        b = exponent(xs, ys)
        last = next((y for y in reversed(ys) if y is not None), None)
        x_last = xs[max(i for i, y in enumerate(ys) if y is not None)] if last is not None else None
        at_1m = last * (1_000_000 / x_last) ** b if b is not None and last is not None and x_last else None
        fits.append(f"| {name} | {_fmt(b, '.2f')} | {_fmt(at_1m)} |")
    rates = ", ".join(f"{p.paragraphs:,}: {p.step_paragraphs_per_s:.1f}" for p in points)
    text = (f"# Cost curve: {points[0].paragraphs:,} → {points[-1].paragraphs:,} paragraphs\n\n"
            f"`{command}` on {platform.machine()}, CPython {platform.python_version()}, "
            f"{os.cpu_count()} cores shared with other work (load average at the end: "
            f"{os.getloadavg()[0]:.1f}). Corpus: `benchmarks/scale_corpus.py` (Debian documentation). "
            f"Ingest offline (no LLM, no embedder; entities: `{os.environ.get('OHARA_NER', 'auto')}`); vectors = `atlas.embed()` ({embedder}) of the new paragraphs; "
            "times cumulative (the prefix from scratch). Query columns: median and 95th percentile over the "
            "same questions at every size.\n\n" + "\n".join(lines) +
            f"\n\nIngest throughput of each step (paragraphs/s): {rates}.\n\n## Growth\n\nExponents are the "
            "least-squares slope on log-log axes (1 = linear). The 1M column is an **extrapolation** of the "
            "fitted power law from the largest measured size, not a measurement.\n\n" + "\n".join(fits) + "\n")
    (out / "curve.md").write_text(text, encoding="utf-8")
    with open(out / "curve.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["paragraphs", "documents", *cols])
        for i, p in enumerate(points):
            writer.writerow([p.paragraphs, p.documents, *(v[i] for v in cols.values())])
    (out / "curve.json").write_text(json.dumps([asdict(p) for p in points], indent=1), encoding="utf-8")
    plot(xs, cols, out / "curve.png")
    return text


def plot(xs: list[float], cols: dict[str, list[float | None]], path: Path) -> None:
    from matplotlib.figure import Figure

    groups = {"time (s)": ["ingest s", "ingest + vectors s", "check s", "re-ingest s"],
              "size (MB)": ["atlas MB", "RSS ingest MB", "RSS query MB"],
              "query p50 (ms)": [f"{c} p50 ms" for c in CONFIGS]}
    fig = Figure(figsize=(13, 4.2))
    for ax, (title, names) in zip(fig.subplots(1, 3), groups.items()):
        for name in names:
            pts = [(x, y) for x, y in zip(xs, cols[name]) if y is not None and y > 0]
            if pts:
                b = exponent([x for x, _ in pts], [y for _, y in pts])
                ax.loglog(*zip(*pts), marker="o", label=f"{name} (b={_fmt(b, '.2f')})")
        ax.set_title(title)
        ax.set_xlabel("paragraphs")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _fmt(value: float | None, spec: str = ",.1f") -> str:
    return "–" if value is None else format(value, spec)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        args = json.loads(Path(argv[2]).read_text(encoding="utf-8"))
        print(json.dumps(CHILDREN[argv[1]](*args)))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(DEFAULT_OUT))
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--atlas", default="", help="where the atlas grows (default: a fresh folder in the corpus)")
    parser.add_argument("--embedder", default=EMBEDDER,
                        help="vectors after each ingest step (minilm | wordllama | none: offline only, no vector_only)")
    parser.add_argument("--ner", default="auto", help="entity recogniser for ingest: auto (spaCy) | rules")
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--out", default=str(REPO / "eval" / "scale"))
    args = parser.parse_args(argv)
    corpus = Path(args.corpus).expanduser()
    atlas_dir = Path(args.atlas).expanduser() if args.atlas else corpus.parent / "scale-atlas"
    os.environ["OHARA_NER"] = args.ner  # the child steps read it
    if atlas_dir.exists():
        shutil.rmtree(atlas_dir)
    atlas_dir.mkdir(parents=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    command = "python benchmarks/bench_scale.py " + " ".join(argv)
    points = run(corpus, atlas_dir, sorted(args.sizes), args.embedder, args.questions, args.seed,
                 lambda so_far: report(so_far, out, command, args.embedder))
    print(report(points, out, command, args.embedder))


if __name__ == "__main__":
    main()
