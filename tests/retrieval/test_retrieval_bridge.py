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


# Three hops where the second bridge is a description: the question names the ballet, the ballet's passage
# names its composer, the composer's passage names the association (not the query's words), and only the
# association's passage holds what is left to explain ("founded", "members").
HOPS_CORPUS = {
    "aschenbrodel.md": "# Aschenbrodel\n\nAschenbrodel is a ballet; its composer was Johann Strauss II, "
                       "who left it unfinished at his death.\n",
    "strauss.md": "# Johann Strauss II\n\nJohann Strauss II was a waltz writer and an honorary patron of the "
                  "Wiener Musikverein.\n",
    "verein.md": "# Wiener Musikverein\n\nThe Wiener Musikverein was founded in 1812 and has three thousand "
                 "members.\n",
    "noise.md": "# Opera\n\nAn opera is a drama set to music; many were written in 1899.\n",
    "clubs.md": "# Clubs\n\nMany clubs were founded by members of the court.\n",
    "guilds.md": "# Guilds\n\nGuilds were founded to protect their members.\n",
}
HOPS_QUESTION = "When was the society founded that the composer of Aschenbrodel supported?"


@pytest.fixture(scope="module")
def hops_atlas(tmp_path_factory):
    root = tmp_path_factory.mktemp("hops")
    docs = root / "docs"
    docs.mkdir()
    for name, text in HOPS_CORPUS.items():
        (docs / name).write_text(text, encoding="utf-8")
    atlas = Atlas.open(root / "atlas", **OFFLINE, ner="rules")
    assert atlas.ingest([docs], progress=False).ok
    yield atlas
    atlas.close()


def _bridged(result):
    return {result.views[f.id].document_title: f.best("bridge") for f in result.fused
            if "bridge" in f.sources and result.views.get(f.id)}


def test_further_hops_reach_the_passage_that_explains_what_is_left(hops_atlas):
    one = _bridged(hops_atlas.query(HOPS_QUESTION, bridge_weight=0.5, bridge_hops=1, bridge_passages=1, **ONLY))
    three = _bridged(hops_atlas.query(HOPS_QUESTION, bridge_weight=0.5, bridge_hops=3, bridge_passages=1, **ONLY))
    verein = [t for t in three if "Musikverein" in t]
    assert verein, three
    c = three[verein[0]]
    assert c.via.get("hop", 1) >= 2 and "found" in c.via.get("explains", []), c.via
    # the single hop does not find it as a bridge hit of its own entity
    assert not any(v.via.get("hop") for v in one.values())


def test_bridge_hops_one_is_the_single_hop(hops_atlas):
    a = hops_atlas.query(HOPS_QUESTION, bridge_weight=0.5, **ONLY)
    b = hops_atlas.query(HOPS_QUESTION, bridge_weight=0.5, bridge_hops=1, **ONLY)
    assert [(f.id, round(f.score, 9)) for f in a.fused] == [(f.id, round(f.score, 9)) for f in b.fused]
