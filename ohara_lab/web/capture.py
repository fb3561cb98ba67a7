"""`ohara capture`: a page as the browser renders it — DOM as HTML, print as PDF, screenshot as PNG.

The system Chromium runs headless with its own print / screenshot / dump-DOM
flags, as an argument list (never a shell), in a throw-away profile. The page's
host is checked by the SSRF guard first and pinned to the address that was
checked (`--host-resolver-rules`); every request to another origin (scheme,
host and port) is sent to a proxy that does not exist, so a page cannot make the
browser reach any other server (loopback included: `<-loopback>` removes
Chromium's implicit bypass). The output goes where the caller says, or to a file named after the
URL in the current directory; an existing file is kept unless `overwrite`.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from ..errors import CaptureError, UsageError
from ..settings import Settings
from .guard import check_reachable

FORMATS = ("html", "pdf", "png")
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
BLACKHOLE_PROXY = "http://127.0.0.1:9"  # the discard port: nothing listens, every proxied request fails
WINDOW = "1280,1600"


def find_chromium(settings: Settings) -> str | None:
    """The Chromium executable: `OHARA_CHROMIUM`, else the first known name on PATH."""
    if settings.chromium:
        return shutil.which(settings.chromium) or (settings.chromium if Path(settings.chromium).is_file() else None)
    return next((found for name in CANDIDATES if (found := shutil.which(name))), None)


def default_output(url: str, to: str) -> Path:
    """A file name made from the URL's host and path, in the current directory (never a path from the URL)."""
    parts = urlsplit(url)
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", f"{parts.hostname or 'page'}{parts.path}").strip("_")[:120] or "page"
    return Path(f"{stem}.{to}")


def capture(url: str, to: str, out: str | Path | None = None, *, settings: Settings | None = None,
            allow_private: bool | None = None, overwrite: bool = False) -> Path:
    """Render `url` with headless Chromium into `out` as `to` (html | pdf | png); returns the file written."""
    settings = settings or Settings()
    if to not in FORMATS:
        raise UsageError(f"capture format must be one of {', '.join(FORMATS)}, not {to!r}")
    allow = settings.web_allow_private if allow_private is None else allow_private
    address = check_reachable(url, allow)
    exe = find_chromium(settings)
    if exe is None:
        raise CaptureError("no Chromium found (apt-get install chromium, or set OHARA_CHROMIUM)")
    target = Path(out) if out else default_output(url, to)
    if target.exists() and not overwrite:
        raise UsageError(f"{target} exists (pass --force to replace it)")
    with tempfile.TemporaryDirectory(prefix="ohara-capture-") as profile:
        scratch = Path(profile) / f"capture.{to}"
        args = _arguments(exe, url, str(address), profile, settings) + _output_flags(to, scratch) + [url]
        try:
            done = subprocess.run(args, capture_output=True, timeout=settings.capture_timeout_s, check=False)
        except subprocess.TimeoutExpired:
            raise CaptureError(f"{url}: Chromium took longer than {settings.capture_timeout_s:g} s") from None
        if to == "html":
            scratch.write_bytes(done.stdout)
        if done.returncode != 0 or not scratch.exists() or scratch.stat().st_size == 0:
            detail = " ".join(done.stderr.decode("utf-8", "replace").split())[-200:]
            raise CaptureError(f"{url}: Chromium rendered nothing (exit {done.returncode}) {detail}".rstrip())
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(scratch), target)
    return target


def _arguments(exe: str, url: str, address: str, profile: str, settings: Settings) -> list[str]:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    pinned = f"[{address}]" if ":" in address else address
    origin = f"{parts.scheme.lower()}://[{host}]:{port}" if ":" in host else f"{parts.scheme.lower()}://{host}:{port}"
    # Pinned to the checked address; other hosts never resolve: their requests go to the dead proxy.
    pinned_rule = [] if host == address else [f"--host-resolver-rules=MAP {host} {pinned}"]
    args = [exe, "--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--disable-background-networking", "--disable-sync", "--disable-dev-shm-usage",
            "--hide-scrollbars", "--mute-audio", f"--user-data-dir={profile}",
            f"--user-agent={settings.web_user_agent}", f"--window-size={WINDOW}",
            *pinned_rule, f"--proxy-server={BLACKHOLE_PROXY}", f"--proxy-bypass-list=<-loopback>;{origin}",
            "--virtual-time-budget=5000"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses to start its sandbox as root (CI containers)
    return args


def _output_flags(to: str, scratch: Path) -> list[str]:
    if to == "pdf":
        return [f"--print-to-pdf={scratch}", "--no-pdf-header-footer"]
    if to == "png":
        return [f"--screenshot={scratch}"]
    return ["--dump-dom"]
