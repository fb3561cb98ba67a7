"""Probe issue 28's points 1, 7, 8 and 9 against a checkout: a Markdown table of input -> outcome.

    python -m tests.hostile.harden_probe --btc BTC_ATLAS                      # this checkout
    python -m tests.hostile.harden_probe --btc BTC_ATLAS --src /path/to/other/checkout

Each input runs in its own process with `--src` first on PYTHONPATH (its code, not this
one's), under the hostile suite's launcher, which reports wall seconds and the peak
resident memory of that process. BTC_ATLAS is an atlas of Mastering Bitcoin (2nd ed.,
`../shared/samples/mastering-bitcoin-2nd.md`, offline) with SYNONYM_OF linked by minilm;
each probe works on a copy. The read-only rows need root and mount namespaces (`unshare
-m`) and are left out otherwise. Asserts nothing (the tests do).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.hostile.runner import _LAUNCHER, MIB
from tests.support import offline_env

HERE = Path(__file__).resolve().parents[2]

SETUP = """
import json, os, shutil, sys
from pathlib import Path
from ohara_lab import Atlas
work = Path(sys.argv[1]); samples = Path(sys.argv[2])
OFF = dict(embedder="none", embed_paragraphs=False, llm="offline", ner="rules")
def say(text): print(" ".join(str(text).replace(str(work), "$W").split())[:230])
"""

PROBES: dict[str, str] = {
    "folder ingest; b.md becomes a link to ../private/salaries.md while a.md is ingested (on_outcome)": """
notes = work / "notes"; notes.mkdir(); (work / "private").mkdir()
(work / "private" / "salaries.md").write_text("# Salaries\\n\\nThe keeper earns 91,000 crowns.\\n")
(notes / "a.md").write_text("# Herons\\n\\nGrey herons nest by the dam.\\n")
(notes / "b.md").write_text("# Otters\\n\\nOtters fish below the weir.\\n")
def swap(o):
    if o.path.endswith("a.md"):
        (notes / "b.md").unlink(); (notes / "b.md").symlink_to(work / "private" / "salaries.md")
with Atlas.open(work / "atlas", **OFF, write_group_docs=1) as a:  # a.md reported before b.md is opened
    r = a.ingest([notes], progress=False, on_outcome=swap)
    leaked = any("91,000" in p["content"] for d in a.documents() for p in a.store.document_nodes(d.id)["paragraphs"])
    say(f"b.md {r.outcomes[1].status} {r.outcomes[1].reason or ''}; secret queryable: {leaked}")
""",
    "MCP ingest (AtlasService) of inbox/hard.md, a hard link to ../private.md": """
from ohara_lab.serve.service import AtlasService
from ohara_lab.settings import Settings
(work / "inbox").mkdir(); (work / "private.md").write_text("# Private\\n\\nSalaries.\\n")
os.link(work / "private.md", work / "inbox" / "hard.md")
shutil.copytree(samples, work / "atlas")
svc = AtlasService(work / "atlas", Settings().override(**OFF), ingest_roots=[work / "inbox"])
try:
    (o,) = svc.ingest("hard.md")["outcomes"]; say(f"{o['status']} {o['reason'] or ''}")
except Exception as e:
    say(f"{type(e).__name__}: {e}")
""",
    **{f"MCP ingest (AtlasService) of {label}": """
from ohara_lab.serve.service import AtlasService
from ohara_lab.settings import Settings
(work / "inbox").mkdir(); shutil.copytree(samples, work / "atlas")
svc = AtlasService(work / "atlas", Settings().override(**OFF), ingest_roots=[work / "inbox"])
try:
    say(svc.ingest(PATH))
except Exception as e:
    say(f"{type(e).__name__}: {e}")
""".replace("PATH", path) for label, path in (
        ("a path with a NUL (`heron\\x00.md`)", '"heron\\x00.md"'),
        ("a path of 8,404 bytes", '"a/" * 4200 + "x.md"'),
        ("a 303-byte file name", '"n" * 300 + ".md"'))},
    "`entities merge alice --into bitcoin`, then `entities undo` (Mastering Bitcoin, minilm SYNONYM_OF)": """
import sqlite3
from ohara_lab.entities import curation
shutil.copytree(sys.argv[3], work / "btc")
n = lambda: sqlite3.connect(work / "btc" / "atlas.db").execute(
    "SELECT COUNT(*) FROM edges WHERE relation='SYNONYM_OF'").fetchone()[0]
first = n()
with Atlas.open(work / "btc", **OFF) as a:
    curation.merge(a.store, ["alice"], "bitcoin"); curation.undo(a.store)
gone = first - n()
say(f"SYNONYM_OF {first} -> {n()}" + (f" ({gone} lost)" if gone else " (all restored)"))
""",
    "folder ingest of the 7 samples with room for 200 more pages (PRAGMA max_page_count, a full disk)": """
from ohara_lab.samples import corpus_dir
with Atlas.open(work / "atlas", **OFF) as a:
    c = a.store.conn
    c.execute(f"PRAGMA max_page_count={c.execute('PRAGMA page_count').fetchone()[0] + 200}")
    try:
        r = a.ingest([corpus_dir()], progress=False)
        failed = [o for o in r.outcomes if o.status == "failed"]
        say(f"returned: {len(r.outcomes) - len(failed)} ingested, {len(failed)} failed, each: {failed[0].reason if failed else ''}")
    except Exception as e:
        say(f"{type(e).__name__}: {e}")
wal = (work / "atlas" / "atlas.db-wal").exists()
print(f"; WAL left behind: {wal}")
""",
}

READ_ONLY = """
import subprocess, sys
atlas = sys.argv[1]
for args in (["stats"], ["query", "patent licence", "--limit", "1"], ["entities", "merge", "gnu", "--into", "license"]):
    p = subprocess.run([sys.executable, "-m", "ohara_lab.cli", *args, "--atlas", atlas], capture_output=True, text=True)
    lines = [l for l in (p.stdout + p.stderr).splitlines() if l.strip()]
    said = " ".join(lines[-1].replace(atlas, "$VIEW").split())[:160] if lines else ""
    print(json.dumps([" ".join(args), p.returncode, said]))
"""


def launch(code: str, args: list[str], env: dict[str, str], cwd: Path,
           wrap: list[str] | None = None) -> tuple[str, float, float]:
    """(stdout, wall s, peak MiB) of `python -c code args` under the hostile suite's launcher."""
    with tempfile.NamedTemporaryFile() as out:
        cmd = [sys.executable, "-c", code, *args]
        launcher = [*(wrap or []), sys.executable, "-c", _LAUNCHER, str(4096 * MIB), "600", out.name, *cmd]
        t0 = time.perf_counter()
        proc = subprocess.run(launcher, capture_output=True, text=True, env=env, cwd=cwd, timeout=1200)
        wall = time.perf_counter() - t0
        try:
            peak = json.loads(proc.stdout.strip().splitlines()[-1])["peak_mib"]
        except (ValueError, IndexError):
            peak = float("nan")
        text = Path(out.name).read_text("utf-8", "replace").strip()
        return (text or proc.stderr.strip().splitlines()[-1] if text or proc.stderr.strip() else ""), wall, peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, default=HERE, help="checkout whose code runs (default: this one)")
    ap.add_argument("--btc", type=Path, required=True, help="Mastering Bitcoin atlas with SYNONYM_OF (copied)")
    ap.add_argument("--samples", type=Path, help="an atlas of the shipped samples (default: built here)")
    opts = ap.parse_args()
    src = opts.src.resolve()
    env = {**offline_env(), "OHARA_EMBED_PARAGRAPHS": "False", "OHARA_NER": "rules",
           "PYTHONPATH": str(src), "OHARA_RESULT_LIMIT": "3"}
    with tempfile.TemporaryDirectory() as tmp:
        samples = opts.samples or Path(tmp) / "samples"
        if opts.samples is None:
            subprocess.run([sys.executable, "-m", "ohara_lab.cli", "ingest", str(src / "ohara_lab/samples/corpus"),
                            "--atlas", str(samples), "--json"], env=env, cwd=src, capture_output=True, check=True)
        print("| input | outcome | s | peak MiB |\n|---|---|---|---|")
        for i, (label, body) in enumerate(PROBES.items()):
            work = Path(tmp) / f"p{i}"
            work.mkdir()
            out, wall, peak = launch(SETUP + body, [str(work), str(samples), str(opts.btc)], env, src)
            print(f"| {label} | {' '.join(out.split())} | {wall:.1f} | {peak:.0f} |")
        if os.geteuid() == 0 and shutil.which("unshare"):
            view = Path(tmp) / "view"
            view.mkdir()
            fresh = Path(tmp) / "ro-atlas"
            shutil.copytree(samples, fresh, ignore=shutil.ignore_patterns("*-wal", "*-shm"))
            script = f'mount --bind "{fresh}" "{view}" && mount -o remount,bind,ro "{view}" && exec "$@"'
            out, wall, peak = launch(SETUP.split("work =")[0] + READ_ONLY, [str(view)], env, src,
                                     wrap=["unshare", "-m", "sh", "-c", script, "sh"])
            for line in out.splitlines():
                args, code, said = json.loads(line)
                print(f"| `ohara {args}` on a read-only bind mount | exit {code}: {said} | {wall / 3:.1f} | {peak:.0f} |")


if __name__ == "__main__":
    main()
