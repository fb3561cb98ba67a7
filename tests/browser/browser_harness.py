"""Run a notebook in a real JupyterLab inside the system's headless Chromium (imported as `browser_harness`).

Used by the browser tests and by `benchmarks/bench_map.py`. JupyterLab runs on
127.0.0.1 on a free port with throwaway config/data/runtime/settings
directories; the browser is Debian's `/usr/bin/chromium` driven by
playwright-core (installed from `tests/browser/package.json`, no browser
download). Everything started here is stopped by its own PID.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "drive_notebook.js"
CHROMIUM = os.environ.get("OHARA_CHROMIUM", "/usr/bin/chromium")
MIN_PID = 1000  # never signal a low PID (a placeholder or a system process)


def missing_requirements() -> str | None:
    """Why the browser harness cannot run here, or None when it can."""
    if not Path(CHROMIUM).is_file():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium, or set OHARA_CHROMIUM)"
    if shutil.which("node") is None:
        return "node is not installed (apt-get install nodejs npm)"
    if not (HERE / "node_modules" / "playwright-core" / "package.json").is_file():
        return "playwright-core is not installed: run `npm ci --prefix tests/browser`"
    try:
        import jupyterlab  # noqa: F401, PLC0415
    except ImportError:
        return "jupyterlab is not installed (pip install -e '.[lab]')"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _signal(pid: int, sig: int) -> None:
    if pid <= MIN_PID:
        raise RuntimeError(f"refusing to signal PID {pid}")
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True, check=False)
    return [int(x) for x in out.stdout.split()]


@dataclass
class JupyterLab:
    """A JupyterLab server over `root_dir`; use as a context manager."""

    root_dir: Path
    token: str = "ohara-browser-test"
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None
    scratch: Path | None = None
    log_path: Path | None = None
    env: dict[str, str] = field(default_factory=dict)  # extra environment for the server and its kernels

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _api(self, path: str, method: str = "GET") -> Any:
        req = urllib.request.Request(f"{self.base_url}{path}?token={self.token}", method=method)
        with urllib.request.urlopen(req, timeout=10) as r:  # noqa: S310 - loopback only
            body = r.read()
        return json.loads(body) if body else None

    def start(self, timeout_s: float = 90.0) -> JupyterLab:
        self.scratch = Path(tempfile.mkdtemp(prefix="ohara-lab-jl-"))
        env = {**os.environ, **self.env}
        for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTERLAB_SETTINGS_DIR",
                     "JUPYTERLAB_WORKSPACES_DIR", "IPYTHONDIR"):
            path = self.scratch / name.lower()
            path.mkdir()
            env[name] = str(path)
        # No "Jupyter news" toast over the page (JupyterLab 4 setting).
        notification = self.scratch / "jupyterlab_settings_dir" / "@jupyterlab" / "apputils-extension"
        notification.mkdir(parents=True)
        (notification / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
        # The kernel must see the same interpreter (and the editable install) as the tests.
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        self.log_path = self.scratch / "jupyterlab.log"
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
               f"--ServerApp.token={self.token}", f"--ServerApp.root_dir={self.root_dir}",
               "--LabApp.expose_app_in_browser=True", "--ServerApp.open_browser=False", "--allow-root",
               "--MappingKernelManager.cull_idle_timeout=0"]
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(cmd, cwd=self.root_dir, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited early:\n{self.log_path.read_text()[-3000:]}")
            try:
                self._api("/api/status")
                return self
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"JupyterLab did not answer within {timeout_s:.0f} s")

    def stop(self) -> None:
        """Shut kernels down through the API, then stop the server and anything it left, by PID."""
        if self.process is None:
            return
        kernel_pids: list[int] = []
        if self.process.poll() is None:
            kernel_pids = _children(self.process.pid)
            try:
                for session in self._api("/api/sessions") or []:
                    self._api(f"/api/sessions/{session['id']}", method="DELETE")
                for kernel in self._api("/api/kernels") or []:
                    self._api(f"/api/kernels/{kernel['id']}", method="DELETE")
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            _signal(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                _signal(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        for pid in kernel_pids:  # kernels run in their own sessions; make sure none outlives the server
            _signal(pid, signal.SIGKILL)
        self.process = None
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)

    def __enter__(self) -> JupyterLab:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def drive(lab: JupyterLab, notebook: str, out_prefix: Path, *, probe_code: str = "", click: bool = False,
          shots: list[dict[str, str]] | None = None, time_last_cell: bool = False, orbit_steps: int = 0,
          label_probe: str = "",
          timeout_s: float = 420.0, viewport: tuple[int, int] = (1700, 1150)) -> dict[str, Any]:
    """Open `notebook` (relative to the lab's root), run all cells, inspect the page; returns the driver's JSON.

    `probe_code` runs in the live kernel after the cells; it must print one line
    `PROBE=<json>`, handed back as `result["probe"]`. With `click=True` the probe
    must hold `x`, `y` (canvas pixels), `width`, `height` and `node_id`: the driver
    double-clicks that point and waits for the inspector to show that node.
    `shots`: `{name, code}` pairs; each runs `code` in the kernel, then saves
    `<out_prefix>-<name>.png` of the canvas. `time_last_cell`: run all but the
    last cell first, then time the last one alone (`firstDrawMs` is then the
    time from running that cell to the first WebGL draw).
    When the probe also holds `label_ids` ({camera, sprites, width, height}: widget model ids),
    `result["labels"]` has the screen boxes of the visible label sprites as the page's three.js
    objects place them, after the first frame, after the orbit and after each shot.
    `orbit_steps`: drag across the canvas in that many frames (`orbitMsPerStep`), then save
    `<out_prefix>-orbited.png` and run `label_probe` in the kernel (`afterOrbit`).
    """
    out_prefix.parent.mkdir(parents=True, exist_ok=True)
    config = {
        "base": lab.base_url, "token": lab.token, "notebook": notebook, "out": str(out_prefix),
        "chromium": CHROMIUM, "probeCode": probe_code, "click": click, "viewport": list(viewport),
        "timeoutMs": int(timeout_s * 1000), "shots": shots or [], "timeLastCell": time_last_cell,
        "orbitSteps": orbit_steps, "labelProbe": label_probe,
    }
    cfg_path = out_prefix.with_suffix(".config.json")
    cfg_path.write_text(json.dumps(config))
    proc = subprocess.Popen(["node", str(DRIVER), str(cfg_path)], cwd=HERE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout_s + 60)
    except subprocess.TimeoutExpired:
        _signal(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        raise RuntimeError(f"browser driver timed out; stderr:\n{stderr[-3000:]}") from None
    result_path = out_prefix.with_suffix(".result.json")
    if proc.returncode != 0 or not result_path.is_file():
        raise RuntimeError(f"browser driver failed (rc {proc.returncode}):\n{stdout[-2000:]}\n{stderr[-3000:]}")
    return json.loads(result_path.read_text())
