"""Graph analytics in retrieval (issue 16 point 2), on a real atlas: the shipped samples with WordLlama vectors,
analysed by `Atlas.analyze()` (Leiden communities, k-means clusters, Adamic–Adar links)."""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("networkx")
pytest.importorskip("sklearn")
pytest.importorskip("wordllama")

from ohara_lab import Atlas  # noqa: E402
from ohara_lab.eval.build import ensure_analytics  # noqa: E402
from ohara_lab.retrieval.query import parse_query  # noqa: E402
from tests.support import OFFLINE  # noqa: E402

SETTINGS = {**OFFLINE, "embedder": "wordllama"}
QUERIES = ["Free Software Foundation copyleft", "patent licences and conveying",
           "Which licence came first, GPL 2 or LGPL 2.1?", "what is the latest GNU licence",
           "the Lesser General Public License and the Library"]
PIVOT = {"entity_pivot_weight": 0.2}


def _ranking(atlas: Atlas, q: str, **overrides) -> list:
    r = atlas.query(q, **overrides)
    return [[f.id, f.score] for f in r.fused] + [["principal", *[f.id for f in r.tiers.principal]]]


@pytest.fixture(scope="module")
def analysed(samples_atlas_dir, tmp_path_factory):
    """(atlas dir, rankings before `analyze` per profile and query): vectors, then analytics."""
    path = tmp_path_factory.mktemp("analysed") / "atlas"
    shutil.copytree(samples_atlas_dir, path)
    with Atlas.open(path, **SETTINGS) as atlas:
        atlas.embed(progress=False)
        before = {(p, q): _ranking(atlas, q, profile=p) for p in ("default", "original") for q in QUERIES}
        report = atlas.analyze()
        assert report.counts["clusters"] >= 3 and report.counts["adamic_adar_pairs"] > 0
    return path, before


@pytest.fixture
def atlas(analysed):
    with Atlas.open(analysed[0], **SETTINGS) as a:
        yield a


def test_analytics_move_no_ranking_of_either_profile(analysed, atlas):
    """Stored analytics are read only by what a profile turns on: the default gives the entity pivot weight 0,
    the original turns the Adamic–Adar boost off (its authors' code never applied it)."""
    for (profile, q), ranking in analysed[1].items():
        assert _ranking(atlas, q, profile=profile) == ranking, (profile, q)


def test_adamic_adar_boost_is_a_fifth_of_the_strongest_link_to_a_query_entity(atlas):
    look = atlas.analytics
    boosted = 0
    for q in QUERIES:
        plain = {f.id: f.best("entity_pivot") for f in atlas.query(q, **PIVOT, adamic_adar=False).fused}
        result = atlas.query(q, **PIVOT, adamic_adar=True)
        pivot = [(f.id, f.best("entity_pivot")) for f in result.fused if f.best("entity_pivot")]
        query_side = {s for _, c in pivot for s in c.via["shared_entities"]}
        nodes = atlas.store.get_nodes([i for i, _ in pivot])
        for nid, c in pivot:
            aa = c.via.get("adamic_adar")
            if aa is None:
                assert c.raw_score == pytest.approx(plain[nid].raw_score)
                continue
            boosted += 1
            own = set(nodes[nid]["entity_slugs"])
            assert aa["entity"] in own and aa["query_entity"] not in own
            assert aa["score"] == pytest.approx(look.aa_score(aa["entity"], aa["query_entity"]), abs=1e-4)
            assert c.raw_score == pytest.approx(plain[nid].raw_score + 0.2 * look.aa_score(aa["entity"], aa["query_entity"]))
            # no stronger link from the node's other entities to an entity the pivot shared
            known = query_side | {aa["query_entity"]}
            assert all(score <= aa["score"] + 1e-4 for e in own - known for other, score, _ in look.adamic_adar(e)
                       if other in known)
            assert "Adamic–Adar +" in result.explain(nid)
    assert boosted > 0


def test_community_context_names_the_communities_of_the_query_entities(atlas):
    look = atlas.analytics
    for q in QUERIES:
        engine = atlas.engine
        state = engine.start(q, None, atlas.settings)
        engine.retrieve(state)
        result = engine.finish(state)
        ctx = result.community_context
        assert ctx == look.community_context(state.seed_slugs())
        assert len(ctx) <= 3 and len({c["id"] for c in ctx}) == len(ctx)
        for c in ctx:
            assert any(look.community_of(s) == c["id"] for s in state.seed_slugs())
            assert len(c["member_entity_slugs"]) <= 30 and c["member_count"] >= len(c["member_entity_slugs"])
        assert result.to_dict().get("community_context", []) == ctx
    assert atlas.query(QUERIES[0], community=False).community_context == []


def test_entity_pivot_hits_name_their_entities_communities(atlas):
    look = atlas.analytics
    result = atlas.query(QUERIES[0], **PIVOT)
    named = [f.best("entity_pivot").via for f in result.fused if f.best("entity_pivot")]
    assert named and any("communities" in v for v in named)
    for via in named:
        expected = [c for c in dict.fromkeys(look.community_of(s) for s in via["shared_entities"]) if c is not None]
        assert via.get("communities", []) == expected


def test_cluster_retrieval_offers_the_centroid_paragraphs_of_clusters_the_query_names(atlas):
    look = atlas.analytics
    clusters = look.rows("clusters")
    biggest = max(clusters.values(), key=lambda c: (c["size"], -c["id"]))
    q = "an overview of " + " ".join(biggest["terms"][:3])
    keywords = parse_query(q).keywords
    assert parse_query(q).mode == "synthesis"
    scores = {}
    for key, c in clusters.items():
        text = " ".join([c["summary"], *c["terms"]]).lower()
        hit = sum(1 for k in dict.fromkeys(keywords) if k in text)
        if hit:
            scores[int(key)] = hit / len(dict.fromkeys(keywords))
    top = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[: math.ceil(20 / 2)]
    expected = {}
    for cid, score in top:
        for pid in look.cluster_members(cid)[:3]:
            expected.setdefault(pid, score)

    result = atlas.query(q, cluster_retrieval=True)
    got = {f.id: f.best("cluster") for f in result.fused if f.best("cluster")}
    assert {k: c.raw_score for k, c in got.items()} == pytest.approx(expected)
    assert all(look.cluster_of(pid) == c.via["cluster"] for pid, c in got.items())
    assert "cluster" in result.steps and result.weights["cluster"] == pytest.approx(0.6 * 1.2)

    factoid = atlas.query("who wrote " + " ".join(biggest["terms"][:3]), cluster_retrieval=True)
    assert "factoid" in factoid.skipped["cluster"] and "cluster" in factoid.steps
    assert atlas.query(q).skipped["cluster"] == "weight is 0"


def test_cluster_retrieval_before_analyze_says_so(fresh_copy):
    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        result = atlas.query("an overview of the library license", cluster_retrieval=True)
        assert "ohara analyze" in result.skipped["cluster"] and result.community_context == []


def test_explorer_offers_co_cited_and_same_community_paragraphs(atlas):
    look = atlas.analytics
    sources: set[str] = set()
    for q in QUERIES:
        result = atlas.query(q)
        nodes = atlas.store.get_nodes([f.id for f in result.tiers.principal])
        principal = list(dict.fromkeys(s for f in result.tiers.principal for s in nodes[f.id]["entity_slugs"]))[:20]
        for item in result.tiers.explorer:
            sources.add(item.source)
            if item.source not in ("adamic_adar", "community"):
                continue
            mentions = set(atlas.store.get_nodes([item.node_id])[item.node_id]["entity_slugs"])
            if item.source == "adamic_adar":
                links = [score for s in principal for other, score, _ in look.adamic_adar(s)
                         if other in mentions and other not in principal and score >= 0.5]
                assert item.score == pytest.approx(0.4 * max(links), abs=1e-6) and item.edge_verb == "co-cited with"
            else:
                assert mentions & set(look.same_community(principal)) and item.score == 0.35
            assert 0.15 <= item.score < 0.6 and item.hops == 2
        for u in result.tiers.unexpected_connections:
            assert u["from_slug"] in principal or u["to_slug"] in principal
            assert look.community_of(u["from_slug"]) != look.community_of(u["to_slug"])
    assert {"adamic_adar", "community"} <= sources  # both branches above ran (2 and 3 items on these queries)


SCRIPT = r"""
import json, sys
from ohara_lab import Atlas
from tests.support import OFFLINE
out = {}
with Atlas.open(sys.argv[1], **{**OFFLINE, "embedder": "wordllama"}) as a:
    for q in json.loads(sys.argv[2]):
        r = a.query(q, entity_pivot_weight=0.2, cluster_retrieval=True)
        d = r.to_dict()
        out[q] = [[f.id, round(f.score, 12)] for f in r.fused] + [d["community_context"] if r.community_context else [],
                  d["tiers"]["explorer"], d["tiers"]["unexpected_connections"]]
print(json.dumps(out))
"""


def test_analytics_in_retrieval_are_identical_across_hash_seeds(analysed):
    queries = json.dumps(QUERIES + ["an overview of the library license terms"])
    runs = []
    for seed in ("1", "2"):
        proc = subprocess.run([sys.executable, "-c", SCRIPT, str(analysed[0]), queries], capture_output=True,
                              text=True, env={**os.environ, "PYTHONHASHSEED": seed}, timeout=600,
                              cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert runs[0] == runs[1]


def test_eval_configs_analyse_an_atlas_once_and_again_when_stale(fresh_copy):
    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        assert not atlas.analytics.available
        ensure_analytics(atlas)
        atlas.store.set_meta("analytics", {**atlas.store.get_meta("analytics"), "marker": 1})
        ensure_analytics(atlas)  # current: not run again
        assert atlas.store.get_meta("analytics")["marker"] == 1
        atlas.merge_entities(["gnu"], into="free-software-foundation")
        ensure_analytics(atlas)
        info = atlas.store.get_meta("analytics")
        assert "marker" not in info and info["graph_version"] == atlas.store.graph_version()
