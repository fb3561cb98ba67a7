"""`TaskTimer`: times user-study tasks and logs what the participant did, exportable as JSON.

The same timer serves both study conditions (the flat list and the map), so
their logs have one format: one record per task with start/end timestamps,
duration, the answer given, and the interface events in between. Task ids
match the task sheets in `refs/user_study.md`.
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import ipywidgets as w

from ohara_lab.errors import UsageError

from .html import esc

LOG_FORMAT = "ohara-lab/user-study-log"
LOG_VERSION = 1
STUDY_TASKS: tuple[tuple[str, str], ...] = (
    ("T1", "Temporal filtering: documents published in a given period"),
    ("T2", "Temporal filtering: the earliest document on a topic"),
    ("T3", "Temporal filtering: which document supersedes which"),
    ("T4", "Topic tracing: every document carrying a SUMO category"),
    ("T5", "Topic tracing: follow a topic across time"),
    ("T6", "Topic tracing: documents sharing an entity"),
    ("T7", "Structural lookup: the section that defines a term"),
    ("T8", "Structural lookup: a clause under a given heading"),
    ("T9", "Structural lookup: the table or list in a section"),
)


def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass
class TaskRecord:
    task_id: str
    condition: str
    participant: str
    started_at: str
    ended_at: str | None = None
    duration_s: float | None = None
    answer: str = ""
    completed: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)  # {t_s, kind, detail}


class TaskTimer(w.VBox):
    """Start/stop buttons, an answer box and a log; `start`, `event`, `stop`, `export` do the same from code."""

    def __init__(self, *, condition: str, participant: str = "", tasks: Sequence[tuple[str, str]] = STUDY_TASKS,
                 clock: Callable[[], float] = time.monotonic):
        self.condition = condition
        self.clock = clock
        self.records: list[TaskRecord] = []
        self.current: TaskRecord | None = None
        self._t0 = 0.0
        self.participant_box = w.Text(value=participant, description="participant", layout=w.Layout(width="220px"))
        self.task_control = w.Dropdown(options=[(f"{i} · {t}", i) for i, t in tasks], description="task",
                                       layout=w.Layout(width="480px"))
        self.start_button = w.Button(description="start", icon="play", button_style="success")
        self.answer_box = w.Text(placeholder="answer", layout=w.Layout(width="300px"))
        self.stop_button = w.Button(description="done", icon="stop", disabled=True)
        self.export_path = w.Text(value="user_study_log.json", description="export to", layout=w.Layout(width="320px"))
        self.export_button = w.Button(description="export JSON", icon="download")
        self.status = w.HTML()
        super().__init__(children=[
            w.HBox([self.participant_box, self.task_control, self.start_button]),
            w.HBox([self.answer_box, self.stop_button, self.export_path, self.export_button]),
            self.status,
        ])
        self.start_button.on_click(lambda _: self.start(self.task_control.value))
        self.stop_button.on_click(lambda _: self.stop(self.answer_box.value))
        self.export_button.on_click(lambda _: self._export_clicked())
        self._show()

    @property
    def running(self) -> bool:
        return self.current is not None

    def start(self, task_id: str) -> TaskRecord:
        if self.current is not None:
            raise UsageError(f"task {self.current.task_id} is still running; stop it first")
        self._t0 = self.clock()
        self.current = TaskRecord(task_id, self.condition, self.participant_box.value.strip(), _now_iso())
        self.start_button.disabled, self.stop_button.disabled = True, False
        self.answer_box.value = ""
        self._show()
        return self.current

    def event(self, kind: str, detail: Any = None) -> None:
        """Log an interface event (search, filter, open, pick …) against the running task; ignored when idle."""
        if self.current is not None:
            self.current.events.append({"t_s": round(self.clock() - self._t0, 3), "kind": kind, "detail": detail})

    def stop(self, answer: str = "", completed: bool = True) -> TaskRecord:
        if self.current is None:
            raise UsageError("no task is running")
        record = self.current
        record.ended_at = _now_iso()
        record.duration_s = round(self.clock() - self._t0, 3)
        record.answer, record.completed = answer, completed
        self.records.append(record)
        self.current = None
        self.start_button.disabled, self.stop_button.disabled = False, True
        self._show()
        return record

    def to_dict(self) -> dict[str, Any]:
        return {"format": LOG_FORMAT, "version": LOG_VERSION, "condition": self.condition,
                "records": [asdict(r) for r in self.records]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def export(self, path: str | Path) -> Path:
        path = Path(path).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_json(), encoding="utf-8")
        return path

    def _export_clicked(self) -> None:
        try:
            written = self.export(self.export_path.value)
        except OSError as exc:
            self.status.value = f'<span style="color:#c62828">export failed: {esc(exc)}</span>'
            return
        self.status.value = f"wrote {len(self.records)} records to <code>{esc(written)}</code>"

    def _show(self) -> None:
        running = f"running <b>{esc(self.current.task_id)}</b> · " if self.current else ""
        self.status.value = f'<span class="ohara-muted">{running}{len(self.records)} task(s) logged ({esc(self.condition)})</span>'
