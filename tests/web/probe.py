"""Probe `ohara ingest URL` and `ohara crawl` with the hostile inputs of issue 28 (points 2, 3 and 4).

    python -m tests.web.probe                          # this checkout
    python -m tests.web.probe --src /path/to/checkout  # another checkout's code (PYTHONPATH), same inputs

Starts the hostile servers of `tests.web.site` on 127.0.0.1 in this process, runs each input as an
`ohara` subprocess (offline, `OHARA_WEB_TIMEOUT_S=5`, a fresh atlas), and prints a Markdown table:
input, outcome (exit code and the command's last line; a traceback shows as one), wall seconds and
the subprocess's peak resident memory. A command still running after `--cap` seconds is killed and
reported so. Crawl rows add the crawl table's rows by state and the atlas's size. Asserts nothing
(the tests do: tests/web/test_guard.py, test_fetch.py, test_crawl.py).
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support import offline_env
from tests.web.site import Site, html, many_links_site, paragraph, small_site

SSRF = [  # URLs ingested with --allow-private unless marked (False): "{port}" is the live site's port
    ("http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", True),
    ("http://[::169.254.169.254]/latest/meta-data/", True),
    ("http://[2002:a9fe:a9fe::1]/latest/meta-data/", True),
    ("http://[::ffff:169.254.169.254]/latest/meta-data/", True),
    ("http://[::127.0.0.1]:{port}/a.html", False),
    ("http://[64:ff9b::7f00:1]:{port}/a.html", False),
    ("http://168.63.129.16/machine?comp=goalstate", True),
    ("http://168.63.129.16/machine?comp=goalstate", False),
    ("http://169.254.170.2/v2/credentials", True),
    ("http://0177.0.0.1:{port}/a.html", True),
    ("http://0x7f.1:{port}/a.html", True),
    ("http://2130706433:{port}/a.html", True),
    ("data:text/html,<h1>hi</h1>", True),
    ("file:///etc/passwd", True),
    ("http://example.org\\@127.0.0.1:{port}/a.html", True),
    ("http://[::1/", True),
    ("http://127.0.0.1:{port}/to-metadata (302 to http://[::ffff:a9fe:a9fe]/)", True),
    ("http://127.0.0.1:{port}/to-octal (302 to http://0177.0.0.1:{port}/a.html)", True),
]


def run(argv: list[str], env: dict[str, str], cap: float) -> tuple[str, float, float]:
    """(outcome, wall seconds, peak RSS MiB) of `python -m ohara_lab.cli ARGV` in the checkout `env` names."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "ohara_lab.cli", *argv], stdout=out, stderr=err, env=env,
                                cwd=env["PYTHONPATH"])  # -m puts the cwd first on sys.path
        killed = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > cap:
                proc.kill()
                killed = True
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if killed:
        outcome = f"still running after {cap:g} s (killed)"
    elif "Traceback (most recent call last)" in stderr:
        outcome = f"exit {proc.returncode}, traceback: {stderr.strip().splitlines()[-1]}"
    else:
        lines = [line for line in (stderr + "\n" + stdout).splitlines() if line.strip()]
        outcome = f"exit {proc.returncode}: " + " / ".join(lines[-3:])
    return outcome, seconds, usage.ru_maxrss / 1024


def crawl_rows(atlas: Path) -> str:
    db = atlas / "atlas.db"
    if not db.exists():
        return "no atlas"
    with sqlite3.connect(db) as c:
        states = dict(c.execute("SELECT state, COUNT(*) FROM crawl GROUP BY state").fetchall())
    size = sum(f.stat().st_size for f in atlas.iterdir() if f.is_file()) / 2**20
    return "crawl rows " + ", ".join(f"{n} {s}" for s, n in sorted(states.items())) + f"; atlas {size:.1f} MiB"


def short(text: str, n: int = 150) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= n else text[: n - 1] + "…"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", help="run this checkout's ohara_lab instead (PYTHONPATH)")
    ap.add_argument("--cap", type=float, default=120, help="kill a command still running after this many seconds")
    ap.add_argument("--crawl-cap", type=float, default=420, help="the same for the 100,000-link crawl")
    ap.add_argument("--only", choices=("ssrf", "deadline", "crawl"), help="run one group of rows")
    args = ap.parse_args()
    env = {**offline_env(), "OHARA_WEB_TIMEOUT_S": "5", "PYTHONPATH": args.src or os.getcwd()}
    site, many, patient = small_site(), many_links_site(100_000), Site()
    port = None
    patient.pages = {"/robots.txt": ("text/plain", b"User-agent: *\nCrawl-delay: 1000000000\n"),
                     "/": ("text/html", html("Home", "<h1>Home</h1>" + paragraph("Waiting"), ["/a.html"])),
                     "/a.html": ("text/html", html("Alpha", "<h1>Alpha</h1>" + paragraph("Patience")))}
    for s in (site, many, patient):
        s.start()
    port = site.server.server_address[1]
    site.redirects["/to-metadata"] = "http://[::ffff:a9fe:a9fe]/latest/meta-data/"
    site.redirects["/to-octal"] = f"http://0177.0.0.1:{port}/a.html"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (url, private) in enumerate(SSRF if args.only in (None, "ssrf") else []):
            url = url.replace("{port}", str(port))
            target = url.split(" (", 1)[0]
            argv = ["ingest", target, "--atlas", f"{tmp}/ssrf{i}"] + (["--allow-private"] if private else [])
            before = len(site.hits)
            outcome, seconds, mib = run(argv, env, args.cap)
            reached = [h.path for h in site.hits[before:]]
            shown = f"`ohara ingest {url}`" + (" --allow-private" if private else "")
            rows.append((shown, outcome + (f"; the site served {reached}" if reached else ""), seconds, mib))
        for path in ("/trickle-headers", "/trickle-body") if args.only in (None, "deadline") else ():
            argv = ["ingest", site.url + path, "--atlas", f"{tmp}/{path.strip('/')}", "--allow-private"]
            rows.append((f"`ohara ingest {path}` (a byte every 20 ms, forever), web_timeout_s=5",
                         *run(argv, env, args.cap)))
        if args.only not in (None, "crawl"):
            return _print(rows)
        atlas = Path(tmp) / "many"
        argv = ["crawl", many.url + "/", "--atlas", str(atlas), "--max-pages", "3", "--delay", "0", "--allow-private"]
        outcome, seconds, mib = run(argv, env, args.crawl_cap)
        rows.append(("`ohara crawl` of a page with 100,000 links, `--max-pages 3`",
                     f"{crawl_rows(atlas)}; {outcome}", seconds, mib))
        atlas = Path(tmp) / "patient"
        argv = ["crawl", patient.url + "/", "--atlas", str(atlas), "--delay", "0", "--allow-private"]
        outcome, seconds, mib = run(argv, {**env, "OHARA_CRAWL_MAX_DELAY_S": "2"}, args.cap)
        rows.append(("`ohara crawl` with robots.txt `Crawl-delay: 1000000000` (OHARA_CRAWL_MAX_DELAY_S=2)",
                     f"{crawl_rows(atlas)}; {outcome}", seconds, mib))
    for s in (site, many, patient):
        s.stop()
    _print(rows)


def _print(rows: list[tuple[str, str, float, float]]) -> None:
    print("| input | outcome | s | peak MiB |")
    print("|---|---|---|---|")
    for shown, outcome, seconds, mib in rows:
        print(f"| {short(shown, 110)} | {short(outcome, 260)} | {seconds:.1f} | {mib:.0f} |")


if __name__ == "__main__":
    main()
