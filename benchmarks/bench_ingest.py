"""Ingest throughput, offline: paragraphs/s and the per-stage split, against a baseline
checkout measured in the same run, and a table-by-table check that both build the same atlas.

    python benchmarks/bench_ingest.py [--shared ../shared] [--baseline main] [--repeats 2]
                                      [--embedder none|minilm|wordllama] [--ner auto|rules]
                                      [--ner-processes N]

Corpora: the real books and report in ../shared/samples/ (one file at a time) and
the MuSiQue corpus (one Wikipedia title = one document, through batched
`ingest_texts`). Each build runs in its own process from an empty atlas, the
baseline (`git archive <ref>` of this repository) and this working tree
alternating, `--repeats` times each; the best run of each counts, so another
engineer's job on the shared 2-core machine counts once at most, and every run
is printed to show the noise. `other` in the split is wall time outside every
document's stage timer: model loading and, in batched ingest, the per-batch NER,
tagging and vectors, and the self-calibration `ingest_texts` runs at its end
(also printed on its own as `calibration_s`). CPU seconds of the main process and of
its NER worker are printed beside the wall time: on a shared machine they move less than
it does, and their sum over two cores bounds what the wall time can reach. Start-up (loading the NER model) is
not counted. `--corpora folder:PATH` reads a generic folder's `corpus.jsonl` as
`ohara eval` does (one document a line; its queries are never read). A
benchmark: it prints, it asserts nothing.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STAGES = ("hash", "parse", "structure", "tag_entities", "time", "embed", "persist", "similarity", "other")
CORPORA = ("shared/samples", "musique", "musique-small")
# How this working tree builds, each measured in the same run against the first ("batched, NER cache off"):
# one document at a time instead of batches across documents, and the persistent NER cache empty (cold)
# or filled by the cold build before (warm: a rebuild after a settings change that does not touch NER),
# and write groups off (one COMMIT per document).
VARIANTS = {"batched, cache off": ({"ner_cache_entries": 0}, "batched", False),
            "per-doc, cache off": ({"ner_cache_entries": 0}, "per-doc", False),
            # issue 30.2: batched, but one transaction per document as before write groups
            "batched, cache off, 1 doc/commit": ({"ner_cache_entries": 0, "write_group_docs": 1}, "batched", False),
            "batched, cache cold": ({}, "batched", False),
            "batched, cache warm": ({}, "batched", True)}
# Columns that hold a wall-clock time or a checkout path: not part of what an atlas says.
VOLATILE = ("upload_time", "first_seen", "created_at", "origin_path", "rowid")
PROFILE_KEY = "answerability_profile"  # the meta row whose profiles carry a settings hash (`ohara_lab.store.dump`)

BUILD = r"""
import json, resource, sys, time
from collections import defaultdict
from pathlib import Path
from ohara_lab import Atlas
FOLDER = "folder:"
corpus, atlas_dir, shared, overrides = sys.argv[1], sys.argv[2], Path(sys.argv[3]), json.loads(sys.argv[4])
how = sys.argv[5] if len(sys.argv) > 5 else "batched"
limit = int(sys.argv[6]) if len(sys.argv) > 6 else 0
with Atlas.open(atlas_dir, **overrides) as atlas:
    items = []
    if corpus.startswith(FOLDER):  # a generic folder's corpus.jsonl, read as `ohara eval` reads it (never its queries)
        from ohara_lab.eval.datasets.generic import CORPUS_FILE, read_documents
        docs = read_documents(Path(corpus[len(FOLDER):]) / CORPUS_FILE)
        docs = docs[:limit] if limit else docs
        items = [{"text": d.text, "title": d.title, "source_id": d.id,
                  "metadata": {k: v for k, v in (("published_at", d.published_at), ("source", d.source)) if v}}
                 for d in docs]
    elif corpus != "shared/samples":
        rows = json.loads((shared / "datasets/musique/musique_train_100_corpus.json").read_text())
        rows = rows[:limit] if limit else rows
        if corpus == "musique-small":  # many small documents: one per paragraph
            items = [{"text": r["text"], "title": r["title"], "source_id": f"musique:{i}"} for i, r in enumerate(rows)]
        else:
            merged = defaultdict(list)
            for row in rows:
                merged[row["title"]].append(row["text"])
            items = [{"text": "\n\n".join(t), "title": k, "source_id": f"musique:{k}"} for k, t in merged.items()]
    atlas.ingestor.extractor.extract(["Start-up: load the NER model in Paris."])  # start-up is not ingest
    t0, cpu0, kids0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    if corpus == "shared/samples":
        rep = atlas.ingest([shared / "samples"], progress=False)
    elif how == "per-doc":
        from ohara_lab.records import IngestReport
        rep = IngestReport()
        rep.outcomes = [atlas.ingest_text(i["text"], title=i["title"], source_id=i["source_id"]) for i in items]
    else:
        rep = atlas.ingest_texts(items, progress=False)
    seconds = time.perf_counter() - t0
    cpu, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    stats = atlas.stats()
from ohara_lab.entities import ner_worker
ner_worker.shutdown()  # reaped, so its CPU is counted below (it is stopped when ingest_texts returns anyway)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
calibration = getattr(rep, "calibration", None)  # counted in `seconds`: ingest_texts self-calibrates at its end
print(json.dumps({"seconds": seconds, "stats": stats, "timings": [o.timings_s for o in rep.outcomes],
                  "main_cpu_s": cpu.ru_utime + cpu.ru_stime - cpu0.ru_utime - cpu0.ru_stime,
                  "worker_cpu_s": kids.ru_utime + kids.ru_stime - kids0.ru_utime - kids0.ru_stime,
                  "calibration_s": calibration.seconds if calibration is not None else None,
                  "failed": sum(o.status == "failed" for o in rep.outcomes)}))
"""


def checkout(ref: str, into: Path) -> Path:
    """The package as it is at `ref`, unpacked (no work tree is touched)."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "ohara_lab", "widgets", "ontology",
                              "prompts", "pyproject.toml"], check=True, capture_output=True).stdout
    into.mkdir(parents=True)
    tar_path = into / "src.tar"
    tar_path.write_bytes(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(into, filter="data")
    return into


def build(src: Path, corpus: str, atlas: Path, shared: Path, overrides: dict, how: str = "batched",
          limit: int = 0) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-c", BUILD, corpus, str(atlas), str(shared.resolve()),
                          json.dumps(overrides), how, str(limit)], capture_output=True, text=True, env=env, cwd=src, check=False)
    if out.returncode != 0:
        raise SystemExit(f"build of {corpus} from {src} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def row(run: dict) -> dict:
    stages: dict[str, float] = defaultdict(float)
    for t in run["timings"]:
        for k, v in t.items():
            stages[k] += v
    stages["other"] = max(run["seconds"] - sum(stages.values()), 0.0)
    staged = sum(stages.values()) or 1.0
    paragraphs = run["stats"]["paragraphs"]
    return {"paragraphs": paragraphs, "seconds": round(run["seconds"], 2), "calibration_s": run.get("calibration_s"),
            "main_cpu_s": round(run.get("main_cpu_s", 0.0), 2), "worker_cpu_s": round(run.get("worker_cpu_s", 0.0), 2),
            "load": round(os.getloadavg()[0], 2),
            "paragraphs_per_s": round(paragraphs / run["seconds"], 1),
            "split_pct": {k: round(100 * stages.get(k, 0.0) / staged, 1) for k in STAGES}}


def atlas_digest(atlas: Path) -> dict[str, str]:
    """Per table, a hash of its rows with volatile columns dropped and JSON keys sorted."""
    con = sqlite3.connect(atlas / "atlas.db")
    out = {}
    tables = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'"
                                        " AND name NOT LIKE 'fts_%' AND name NOT LIKE 'sqlite_%'")]
    for table in sorted(tables):
        cur = con.execute(f"SELECT * FROM {table}")
        cols = [c[0] for c in cur.description]
        rows = sorted(json.dumps(_clean(dict(zip(cols, r))), sort_keys=True, default=_bytes) for r in cur)
        out[table] = hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16]
    con.close()
    return out


def _clean(row: dict) -> dict:
    for key, value in list(row.items()):
        if key in VOLATILE or (key == "value" and row.get("key") == "created_at"):
            row.pop(key)
        elif isinstance(value, str) and value[:1] in "{[":
            try:
                parsed = json.loads(value)
            except ValueError:
                continue
            if isinstance(parsed, dict):
                for k in VOLATILE:
                    parsed.pop(k, None)
            if row.get("key") == PROFILE_KEY and isinstance(parsed, list):
                for profile in parsed:  # keyed by a hash of every setting, the atlas's own paths included
                    profile.pop("config", None)
            row[key] = parsed
    return row


def _bytes(value: bytes) -> str:
    return hashlib.sha256(value).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default="../shared", type=Path)
    ap.add_argument("--baseline", default="main", help="git ref measured in the same run ('' for none)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--corpora", default=",".join(CORPORA),
                    help=f"comma-separated: {', '.join(CORPORA)} or folder:PATH (a generic folder's corpus.jsonl)")
    ap.add_argument("--embedder", default="none")
    ap.add_argument("--ner", default="auto")
    ap.add_argument("--ner-processes", type=int, default=1,
                    help="OHARA_NER_PROCESSES for this working tree's builds (the baseline keeps its own)")
    ap.add_argument("--variants", action="store_true",
                    help="measure this tree's VARIANTS (NER cache off/cold/warm, per-doc) against each other")
    ap.add_argument("--limit", type=int, default=0,
                    help="with --variants: the first N MuSiQue paragraphs only (a loaded machine)")
    ap.add_argument("--out", type=Path, help="with --variants: write the table as Markdown here")
    args = ap.parse_args()
    # A folder is read by a build that runs inside the checkout it measures: named from here, absolute.
    args.corpora = ",".join("folder:" + str(Path(c.removeprefix("folder:")).resolve()) if c.startswith("folder:")
                            else c for c in args.corpora.split(","))
    overrides = {"embedder": args.embedder, "ner": args.ner, "embed_paragraphs": args.embedder != "none",
                 "llm": "offline", "reference_date": "2026-11-29"}
    if args.variants:
        run_variants(args, overrides)
        return
    results: dict[tuple[str, str], list[dict]] = defaultdict(list)
    same: dict[str, bool] = {}
    with tempfile.TemporaryDirectory() as tmp:
        sources = {"this": REPO}
        if args.baseline:
            sources = {"baseline": checkout(args.baseline, Path(tmp) / "baseline"), **sources}
        for corpus in args.corpora.split(","):
            digests = {}
            for rep in range(args.repeats):
                for name, src in sources.items():
                    atlas = Path(tmp) / f"{name}-{corpus.replace('/', '_')}-{rep}"
                    mine = {"ner_processes": args.ner_processes} if name == "this" and args.ner_processes > 1 else {}
                    run = build(src, corpus, atlas, args.shared, {**overrides, **mine})
                    r = row(run)
                    results[(corpus, name)].append(r)
                    print(json.dumps({"corpus": corpus, "code": name, "run": rep + 1, **r}), flush=True)
                    if rep == 0:
                        digests[name] = atlas_digest(atlas)
            if len(digests) == 2:
                same[corpus] = digests["baseline"] == digests["this"]
                if not same[corpus]:
                    diff = [t for t in digests["this"] if digests["this"][t] != digests["baseline"].get(t)]
                    print(f"{corpus}: atlases differ in {diff}")
    print("\n| corpus | code | paragraphs | best s | paragraphs/s | × baseline | runs (paragraphs/s) | "
          "calibration s | CPU s: main + worker | load | " + " | ".join(STAGES) + " |")
    print("|---" * (10 + len(STAGES)) + "|")
    for (corpus, name), runs in results.items():
        best = max(runs, key=lambda r: r["paragraphs_per_s"])
        base = results.get((corpus, "baseline"))
        ratio = round(best["paragraphs_per_s"] / max(r["paragraphs_per_s"] for r in base), 2) if base else ""
        split = " | ".join(f"{best['split_pct'][k]}%" for k in STAGES)
        print(f"| {corpus} | {name} | {best['paragraphs']} | {best['seconds']} | {best['paragraphs_per_s']} | {ratio} |"
              f" {', '.join(str(r['paragraphs_per_s']) for r in runs)} | {best['calibration_s']} |"
              f" {best['main_cpu_s']} + {best['worker_cpu_s']} | {best['load']} |"
              f" {split} |")
    for corpus, ok in same.items():
        print(f"{corpus}: atlas {'identical to' if ok else 'DIFFERENT from'} the baseline's, table by table")


def run_variants(args: argparse.Namespace, overrides: dict) -> None:
    """Each corpus: the VARIANTS of this tree (and the baseline ref's default), alternating, `--repeats` times."""
    load_before = os.getloadavg()
    results: dict[tuple[str, str], list[dict]] = defaultdict(list)
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        base_src = checkout(args.baseline, Path(tmp) / "baseline") if args.baseline else None
        for corpus in args.corpora.split(","):
            digests: dict[str, dict[str, str]] = {}
            for rep in range(args.repeats):
                cold_atlas: Path | None = None
                runs = [(f"baseline {args.baseline}", base_src, {}, "batched", False)] if base_src else []
                runs += [(name, REPO, extra, how, warm) for name, (extra, how, warm) in VARIANTS.items()]
                for name, src, extra, how, warm in runs:
                    atlas = Path(tmp) / f"{len(digests)}-{corpus.replace('/', '_')}-{rep}-{name.replace(' ', '')}"
                    if warm and cold_atlas is not None:
                        atlas.mkdir()
                        shutil.copy(cold_atlas / "ner_cache.db", atlas / "ner_cache.db")
                    run = build(src, corpus, atlas, args.shared, {**overrides, **extra}, how, args.limit)
                    if name == "batched, cache cold":
                        cold_atlas = atlas
                    r = row(run)
                    results[(corpus, name)].append(r)
                    print(json.dumps({"corpus": corpus, "code": name, "run": rep + 1, **r}), flush=True)
                    if rep == 0:
                        digests[name] = atlas_digest(atlas)
            ref = digests.get("batched, cache off", {})
            for name, d in digests.items():
                diff = [t for t in d if d[t] != ref.get(t) and t != "meta"]
                lines.append(f"- {corpus}, {name}: atlas {'identical to' if not diff else 'DIFFERENT from'} "
                             f"\"batched, cache off\" table by table{'' if not diff else ' (' + ', '.join(diff) + ')'}")
    load_after = os.getloadavg()
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip()
    table = ["| corpus | build | paragraphs | best s | paragraphs/s | × batched, cache off | runs (paragraphs/s) |",
             "|---|---|---:|---:|---:|---:|---|"]
    for (corpus, name), runs in results.items():
        best = max(runs, key=lambda r: r["paragraphs_per_s"])
        base = max(r["paragraphs_per_s"] for r in results[(corpus, "batched, cache off")])
        table.append(f"| {corpus} | {name} | {best['paragraphs']} | {best['seconds']} | {best['paragraphs_per_s']} | "
                     f"{best['paragraphs_per_s'] / base:.2f} | {', '.join(str(r['paragraphs_per_s']) for r in runs)} |")
    text = "\n".join(["# Ingest: NER batching and the NER cache, in ratios", "", "```bash",
                      "python benchmarks/bench_ingest.py " + " ".join(sys.argv[1:]), "```", "",
                      f"Commit `{commit}` (plus the working tree), load average before "
                      f"{', '.join(f'{x:.2f}' for x in load_before)}, after {', '.join(f'{x:.2f}' for x in load_after)}"
                      " (2 cores, shared). Start-up (model loading) is not counted; best of the runs.", "",
                      *table, "", *lines, ""])
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)


if __name__ == "__main__":
    main()
