"""`IngestPanel`: add files to the atlas from the notebook, with progress and one line per file.

Files come from a FileUpload (written to a private temporary folder first,
because the ingest pipeline reads paths) or from a path typed in (a file or a
directory, which is walked recursively) or an http(s) URL, fetched through the
guarded web fetcher. Outcomes are shown as they arrive.
"""
from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ohara_lab.web import is_web_url

from .html import STYLE, esc, notice

if TYPE_CHECKING:
    from ohara_lab.atlas import Atlas

STATUS_COLORS = {"ingested": "#2e7d32", "replaced": "#2e7d32", "completed": "#2e7d32",
                 "skipped": "#6a737d", "failed": "#c62828"}


class IngestPanel(w.VBox):
    """Upload or point at files, ingest them, watch a progress bar and per-file outcomes."""

    def __init__(self, atlas: Atlas, *, on_ingested: Callable[[Any], None] | None = None):
        from ohara_lab.parse import SUPPORTED_EXTENSIONS  # noqa: PLC0415

        self.atlas = atlas
        self.on_ingested = on_ingested
        self.outcomes: list[Any] = []
        self.upload = w.FileUpload(multiple=True, accept=",".join(SUPPORTED_EXTENSIONS), description="upload")
        self.path_box = w.Text(placeholder="or a file / directory path, or an http(s) URL", layout=w.Layout(width="420px"))
        self.force = w.Checkbox(value=False, description="re-ingest unchanged files", indent=False)
        self.button = w.Button(description="Ingest", button_style="primary", icon="upload")
        self.progress = w.IntProgress(value=0, min=0, max=1, description="0 / 0", bar_style="info")
        self.outcome_log = w.HTML()
        super().__init__(children=[w.HTML(STYLE), w.HBox([self.upload, self.path_box, self.force, self.button]),
                                   self.progress, self.outcome_log])
        self.button.on_click(lambda _: self.ingest_selected())

    def ingest_selected(self) -> list[Any]:
        """Ingest whatever the upload widget and the path box hold."""
        paths: list[str | Path] = []
        typed = self.path_box.value.strip()
        if typed:
            paths.append(typed if is_web_url(typed) else Path(typed).expanduser())
        uploads = list(self.upload.value or ())
        if not paths and not uploads:
            self.outcome_log.value = notice("Choose files to upload or type a path first.")
            return []
        if uploads:
            folder = Path(tempfile.mkdtemp(prefix="ohara-upload-"))
            for item in uploads:
                target = folder / Path(item["name"]).name  # a name, never a path from the browser
                target.write_bytes(bytes(item["content"]))
                paths.append(target)
        outcomes = self.ingest_paths(paths)
        self.upload.value = ()
        return outcomes

    def ingest_paths(self, paths: Iterable[str | Path]) -> list[Any]:
        """Ingest files/directories and http(s) URLs, updating the bar and the log after every one."""
        from ohara_lab.ingest.pipeline import expand_paths  # noqa: PLC0415

        paths = [p if is_web_url(str(p)) else Path(p) for p in paths]
        files, problems = expand_paths([p for p in paths if isinstance(p, Path)])
        total = len(files) + len(problems) + sum(1 for p in paths if not isinstance(p, Path))
        self.progress.max, self.progress.value = max(total, 1), 0
        self.progress.bar_style, self.progress.description = "info", f"0 / {total}"
        self.outcomes = []
        self.outcome_log.value = ""

        def seen(outcome: Any) -> None:
            self.outcomes.append(outcome)
            self.progress.value = len(self.outcomes)
            self.progress.description = f"{len(self.outcomes)} / {total}"
            self.outcome_log.value += _line(outcome)

        try:
            self.atlas.ingest(paths, force=self.force.value, progress=False, on_outcome=seen)
        except Exception as exc:  # noqa: BLE001 - shown, not swallowed
            self.outcome_log.value += notice(f"Ingest stopped: {type(exc).__name__}: {exc}")
            self.progress.bar_style = "danger"
            return self.outcomes
        failed = sum(1 for o in self.outcomes if o.status == "failed")
        self.progress.bar_style = "danger" if failed else "success"
        if self.on_ingested is not None:
            self.on_ingested(self.outcomes)
        return self.outcomes


def _line(outcome: Any) -> str:
    color = STATUS_COLORS.get(outcome.status, "#333")
    counts = ", ".join(f"{v} {k}" for k, v in (outcome.counts or {}).items() if v)
    reason = f" — {esc(outcome.reason)}" if outcome.reason else ""
    return (f'<div style="font-size:12px"><b style="color:{color}">{esc(outcome.status)}</b> '
            f"{esc(Path(outcome.path).name)}{reason}"
            f'{" <span class=ohara-muted>(" + esc(counts) + ")</span>" if counts else ""}</div>')
