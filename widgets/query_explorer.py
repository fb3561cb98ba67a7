"""`QueryExplorer`: ask the atlas, read the tiers, rate the results, keep a conversation.

    explorer = QueryExplorer(atlas, map=space_map)   # map is optional: results light up on it
    explorer.run("Which licence requires source code to be offered?")

Modes: standard, cor (Chain-of-Retrieval) and agent, plus an "answer" toggle
that synthesises a cited answer from the Principal tier. Advanced features are
optional and may fail (no LLM key, a mode not implemented yet, a provider
error): the explorer then says so in a visible notice and shows the standard
retrieval instead, never an empty panel without a reason.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from .cards import answer_html, explorer_card_html, hit_card_html
from .html import STYLE, esc, notice

if TYPE_CHECKING:
    from ohara_lab.atlas import Atlas

MODES = ("standard", "cor", "agent")
TABS = ("All", "Principal", "Integrity", "Explorer")


@dataclass
class ResultCard:
    """One card on a tab; `up`/`down` store feedback, `show` selects the node on the linked map."""

    node_id: str
    rank: int
    tab: str
    html: w.HTML
    up: w.Button
    down: w.Button
    show: w.Button
    box: w.VBox


def answerability_text(result: Any) -> str:
    """" · answerability 0.31 / threshold 0.45" when the model scored the query, else ""."""
    a = getattr(result, "answerability", None)
    if a is None or a.score is None or a.threshold == float("-inf"):
        return ""
    return f" · answerability {a.score:.2f} / threshold {a.threshold:.2f}"


class QueryExplorer(w.VBox):
    """Query box, mode toggles, tier tabs with result cards, feedback and conversation turns."""

    def __init__(self, atlas: Atlas, *, map: Any | None = None, query: str = "", mode: str = "standard",  # noqa: A002
                 answer: bool = False, limit: int | None = None):
        self.atlas = atlas
        self.map = map
        self.limit = limit
        self.history: list[dict[str, str]] = []
        self.result: Any = None
        self.answer: Any = None
        self.cards: dict[str, list[ResultCard]] = {t: [] for t in TABS}
        self.feedback_log: list[dict[str, Any]] = []
        self.query_box = w.Text(value=query, placeholder="Ask the atlas…", layout=w.Layout(width="520px"))
        self.search_button = w.Button(description="Search", button_style="primary", icon="search")
        self.mode_control = w.ToggleButtons(options=list(MODES), value=mode, description="mode",
                                            style={"button_width": "80px"})
        self.answer_control = w.Checkbox(value=answer, description="answer with citations", indent=False)
        self.turn_label = w.HTML()
        self.clear_button = w.Button(description="new conversation", icon="eraser")
        self.notice = w.HTML()
        self.answer_panel = w.HTML()
        self.summary = w.HTML()
        self.tab_boxes = {t: w.VBox() for t in TABS}
        self.tabs = w.Tab(children=[self.tab_boxes[t] for t in TABS])
        for i, t in enumerate(TABS):
            self.tabs.set_title(i, t)
        super().__init__(children=[
            w.HTML(STYLE),
            w.HBox([self.query_box, self.search_button]),
            w.HBox([self.mode_control, self.answer_control]),
            w.HBox([self.turn_label, self.clear_button]),
            self.notice, self.answer_panel, self.summary, self.tabs,
        ])
        self.search_button.on_click(lambda _: self.run())
        self.clear_button.on_click(lambda _: self.clear_conversation())
        self._update_turns()
        if query:
            self.run(query)

    # ------------------------------------------------------------------ running
    @property
    def turns(self) -> int:
        """Questions asked in the current conversation."""
        return sum(1 for m in self.history if m["role"] == "user")

    def run(self, text: str | None = None, *, mode: str | None = None, answer: bool | None = None) -> Any:
        """Ask `text` (default: the query box) and fill the tabs; returns the retrieval result."""
        if text is not None:
            self.query_box.value = text
        if mode is not None:
            self.mode_control.value = mode
        if answer is not None:
            self.answer_control.value = answer
        question = self.query_box.value.strip()
        if not question:
            self.notice.value = notice("Type a question first.")
            return None
        mode, wants_answer = self.mode_control.value, self.answer_control.value
        history = list(self.history)
        problems: list[str] = []
        overrides = {"result_limit": self.limit} if self.limit else {}
        t0 = time.perf_counter()
        result, ans = None, None
        if wants_answer:
            try:
                ans = self.atlas.answer(question, mode=mode, session_history=history or None, **overrides)
                result = getattr(ans, "retrieval", None)
            except Exception as exc:  # noqa: BLE001 - shown to the user, who can act on it
                problems.append(f"Answer synthesis failed ({type(exc).__name__}: {exc}); showing retrieval only.")
                ans = None
        if result is None:
            try:
                result = self.atlas.query(question, mode=mode, session_history=history or None, **overrides)
            except Exception as exc:  # noqa: BLE001
                if mode == "standard":
                    self.notice.value = notice(f"Query failed: {type(exc).__name__}: {exc}")
                    return None
                problems.append(f"Mode '{mode}' is unavailable ({type(exc).__name__}: {exc}); "
                                "showing standard retrieval instead.")
                result = self.atlas.query(question, session_history=history or None, **overrides)
        elapsed = (time.perf_counter() - t0) * 1e3
        self.result, self.answer = result, ans
        self.history.append({"role": "user", "content": question})
        if ans is not None and getattr(ans, "text", ""):
            self.history.append({"role": "assistant", "content": ans.text})
        self.notice.value = "".join(notice(p) for p in problems)
        self.answer_panel.value = answer_html(ans) if ans is not None else ""
        self._fill(result, elapsed)
        self._update_turns()
        if self.map is not None:
            self.map.highlight(result)
        return result

    def clear_conversation(self) -> None:
        """Forget earlier turns (the next query is asked without session history)."""
        self.history = []
        self._update_turns()

    def _update_turns(self) -> None:
        self.turn_label.value = (f'<span class="ohara-muted">conversation: turn {self.turns}'
                                 f'{" (earlier turns are sent as context)" if self.turns else ""}</span>')

    # ------------------------------------------------------------------ tabs and cards
    def _fill(self, result: Any, elapsed_ms: float) -> None:
        tiers = result.tiers
        principal_ids = {f.id for f in tiers.principal}
        fused_by_id = {f.id: f for f in result.fused}
        row_tags = getattr(result, "row_tags", {}) or {}
        self.cards = {t: [] for t in TABS}
        for rank, f in enumerate(result.results, start=1):
            tier = "principal" if f.id in principal_ids else None
            self._card("All", f.id, rank, hit_card_html(rank, f, result.views.get(f.id), tier,
                                                         extra=row_tags.get(f.id)))
        for rank, f in enumerate(tiers.principal, start=1):
            self._card("Principal", f.id, rank, hit_card_html(rank, f, result.views.get(f.id), "principal",
                                                               _provenance(f)))
        for rank, item in enumerate(tiers.integrity, start=1):
            # Structural neighbours join Integrity without a fused score of their own.
            f = fused_by_id.get(item.id) or SimpleNamespace(
                id=item.id, document_id=item.document_id or "", score=item.score,
                contributions=[], families=set(item.sources))
            self._card("Integrity", item.id, rank, hit_card_html(
                rank, f, result.views.get(item.id), item.role, item.provenance,
                {"flags": item.integrity_flags} if item.integrity_flags else None))
        for rank, item in enumerate(tiers.explorer, start=1):
            title = result._title(item.document_id) if hasattr(result, "_title") else ""
            self._card("Explorer", item.node_id or item.document_id, rank, explorer_card_html(rank, item, title),
                       feedback=item.node_id is not None)
        for i, t in enumerate(TABS):
            self.tab_boxes[t].children = [c.box for c in self.cards[t]] or [
                w.HTML(self._empty_text(t, result))]
            self.tabs.set_title(i, f"{t} ({len(self.cards[t])})")
        verdict = (f"<b>abstained</b>: {esc(result.abstain_reason or '')}" if result.abstained
                   else f"{len(tiers.principal)} principal")
        verdict += answerability_text(result)
        self.summary.value = (f'<span class="ohara-muted">{len(result.fused)} nodes reached · {verdict} · '
                              f"{len(tiers.integrity)} integrity · {len(tiers.explorer)} explorer"
                              f"{' (stopped: ' + esc(tiers.stopped_reason) + ')' if tiers.stopped_reason else ''}"
                              f" · {elapsed_ms:.0f} ms</span>")

    @staticmethod
    def _empty_text(tab: str, result: Any) -> str:
        if tab == "Principal" and result.abstained:
            return notice(f"Not enough evidence: {esc(result.abstain_reason or '')}.{esc(answerability_text(result))}")
        return '<div class="ohara-muted">nothing here</div>'

    def _card(self, tab: str, node_id: str, rank: int, html: str, feedback: bool = True) -> None:
        body = w.HTML(html)
        up = w.Button(icon="thumbs-up", tooltip="relevant", layout=w.Layout(width="40px"), disabled=not feedback)
        down = w.Button(icon="thumbs-down", tooltip="not relevant", layout=w.Layout(width="40px"),
                        disabled=not feedback)
        show = w.Button(description="on map", layout=w.Layout(width="80px"), disabled=self.map is None)
        card = ResultCard(node_id, rank, tab, body, up, down, show, w.VBox([body, w.HBox([up, down, show])]))
        up.on_click(lambda _: self.send_feedback(card, "positive"))
        down.on_click(lambda _: self.send_feedback(card, "negative"))
        show.on_click(lambda _: self._show_on_map(node_id))
        self.cards[tab].append(card)

    def send_feedback(self, card: ResultCard, signal: str) -> None:
        """Store a thumbs up/down for a card through `atlas.feedback` (rank = its place in its tab)."""
        query = self.result.query.raw if self.result is not None else self.query_box.value
        try:
            self.atlas.feedback(query, card.node_id, card.rank, signal)
        except Exception as exc:  # noqa: BLE001
            self.notice.value = notice(f"Feedback was not saved: {type(exc).__name__}: {exc}")
            return
        self.feedback_log.append({"query": query, "node_id": card.node_id, "rank": card.rank, "signal": signal})
        card.up.disabled = card.down.disabled = True
        (card.up if signal == "positive" else card.down).button_style = "success" if signal == "positive" else "danger"

    def _show_on_map(self, node_id: str) -> None:
        if self.map is None:
            return
        try:
            self.map.select_node(node_id)
        except KeyError:
            self.notice.value = notice(f"{node_id} is not drawn on the map (its document is not selected).")


def _provenance(f: Any) -> list[dict[str, Any]]:
    return [{"phase": c.phase, "score": c.score, "raw_score": c.raw_score, **(c.via or {})} for c in f.contributions]
