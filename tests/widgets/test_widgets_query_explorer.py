"""`QueryExplorer` on the sample atlas: tabs, cards, feedback, conversation turns, visible failures."""
from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("pythreejs", reason="the widgets need the lab extra: pip install -e '.[lab]'")

from ohara_lab.widgets import QueryExplorer, SpaceTimeMap  # noqa: E402 - after the skip guard


def test_a_query_fills_the_tabs(atlas, query_text) -> None:
    explorer = QueryExplorer(atlas)
    result = explorer.run(query_text)
    tiers = result.tiers
    assert [c.node_id for c in explorer.cards["All"]] == [f.id for f in result.results]
    assert [c.node_id for c in explorer.cards["Principal"]] == [f.id for f in tiers.principal] != []
    assert [c.node_id for c in explorer.cards["Integrity"]] == [i.id for i in tiers.integrity]
    assert [c.node_id for c in explorer.cards["Explorer"]] == [x.node_id or x.document_id for x in tiers.explorer]
    assert explorer.tabs.get_title(1) == f"Principal ({len(tiers.principal)})"
    card = explorer.cards["Principal"][0]
    view = result.views[card.node_id]
    html = card.html.value
    assert view.document_title in html and f"#{card.rank}" in html
    assert "ohara-chip phase" in html and "ohara-chip tag" in html  # phase badges and SUMO tags
    assert "provenance" in html
    assert explorer.notice.value == ""  # nothing failed


def test_thumbs_reach_the_store(atlas, query_text) -> None:
    explorer = QueryExplorer(atlas, query=query_text)
    card = explorer.cards["All"][2]
    card.up.click()
    other = explorer.cards["Principal"][0]
    other.down.click()
    rows = atlas.store.feedback()
    assert [(r["node_id"], r["rank"], r["signal"]) for r in rows] == [
        (card.node_id, 3, "positive"), (other.node_id, 1, "negative")]
    assert rows[0]["query"] == query_text
    assert card.up.disabled and card.down.disabled  # one vote per card


def test_conversation_turns_count_and_clear(atlas, query_text) -> None:
    calls: list[Any] = []

    class Recording:
        def __init__(self, inner: Any):
            self.inner = inner
            self.store = inner.store

        def query(self, text: str, **kw: Any) -> Any:
            calls.append(kw.get("session_history"))
            return self.inner.query(text, **kw)

    explorer = QueryExplorer(Recording(atlas))
    explorer.run(query_text)
    explorer.run("and the lesser licence?")
    assert explorer.turns == 2 and "turn 2" in explorer.turn_label.value
    assert calls[0] is None and calls[1] == [{"role": "user", "content": query_text}]
    explorer.clear_button.click()
    assert explorer.turns == 0 and explorer.history == []
    explorer.run("patent licence")
    assert calls[-1] is None


class Flaky:
    """An atlas whose advanced features fail, as they do without an LLM or before they exist."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.store = inner.store

    def query(self, text: str, mode: str = "standard", **kw: Any) -> Any:
        if mode != "standard":
            raise NotImplementedError(f"mode {mode} is not built yet")
        return self.inner.query(text, **kw)

    def answer(self, question: str, **kw: Any) -> Any:
        raise RuntimeError("no LLM provider configured")

    def feedback(self, *args: Any) -> None:
        raise OSError("database is locked")


@pytest.mark.parametrize("mode", ["cor", "agent"])
def test_a_failing_mode_is_shown_and_standard_results_are_kept(atlas, query_text, mode) -> None:
    explorer = QueryExplorer(Flaky(atlas))
    result = explorer.run(query_text, mode=mode)
    assert f"Mode &#x27;{mode}&#x27; is unavailable" in explorer.notice.value
    assert "NotImplementedError" in explorer.notice.value
    assert result is not None and explorer.cards["All"]


def test_a_failing_answer_is_shown(atlas, query_text) -> None:
    explorer = QueryExplorer(Flaky(atlas))
    explorer.run(query_text, answer=True)
    assert "Answer synthesis failed" in explorer.notice.value and "no LLM provider" in explorer.notice.value
    assert explorer.answer_panel.value == "" and explorer.cards["Principal"]


def test_failed_feedback_is_shown_not_swallowed(atlas, query_text) -> None:
    explorer = QueryExplorer(Flaky(atlas), query=query_text)
    explorer.cards["All"][0].up.click()
    assert "Feedback was not saved" in explorer.notice.value
    assert not explorer.cards["All"][0].up.disabled


def test_answer_mode_shows_the_answer(atlas, query_text) -> None:
    # The offline answerer always works on the samples atlas; its failure path is
    # test_a_failing_answer_is_shown's.
    explorer = QueryExplorer(atlas)
    explorer.run(query_text, answer=True)
    assert explorer.notice.value == ""
    assert explorer.answer is not None and explorer.answer.text
    assert "Answer" in explorer.answer_panel.value
    assert explorer.history[-1] == {"role": "assistant", "content": explorer.answer.text}


def test_empty_question_asks_for_one(atlas) -> None:
    explorer = QueryExplorer(atlas)
    assert explorer.run("   ") is None
    assert "Type a question" in explorer.notice.value


def test_results_light_up_on_a_linked_map(atlas, ontology, query_text) -> None:
    space_map = SpaceTimeMap(atlas, ontology=ontology, labels=False)
    explorer = QueryExplorer(atlas, map=space_map, query=query_text)
    principal = {c.node_id for c in explorer.cards["Principal"]}
    assert principal <= set(space_map.highlighted)
    card = explorer.cards["Principal"][0]
    card.show.click()
    assert space_map.selected == card.node_id


@pytest.mark.parametrize("mode", ["cor", "agent"])
def test_advanced_modes_work_offline(atlas, query_text, mode) -> None:
    # Both modes run offline on the samples atlas; a failing mode is test_a_failing_mode_is_shown's.
    explorer = QueryExplorer(atlas)
    result = explorer.run(query_text, mode=mode)
    assert explorer.notice.value == ""
    assert result.mode == mode and explorer.result is result
    assert [c.node_id for c in explorer.cards["All"]] == [f.id for f in result.results] != []


def test_the_answer_panel_marks_each_cited_span_inside_its_paragraph(atlas) -> None:
    import html

    explorer = QueryExplorer(atlas)
    explorer.run("When was GPL version 3 published?", answer=True)
    assert explorer.notice.value == ""
    panel = explorer.answer_panel.value
    citations = explorer.answer.citations
    assert citations and all(c["verified"] for c in citations)
    marks = [html.unescape(m.split(">", 1)[1]) for m in panel.split('<mark class="ohara-span"')[1:]]
    marks = [m.split("</mark>", 1)[0] for m in marks]
    assert marks == [s["text"] for c in citations for s in sorted(c["spans"], key=lambda s: s["start"])]
    assert "unverified" not in panel


def test_an_unverified_citation_is_labelled_not_marked() -> None:
    from types import SimpleNamespace

    from ohara_lab.widgets.cards import answer_html

    view = SimpleNamespace(content="Version 3 was published on 29 June 2007.")
    citation = {"ref": 1, "node_id": "paragraphs/x", "title": "GPL", "section_path": ["Preamble"], "page": 2,
                "snippet": view.content, "spans": [], "verified": False, "unverified": ["It came out in 1850."]}
    ans = SimpleNamespace(text="It came out in 1850 [1].", citations=[citation], answered_by="gemini",
                          insufficient=False, retrieval=SimpleNamespace(views={"paragraphs/x": view}))
    panel = answer_html(ans)
    assert "<mark" not in panel and "unverified" in panel and "It came out in 1850." in panel


def test_an_abstention_shows_its_reason_and_the_score_against_the_threshold(atlas) -> None:
    explorer = QueryExplorer(atlas)
    result = explorer.run("What is the spouse of Ermengarde of Tours?")  # nothing about her in the licences
    assert result.abstained and result.answerability is not None and result.answerability.score is not None
    summary = explorer.summary.value
    assert "abstained" in summary and "answerability" in summary and "threshold" in summary
    assert f"{result.answerability.threshold:.2f}" in summary
    empty = explorer.tab_boxes["Principal"].children[0].value
    assert "Not enough evidence" in empty and result.abstain_reason.split(" ")[0] in empty
