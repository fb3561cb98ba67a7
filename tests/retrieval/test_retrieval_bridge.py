"""The bridge hop on a small real atlas: a two-hop question whose second passage shares no word with it."""
from __future__ import annotations

import pytest

from ohara_lab import Atlas

from tests.support import OFFLINE

CORPUS = {
    "aschenbrodel.md": "# Aschenbrodel\n\nAschenbrodel is a ballet written by Johann Strauss II in 1899, "
                       "left unfinished at his death and completed by Josef Bayer.\n",
    "strauss.md": "# Johann Strauss II\n\nJohann Strauss II was born in 1825 and held Austrian nationality; "
                  "the Waltz King wrote over five hundred waltzes.\n",
    "lanner.md": "# Joseph Lanner\n\nJoseph Lanner was a dance composer and a citizen of Vienna, a rival of "
                 "the elder Lanner family of musicians.\n",
    "ballet.md": "# Ballet\n\nA ballet is a theatrical dance with music and a story; its composer writes for a "
                 "country's court.\n",
}
QUESTION = "Which country was the composer of Aschenbrodel a citizen of?"
# BM25 and the bridge hop only: the spec's graph phases reach Strauss on their own in a corpus this small.
ONLY = {"sumo_weight": 0.0, "entity_pivot_weight": 0.0, "cross_doc_weight": 0.0, "struct_weight": 0.0,
        "ppr_weight": 0.0, "bm25_weight": 1.0, "normalisation": "minmax"}


@pytest.fixture(scope="module")
def bridge_atlas(tmp_path_factory):
    root = tmp_path_factory.mktemp("bridge")
    docs = root / "docs"
    docs.mkdir()
    for name, text in CORPUS.items():
        (docs / name).write_text(text, encoding="utf-8")
    atlas = Atlas.open(root / "atlas", **OFFLINE, ner="rules")
    assert atlas.ingest([docs], progress=False).ok
    yield atlas
    atlas.close()


def test_second_hop_is_found_through_the_first_passages_entity(bridge_atlas):
    result = bridge_atlas.query(QUESTION, bridge_weight=0.5, **ONLY)
    bridged = [f for f in result.fused if "bridge" in f.sources]
    assert bridged, result.skipped
    strauss = [f for f in bridged if result.views.get(f.id) and "Strauss" in result.views[f.id].document_title]
    assert strauss
    c = strauss[0].best("bridge")
    assert "Strauss" in c.via["bridge_entity"] and c.via["from"].startswith("paragraphs/")
    assert "bridge:" in result.explain(strauss[0].id)
    # Without the hop, the Strauss document is not reached at all.
    plain = bridge_atlas.query(QUESTION, bridge_weight=0.0, **ONLY)
    rank = lambda r: next((i for i, f in enumerate(r.results) if r.views.get(f.id) and  # noqa: E731
                           "Strauss" in r.views[f.id].document_title), 99)
    assert rank(result) < rank(plain) == 99


def test_bridge_with_nothing_to_bridge_says_why(bridge_atlas):
    result = bridge_atlas.query("zebra marmalade origami", bridge_weight=0.5)
    assert result.skipped["bridge"] == "no entity in the best passages that the query does not name"
