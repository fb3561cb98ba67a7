"""ArangoStore: the GraphStore contract against a real ArangoDB, plus wire-level tests.

* The contract suite runs when `ARANGO_URL` points at a server (each test in a
  fresh database that is dropped afterwards); without it those tests skip.
* The wire tests drive the real python-arango client against `WireRecorder`
  (a recorder of the REST protocol on 127.0.0.1, not an emulator) and check
  what is sent: values only in bind variables, one stream transaction per
  write, committed once, aborted when the linker fails.
"""
from __future__ import annotations

import base64
import os
import re
import uuid
from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("arango")

from arango import ArangoClient  # noqa: E402

from ohara_lab.errors import StoreError  # noqa: E402
from ohara_lab.records import CrawlPage, Edge  # noqa: E402
from ohara_lab.store.arango import ArangoStore  # noqa: E402
from ohara_lab.store.arango_connect import parse_url  # noqa: E402
from ohara_lab.store.protocol import GraphStore, TextHit  # noqa: E402
from ohara_lab.store.protocol import DuplicateDocument  # noqa: E402
from ohara_lab.ingest.writeset import write_document

from .arango_stub import WireRecorder  # noqa: E402
from .builders import make_graph  # noqa: E402
from .contract import *  # noqa: F401,F403,E402 - the contract suite

ARANGO_URL = os.environ.get("ARANGO_URL")
NO_SERVER = ("ARANGO_URL is not set: the contract suite needs a real ArangoDB server "
             "(none can be installed on this machine: no Docker engine, not in Debian or PyPI)")


# ---------------------------------------------------------------------------- real server (contract)


@pytest.fixture
def store_factory():
    if not ARANGO_URL:
        pytest.skip(NO_SERVER)
    base = parse_url(ARANGO_URL)
    made = []

    def make(**kwargs):
        target = replace(base, database=f"ohara_test_{uuid.uuid4().hex[:12]}")
        store = ArangoStore.connect(target, wait_for_search_sync=True, **kwargs)
        made.append((store, target))
        return store
    yield make
    for store, target in made:
        store.close()
        client = ArangoClient(hosts=list(target.hosts))
        try:
            client.db("_system", username=target.username, password=target.password) \
                .delete_database(target.database, ignore_missing=True)
        finally:
            client.close()


@pytest.fixture
def store(store_factory):
    return store_factory()


def _error_codes(store):
    return {p.code for p in store.check() if p.severity == "error"}


def test_check_finds_count_drift_on_a_real_server(store):
    write_document(store, make_graph("a1", [("Alice and Bob.", [], ["Alice", "Bob"])]))
    store.db.aql.execute("FOR e IN entities FILTER e._key == @k UPDATE e WITH {mention_count: 5} IN entities",
                         bind_vars={"k": "alice"})
    store.db.aql.execute("FOR e IN edges FILTER e.relation == @r UPDATE e WITH {attrs: {count: 9}} IN edges",
                         bind_vars={"r": "RELATED_TO"})
    assert {"ENTITY_COUNT_MISMATCH", "RELATED_TO_MISMATCH"} <= _error_codes(store)


def test_check_finds_orphans_on_a_real_server(store):
    write_document(store, make_graph("a1", [("Alpha text.", [], ["Alice"])]))
    store.db.aql.execute("FOR d IN documents REMOVE d IN documents")
    assert {"DANGLING_EDGE", "ORPHANED_NODE"} <= _error_codes(store)


def test_reopening_is_idempotent_on_a_real_server(store):
    write_document(store, make_graph("a1", [("Alpha text.", [], [])]))
    again = ArangoStore.connect(replace(parse_url(ARANGO_URL), database=store.db.name), wait_for_search_sync=True)
    try:
        assert again.stats()["paragraphs"] == 1 and again.check() == []
    finally:
        again.close()


# ---------------------------------------------------------------------------- URLs


def test_parse_arangodb_url_with_credentials_and_database():
    t = parse_url("arangodb://ohara:s%40cret@db.example:9000/atlas", env={})
    assert (t.hosts, t.database, t.username, t.password) == (("http://db.example:9000",), "atlas", "ohara", "s@cret")
    assert t.location == "arangodb://ohara@db.example:9000/atlas"  # never the password


def test_parse_url_defaults_and_env_fallbacks():
    t = parse_url("arangodb://localhost", env={"ARANGO_USER": "u", "ARANGO_PASSWORD": "p"})
    assert (t.hosts, t.database, t.username, t.password) == (("http://localhost:8529",), "ohara", "u", "p")
    assert parse_url("http://h:8529/", env={}).username == "root"


def test_parse_https_cluster_and_rest_prefix():
    t = parse_url("https://root:pw@c1:8529,c2:8529/_db/kb", env={})
    assert t.hosts == ("https://c1:8529", "https://c2:8529") and t.database == "kb"


@pytest.mark.parametrize("bad", ["ftp://h/db", "arangodb:///db", "arangodb://h/a/b", "arangodb://h/db?x=1"])
def test_parse_url_refuses_what_it_cannot_mean(bad):
    with pytest.raises(StoreError):
        parse_url(bad, env={})


# ---------------------------------------------------------------------------- wire protocol


INJECTION = 'Alice wrote " RETURN 1 // and \' REMOVE d IN documents /* then Bitcoin'


@pytest.fixture
def wire():
    recorder = WireRecorder()
    yield recorder
    recorder.close()


@pytest.fixture
def wired(wire):
    store = ArangoStore.from_url(f"arangodb://ohara:s%40cret@127.0.0.1:{wire.port}/atlas_test")
    yield store
    store.close()


def _bind_names(query: str) -> set[str]:
    """Bind variables a query text uses, as bindVars keys (`@@coll` is the key "@coll")."""
    return {("@" + name if at == "@@" else name) for at, name in re.findall(r"(@@?)(\w+)", query)}


def _balanced(query: str) -> bool:
    """Brackets balance outside string literals (a cheap guard against malformed AQL)."""
    stack, pairs, quote = [], {")": "(", "]": "[", "}": "{"}, None
    for ch in query:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            stack.append(ch)
        elif ch in ")]}" and (not stack or stack.pop() != pairs[ch]):
            return False
    return not stack and quote is None


def _strings(x) -> set[str]:
    """Every string inside a JSON-like value."""
    if isinstance(x, str):
        return {x}
    if isinstance(x, dict):
        return set().union(*map(_strings, x.values())) if x else set()
    if isinstance(x, (list, tuple)):
        return set().union(*map(_strings, x)) if x else set()
    return set()


def _data_strings(graph) -> set[str]:
    """Every string value of a graph (long enough to be meaningful), except relation names."""
    return {s for s in _strings(graph.to_dict()) if len(s) >= 4} - {e.relation for e in graph.edges}


def _sent(request, text: str) -> bool:
    """Did `text` travel inside one of this request's bind variables?"""
    return any(text in s for s in _strings(request.body.get("bindVars", {})))


def _assert_well_formed(wire):
    assert wire.unexpected == []
    assert wire.cursors(), "no AQL was sent at all"
    for r in wire.cursors():
        query, bind = r.body["query"], r.body.get("bindVars", {})
        assert _bind_names(query) == set(bind), query
        assert _balanced(query), query


def test_opening_creates_collections_indexes_and_view(wire, wired):
    made = {r.body["name"]: r.body for r in wire.requests if r.method == "POST" and r.path == "/_api/collection"}
    assert {"documents", "sections", "paragraphs", "tables", "entities", "edges", "vectors"} <= set(made)
    assert made["edges"]["type"] == 3 and made["documents"]["type"] == 2
    assert "shardKeys" not in made["edges"]  # single server: default sharding
    indexes = [(r.params["collection"][0], r.body["fields"], r.body["unique"])
               for r in wire.requests if r.path == "/_api/index"]
    assert ("edges", ["_from", "_to", "relation"], True) in indexes
    view = next(r.body for r in wire.requests if r.method == "POST" and r.path == "/_api/view")
    assert view["name"] == "ohara_search" and view["type"] == "arangosearch"
    assert view["links"]["paragraphs"]["fields"]["content"]["analyzers"] == ["text_en"]
    assert {r.database for r in wire.requests} == {"atlas_test"}
    expected = "Basic " + base64.b64encode(b"ohara:s@cret").decode()
    assert all(r.headers.get("authorization") == expected for r in wire.requests)


def test_cluster_shards_unique_indexed_collections_by_an_indexed_field(wire):
    wire.role = "COORDINATOR"
    ArangoStore.from_url(f"http://127.0.0.1:{wire.port}/atlas_test").close()
    made = {r.body["name"]: r.body for r in wire.requests if r.method == "POST" and r.path == "/_api/collection"}
    assert made["edges"]["shardKeys"] == ["_from"] and made["vectors"]["shardKeys"] == ["node_id"]


def test_write_sends_every_value_as_a_bind_variable(wire, wired):
    graph = make_graph("a1", [(INJECTION, ["Mining"], ["Alice", "Bitcoin"]),
                              ("Second paragraph about ledgers.", [], ["Bitcoin"])])
    data = _data_strings(graph)
    wire.clear()
    write_document(wired, graph)
    _assert_well_formed(wire)
    for r in wire.cursors():
        leaked = [s for s in data if s in r.body["query"]]
        assert leaked == [], (leaked, r.body["query"])
    carried = [r for r in wire.cursors() if _sent(r, INJECTION)]
    assert carried, "the paragraph text never reached the server"


def test_a_write_is_one_transaction_committed_once(wire, wired):
    wire.clear()
    write_document(wired, make_graph("a1", [("Alice and Bob.", [], ["Alice", "Bob"])]))
    calls = wire.transaction_calls()
    assert calls == [("begin", "trx1"), ("commit", "trx1")]
    begin = next(r for r in wire.requests if r.path == "/_api/transaction/begin")
    assert {"documents", "edges", "entities", "node_entities"} <= set(begin.body["collections"]["exclusive"])
    # Every query of the write ran inside that transaction, writes included.
    assert wire.cursors() and all(r.trx == "trx1" for r in wire.cursors())
    assert any(re.search(r"\b(INSERT|UPSERT)\b", r.body["query"]) for r in wire.cursors())


def test_a_failing_linker_aborts_and_never_commits(wire, wired):
    def broken_linker(graph, ctx):
        raise RuntimeError("crash in the middle of the write")
    wire.clear()
    with pytest.raises(RuntimeError):
        write_document(wired, make_graph("b2", [("Beta and Bitcoin.", [], ["Bitcoin"])]), linker=broken_linker)
    assert wire.transaction_calls() == [("begin", "trx1"), ("abort", "trx1")]
    assert all(r.trx == "trx1" for r in wire.cursors())


def test_a_duplicate_document_aborts(wire, wired):
    wire.reply_when("d.file_hash == @hash", [1])
    wire.clear()
    with pytest.raises(DuplicateDocument):
        write_document(wired, make_graph("a1", [("Alpha.", [], [])]))
    assert wire.transaction_calls() == [("begin", "trx1"), ("abort", "trx1")]


def test_unstorable_keys_are_refused_before_any_transaction(wire, wired):
    graph = make_graph("a1", [("Alpha.", [], ["x" * 300])])
    wire.clear()
    with pytest.raises(StoreError, match="cannot be stored"):
        write_document(wired, graph)
    assert wire.transaction_calls() == []


def test_bm25_binds_its_tokens_and_reads_hits(wire, wired):
    wire.reply_when("BM25(", [{"id": "paragraphs/a1-00002", "document_id": "documents/a1", "score": 2.5},
                              {"id": "sections/a1-00001", "document_id": "documents/a1", "score": 0.0}])
    wire.clear()
    hits = wired.bm25_search(["proof", INJECTION], 7, date_from="2020-01-01")
    assert hits == [TextHit("paragraphs/a1-00002", "paragraphs", "documents/a1", 2.5)]
    (req,) = wire.cursors()
    assert req.trx is None  # reads run outside any transaction
    assert req.body["bindVars"]["text"] == "proof " + INJECTION and INJECTION not in req.body["query"]
    assert req.body["bindVars"]["date_from"] == "2020-01-01" and req.body["bindVars"]["limit"] == 7
    assert "waitForSync" not in req.body["query"]  # only when asked for (tests, read-your-writes)
    _assert_well_formed(wire)


def test_every_primitive_sends_well_formed_parameterised_aql(wire, wired):
    """Call every store method once: each AQL text must declare exactly the bind variables it is sent."""
    secret = "value-that-must-stay-out-of-query-text"
    # Canned rows so the delete walks all its steps instead of stopping at "no such document".
    wire.reply_when("FILTER d._key == @key RETURN d._id", [f"documents/{secret}"])
    wire.reply_when("slugs: UNIQUE(", [{"slugs": [secret], "pairs": [[secret, secret + "2"]],
                                        "linked": [f"documents/{secret}"], "gone": [f"documents/{secret}"]}])
    wire.reply_when("n._key IN @keys RETURN [n._id, n.document_id]", [[f"paragraphs/{secret}", f"documents/{secret}"]])
    wire.clear()
    wired.bm25_search([secret], 5, date_to="2001-01-01")
    wired.corpus_stats()
    wired.tag_overlap({secret: 1.0}, 5, types=["PERSON"])
    wired.entity_pivot([secret], 5)
    wired.entities_by_names([secret])
    wired.entity_types([secret])
    wired.similar_documents([f"documents/{secret}"], 2, tags=[secret])
    wired.document_paragraphs_by_entities(f"documents/{secret}", [], 3)
    wired.document_paragraphs_by_entities(f"documents/{secret}", [secret], 3)
    wired.structural_neighbours([f"paragraphs/{secret}"], 2)
    wired.sections_of([f"documents/{secret}"])
    wired.find_documents(file_hash=secret)
    wired.find_documents(origin_path=secret)
    wired.get_document(f"documents/{secret}")
    wired.list_documents()
    wired.get_nodes([f"paragraphs/{secret}", f"entities/{secret}"])
    wired.document_nodes(f"documents/{secret}")
    wired.get_entities([secret])
    wired.edges(from_ids=[f"documents/{secret}"], relations=["SIMILAR_TO"])
    wired.update_edges([Edge(f"documents/{secret}", "documents/x", "SIMILAR_TO", {"verb": secret})])
    wired.put_vectors("m:test", {f"paragraphs/{secret}": np.array([1.0, 0.0], np.float32)})
    wired.vector_matrix("m:test")
    wired.texts_without_vectors(secret)
    wired.delete_vectors([secret])
    wired.set_meta(secret, {"v": secret})
    wired.get_meta(secret)
    wired.add_feedback(secret, secret, f"paragraphs/{secret}", 1, "positive")
    wired.feedback()
    wired.put_crawl_pages([CrawlPage(f"http://{secret}/", secret, markdown=secret)])
    wired.crawl_pages(urls=[f"http://{secret}/"], hosts=[secret], run=1, states=["queued"])
    wired.crawl_pages()
    wired.stats()
    wired.check()
    assert wired.delete_document(f"documents/{secret}") is True
    _assert_well_formed(wire)
    leaked = [r.body["query"] for r in wire.cursors() if secret in r.body["query"]]
    assert leaked == []
    assert sum(_sent(r, secret) for r in wire.cursors()) >= 25


def test_wired_store_is_a_graph_store_that_hides_its_password(wire, wired):
    assert isinstance(wired, GraphStore)
    assert wired.location == f"arangodb://ohara@127.0.0.1:{wire.port}/atlas_test"


def test_similar_documents_keeps_the_shortest_then_strongest_path(wire, wired):
    # Rows as the traversal would return them; the store picks one per (seed, document), as SQLite does.
    wire.reply_when("ANY seed edges", [
        {"seed": "documents/a", "node": "documents/c", "hops": 2, "weights": [0.5, 0.4], "verb": "far", "summary": None},
        {"seed": "documents/a", "node": "documents/c", "hops": 2, "weights": [0.9, 0.5], "verb": "strong", "summary": "s"},
        {"seed": "documents/a", "node": "documents/b", "hops": 1, "weights": [0.9], "verb": "near", "summary": None},
        {"seed": "documents/a", "node": "documents/d", "hops": 2, "weights": [None, 0.7], "verb": "tagged", "summary": None},
        {"seed": "documents/a", "node": "documents/a2", "hops": 1, "weights": [0.8], "verb": "seed", "summary": None},
    ])
    links = wired.similar_documents(["documents/a", "documents/a2"], 2)
    got = [(l.document_id, l.hops, l.verb, round(l.path_weight, 3), l.weight) for l in links]
    assert got == [("documents/b", 1, "near", 0.9, 0.9), ("documents/c", 2, "strong", 0.45, 0.5),
                   ("documents/d", 2, "tagged", 0.0, 0.7)]


def test_structural_neighbours_report_each_node_once_at_its_fewest_hops(wire, wired):
    wire.reply_when("ANY start edges", [
        {"start": "paragraphs/p2", "id": "paragraphs/p4", "hops": 2, "rel": "NEXT_PARA"},
        {"start": "paragraphs/p2", "id": "sections/s1", "hops": 2, "rel": "PARENT"},
        {"start": "paragraphs/p2", "id": "sections/s1", "hops": 1, "rel": "PARENT"},
        {"start": "paragraphs/p2", "id": "paragraphs/p3", "hops": 1, "rel": "NEXT_PARA"},
    ])
    got = [(n.id, n.hops, n.relation) for n in wired.structural_neighbours(["paragraphs/p2", "documents/x"], 2)]
    assert got == [("paragraphs/p3", 1, "NEXT_PARA"), ("sections/s1", 1, "PARENT"), ("paragraphs/p4", 2, "NEXT_PARA")]
    (req,) = wire.cursors()
    assert req.body["bindVars"]["starts"] == ["paragraphs/p2"]  # documents are never expanded


def test_a_missing_driver_is_named_in_the_error(monkeypatch):
    import importlib
    import sys
    monkeypatch.setitem(sys.modules, "arango", None)
    monkeypatch.delitem(sys.modules, "ohara_lab.store.arango", raising=False)
    with pytest.raises(StoreError, match=r"ohara-lab\[arango\]"):
        importlib.import_module("ohara_lab.store.arango")


def test_curation_and_analytics_primitives_send_well_formed_parameterised_aql(wire, wired):
    """The curation, analytics and repair primitives: declared bind variables, no value in the query text."""
    from ohara_lab.entities import changeset
    from ohara_lab.records import EntityChange, EntityOp, NodeEntities

    secret = "curation-value-that-must-stay-out-of-query-text"
    wire.reply_when("RETURN [r.op_id, r.node_id, r.from_slug, r.to_slug]", [[1, "", secret, secret + "2"]])
    wire.reply_when("present: DOCUMENT(doc) != null", [{"doc": f"documents/{secret}", "present": True, "pairs": [],
                                                          "lists": [[f"paragraphs/{secret}", [secret]]]}])
    wire.clear()
    node = NodeEntities(f"paragraphs/{secret}", f"documents/{secret}", [secret], ["ORG"], {"context": secret})
    op = EntityOp(op="merge", actor=secret, reason=secret, target=secret, sources=[secret + "x"],
                  before={"nodes": [node.to_dict()]})
    changeset.apply(wired, EntityChange(op=op, entities=[], nodes=[node], routes=[("", secret + "x", secret)]))
    changeset.apply(wired, EntityChange(undo=1, actor=secret, nodes=[node]))
    wired.entity_nodes(slugs=[secret], node_ids=[f"tables/{secret}"])
    wired.entity_ops()
    wired.entity_routes()
    wired.routed_nodes(1)
    wired.routed_links(1)
    changeset.apply(wired, EntityChange(undo=1, links_remove=[Edge(f"documents/{secret}", "documents/b", "SIMILAR_TO")],
                                        links_restore=[Edge(f"documents/{secret}", "documents/b", "SIMILAR_TO",
                                                               {"weight": 0.5})]))
    changeset.rederive(wired, [f"documents/{secret}"])
    wired.put_analytics("communities", {"0": {"members": [secret]}}, {"graph_version": 1})
    wired.get_analytics("communities", [secret])
    wired.get_analytics("communities")
    write_document(wired, make_graph("a1", [("Alice and Bob.", [], ["Alice", "Bob"])]))
    _assert_well_formed(wire)
    assert [r.body["query"] for r in wire.cursors() if secret in r.body["query"]] == []
    assert sum(_sent(r, secret) for r in wire.cursors()) >= 10
    # a change is one transaction, committed once
    assert ("begin", "trx1") in wire.transaction_calls() and ("commit", "trx1") in wire.transaction_calls()
