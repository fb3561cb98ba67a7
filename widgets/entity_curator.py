"""`EntityCurator`: search entities, merge some into another, undo; the curation log underneath.

A thin face over `Atlas.entities`, `Atlas.merge_entities`, `Atlas.undo_entities`
and `Atlas.entity_log`; every button has a method of the same name, so tests
and notebooks drive it without a browser. Errors (an unknown slug, an undo out
of order) show as a notice, never as a traceback.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ohara_lab.errors import OharaError

from .html import STYLE, esc, notice

if TYPE_CHECKING:
    from ohara_lab.atlas import Atlas

RESULTS = 30
LOG_ROWS = 8


class EntityCurator(w.VBox):
    """Find entities, fold duplicates into one, take a step back; `refresh()` re-reads the atlas."""

    def __init__(self, atlas: Atlas):
        self.atlas = atlas
        self.query = w.Text(placeholder="search entities (name, alias or slug)", description="search")
        self.results = w.SelectMultiple(options=[], rows=8, description="merge", layout=w.Layout(width="98%"))
        self.target = w.Dropdown(options=[], description="into")
        self.reason = w.Text(placeholder="why (kept in the log)", description="reason")
        self.merge_button = w.Button(description="merge", icon="compress", button_style="warning")
        self.undo_button = w.Button(description="undo last step", icon="undo")
        self.status = w.HTML()
        self.history = w.HTML()
        self.query.observe(lambda _: self.search(self.query.value), names="value")
        self.merge_button.on_click(lambda _: self.merge())
        self.undo_button.on_click(lambda _: self.undo())
        super().__init__(children=[w.HTML(STYLE), self.query, self.results, w.HBox([self.target, self.reason]),
                                   w.HBox([self.merge_button, self.undo_button]), self.status, self.history])
        self.refresh()

    def search(self, text: str) -> list[str]:
        """Show the entities matching `text`, most mentioned first; returns their slugs."""
        found = self.atlas.entities(text or None, limit=RESULTS)
        self.results.options = [(f"{e.name} ({e.type}, {e.mention_count} mentions) [{e.slug}]", e.slug) for e in found]
        self.target.options = [(e.name, e.slug) for e in found]
        return [e.slug for e in found]

    def merge(self, sources: list[str] | None = None, target: str | None = None, reason: str | None = None) -> Any:
        """Merge the selected entities (or `sources`) into the target; the step is logged and undoable."""
        target = target or self.target.value
        sources = [s for s in (sources if sources is not None else list(self.results.value)) if s != target]
        return self._run(lambda: self.atlas.merge_entities(sources, into=target,
                                                           reason=self.reason.value if reason is None else reason))

    def undo(self, step: int | None = None) -> Any:
        """Undo the latest active step (or `step`)."""
        return self._run(lambda: self.atlas.undo_entities(step))

    def _run(self, action: Any) -> Any:
        try:
            op = action()
        except OharaError as e:
            self.status.value = notice(str(e))
            return None
        verb = "undid" if op.undone_at else "did"
        self.status.value = (f'<div class="ohara-muted">{verb} step {op.id}: {esc(op.op)} {esc(", ".join(op.sources))}'
                             f'{" → " + esc(op.target) if op.target else ""}</div>')
        self.refresh()
        return op

    def refresh(self) -> None:
        self.search(self.query.value)
        ops = self.atlas.entity_log()[-LOG_ROWS:]
        rows = "".join(f"<tr><td>{o.id}</td><td>{esc(o.op)}</td><td>{esc(', '.join(o.sources))}</td>"
                       f"<td>{esc(o.target or '')}</td><td>{esc(o.actor)}</td><td>{esc(o.reason)}</td>"
                       f"<td>{'undone' if o.undone_at else 'active'}</td></tr>" for o in reversed(ops))
        self.history.value = ("<b>Entity log</b><table><tr><th>step</th><th>op</th><th>from</th><th>into</th><th>by</th>"
                          f"<th>why</th><th>state</th></tr>{rows}</table>" if rows
                          else '<div class="ohara-muted">No curation steps yet.</div>')
