"""A comparison query seeds the graph walk from each option's best passage (`ppr_option_seeds`).

The atlas is built here: two option documents and distractors that share the first option's entities. The first
pass (a dense ranking, given) puts the first option's passage on top and the other option's below the
distractors; seeded from the single best passage, the walk's mass stays with the first option's entities and the
other option's passage is not in its top 5. Seeded from each option's best passage, both options are.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from ohara_lab import Atlas
from ohara_lab.retrieval.graph import build_passage_graph
from ohara_lab.retrieval.phases.ppr import option_passages, ppr
from ohara_lab.retrieval.query import parse_query
from ohara_lab.retrieval.state import QueryState
from ohara_lab.settings import Settings
from tests.support import OFFLINE

QUESTION = "Who was born first, Ada Quill or Boris Venn?"
CIRCLE = "Clara Moss, Dennis Hart and the Harrowgate Press"
DOCS = [
    ("Ada Quill", f"Ada Quill (3 May 1901 – 1980) was an English novelist of Harrowgate who wrote with {CIRCLE}."),
    ("Boris Venn", "Venn (1899 – 1975) was a Dutch painter who studied in Utrecht and taught in Leiden."),
    *[(f"{name}", f"{name} of Harrowgate published Ada Quill with {CIRCLE}.")
      for name in ("Clara Moss", "Dennis Hart", "Harrowgate Press", "Moss and Hart", "Harrowgate Review", "Hart Prize")],
    *[(f"Tea {i}", f"Tea number {i} is grown in Assam and sold in Kolkata by Marten Lowe.") for i in range(4)],
]


@pytest.fixture(scope="module", params=["auto", "rules"])
def built(request, tmp_path_factory):
    """(store, graph, title -> passage id) of the atlas, with spaCy's entities and the rule-based ones."""
    if request.param == "auto":
        pytest.importorskip("spacy")
    path: Path = tmp_path_factory.mktemp(f"options-{request.param}") / "atlas"
    atlas = Atlas.open(path, **OFFLINE, ner=request.param)
    atlas.ingest_texts([{"text": text, "title": title, "source_id": f"t:{i}"} for i, (title, text) in enumerate(DOCS)])
    graph = build_passage_graph(atlas.store)
    titles = {d: n["title"] for d, n in atlas.store.get_nodes(set(graph.passage_documents.values())).items()}
    yield atlas.store, graph, {titles[d]: p for p, d in graph.passage_documents.items()}
    atlas.close()


def _state(passages: dict[str, str], **overrides) -> QueryState:
    """The dense first pass: the first option's passage, the distractors, then the other option's, then the rest."""
    settings = Settings.from_env({}, **{**OFFLINE, "ppr_weight": 1.0, **overrides})
    state = QueryState(parse_query(QUESTION), settings)
    order = ["Ada Quill", *[t for t, _ in DOCS[2:8]], "Boris Venn", *[t for t, _ in DOCS[8:]]]
    state.dense = {passages[t]: 0.9 - 0.02 * i for i, t in enumerate(order)}
    return state


def _top5(built, on: bool) -> tuple[list[str], list]:
    store, graph, passages = built
    state = _state(passages, ppr_option_seeds=on)
    hits = ppr(state, store, state.settings, graph)
    by_id = {p: t for t, p in passages.items()}
    return [by_id[h.id] for h in hits[:5]], hits


def test_each_options_best_passage_is_found(built):
    store, _, passages = built
    found = option_passages(_state(passages), store, _state(passages).dense)
    assert found == {"Ada Quill": passages["Ada Quill"], "Boris Venn": passages["Boris Venn"]}


def test_both_options_reach_the_walks_top_5_with_option_seeds(built):
    top, hits = _top5(built, on=True)
    assert {"Ada Quill", "Boris Venn"} <= set(top), top
    why = hits[top.index("Boris Venn")].via
    assert why["seeded_from"] == "each option's best first-pass passage"
    assert why["options"] == {"Ada Quill": built[2]["Ada Quill"], "Boris Venn": built[2]["Boris Venn"]}


def test_seeded_from_the_best_passage_only_the_other_option_drops_out(built):
    top, hits = _top5(built, on=False)
    assert "Ada Quill" in top and "Boris Venn" not in top, top
    assert all("options" not in h.via for h in hits)


def test_a_query_that_compares_nothing_reads_no_passage(built):
    store, _, passages = built

    class NoReads:  # a store that fails on any read: the form is read from the query alone first
        def get_nodes(self, ids):
            raise AssertionError("read the store for a query that compares nothing")

    state = _state(passages)
    state.query = parse_query("Where did Ada Quill live?")
    assert option_passages(state, NoReads(), state.dense) == {}
