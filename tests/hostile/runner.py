"""Run the real `ohara` command under resource limits and measure what it cost.

The child gets an address-space cap (RLIMIT_AS) and a CPU-time cap (RLIMIT_CPU),
so a regression that inflates a bomb or loops quadratically ends in a failed
test, not in a swapping machine. Its own CPU time and peak resident memory come
from `os.wait4`, which reports them for that one child.
"""
from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

MIB = 1 << 20


@dataclass(frozen=True)
class Limits:
    memory_mib: int = 3072  # address space; spaCy and numpy map ~1 GiB before reading anything
    cpu_s: int = 120
    wall_s: int = 600  # a stopped or starved child is killed after this


@dataclass
class Run:
    """What one `ohara` invocation did and cost."""

    args: list[str]
    returncode: int  # negative: killed by that signal (SIGXCPU/SIGKILL when over a limit)
    stdout: str
    stderr: str
    wall_s: float
    cpu_s: float
    peak_mib: float

    def lines(self, status: str) -> list[str]:
        """The per-file report lines with this status ("failed" ones are on stderr)."""
        return [line for line in (self.stdout + "\n" + self.stderr).splitlines() if line.startswith(status + " ")]


def ohara(*args: str, env: dict[str, str], limits: Limits = Limits(), cwd: Path | None = None,
          python: str = sys.executable) -> Run:
    """Run `python -m ohara_lab.cli ARGS` to completion under `limits`."""

    def confine() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_mib * MIB, limits.memory_mib * MIB))
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))

    command = [python, "-m", "ohara_lab.cli", *args]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env, cwd=cwd,
                                 preexec_fn=confine)
        status, usage = _wait(child.pid, start + limits.wall_s)
        wall = time.perf_counter() - start
        child.returncode = status  # reaped by wait4: keep Popen from waiting again
        out.seek(0)
        err.seek(0)
        return Run(command[3:], status, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"),
                   wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def _wait(pid: int, deadline: float) -> tuple[int, resource.struct_rusage]:
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status), usage
        if time.perf_counter() > deadline:
            os.kill(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
            return os.waitstatus_to_exitcode(status), usage
        time.sleep(0.02)
