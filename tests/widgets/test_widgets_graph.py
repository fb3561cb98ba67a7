"""AnalyticsPanel's graph views and the EntityCurator widget on the sample atlas."""
from __future__ import annotations

import pytest

pytest.importorskip("pythreejs", reason="the widgets need the lab extra: pip install -e '.[lab]'")
pytest.importorskip("networkx")

from ohara_lab.widgets import AnalyticsPanel, EntityCurator  # noqa: E402 - after the skip guard
from ohara_lab.widgets.graph_views import community_rows, surprising_rows  # noqa: E402


def test_panel_offers_analyze_then_shows_communities_and_surprises(atlas) -> None:
    panel = AnalyticsPanel(atlas)
    assert "No graph analytics yet" in panel.graph.value
    panel.analyze()
    rows = community_rows(atlas.analytics)
    assert rows and rows[0]["size"] == max(r["size"] for r in rows)
    assert f"<td>{rows[0]['id']}</td><td>{rows[0]['size']}</td>" in panel.graph.value
    odd = surprising_rows(atlas.analytics, {})
    assert odd and odd[0]["communities"][0] != odd[0]["communities"][1]
    assert "Surprising connections" in panel.graph.value
    assert "no vectors" in panel.graph.value  # the offline sample atlas has no embeddings


def test_curator_merges_and_undoes_from_the_widget(atlas) -> None:
    cur = EntityCurator(atlas)
    assert "gnu" in cur.search("gnu")
    cur.results.value = ("gnu",)
    cur.target.options = [("Free Software Foundation", "free-software-foundation")]
    cur.target.value = "free-software-foundation"
    op = cur.merge(reason="widget test")
    assert op.id == 1 and not atlas.store.get_entities(["gnu"])
    assert "widget test" in cur.history.value and "active" in cur.history.value
    assert cur.undo().id == 1 and atlas.store.get_entities(["gnu"])
    assert "undone" in cur.history.value
    assert cur.undo() is None and "nothing to undo" in cur.status.value  # shown, not raised
    assert [p for p in atlas.check() if p.severity == "error"] == []
