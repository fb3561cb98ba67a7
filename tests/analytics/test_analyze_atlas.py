"""`analyze` on a real atlas (the shipped samples): stored, looked up, stale once the atlas changes, re-run by --fix."""
from __future__ import annotations

import json
from importlib.util import find_spec

import numpy as np
import pytest
from click.testing import CliRunner

pytest.importorskip("networkx")
pytest.importorskip("sklearn")

from ohara_lab import Atlas  # noqa: E402
from ohara_lab.cli import main  # noqa: E402
from tests.support import OFFLINE  # noqa: E402

# `analyze` detects communities with Leiden by default, which the graph extra brings.
needs_leiden = pytest.mark.skipif(find_spec("igraph") is None or find_spec("leidenalg") is None,
                                  reason="Leiden (the default community method) needs the graph extra: "
                                         "pip install -e '.[graph]'")


def _vectors(atlas):
    """Deterministic stand-in vectors: one direction per document, so k-means has something to find."""
    ids = [p["id"] for d in atlas.documents() for p in atlas.store.document_nodes(d.id)["paragraphs"]]
    docs = {p: p.split("/")[1].split("-")[0] for p in ids}
    order = sorted(set(docs.values()))
    rng = np.random.default_rng(0)
    out = {}
    for pid in ids:
        v = np.zeros(len(order), np.float32)
        v[order.index(docs[pid])] = 1.0
        out[pid] = v + rng.normal(0, 0.01, len(order)).astype(np.float32)
    atlas.store.put_vectors("test:onehot", out)
    return len(ids)


@needs_leiden
def test_analyze_stores_every_kind_and_lookups_read_them(fresh_copy):
    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        n = _vectors(atlas)
        report = atlas.analyze()
        c = report.counts
        assert c["communities"] >= 2 and c["community_members"] <= c["entities"]
        assert c["clustered_paragraphs"] == n and c["clusters"] == min(50, max(3, round((n / 2) ** 0.5)))
        assert c["adamic_adar_pairs"] > 0 and 0 < report.params["modularity"] < 1
        assert report.graph_version == atlas.store.get_meta("graph_version")
        look = atlas.analytics
        cid = look.community_of("free-software-foundation")
        assert cid is not None and "free-software-foundation" in look.community(cid)["members"]
        ctx = look.community_context(["free-software-foundation", "gnu"])
        assert ctx[0]["id"] == cid and len(ctx[0]["member_entity_slugs"]) <= 30
        other, score, common = look.adamic_adar("free-software-foundation")[0]
        assert score >= 0.3 and common >= 2
        assert look.aa_boost(["free-software-foundation"], [other]) == pytest.approx(0.2 * score)
        assert look.aa_boost(["free-software-foundation"], ["no-such"]) == 0.0
        node = look.cluster_members(0)[0]
        assert look.cluster_of(node) == 0
        terms = look.cluster(0)["terms"]
        assert look.cluster_hits(terms[:1], limit=10)[0] == (0, 1.0)
        assert all(e["entity_slug"] for e in look.isolated_entities())
        # same seed, same answer
        assert atlas.analyze().counts == c


@needs_leiden
def test_analytics_go_stale_and_check_fix_reruns_them(fresh_copy):
    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        atlas.analyze()
        assert [p for p in atlas.check() if p.code == "ANALYTICS_STALE"] == []
        atlas.merge_entities(["gnu"], into="free-software-foundation")
        stale = [p for p in atlas.check() if p.code == "ANALYTICS_STALE"]
        assert len(stale) == 1 and stale[0].severity == "warning"
        fixed = atlas.check(fix=True)
        assert [p.code for p in fixed if p.severity == "fixed"] == ["ANALYTICS_STALE"]
        assert [p for p in fixed if p.code == "ANALYTICS_STALE" and p.severity != "fixed"] == []


def test_check_fix_repairs_parents_and_rollups_and_reports_each(fresh_copy):
    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        conn = atlas.store.conn
        section, parent = conn.execute("SELECT to_id, from_id FROM edges WHERE relation='HAS_CHILD'"
                                       " AND to_id LIKE 'sections/%' LIMIT 1").fetchone()
        conn.execute("DELETE FROM edges WHERE to_id=? AND relation='HAS_CHILD'", (section,))
        doc = atlas.documents()[0].id
        conn.execute("UPDATE documents SET data = json_set(data, '$.entity_slugs', json('[\"ghost\"]')) WHERE id=?", (doc,))
        codes = {p.code for p in atlas.check()}
        assert {"MISSING_PARENT", "ROLLUP_STALE"} <= codes
        out = CliRunner().invoke(main, ["check", "--fix", "--json", "--atlas", str(fresh_copy)])
        assert out.exit_code == 0, out.output
        problems = json.loads(out.output)
        fixed = [p for p in problems if p["severity"] == "fixed"]
        assert {"code": "MISSING_PARENT", "severity": "fixed",
                "detail": f"added HAS_CHILD {parent} -> {section}"} in fixed
        assert any(p["code"] == "REDERIVED" for p in fixed)
        assert [p for p in problems if p["severity"] != "fixed"] == []
        assert atlas.store.get_document(doc).entity_slugs != ["ghost"]


@needs_leiden
def test_cli_analyze_prints_counts(fresh_copy):
    out = CliRunner().invoke(main, ["analyze", "--json", "--atlas", str(fresh_copy)])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["counts"]["communities"] >= 2 and report["counts"]["clusters"] == 0  # no vectors: clusters skipped
    assert set(report["seconds"]) == {"load", "communities", "clusters", "adamic_adar", "gaps", "total"}
