"""Issue 2's acceptance check on the real books and report in ../shared/samples/ (slow)."""
from __future__ import annotations

import pytest

from ohara_lab import Atlas

from tests.conftest import shared_path
from tests.support import OFFLINE


@pytest.mark.slow
def test_shared_samples_build_a_rich_linked_graph(tmp_path):
    samples = shared_path("samples")
    with Atlas.open(tmp_path / "atlas", **OFFLINE) as atlas:
        assert atlas.ingest([samples], progress=False).ok
        s = atlas.stats()
        assert s["paragraphs"] > 2000 and s["entities"] > 200
        assert s["tagged_paragraphs"] > 0.8 * s["paragraphs"]  # SUMO tags on most paragraphs
        books = {d.id for d in atlas.documents() if "Bitcoin" in d.title}
        assert len(books) == 2
        linked = {(e.from_id, e.to_id) for e in atlas.store.edges(relations=["SIMILAR_TO"])}
        assert any({a, b} == books for a, b in linked), "the two Bitcoin books are not SIMILAR_TO"
        assert [p for p in atlas.check() if p.severity == "error"] == []
        again = atlas.ingest([samples], progress=False)
        assert {o.status for o in again.outcomes} == {"skipped"} and atlas.stats() == s
        result = atlas.query("proof of work")
        assert result.tiers.principal and any("Bitcoin" in result.views[f.id].document_title
                                              for f in result.tiers.principal)
