"""Probe `ohara serve`, `ohara mcp` and the CLI with the hostile inputs of issue 28 (points 6 and 9).

    python -m tests.serve.probe --atlas ATLAS                      # this checkout
    python -m tests.serve.probe --atlas ATLAS --src /path/to/other/checkout

Starts the real server (and an MCP server over stdio) on the given atlas, sends each input,
and prints a Markdown table: input, outcome, wall seconds, and at the end the server's peak
resident memory. `--src` runs another checkout's code (PYTHONPATH) with the same inputs, for
before/after tables. Slow clients are polled for at most `--rounds` ticks of 0.1 s; a client
still connected then is reported so. Asserts nothing (the tests do).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tests.serve import test_serve_http_limits as limits
from tests.serve.servers import ENV, Served
from tests.serve.test_serve_http import HOSTILE_BODIES, TOKEN
from tests.serve.test_serve_mcp import BAD_NUMBERS

CLI_CASES = [  # (argv after `ohara`, extra environment)
    (["query", "licences"], {"OHARA_RESULT_LIMIT": "0"}),
    (["query", "licences", "--tiers"], {"OHARA_PPR_DAMPING": "1.5"}),
    (["query", "licences", "--json"], {"OHARA_BM25_WEIGHT": "nan"}),
    (["query", "licences", "--weight", "vector=-1"], {}),
    (["query", "licences", "--limit", "0"], {}),
    (["settings"], {"OHARA_ABSTAIN_KEEP": "0"}),
    (["serve"], {"OHARA_API_MAX_CONNECTIONS": "0"}),
]


def _short(text: str, n: int = 110) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= n else text[: n - 1] + "…"


def _timed(fn: Callable[[], str]) -> tuple[str, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _http(served: Served, method: str, path: str, raw: bytes | None = None, **kw: Any) -> str:
    try:  # a new connection each time: a 500 closes its connection, and a reused one would read as a reset
        r = httpx.request(method, served.url + path, content=raw, headers={"content-type": "application/json"},
                          timeout=60, **kw)
    except httpx.HTTPError as e:
        return f"{type(e).__name__}: {e}"
    return f"{r.status_code} {_short(r.text, 100)}"


def _slow(served: Served, clients: Callable[[], list[limits.Slow]], feed: Callable[[int], bytes]) -> str:
    made = clients()
    outcomes = limits.run(made, feed)
    counts = Counter(o or "still connected" for o in outcomes)
    return ", ".join(f"{n} × {o}" for o, n in counts.most_common())


def http_rows(served: Served) -> list[tuple[str, str, float]]:
    rows = []
    for raw, _, _ in HOSTILE_BODIES:
        path = "/answer" if raw.startswith('{"question"') else "/query"
        rows.append((f"POST {path} `{raw}`", *_timed(lambda p=path, b=raw: _http(served, "POST", p, b.encode()))))
    hit = served.client.post("/query", json={"text": "patent licences", "limit": 1}).json()["results"][0]["id"]
    feedback = f'{{"query": "q", "node_id": "{hit}", "signal": "positive", "rank": {10**24}}}'
    rows.append(("POST /feedback rank 10^24", *_timed(lambda: _http(served, "POST", "/feedback", feedback.encode()))))
    rows.append(("GET /documents?offset=-1", *_timed(lambda: _http(served, "GET", "/documents?offset=-1"))))
    port = served.port
    head = b"GET /stats HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    body_head = (b"POST /query HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                 b"content-length: 1000\r\n\r\n{")
    big = head + b"X-Big: " + b"a" * 8000 + b"\r\n\r\n"
    for name, clients, feed in (
        ("400 connections that send nothing", lambda: [limits.Slow(port) for _ in range(400)], lambda _: b""),
        ("6 clients trickling a header line per 0.1 s", lambda: [limits.Slow(port, head) for _ in range(6)],
         lambda i: b"X-T-%d: a\r\n" % i),
        ("3 clients trickling the body a byte per 0.1 s", lambda: [limits.Slow(port, body_head) for _ in range(3)],
         lambda _: b" "),
        ("an 8 KB header in one write", lambda: [limits.Slow(port, big)], lambda _: b""),
    ):
        rows.append((name, *_timed(lambda c=clients, f=feed: _slow(served, c, f))))
    rows.append(("GET /stats after the slow clients", *_timed(lambda: _http(served, "GET", "/stats"))))
    return rows


def token_rows(atlas: Path, env: dict[str, str]) -> list[tuple[str, str, float]]:
    served = Served(atlas, host="0.0.0.0", env={**env, "OHARA_API_TOKEN": TOKEN})
    try:
        return [(f"GET {p} without the token (OHARA_API_TOKEN set)", *_timed(lambda p=p: _http(served, "GET", p)))
                for p in ("/openapi.json", "/docs", "/redoc")]
    finally:
        served.stop()


def mcp_rows(atlas: Path, env: dict[str, str]) -> list[tuple[str, str, float]]:
    import anyio  # noqa: PLC0415
    from mcp import Client, StdioServerParameters  # noqa: PLC0415

    params = StdioServerParameters(command=sys.executable, args=["-m", "ohara_lab.cli", "mcp", "--atlas", str(atlas)],
                                   env=env)

    async def main() -> list[tuple[str, str, float]]:
        out = []
        async with Client(params) as client:
            for tool, args, _ in BAD_NUMBERS:
                t0 = time.perf_counter()
                result = await client.call_tool(tool, args)
                text = " ".join(getattr(c, "text", "") for c in result.content)
                outcome = ("error: " if result.is_error else "accepted: ") + _short(text, 100)
                out.append((f"MCP {tool} `{args}`", outcome, time.perf_counter() - t0))
        return out

    return anyio.run(main)


def cli_rows(atlas: Path, env: dict[str, str]) -> list[tuple[str, str, float]]:
    rows = []
    for argv, extra in CLI_CASES:
        cmd = [sys.executable, "-m", "ohara_lab.cli", *argv, *([] if argv[0] == "settings" else ["--atlas", str(atlas)])]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, env={**env, **extra}, capture_output=True, text=True, timeout=120,
                                  stdin=subprocess.DEVNULL)
            lines = [line for line in proc.stderr.splitlines() if line.strip()]
            outcome = f"exit {proc.returncode}, {len(lines)} stderr line(s): {_short(lines[-1] if lines else '')}"
        except subprocess.TimeoutExpired:
            outcome = "still running after 120 s (it served: the setting was accepted)"
        shown = " ".join(f"{k}={v}" for k, v in extra.items())
        rows.append((f"`{shown} ohara {' '.join(argv)}`".replace("` ohara", "`ohara"), outcome,
                     time.perf_counter() - t0))
    return rows


def peak_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--atlas", type=Path, required=True)
    ap.add_argument("--src", type=Path, default=None, help="another checkout whose ohara_lab to run")
    args = ap.parse_args()
    args.atlas = args.atlas.resolve()
    os.chdir(tempfile.mkdtemp(prefix="ohara-probe-"))  # `python -m` would put this checkout before --src
    env = dict(ENV)
    if args.src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(args.src.resolve()), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    served = Served(args.atlas, env={**env, **limits.LIMITS})
    try:
        rows = http_rows(served)
        peak = peak_mib(served.proc.pid)
    finally:
        served.stop()
    rows += token_rows(args.atlas, env) + mcp_rows(args.atlas, env) + cli_rows(args.atlas, env)
    print("| input | outcome | s |\n|---|---|---|")
    for name, outcome, seconds in rows:
        print(f"| {name} | {outcome} | {seconds:.1f} |")
    print(f"\nServer peak RSS over the HTTP probes: {peak:.0f} MiB. Server limits: "
          + ", ".join(f"{k}={v}" for k, v in limits.LIMITS.items()))


if __name__ == "__main__":
    main()
