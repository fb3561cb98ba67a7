"""The GraphStore contract: every backend must pass these (see test_sqlite_store.py, test_arango_store.py).

A backend's test module imports `*` from here and defines a `store` fixture that
yields a fresh, empty store.
"""
from __future__ import annotations

import numpy as np
import pytest

from ohara_lab.records import CrawlPage, Edge
from ohara_lab.store.protocol import GraphStore
from ohara_lab.ingest.writeset import write_document

from .builders import dense_similar_graph, make_graph


def jaccard_linker(threshold: float = 0.1):
    """A linker that writes SIMILAR_TO to every overlapping document (newer id -> older id)."""
    def link(graph, ctx):
        mine = {e.slug for e in graph.entities}
        out = []
        for ov in ctx.entity_overlap(mine):
            j = len(ov.shared) / (len(mine) + ov.entity_count - len(ov.shared))
            if j >= threshold:
                out.append(Edge(graph.document.id, ov.document.id, "SIMILAR_TO",
                                {"weight": round(j, 3), "verb": "discusses", "summary": "s", "tags": []}))
        return out
    return link


def _sound(store: GraphStore) -> list[str]:
    return [f"{p.code}: {p.detail}" for p in store.check() if p.severity == "error"]


def test_is_a_graph_store(store):
    assert isinstance(store, GraphStore)


def test_write_and_read_back(store):
    g = make_graph("a1", [("Bitcoin mining secures the ledger.", ["Mining"], ["Bitcoin"]),
                          ("Nodes validate every block.", ["Computer"], ["Bitcoin", "Satoshi Nakamoto"])])
    write_document(store, g)
    doc = store.get_document("documents/a1")
    assert doc is not None and doc.title == "Doc a1"
    nodes = store.document_nodes("documents/a1")
    assert [p["content"] for p in nodes["paragraphs"]] == ["Bitcoin mining secures the ledger.",
                                                           "Nodes validate every block."]
    ents = {e.slug: e for e in store.get_entities()}
    assert ents["bitcoin"].mention_count == 2 and ents["bitcoin"].document_ids == ["documents/a1"]
    related = store.edges(relations=["RELATED_TO"])
    assert [(e.from_id, e.to_id, e.attrs["count"]) for e in related] == \
        [("entities/bitcoin", "entities/satoshi-nakamoto", 1)]
    assert _sound(store) == []


def test_stats_count_every_collection_and_relation(store):
    write_document(store, make_graph("a1", [("Alpha text about ledgers.", [], ["Alpha"])]))
    s = store.stats()
    assert (s["documents"], s["sections"], s["paragraphs"], s["entities"]) == (1, 1, 1, 1)
    assert s["edges"] == {"BELONGS_TO": 1, "HAS_CHILD": 2, "MENTIONS": 1}


def test_duplicate_edges_are_impossible(store):
    g = make_graph("a1", [("Alpha text.", [], [])])
    g.edges.append(Edge(g.edges[0].from_id, g.edges[0].to_id, g.edges[0].relation))
    write_document(store, g)
    assert store.stats()["edges"]["HAS_CHILD"] == 2
    assert _sound(store) == []


def test_same_document_twice_is_refused(store):
    from ohara_lab.errors import StoreError
    write_document(store, make_graph("a1", [("Alpha text.", [], [])]))
    with pytest.raises(StoreError):
        write_document(store, make_graph("a1", [("Alpha text.", [], [])]))
    assert store.stats()["paragraphs"] == 1


def test_a_failing_write_leaves_nothing(store):
    def broken_linker(graph, ctx):
        raise RuntimeError("crash in the middle of the write")
    write_document(store, make_graph("a1", [("Alpha shares Bitcoin.", [], ["Bitcoin"])]))
    before = store.stats()
    with pytest.raises(RuntimeError):
        write_document(store, make_graph("b2", [("Beta also Bitcoin.", [], ["Bitcoin"])]), linker=broken_linker)
    assert store.stats() == before
    assert store.get_document("documents/b2") is None
    assert [e.mention_count for e in store.get_entities(["bitcoin"])] == [1]
    assert _sound(store) == []


def test_replace_is_idempotent_down_to_edges(store):
    g = lambda: make_graph("a1", [("One Bitcoin paragraph.", ["Mining"], ["Bitcoin", "Alice"]),  # noqa: E731
                                  ("Two Bitcoin paragraph.", ["Mining"], ["Bitcoin", "Alice"])])
    write_document(store, g())
    first = store.stats()
    write_document(store, g(), replaces=["documents/a1"])
    write_document(store, g(), replaces=["documents/a1"])
    assert store.stats() == first
    related = store.edges(relations=["RELATED_TO"])
    assert len(related) == 1 and related[0].attrs["count"] == 2
    assert _sound(store) == []


def test_entities_merge_by_norm_key_and_repoint_mentions(store):
    write_document(store, make_graph("a1", [("Bitcoin Core is software.", [], ["Bitcoin Core"])]))
    write_document(store, make_graph("b2", [("BitcoinCore again.", [], ["BitcoinCore"])]))
    ents = store.get_entities()
    assert [e.slug for e in ents] == ["bitcoin-core"]
    assert ents[0].mention_count == 2 and "BitcoinCore" in ents[0].aliases
    mentions = store.edges(relations=["MENTIONS"])
    assert {e.to_id for e in mentions} == {"entities/bitcoin-core"}
    assert _sound(store) == []


def test_delete_rolls_back_entities_and_cooccurrence(store):
    write_document(store, make_graph("a1", [("Alice and Bob.", [], ["Alice", "Bob"])]))
    write_document(store, make_graph("b2", [("Alice and Bob again.", [], ["Alice", "Bob"]),
                                           ("Only Carol.", [], ["Carol"])]))
    assert store.edges(relations=["RELATED_TO"])[0].attrs["count"] == 2
    assert store.delete_document("documents/b2") is True
    assert store.edges(relations=["RELATED_TO"])[0].attrs["count"] == 1
    assert sorted(e.slug for e in store.get_entities()) == ["alice", "bob"]
    assert [e.mention_count for e in store.get_entities(["alice"])] == [1]
    assert store.delete_document("documents/b2") is False
    store.delete_document("documents/a1")
    s = store.stats()
    assert (s["documents"], s["paragraphs"], s["entities"], s["edges"]) == (0, 0, 0, {})
    assert _sound(store) == []


def test_linker_writes_similar_to_and_indegree(store):
    write_document(store, make_graph("a1", [("Alice Bob Carol.", [], ["Alice", "Bob", "Carol"])]))
    write_document(store, make_graph("b2", [("Alice Bob Dave.", [], ["Alice", "Bob", "Dave"])]), linker=jaccard_linker())
    sim = store.edges(relations=["SIMILAR_TO"])
    assert [(e.from_id, e.to_id, e.attrs["weight"]) for e in sim] == [("documents/b2", "documents/a1", 0.5)]
    assert store.get_document("documents/a1").similar_to_indegree == 1
    store.delete_document("documents/b2")
    assert store.edges(relations=["SIMILAR_TO"]) == []
    assert store.get_document("documents/a1").similar_to_indegree == 0


def test_evergreen_promotion_at_threshold(store_factory):
    store = store_factory(evergreen_threshold=2)
    write_document(store, make_graph("a0", [("Alice Bob.", [], ["Alice", "Bob"])], decay="CURRENT"))
    write_document(store, make_graph("a1", [("Alice Bob.", [], ["Alice", "Bob"])]), linker=jaccard_linker())
    assert store.get_document("documents/a0").effective_decay_class == "CURRENT"
    write_document(store, make_graph("a2", [("Alice Bob.", [], ["Alice", "Bob"])]), linker=jaccard_linker())
    assert store.get_document("documents/a0").effective_decay_class == "EVERGREEN"


def test_entity_overlap_uses_only_documents_that_share(store):
    write_document(store, make_graph("a1", [("Alice.", [], ["Alice"])]))
    write_document(store, make_graph("c3", [("Zed.", [], ["Zed"])]))
    seen = {}

    def spy(graph, ctx):
        seen["overlap"] = [(o.document.id, o.entity_count, o.shared) for o in ctx.entity_overlap({"alice", "bob"})]
        return []
    write_document(store, make_graph("b2", [("Alice Bob.", [], ["Alice", "Bob"])]), linker=spy)
    assert seen["overlap"] == [("documents/a1", 1, ["alice"])]


def test_entity_overlap_leaves_out_documents_under_min_jaccard(store):
    write_document(store, make_graph("a1", [("Alice.", [], ["Alice"])]))  # {alice}: 1/2 with {alice, bob}
    write_document(store, make_graph("c3", [("Alice Carol Dan.", [], ["Alice", "Carol", "Dan"])]))  # 1/4
    seen = {}

    def spy(graph, ctx):
        for floor in (0.0, 0.25, 0.3, 0.5, 0.6):
            seen[floor] = [o.document.id for o in ctx.entity_overlap({"alice", "bob"}, min_jaccard=floor)]
        return []
    write_document(store, make_graph("b2", [("Alice Bob.", [], ["Alice", "Bob"])]), linker=spy)
    assert seen == {0.0: ["documents/a1", "documents/c3"], 0.25: ["documents/a1", "documents/c3"],
                    0.3: ["documents/a1"], 0.5: ["documents/a1"], 0.6: []}


def test_vectors_round_trip_and_refresh(store):
    write_document(store, make_graph("a1", [("First paragraph text.", [], []), ("Second paragraph text.", [], [])]))
    ids = ["paragraphs/a1-00002", "paragraphs/a1-00003"]
    store.put_vectors("m:test", {ids[0]: np.array([1, 0], np.float32), ids[1]: np.array([0, 1], np.float32)})
    got_ids, matrix = store.vector_matrix("m:test")
    assert got_ids == ids and matrix.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert store.vector_models() == {"m:test": 2}
    assert store.texts_without_vectors("m:test") == []
    store.put_vectors("m:test", {ids[0]: np.array([0.6, 0.8], np.float32)})
    assert store.vector_matrix("m:test")[1][0].tolist() == pytest.approx([0.6, 0.8])
    found = store.vector_search("m:test", np.array([0.0, 1.0], np.float32), 1)
    assert [i for i, _ in found] == [ids[1]] and found[0][1] == pytest.approx(1.0)
    assert [i for i, _ in store.vector_search("m:test", np.array([0.6, 0.8], np.float32), 5)] == ids
    store.sync_vector_index()
    store.delete_document("documents/a1")
    store.sync_vector_index()
    assert store.vector_models() == {}
    assert store.vector_search("m:test", np.array([0.0, 1.0], np.float32), 3) == []


def test_bm25_ranks_and_filters_dates(store):
    write_document(store, make_graph("a1", [("proof of work mining difficulty", [], []),
                                           ("unrelated cooking recipe", [], [])], published="2014-12-01"))
    write_document(store, make_graph("b2", [("proof of stake validators", [], [])], published="2022-09-15"))
    write_document(store, make_graph("c3", [("some work was done here today by the team", [], [])], published=None))
    hits = store.bm25_search(["proof", "work"], 10)
    assert hits[0].id == "paragraphs/a1-00002"
    assert all(h.score > 0 for h in hits) and [h.score for h in hits] == sorted([h.score for h in hits], reverse=True)
    after = store.bm25_search(["proof", "work"], 10, date_from="2020-01-01")
    assert {h.document_id for h in after} == {"documents/b2", "documents/c3"}  # undated documents are kept
    before = store.bm25_search(["proof"], 10, date_to="2015-12-31")
    assert {h.document_id for h in before} == {"documents/a1"}


def test_bm25_treats_query_syntax_as_text(store):
    write_document(store, make_graph("a1", [("the NEAR operator and OR AND quotes", [], [])]))
    assert store.bm25_search(['"NEAR', "OR", "AND*"], 5)  # no FTS syntax error


def test_tag_overlap_scores(store):
    write_document(store, make_graph("a1", [("p1", ["Mining", "Currency"], ["Alice"]), ("p2", ["Currency"], []),
                                           ("p3", ["Plant"], [])], entity_types={"Alice": "PERSON"}))
    hits = store.tag_overlap({"Mining": 1.0, "Currency": 0.5}, 10, types=["PERSON"], type_weight=0.2, norm=2.0)
    scores = {h.id: round(h.score, 6) for h in hits}
    assert scores == {"paragraphs/a1-00002": round(1.5 / 2 + 0.2, 6), "paragraphs/a1-00003": 0.25}


def test_entity_pivot_orders_by_shared_count(store):
    write_document(store, make_graph("a1", [("x", [], ["Alice", "Bob"]), ("y", [], ["Alice"]), ("z", [], ["Carol"])]))
    hits = store.entity_pivot(["alice", "bob"], 10)
    assert [(h.id, sorted(h.shared)) for h in hits] == [("paragraphs/a1-00002", ["alice", "bob"]),
                                                       ("paragraphs/a1-00003", ["alice"])]
    assert store.entities_by_names(["alice", "nobody"]) == {"alice": ["alice"]}


def test_similar_documents_gates_every_hop(store):
    for key in ("a1", "b2", "c3", "d4"):
        write_document(store, make_graph(key, [(f"text {key}", [], [])]))
    edges = [Edge("documents/b2", "documents/a1", "SIMILAR_TO", {"weight": 0.8, "verb": "v1", "summary": "s1"}),
             Edge("documents/c3", "documents/b2", "SIMILAR_TO", {"weight": 0.1, "verb": "v2", "summary": "s2",
                                                                 "tags": ["Mining"]}),
             Edge("documents/d4", "documents/c3", "SIMILAR_TO", {"weight": 0.9, "verb": "v3", "summary": "s3"})]
    write_document(store, make_graph("e5", [("linker host", [], [])]), linker=lambda g, ctx: edges)
    one = store.similar_documents(["documents/a1"], 1, min_weight=0.3)
    assert [(l.document_id, l.hops, l.verb) for l in one] == [("documents/b2", 1, "v1")]
    # c3 is reachable from b2 only through a weak edge without a matching tag: blocked at hop 2
    two = store.similar_documents(["documents/a1"], 3, min_weight=0.3)
    assert {l.document_id for l in two} == {"documents/b2"}
    tagged = store.similar_documents(["documents/a1"], 3, min_weight=0.3, tags=["Mining"])
    got = {l.document_id: (l.hops, round(l.path_weight, 3)) for l in tagged}
    assert got == {"documents/b2": (1, 0.8), "documents/c3": (2, 0.08), "documents/d4": (3, 0.072)}


def test_similar_documents_keeps_the_shortest_then_strongest_path(store):
    for key in ("a1", "b2", "c3", "d4", "f6"):
        write_document(store, make_graph(key, [(f"text {key}", [], [])]))

    def sim(a: str, b: str, w: float, verb: str) -> Edge:
        return Edge(f"documents/{a}", f"documents/{b}", "SIMILAR_TO", {"weight": w, "verb": verb})

    # c3: two 2-hop paths (0.9·0.5 through b2, 0.4·0.9 through d4); f6: one weak hop beats a strong 2-hop path
    edges = [sim("a1", "b2", 0.9, "ab"), sim("c3", "b2", 0.5, "bc"), sim("a1", "d4", 0.4, "ad"),
             sim("d4", "c3", 0.9, "dc"), sim("f6", "a1", 0.35, "af"), sim("b2", "f6", 0.9, "bf")]
    write_document(store, make_graph("e5", [("linker host", [], [])]), linker=lambda g, ctx: edges)
    links = store.similar_documents(["documents/a1"], 2, min_weight=0.3)
    got = [(l.document_id, l.hops, l.verb, round(l.path_weight, 3), l.weight) for l in links]
    assert got == [("documents/b2", 1, "ab", 0.9, 0.9), ("documents/c3", 2, "bc", 0.45, 0.5),
                   ("documents/d4", 1, "ad", 0.4, 0.4), ("documents/f6", 1, "af", 0.35, 0.35)]
    # a walk passes through another seed but never reports one
    both = store.similar_documents(["documents/a1", "documents/b2"], 2, min_weight=0.3)
    assert ("documents/a1", "documents/b2") not in {(l.seed, l.document_id) for l in both}
    assert ("documents/b2", "documents/d4", 2) in {(l.seed, l.document_id, l.hops) for l in both}


def test_similar_documents_min_path_weight_only_leaves_out_weak_paths(store):
    """The floor is a filter on the answer (the SQLite store also prunes its last hop with it):
    on a random dense graph, every seed set, depth and floor gives the unfloored rows at or above it."""
    rng, keys = dense_similar_graph(store, seed=7, n=10)
    pruned_any = False
    for trial in range(12):
        seeds = [f"documents/{k}" for k in rng.choice(keys, size=1 + trial % 3, replace=False)]
        for depth in (1, 2, 3):
            full = store.similar_documents(seeds, depth, min_weight=0.15, tags=["Mining"])
            for floor in (0.1, 0.15, 0.3, 0.5):
                want = [l for l in full if l.path_weight >= floor]
                got = store.similar_documents(seeds, depth, min_weight=0.15, tags=["Mining"], min_path_weight=floor)
                assert sorted(got, key=repr) == sorted(want, key=repr), (seeds, depth, floor)
                pruned_any |= len(want) < len(full)
    assert pruned_any  # the floors did leave rows out


def test_structural_neighbours(store):
    write_document(store, make_graph("a1", [("p1 text", [], []), ("p2 text", [], []), ("p3 text", [], [])]))
    got = {(n.id, n.hops) for n in store.structural_neighbours(["paragraphs/a1-00002"], 2)}
    # NEXT_PARA to p2 (1 hop), p3 (2 hops); parent section (1 hop), its other children (2 hops); never the document
    assert got == {("paragraphs/a1-00003", 1), ("sections/a1-00001", 1), ("paragraphs/a1-00004", 2)}


def test_update_edges_replaces_attributes(store):
    write_document(store, make_graph("a1", [("Alice Bob.", [], ["Alice", "Bob"])]))
    write_document(store, make_graph("b2", [("Alice Bob.", [], ["Alice", "Bob"])]), linker=jaccard_linker())
    n = store.update_edges([Edge("documents/b2", "documents/a1", "SIMILAR_TO", {"weight": 1.0, "verb": "extends"}),
                            Edge("documents/x", "documents/y", "SIMILAR_TO", {})])
    assert n == 1
    assert store.edges(relations=["SIMILAR_TO"])[0].attrs == {"weight": 1.0, "verb": "extends"}


def test_feedback_is_stored(store):
    store.add_feedback("q", "h", "paragraphs/x", 1, "positive")
    assert [(f["node_id"], f["signal"], f["rank"]) for f in store.feedback()] == [("paragraphs/x", "positive", 1)]


def test_meta_round_trip(store):
    store.set_meta("extractor", {"name": "rules-1"})
    assert store.get_meta("extractor") == {"name": "rules-1"}
    assert store.get_meta("missing", 7) == 7


def test_add_edges_skips_unknown_endpoints_and_counts_indegree(store):
    write_document(store, make_graph("a1", [("Alice.", [], ["Alice"])]))
    write_document(store, make_graph("b2", [("Bob.", [], ["Bob"])]))
    n = store.add_edges([Edge("documents/b2", "documents/a1", "SIMILAR_TO", {"weight": 0.5}),
                         Edge("documents/b2", "documents/zz", "SIMILAR_TO", {"weight": 0.5})])
    assert n == 1
    assert store.get_document("documents/a1").similar_to_indegree == 1
    assert [p.code for p in store.check() if p.severity == "error"] == []


def test_update_document_patches_fields(store):
    write_document(store, make_graph("a1", [("Alice.", [], [])]))
    assert store.update_document("documents/a1", {"token_usage": {"prompt": 10}}) is True
    assert store.get_document("documents/a1").token_usage == {"prompt": 10}
    assert store.update_document("documents/zz", {"title": "x"}) is False


def test_relation_degrees(store):
    write_document(store, make_graph("a1", [("Alice Bob.", [], ["Alice", "Bob"]), ("Alice Carol.", [], ["Alice", "Carol"])]))
    deg = store.relation_degrees(["entities/alice", "entities/bob", "entities/nobody"], "RELATED_TO")
    assert deg == {"entities/alice": 2, "entities/bob": 1}


def _asked(graph, questions):
    """`graph` with (paragraph position, question) pairs attached as its ANSWERS_SAME questions."""
    from ohara_lab.ids import question_key
    from ohara_lab.records import Question

    graph.questions = [Question(graph.paragraphs[i].id, q, question_key(q)) for i, q in questions]
    return graph


def test_shared_questions_link_paragraphs_both_ways(store):
    a1, a3, b2 = "paragraphs/a1-00002", "paragraphs/a1-00003", "paragraphs/b2-00002"
    write_document(store, _asked(make_graph("a1", [("GPL 3 came out in 2007.", [], []), ("Other text.", [], [])]),
                                [(0, "When was GPL 3 published?"), (1, "What else?")]))
    assert store.edges(relations=["ANSWERS_SAME"]) == []  # nothing shares a question yet
    second = lambda: _asked(make_graph("b2", [("Version 3 appeared on 29 June 2007.", [], [])]),  # noqa: E731
                            [(0, "when was GPL 3  published"), (0, "Who published it?")])
    write_document(store, second())
    edges = {(e.from_id, e.to_id): e.attrs for e in store.edges(relations=["ANSWERS_SAME"])}
    assert edges == {(a1, b2): {"shared_query": "When was GPL 3 published?", "shared_query_norm": "when was gpl 3 published"},
                     (b2, a1): {"shared_query": "when was GPL 3  published", "shared_query_norm": "when was gpl 3 published"}}
    hits = store.answers_same([a1, a3])
    assert [(h.seed, h.id, h.document_id, h.question, h.question_norm) for h in hits] == \
        [(a1, b2, "documents/b2", "When was GPL 3 published?", "when was gpl 3 published")]
    write_document(store, second(), replaces=["documents/b2"])  # a rebuild neither duplicates nor loses links
    assert len(store.edges(relations=["ANSWERS_SAME"])) == 2
    assert _sound(store) == []
    store.delete_document("documents/b2")
    assert store.edges(relations=["ANSWERS_SAME"]) == [] and store.answers_same([a1]) == []
    write_document(store, second())  # a1's questions outlived b2: the link comes back
    assert {h.id for h in store.answers_same([a1])} == {b2}

def test_crawl_pages_round_trip_filter_and_keep_discovery_order(store):
    root = CrawlPage("http://h.test/", "h.test", depth=0, run=1)
    b = CrawlPage("http://h.test/b", "h.test", depth=1, via="http://h.test/", run=1)
    a = CrawlPage("http://h.test/a?x=1", "h.test", depth=1, via="http://h.test/", run=1)
    other = CrawlPage("http://o.test/", "o.test", depth=0, run=2, state="fetched")
    store.put_crawl_pages([root, b, a, other])
    assert [p.url for p in store.crawl_pages(hosts=["h.test"])] == [root.url, b.url, a.url]
    b.state, b.status, b.links, b.markdown, b.content_hash, b.etag = "fetched", 200, [a.url], "# B", "ab12", '"v1"'
    store.put_crawl_pages([b])  # a replace keeps the page's place in discovery order
    assert store.crawl_pages(urls=[b.url]) == [b]
    assert [p.url for p in store.crawl_pages(hosts=["h.test"])] == [root.url, b.url, a.url]
    assert [p.url for p in store.crawl_pages(run=1, states=["queued"])] == [root.url, a.url]
    assert [p.url for p in store.crawl_pages(states=["fetched"])] == [other.url, b.url]
    assert store.crawl_pages(urls=[]) == [] and store.crawl_pages(urls=["http://missing.test/"]) == []


def test_crawl_pages_by_many_urls(store):
    pages = [CrawlPage(f"http://h.test/{i}", "h.test", depth=i % 3, run=1) for i in range(1200)]
    store.put_crawl_pages(pages)
    wanted = [p.url for p in reversed(pages)]
    got = store.crawl_pages(urls=wanted)
    assert [p.url for p in got] == [p.url for p in sorted(pages, key=lambda p: (p.depth, pages.index(p)))]



def test_snapshot_reads_one_state_and_nests(store):
    write_document(store, make_graph("a1", [("Alpha text.", [], [])]))
    with store.snapshot():
        with store.snapshot():
            nodes = store.document_nodes("documents/a1")
        assert store.get_document("documents/a1") is not None
    assert [len(nodes[t]) for t in ("sections", "paragraphs")] == [1, 1]
    store.delete_document("documents/a1")  # a write after the snapshot ended is not refused


# ---------------------------------------------------------------------------- entity curation (every backend)


def _lists(store, doc="a1"):
    return {p["id"].rsplit("-", 1)[1]: p["entity_slugs"] for p in store.document_nodes(f"documents/{doc}")["paragraphs"]}


def _three_docs(store):
    write_document(store, make_graph("a1", [("Bitcoin and BTC.", [], ["Bitcoin", "BTC"]),
                                           ("Satoshi wrote Bitcoin.", [], ["Satoshi", "Bitcoin"]),
                                           ("BTC price.", [], ["BTC"])]))
    write_document(store, make_graph("b2", [("BTC and Satoshi.", [], ["BTC", "Satoshi"])]))
    write_document(store, make_graph("c3", [("Ethereum only.", [], ["Ethereum"])]))


def test_merge_repoints_mentions_counts_and_rollups(store):
    from ohara_lab.entities.curation import merge

    _three_docs(store)
    op = merge(store, ["btc"], "bitcoin", actor="tester", reason="same coin")
    assert op.id >= 1 and store.entity_ops()[-1].actor == "tester"
    assert {e.slug for e in store.get_entities()} == {"bitcoin", "satoshi", "ethereum"}
    btc = store.get_entities(["bitcoin"])[0]
    assert btc.mention_count == 4 and btc.document_ids == ["documents/a1", "documents/b2"] and "BTC" in btc.aliases
    assert _lists(store) == {"00002": ["bitcoin"], "00003": ["satoshi", "bitcoin"], "00004": ["bitcoin"]}
    assert store.get_document("documents/b2").entity_slugs == ["bitcoin", "satoshi"]
    related = {(e.from_id, e.to_id): e.attrs["count"] for e in store.edges(relations=["RELATED_TO"])}
    assert related == {("entities/bitcoin", "entities/satoshi"): 2}
    assert {e.to_id for e in store.edges(relations=["MENTIONS"])} == \
        {"entities/bitcoin", "entities/satoshi", "entities/ethereum"}
    assert store.entities_by_names(["btc"]) == {"btc": ["bitcoin"]}
    assert _sound(store) == [] and not [p for p in store.check() if p.code == "ROLLUP_STALE"]


def test_undo_restores_the_atlas_exactly(store):
    from ohara_lab.entities.curation import clean, merge, rename, split, undo

    from .builders import atlas_state

    _three_docs(store)
    before = atlas_state(store)
    keys = set(before["names"]) | {"ether", "bitcoinnetwork"}
    steps = [lambda: merge(store, ["btc", "satoshi"], "bitcoin"),
             lambda: split(store, "bitcoin", "Bitcoin Network", nodes=["paragraphs/a1-00003"]),
             lambda: rename(store, "ethereum", "Ether"),
             lambda: clean(store, slugs=["ether"])]
    states = [before]
    for step in steps:
        step()
        assert _sound(store) == []
        states.append(atlas_state(store, keys))
    for expected in reversed(states[:-1]):
        undo(store)
        assert atlas_state(store, keys) == expected
        assert _sound(store) == []
    assert all(not o.active for o in store.entity_ops())


def test_reingest_after_merge_keeps_it_and_undo_restores(store):
    from ohara_lab.entities.curation import merge, undo

    from .builders import atlas_state

    doc = lambda: make_graph("b2", [("BTC and Satoshi.", [], ["BTC", "Satoshi"])])  # noqa: E731
    write_document(store, make_graph("a1", [("Bitcoin.", [], ["Bitcoin"])]))
    write_document(store, doc())
    before = atlas_state(store)
    merge(store, ["btc"], "bitcoin")
    write_document(store, doc(), replaces=["documents/b2"])
    assert _lists(store, "b2") == {"00002": ["bitcoin", "satoshi"]}  # the re-ingested mention reaches the survivor
    assert {e.slug for e in store.get_entities()} == {"bitcoin", "satoshi"}
    assert _sound(store) == []
    undo(store)
    assert atlas_state(store) == before
    assert _sound(store) == []


def test_a_spelling_variant_follows_the_merge_and_its_undo(store):
    from ohara_lab.entities.curation import merge, undo


    write_document(store, make_graph("a1", [("Bitcoin.", [], ["Bitcoin"]), ("BTC.", [], ["BTC"])]))
    merge(store, ["btc"], "bitcoin")
    write_document(store, make_graph("c3", [("B.T.C. is BTC.", [], ["B.T.C."])]))  # same norm_key as the merged BTC
    assert _lists(store, "c3") == {"00002": ["bitcoin"]}
    undo(store)
    # where ingest sends it without the merge: to BTC, by norm_key
    assert _lists(store, "c3") == {"00002": ["btc"]}
    assert _sound(store) == []
def test_undo_out_of_order_is_refused_when_steps_overlap(store):
    from ohara_lab.entities.curation import merge, undo
    from ohara_lab.errors import CurationError

    _three_docs(store)
    first = merge(store, ["btc"], "bitcoin")
    merge(store, ["satoshi"], "bitcoin")
    with pytest.raises(CurationError, match="first"):
        undo(store, first.id)
    undo(store)
    undo(store, first.id)
    with pytest.raises(CurationError, match="already undone"):
        undo(store, first.id)
    assert _sound(store) == []


def test_clean_removes_noise_and_routes_it_away(store):
    from ohara_lab.entities.curation import clean, noise

    write_document(store, make_graph("a1", [("Hash and Alice.", [], ["a1b2c3d4e5f6a7b8c9d0e1f2", "Alice", "--"])]))
    found = noise(store)
    assert found["a1b2c3d4e5f6a7b8c9d0e1f2"] == "opaque identifier"
    assert sorted(found.values()) == ["no letters in the name", "opaque identifier"]
    op = clean(store)
    assert [e.slug for e in store.get_entities()] == ["alice"]
    assert op.before["reasons"]["a1b2c3d4e5f6a7b8c9d0e1f2"] == "opaque identifier"
    write_document(store, make_graph("a1", [("Hash and Alice.", [], ["a1b2c3d4e5f6a7b8c9d0e1f2", "Alice", "--"])]),
                         replaces=["documents/a1"])
    assert [e.slug for e in store.get_entities()] == ["alice"]
    assert _sound(store) == []


def test_dedup_merges_same_norm_key_into_the_most_mentioned(store):
    from ohara_lab.entities.curation import dedup

    # two spellings new in one document are both stored; dedup folds them (spec §2.12)
    write_document(store, make_graph("a1", [("GPLv3 here.", [], ["GPLv3"]), ("GPL v3 and GPL v3.", [], ["GPL v3"]),
                                           ("GPL v3 again.", [], ["GPL v3"])]))
    assert {e.slug for e in store.get_entities()} == {"gplv3", "gpl-v3"}
    ops = dedup(store)
    assert [(o.op, o.target, o.sources) for o in ops] == [("dedup", "gpl-v3", ["gplv3"])]
    assert [(e.slug, e.mention_count) for e in store.get_entities()] == [("gpl-v3", 3)]
    assert _sound(store) == []


def test_analytics_rows_replace_as_a_whole(store):
    store.put_analytics("communities", {"0": {"size": 2}, "1": {"size": 3}}, {"graph_version": 1})
    store.put_analytics("communities", {"0": {"size": 5}}, {"graph_version": 2})
    assert store.get_analytics("communities") == {"0": {"size": 5}}
    assert store.get_analytics("communities", ["0", "9"]) == {"0": {"size": 5}}
    assert store.get_meta("analytics.communities") == {"graph_version": 2}


def test_graph_version_moves_with_every_change(store):
    from ohara_lab.entities.curation import merge

    v0 = store.get_meta("graph_version", 0)
    write_document(store, make_graph("a1", [("Alice and Bob.", [], ["Alice", "Bob"])]))
    v1 = store.get_meta("graph_version")
    merge(store, ["bob"], "alice")
    v2 = store.get_meta("graph_version")
    store.delete_document("documents/a1")
    assert v0 < v1 < v2 < store.get_meta("graph_version")


def test_reingest_is_idempotent_when_an_entity_lives_only_in_that_document(store):
    from .builders import atlas_state

    # b2 spells one entity two ways; once a1 is gone, BTC lives only in b2
    write_document(store, make_graph("a1", [("BTC.", [], ["BTC"])]))
    doc = lambda: make_graph("b2", [("BTC here.", [], ["BTC"]), ("B.T.C. there.", [], ["B.T.C."])])  # noqa: E731
    write_document(store, doc())
    store.delete_document("documents/a1")
    before = atlas_state(store)
    write_document(store, doc(), replaces=["documents/b2"])
    assert atlas_state(store) == before
    assert [(e.slug, e.mention_count) for e in store.get_entities()] == [("btc", 2)]


def test_reingest_keeps_the_record_of_an_entity_that_lives_only_in_that_document(store):
    from .builders import atlas_state

    # b2's spelling becomes an alias of a1's BTC; once a1 is gone, BTC lives only in b2 and leaves
    # with it during a re-ingest, which must write it back as the atlas knew it (name and alias)
    write_document(store, make_graph("a1", [("BTC.", [], ["BTC"])]))
    doc = lambda: make_graph("b2", [("B.T.C. there.", [], ["B.T.C."])])  # noqa: E731
    write_document(store, doc())
    store.delete_document("documents/a1")
    before = atlas_state(store)
    write_document(store, doc(), replaces=["documents/b2"])
    assert atlas_state(store) == before
    assert [(e.slug, e.name, e.aliases) for e in store.get_entities()] == [("btc", "BTC", ["B.T.C."])]


def test_passage_entity_graph_rows_and_version(store):
    v0 = store.graph_version()
    write_document(store, make_graph("a1", [("Alice met Bob in 2001.", [], ["Alice", "Bob"]),
                                           ("Carol stayed.", [], ["Carol"])]))
    v1 = store.graph_version()
    assert v1 > v0
    rows = store.passage_entity_graph()
    assert rows.mentions == sorted(rows.mentions)
    assert {s for _, s in rows.mentions} == {"alice", "bob", "carol"}
    assert rows.related == [("alice", "bob", 1.0)] and rows.synonyms == []
    assert store.passage_entity_graph(exclude_types=["ORG"]).mentions == []  # the builder's entities are ORGs
    store.delete_document("documents/a1")
    assert store.graph_version() > v1 and store.passage_entity_graph().mentions == []


def test_replace_edges_swaps_one_relation_and_never_dangles(store):
    write_document(store, make_graph("a1", [("Alice and Alicia.", [], ["Alice", "Alicia"])]))
    write_document(store, make_graph("b2", [("Bob alone.", [], ["Bob"])]))
    syn = lambda a, b, w: Edge(f"entities/{a}", f"entities/{b}", "SYNONYM_OF", {"weight": w})  # noqa: E731
    assert store.replace_edges("SYNONYM_OF", [syn("alice", "alicia", 0.9), syn("alice", "nobody", 0.9)]) == 1
    assert store.replace_edges("SYNONYM_OF", [syn("alice", "alicia", 0.95), syn("alicia", "bob", 0.85)]) == 2
    got = sorted((e.from_id, e.to_id, e.attrs["weight"]) for e in store.edges(relations=["SYNONYM_OF"]))
    assert got == [("entities/alice", "entities/alicia", 0.95), ("entities/alicia", "entities/bob", 0.85)]
    assert store.passage_entity_graph().synonyms == [("alice", "alicia", 0.95), ("alicia", "bob", 0.85)]
    store.delete_document("documents/b2")  # bob is mentioned nowhere now: its SYNONYM_OF edge goes with it
    assert [(e.from_id, e.to_id) for e in store.edges(relations=["SYNONYM_OF"])] == \
        [("entities/alice", "entities/alicia")]
    assert _sound(store) == []


def test_bm25_max_score_bounds_every_bm25_hit(store):
    write_document(store, make_graph("a1", [("Alpha beta gamma.", [], []), ("Alpha alpha delta.", [], []),
                                           ("Epsilon zeta eta theta.", [], [])]))
    ceiling = store.bm25_max_score(["alpha", "delta"])
    hits = store.bm25_search(["alpha", "delta"], 10)
    assert hits and ceiling > 0 and all(h.score <= ceiling + 1e-9 for h in hits)
    assert store.bm25_max_score(["nowhere"]) == 0.0 and store.bm25_max_score([]) == 0.0
    assert store.bm25_max_score(["alpha", "delta", "epsilon"]) > ceiling  # every matching word raises the ceiling


def test_bm25_max_score_follows_writes_and_deletes(store):
    """The ceiling reads corpus figures (row count, document frequencies) that a write or delete changes."""
    write_document(store, make_graph("a1", [("Alpha beta.", [], []), ("Gamma delta.", [], [])]))
    first = store.bm25_max_score(["alpha"])
    assert first == pytest.approx(_ceiling(store, "alpha"))
    write_document(store, make_graph("b2", [("Alpha again.", [], []), ("Epsilon.", [], []), ("Zeta.", [], [])]))
    more = store.bm25_max_score(["alpha"])
    assert more != pytest.approx(first) and more == pytest.approx(_ceiling(store, "alpha"))
    store.delete_document("documents/b2")
    assert store.bm25_max_score(["alpha"]) == pytest.approx(first)


def test_term_document_counts_use_the_index_analyser(store):
    """Rows per token, with the full-text analyser's stemming and case folding; 0 for a word the atlas lacks."""
    write_document(store, make_graph("a1", [("Licences were granted.", [], []), ("A licence, LICENCES.", [], []),
                                           ("Émile wrote it.", [], [])]))
    counts = store.term_document_counts(["licence", "granted", "zqxv", "emile", "licence"])
    assert counts == {"licence": 2, "granted": 1, "zqxv": 0, "emile": 1}
    assert store.term_document_counts([]) == {}
    store.delete_document("documents/a1")
    assert store.term_document_counts(["licence"]) == {"licence": 0}


def _ceiling(store: GraphStore, token: str) -> float:
    """FTS5's idf of one token times k1 + 1, from counts taken now: rows indexed, rows holding the token."""
    import math  # noqa: PLC0415

    rows, df = store.corpus_stats()["fts_rows"], len(store.bm25_search([token], 1000))
    return max(1e-6, math.log((rows - df + 0.5) / (df + 0.5))) * 2.2
