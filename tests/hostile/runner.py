"""Run the real `ohara` command under resource limits and measure what it cost.

The command gets an address-space cap (RLIMIT_AS) and a CPU-time cap (RLIMIT_CPU),
so a regression that inflates a bomb or loops quadratically ends in a failed
test, not in a swapping machine. Its CPU time and peak resident memory come from
`wait4` in a small launcher process: a child's `ru_maxrss` counts the memory of
the process it was forked from, so forking from pytest (a gigabyte with spaCy
loaded) would report the test runner's size, not the command's.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

MIB = 1 << 20

# argv: memory bytes, CPU seconds, stdout file, program, args...; the command writes its
# stdout to that file and its stderr to the launcher's; the launcher prints the usage as JSON.
_LAUNCHER = """
import json, os, resource, sys
memory, cpu, stdout = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
pid = os.fork()
if pid == 0:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    os.dup2(os.open(stdout, os.O_WRONLY | os.O_TRUNC), 1)
    os.execv(sys.argv[4], sys.argv[4:])
_, status, usage = os.wait4(pid, 0)
print(json.dumps({"status": os.waitstatus_to_exitcode(status), "cpu_s": usage.ru_utime + usage.ru_stime,
                  "peak_mib": usage.ru_maxrss / 1024}))
"""


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
    command = [python, "-m", "ohara_lab.cli", *args]
    with tempfile.NamedTemporaryFile() as out, tempfile.TemporaryFile() as err:
        launcher = [python, "-c", _LAUNCHER, str(limits.memory_mib * MIB), str(limits.cpu_s), out.name, *command]
        start = time.perf_counter()
        with subprocess.Popen(launcher, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL, env=env,
                              cwd=cwd, start_new_session=True) as launched:
            try:
                report = json.loads(launched.communicate(timeout=limits.wall_s)[0])
            except subprocess.TimeoutExpired:  # stopped or starved: kill the launcher and the command
                os.killpg(launched.pid, signal.SIGKILL)
                launched.communicate()
                report = {"status": -signal.SIGKILL, "cpu_s": float("nan"), "peak_mib": float("nan")}
        wall = time.perf_counter() - start
        err.seek(0)
        return Run(command[3:], report["status"], Path(out.name).read_text("utf-8", "replace"),
                   err.read().decode("utf-8", "replace"), wall, report["cpu_s"], report["peak_mib"])
