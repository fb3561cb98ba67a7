"""Phase 1e and Explorer step (ii) over ANSWERS_SAME edges written by a real store."""
from __future__ import annotations

from ohara_lab import Atlas
from ohara_lab.ids import question_key
from ohara_lab.records import Question
from ohara_lab.ingest.writeset import write_document

from tests.store.builders import make_graph
from tests.support import OFFLINE


def _asked(graph, questions):
    graph.questions = [Question(graph.paragraphs[i].id, q, question_key(q)) for i, q in questions]
    return graph


def test_phase_1e_follows_shared_questions_from_the_top_bm25_paragraphs(tmp_path):
    with Atlas.open(tmp_path / "atlas", **OFFLINE) as atlas:
        write_document(atlas.store, _asked(make_graph("a1", [("GPL version 3 was published in 2007 by the FSF.", [], [])]),
                                          [(0, "When was GPL 3 published?")]))
        write_document(atlas.store, _asked(make_graph("b2", [("Twenty-nine June two thousand seven saw it appear.", [], [])]),
                                          [(0, "when was gpl 3 published")]))
        atlas._after_write()
        off = atlas.query("GPL version 3 published")
        assert "answers_same" in off.skipped  # the switch is off by default (spec: OHARA_ANSWERS_SAME)
        on = atlas.query("GPL version 3 published", answers_same=True)
        hit = next(f for f in on.fused if "answers_same" in f.sources)
        assert hit.id == "paragraphs/b2-00002"
        c = hit.best("answers_same")
        assert c.raw_score == 0.7 and c.via["shared_query"] == "When was GPL 3 published?"


def test_without_edges_the_phase_says_how_to_get_them(samples_atlas):
    result = samples_atlas.query("GNU General Public License", answers_same=True)
    assert "OHARA_ANSWERS_SAME=true" in result.skipped["answers_same"]
