"""FlatList (the user-study baseline), TaskTimer, AnalyticsPanel and IngestPanel on the sample atlas."""
from __future__ import annotations

import itertools
import json
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest

pytest.importorskip("pythreejs", reason="the widgets need the lab extra: pip install -e '.[lab]'")

from ohara_lab.errors import UsageError  # noqa: E402 - after the skip guard
from ohara_lab.widgets import AnalyticsPanel, FlatList, IngestPanel, TaskTimer  # noqa: E402 - after the skip guard
from ohara_lab.widgets.analytics_panel import accuracy_by_rank, top_rated  # noqa: E402 - after the skip guard
from ohara_lab.widgets.flat_list import ANY_TAG, in_date_range  # noqa: E402 - after the skip guard


def _titles(flat: FlatList) -> list[str]:
    return [flat.docs[i].title for i in flat.visible_ids()]


def test_flat_list_starts_with_every_document(atlas) -> None:
    flat = FlatList(atlas)
    assert len(flat.document_list.options) == 7
    assert "7 of 7 documents" in flat.count.value


def test_text_search_reads_titles_and_full_text(atlas) -> None:
    flat = FlatList(atlas)
    flat.search.value = "lesser"
    titles = _titles(flat)
    assert {"GNU LESSER GENERAL PUBLIC LICENSE, Version 2.1", "GNU LESSER GENERAL PUBLIC LICENSE, Version 3"} <= set(titles)
    assert "Apache License, Version 2.0" not in titles  # the only licence text that never says "lesser"
    for doc_id in flat.visible_ids():
        nodes = atlas.store.document_nodes(doc_id)
        text = " ".join([flat.docs[doc_id].title] + [p["content"] for p in nodes["paragraphs"]]).lower()
        assert "lesser" in text
    flat.search.value = "invariant sections"  # only the FDL's text says this
    assert _titles(flat) == ["GNU Free Documentation License, Version 1.3"]
    assert len(flat.document_list.options) == 1
    flat.search.value = "zzzunfindable"
    assert flat.visible_ids() == []


def test_date_range_filter(atlas) -> None:
    flat = FlatList(atlas)
    flat.include_undated.value = False
    flat.date_from.value, flat.date_to.value = "2004", "2007-12"
    got = set(_titles(flat))
    assert {"Apache License, Version 2.0", "GNU GENERAL PUBLIC LICENSE, Version 3"} <= got
    assert "GNU GENERAL PUBLIC LICENSE, Version 2" not in got  # 1991
    flat.date_from.value, flat.date_to.value = "", "1995"
    assert "GNU GENERAL PUBLIC LICENSE, Version 2" in _titles(flat)
    assert "Apache License, Version 2.0" not in _titles(flat)


def test_date_helpers() -> None:
    doc = SimpleNamespace(published_date="2004-01", temporal_coverage_start=None, temporal_coverage_end=None)
    assert in_date_range(doc, "2004", "", False) and in_date_range(doc, "", "2004-01-15", False)
    assert not in_date_range(doc, "2004-02", "", False)
    undated = SimpleNamespace(published_date=None, temporal_coverage_start=None, temporal_coverage_end=None)
    assert in_date_range(undated, "2000", "", True) and not in_date_range(undated, "2000", "", False)
    assert in_date_range(undated, "", "", False)  # no range: nothing is filtered


def test_tag_filter_and_date_sort(atlas) -> None:
    flat = FlatList(atlas)
    assert flat.tag.options[0] == ANY_TAG
    rare = flat.tag.options[-1]  # options run from the most to the least common tag
    flat.tag.value = rare
    carriers = [d.id for d in atlas.documents() if rare in d.sumo_tags]
    assert sorted(flat.visible_ids()) == sorted(carriers) and 0 < len(carriers) < 7
    flat.tag.value = ANY_TAG
    flat.sort.value = "date"
    assert _titles(flat)[0] == "GNU GENERAL PUBLIC LICENSE, Version 2"  # the earliest (coverage 1989)


def test_reader_shows_a_section_and_its_subsections(atlas) -> None:
    flat = FlatList(atlas)
    doc = next(d for d in atlas.documents() if d.title.startswith("Apache"))
    flat.open_document(doc.id)
    assert flat.outline.options[0] == ("(whole document)", "")
    sections = atlas.store.document_nodes(doc.id)["sections"]
    top = next(s for s in sections if s["parent_section_id"] is None and
               any(c["parent_section_id"] == s["id"] for c in sections))
    child = next(c for c in sections if c["parent_section_id"] == top["id"])
    flat.open_section(top["id"])
    assert child["title"].replace('"', "&quot;") in flat.reader.value  # subsections are read with their parent
    assert doc.title in flat.reader.value


def test_task_timer_logs_and_exports(atlas, tmp_path) -> None:
    ticks = itertools.chain([10.0, 10.5, 12.0, 14.25], itertools.count(20.0))
    flat = FlatList(atlas, timer=TaskTimer(condition="flat_list", participant="P07", clock=lambda: next(ticks)))
    flat.timer.start("T1")
    flat.search.value = "patent"  # t = 10.5
    flat.open_document(flat.visible_ids()[0])  # t = 12.0
    record = flat.timer.stop("Apache License")  # t = 14.25
    assert record.duration_s == pytest.approx(4.25)
    assert [e["kind"] for e in record.events] == ["search", "open_document"]
    assert record.events[0] == {"t_s": 0.5, "kind": "search", "detail": "patent"}
    out = flat.timer.export(tmp_path / "log.json")
    data = json.loads(out.read_text())
    assert data["format"] == "ohara-lab/user-study-log" and data["condition"] == "flat_list"
    assert data["records"][0]["participant"] == "P07" and data["records"][0]["answer"] == "Apache License"
    with pytest.raises(UsageError):
        flat.timer.stop()
    flat.timer.start("T2")
    with pytest.raises(UsageError):
        flat.timer.start("T3")


def test_accuracy_by_rank_hand_computed() -> None:
    rows = [{"rank": 1, "signal": "positive", "node_id": "a"}, {"rank": 1, "signal": "positive", "node_id": "a"},
            {"rank": 1, "signal": "negative", "node_id": "b"}, {"rank": 3, "signal": "negative", "node_id": "c"},
            {"rank": None, "signal": "positive", "node_id": "d"}, {"rank": 40, "signal": "positive", "node_id": "e"}]
    stats = accuracy_by_rank(rows, max_rank=20)
    assert [(s.rank, s.positive, s.negative) for s in stats] == [(1, 2, 1), (3, 0, 1), (20, 1, 0)]
    assert stats[0].accuracy == pytest.approx(2 / 3)
    assert top_rated(rows, k=2) == [("a", 2, 0), ("d", 1, 0)]


def test_analytics_panel_reads_feedback(atlas, query_text) -> None:
    panel = AnalyticsPanel(atlas)
    assert panel.rank_stats == [] and "No feedback yet" in panel.top.value
    result = atlas.query(query_text)
    best = result.results[0]
    atlas.feedback(query_text, best.id, 1, "positive")
    atlas.feedback(query_text, result.results[1].id, 2, "negative")
    panel.refresh()
    assert [(s.rank, s.accuracy) for s in panel.rank_stats] == [(1, 1.0), (2, 0.0)]
    assert panel.top_nodes[0] == (best.id, 1, 0) and best.id in panel.top.value
    assert panel.chart.value[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<b>7</b>" in panel.totals.value  # documents


def test_ingest_panel_reports_each_file(atlas, tmp_path) -> None:
    note = tmp_path / "field-notes.md"
    note.write_text("# Field notes\n\nPublished 2021-03-04.\n\n## Findings\n\nThe GNU licences were compared.\n")
    bad = tmp_path / "empty.md"
    bad.write_text("")
    panel = IngestPanel(atlas)
    outcomes = panel.ingest_paths([note, bad])
    assert [o.status for o in outcomes] == ["ingested", "failed"]
    assert panel.progress.value == panel.progress.max == 2 and panel.progress.bar_style == "danger"
    assert "field-notes.md" in panel.outcome_log.value and "failed" in panel.outcome_log.value
    assert len(atlas.documents()) == 8


def test_ingest_panel_takes_uploads(atlas) -> None:
    panel = IngestPanel(atlas)
    content = b"# Uploaded\n\nA short uploaded note about copyleft licences and their history.\n"
    panel.upload.value = ({"name": "../../evil/uploaded.md", "type": "text/markdown", "size": len(content),
                           "content": memoryview(content),
                           "last_modified": datetime(2024, 1, 1, tzinfo=timezone.utc)},)
    outcomes = panel.ingest_selected()
    assert [o.status for o in outcomes] == ["ingested"]
    assert outcomes[0].path.endswith("/uploaded.md") and "evil" not in outcomes[0].path
    assert panel.upload.value == ()


def test_ingest_panel_without_input_says_so(atlas) -> None:
    panel = IngestPanel(atlas)
    assert panel.ingest_selected() == []
    assert "Choose files" in panel.outcome_log.value
