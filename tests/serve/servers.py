"""Real servers for the serving tests: `ohara serve` under uvicorn in a subprocess, on a free loopback port."""
from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.support import offline_env

ENV = offline_env()
ENV.pop("OHARA_API_TOKEN", None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """`ohara serve` running in a subprocess; `client` talks to it over 127.0.0.1."""

    def __init__(self, atlas: Path, *, host: str = "127.0.0.1", env: dict[str, str] | None = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen([sys.executable, "-m", "ohara_lab.cli", "serve", "--atlas", str(atlas),
                                      "--host", host, "--port", str(self.port)],
                                     env=env or ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.client = httpx.Client(base_url=self.url, timeout=60)
        self._wait_ready()

    def _wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ohara serve exited with {self.proc.returncode}: {self.proc.stderr.read()}")
            try:
                httpx.get(self.url + "/openapi.json", timeout=2)
                return
            except httpx.TransportError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("ohara serve did not start listening")

    def stop(self) -> str:
        self.client.close()
        self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err
