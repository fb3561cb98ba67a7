"""`AnalyticsPanel`: corpus totals, feedback accuracy by rank, the top-rated nodes, and the
graph analytics (communities, surprising edges, clusters; `graph_views`).

Feedback accuracy at rank r = positive / (positive + negative) over the
thumbs given to results shown at rank r (the spec's `feedback` collection,
§1.1). A falling bar chart means relevant results sit too low.
"""
from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ohara_lab.records import SIMILAR_TO
from ohara_lab.render import shorten

from .graph_views import graph_html
from .html import STYLE, esc

if TYPE_CHECKING:
    from ohara_lab.atlas import Atlas

MAX_RANK = 20
TOP_NODES = 10


@dataclass(frozen=True)
class RankAccuracy:
    rank: int
    positive: int
    negative: int

    @property
    def accuracy(self) -> float:
        return self.positive / (self.positive + self.negative)


def accuracy_by_rank(rows: Iterable[dict[str, Any]], max_rank: int = MAX_RANK) -> list[RankAccuracy]:
    """Per rank (1…max_rank, only ranks that have feedback), counts and accuracy; ranks above go to max_rank."""
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        rank = row.get("rank")
        if rank is None or int(rank) < 1:
            continue
        counts[min(int(rank), max_rank)][0 if row["signal"] == "positive" else 1] += 1
    return [RankAccuracy(r, p, n) for r, (p, n) in sorted(counts.items())]


def top_rated(rows: Iterable[dict[str, Any]], k: int = TOP_NODES) -> list[tuple[str, int, int]]:
    """(node id, positive, negative) of the k nodes with the highest positive − negative (ties: more votes)."""
    votes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        votes[row["node_id"]][0 if row["signal"] == "positive" else 1] += 1
    ranked = sorted(votes.items(), key=lambda kv: (-(kv[1][0] - kv[1][1]), -(kv[1][0] + kv[1][1]), kv[0]))
    return [(node, p, n) for node, (p, n) in ranked[:k]]


def accuracy_png(stats: list[RankAccuracy]) -> bytes:
    """The bar chart as PNG bytes (object-oriented matplotlib: no pyplot state, no GUI backend)."""
    from matplotlib.figure import Figure  # noqa: PLC0415

    fig = Figure(figsize=(5.5, 2.6), dpi=100)
    ax = fig.add_subplot()
    if stats:
        ax.bar([s.rank for s in stats], [s.accuracy for s in stats], color="#268bd2")
        for s in stats:
            ax.text(s.rank, s.accuracy + 0.02, str(s.positive + s.negative), ha="center", fontsize=7, color="#586e75")
    ax.set_ylim(0, 1.1)
    ax.set_xlabel("rank shown")
    ax.set_ylabel("accuracy (positive share)")
    ax.set_title("feedback accuracy by rank (labels: votes)" if stats else "no feedback yet", fontsize=9)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    return buf.getvalue()


class AnalyticsPanel(w.VBox):
    """Corpus totals, the accuracy-by-rank chart and the top-rated nodes; `refresh()` re-reads the store."""

    def __init__(self, atlas: Atlas):
        self.atlas = atlas
        self.totals = w.HTML()
        self.chart = w.Image(format="png")
        self.top = w.HTML()
        self.refresh_button = w.Button(description="refresh", icon="refresh")
        self.refresh_button.on_click(lambda _: self.refresh())
        self.graph = w.HTML()
        self.analyze_button = w.Button(description="analyze", icon="sitemap", tooltip="recompute graph analytics")
        self.analyze_button.on_click(lambda _: self.analyze())
        super().__init__(children=[w.HTML(STYLE), w.HBox([self.totals, self.refresh_button]), self.chart, self.top,
                                   w.HBox([w.HTML("<b>Graph</b>"), self.analyze_button]), self.graph])
        self.refresh()

    def analyze(self) -> None:
        """What the analyze button does: recompute the graph analytics, then redraw."""
        self.atlas.analyze()
        self.refresh()

    def refresh(self) -> None:
        stats = self.atlas.stats()
        edges = stats.get("edges", {})
        cells = [("documents", stats.get("documents")), ("sections", stats.get("sections")),
                 ("paragraphs", stats.get("paragraphs")), ("tables", stats.get("tables")),
                 ("entities", stats.get("entities")), ("edges", sum(edges.values())),
                 (SIMILAR_TO, edges.get(SIMILAR_TO, 0)), ("partial documents", stats.get("partial_documents"))]
        self.totals.value = "<table>" + "".join(
            f'<tr><td class="ohara-muted">{esc(k)}</td><td><b>{esc(v)}</b></td></tr>' for k, v in cells) + "</table>"
        rows = self.atlas.feedback_log()
        self.rank_stats = accuracy_by_rank(rows)
        self.chart.value = accuracy_png(self.rank_stats)
        self.top_nodes = top_rated(rows)
        nodes = self.atlas.nodes([n for n, _, _ in self.top_nodes]) if self.top_nodes else {}
        items = []
        for node, p, n in self.top_nodes:
            row = nodes.get(node, {})
            label = shorten(row.get("title") or row.get("name") or row.get("content") or node, 90)
            items.append(f"<li><b>+{p} / −{n}</b> {esc(label)} <code class=\"ohara-muted\">{esc(node)}</code></li>")
        self.top.value = (f"<b>Top-rated nodes</b><ol>{''.join(items)}</ol>" if items
                          else '<div class="ohara-muted">No feedback yet: rate results in the query explorer.</div>')
        self.graph.value = graph_html(self.atlas)
