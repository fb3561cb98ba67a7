"""The graph walk: PageRank against networkx on a hand-made graph, seeds and resets, and the engine phase."""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from ohara_lab.retrieval.graph import build_passage_graph
from ohara_lab.retrieval.hits import Hit
from ohara_lab.retrieval.phases.ppr import personalized_pagerank, ppr, top_passages
from ohara_lab.retrieval.query import parse_query
from ohara_lab.retrieval.state import QueryState
from ohara_lab.settings import Settings
from ohara_lab.store.protocol import PassageEntityGraph

from tests.support import OFFLINE


class GraphRows:
    """A store stand-in that serves only the graph rows the builder reads (the store is not under test)."""

    def __init__(self, rows: PassageEntityGraph, meta=None):
        self.rows, self.meta = rows, meta or {}

    def passage_entity_graph(self, exclude_types=()):
        return self.rows

    def get_meta(self, key, default=None):
        return self.meta.get(key, default)

    def get_nodes(self, ids):
        return {i: {"document_id": "documents/" + i.split("/")[1].split("-")[0]} for i in ids}


ROWS = PassageEntityGraph(
    mentions=[("paragraphs/a-1", "alice"), ("paragraphs/a-1", "bob"), ("paragraphs/b-1", "bob"),
              ("paragraphs/b-1", "carol"), ("paragraphs/c-1", "carol"), ("paragraphs/d-1", "dave")],
    related=[("alice", "bob", 3.0), ("bob", "carol", 1.0)],
    synonyms=[("carol", "dave", 0.9)])


def test_power_iteration_matches_networkx_personalized_pagerank():
    graph = build_passage_graph(GraphRows(ROWS))
    reset = np.zeros(graph.size)
    reset[graph.row("alice")] = 0.7
    reset[graph.row("paragraphs/c-1")] = 0.3
    mine = personalized_pagerank(graph, reset, 0.5)
    g = nx.Graph()
    for p, e in ROWS.mentions:
        g.add_edge(p, "entities/" + e, weight=1.0)
    for a, b, c in ROWS.related:
        g.add_edge("entities/" + a, "entities/" + b, weight=float(np.log1p(c)))
    for a, b, w in ROWS.synonyms:
        g.add_edge("entities/" + a, "entities/" + b, weight=w)
    ref = nx.pagerank(g, alpha=0.5, weight="weight", tol=1e-12,
                      personalization={"entities/alice": 0.7, "paragraphs/c-1": 0.3})
    for node, value in ref.items():
        assert mine[graph.row(node)] == pytest.approx(value, abs=1e-6), node
    assert graph.synonym_edges == 1 and graph.specificity["bob"] == 0.5


def _state(query: str, dense: dict[str, float], hints=(), **overrides) -> QueryState:
    settings = Settings.from_env({}, **{**OFFLINE, "ppr_weight": 1.0, **overrides})
    state = QueryState(parse_query(query), settings)
    state.query.entity_hints = [{"slug": s, "type": "PERSON", "name": s} for s in hints]
    state.dense = dense
    return state


def test_walk_reaches_the_second_hop_from_the_first_passage():
    store = GraphRows(ROWS)
    graph = build_passage_graph(store)
    # Dense finds a-1 (Alice and Bob); the walk should bring b-1 (Bob and Carol) above c-1 and d-1.
    state = _state("Who did Alice's friend meet?", {"paragraphs/a-1": 0.8, "paragraphs/c-1": 0.3,
                                                    "paragraphs/x-1": 0.2, "paragraphs/y-1": 0.1}, hints=["alice"])
    hits = ppr(state, store, state.settings, graph)
    order = [h.id for h in hits]
    assert order[:2] == ["paragraphs/a-1", "paragraphs/b-1"]
    assert "paragraphs/x-1" in order  # a candidate outside the graph keeps its reset share ...
    assert "paragraphs/y-1" not in order  # ... and the weakest candidate's min-max reset is 0
    top = hits[0]
    assert top.phase == "ppr" and top.document_id == "documents/a"
    assert top.via["resets_from"] == "vector" and {s["entity"] for s in top.via["seeds"]} >= {"alice", "bob"}
    assert state.skipped.get("synonymy") == "no SYNONYM_OF edges in this atlas: run `ohara embed` to link entity names"


def test_without_vectors_the_walk_resets_from_bm25_and_says_so():
    store = GraphRows(ROWS, meta={"synonymy": {"threshold": 0.8}})
    graph = build_passage_graph(store)
    state = _state("Carol", {})
    state.hits["bm25"] = [Hit("paragraphs/c-1", "documents/c", "bm25", 5.0),
                              Hit("sections/c-0", "documents/c", "bm25", 9.0)]
    hits = ppr(state, store, state.settings, graph)
    assert hits and hits[0].via["resets_from"] == "bm25" and "synonymy" not in state.skipped


def test_nothing_to_walk_from_is_a_skip_with_the_reason():
    store = GraphRows(ROWS)
    state = _state("zebra", {})
    assert ppr(state, store, state.settings, build_passage_graph(store)) == []
    assert state.skipped["ppr"] == "no seed entities and no first-pass candidates"
    empty = GraphRows(PassageEntityGraph())
    state = _state("zebra", {"paragraphs/q-1": 0.5, "paragraphs/q-2": 0.7})
    hits = ppr(state, empty, state.settings, build_passage_graph(empty))
    assert [h.id for h in hits] == ["paragraphs/q-2", "paragraphs/q-1"]  # the first pass stands in
    assert state.skipped["ppr"] == "the atlas has no entities to walk over: the first pass (vector) stands in"


def test_engine_runs_the_walk_on_the_sample_atlas_and_explains_it(samples_atlas):
    result = samples_atlas.query("Which licence did the Free Software Foundation publish in 2007?",
                                 ppr_weight=1.0, normalisation="minmax")
    walked = [f for f in result.fused if "ppr" in f.sources]
    assert walked and "ppr" in result.steps
    text = result.explain(walked[0].id)
    assert "ppr:" in text and "ppr" in result.to_dict()["steps"]
    again = samples_atlas.query("Which licence did the Free Software Foundation publish in 2007?",
                                ppr_weight=1.0, normalisation="minmax")
    assert [(f.id, f.score) for f in again.fused] == [(f.id, f.score) for f in result.fused]


def test_the_walk_cache_follows_the_graph_version(fresh_copy):
    from ohara_lab import Atlas

    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        first = atlas.engine.passage_graph()
        assert atlas.engine.passage_graph() is first  # cached while the atlas does not change
        doc = atlas.documents()[0].id
        atlas.remove([doc])
        rebuilt = atlas.engine.passage_graph()
        assert rebuilt is not first and not any(p.startswith(doc.replace("documents/", "paragraphs/"))
                                                for p in rebuilt.passages)


@pytest.mark.parametrize("seed", range(5))
def test_top_passages_is_the_sorted_ranking_ties_by_id(seed):
    """The walk's top k by numpy equals sorting every passage with mass by (−mass, id), ties at the cut included."""
    rng = np.random.default_rng(seed)
    n = 300
    ids = sorted(f"paragraphs/p{rng.integers(1e6)}-{i}" for i in range(n))
    rows = PassageEntityGraph(mentions=[(p, "e") for p in ids], related=[], synonyms=[])
    graph = build_passage_graph(GraphRows(rows))
    mass = np.zeros(graph.size)
    mass[:n] = rng.choice([0.0, 0.1, 0.2, 0.25, 0.5], size=n) * rng.choice([1.0, 1.0, 1e-3], size=n)
    for k in (1, 7, 40, n + 5):
        expected = sorted(((p, float(mass[i])) for i, p in enumerate(graph.passages) if mass[i] > 0),
                          key=lambda kv: (-kv[1], kv[0]))[:k]
        assert top_passages(graph, mass, k) == expected
