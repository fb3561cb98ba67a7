"""Long queries (issue 30.4): reduced before retrieval, bounded keywords and entity look-ups, refused by
the shells past OHARA_QUERY_MAX_CHARS with one line."""
from __future__ import annotations

import math

import pytest
from click.testing import CliRunner

from ohara_lab import Atlas
from ohara_lab.cli import main
from ohara_lab.errors import UsageError
from ohara_lab.retrieval.query import parse_query
from ohara_lab.retrieval.query_reduce import idf_capped, reduced_query
from ohara_lab.serve.service import AtlasService
from ohara_lab.settings import Settings

from tests.support import OFFLINE, offline_env

DOCS = [
    ("Alpha Bank", "Alpha Bank was founded in Athens by Ioannis Stefanou in 1879. It financed the railway to Piraeus."),
    ("Piraeus Railway", "The railway from Athens to Piraeus opened in 1869. Alpha Bank later financed its extension."),
    ("Stefanou", "Ioannis Stefanou was a Greek banker who founded Alpha Bank in Athens. The railway pleased him."),
    ("Tulips", "Tulips bloom in the Keukenhof gardens near Lisse every spring. Athens has no tulips."),
]


@pytest.fixture
def atlas(tmp_path):
    with Atlas.open(tmp_path / "a", **OFFLINE) as a:
        for title, text in DOCS:
            a.ingest_text(text, title=title, source_id=f"t:{title}")
        yield a


def _distinct_words(n: int) -> str:
    """n distinct capitalised words: every n-gram is new, as in a pasted document."""
    return " ".join(f"Term{i}x" for i in range(n))


def test_a_query_of_many_distinct_words_runs(atlas):
    # 70,000 distinct words were 280,000 entity n-grams in one IN (...): "too many SQL variables" (limit 250,000)
    text = _distinct_words(70_000) + " Alpha Bank railway Piraeus" * 2
    result = atlas.query(text)
    assert len(result.query.keywords) <= Settings().query_max_terms
    assert len(result.query.raw.split()) == Settings().query_max_words
    assert result.query.to_dict()["reduced_from_words"] == 70_008
    # the recurring words (the pool is the query's most frequent terms) the atlas knows survive the IDF
    # cap; the unknown ones match nothing and are dropped
    assert set(result.query.keywords) == {"alpha", "bank", "railway", "piraeus"}


def test_ordinary_queries_are_parsed_as_before(atlas):
    for text in ["Who founded Alpha Bank?", " ".join(["railway Athens"] * 200)]:  # 400 words: not reduced
        assert reduced_query(text, atlas.store, atlas.settings) == parse_query(text)


def test_idf_cap_keeps_the_rarest_known_terms(atlas):
    # df over the 4 paragraphs: athens 4, railway 3, bank 3, piraeus 2, tulips 1; "zebra" 0
    terms = ["athens", "railway", "zebra", "tulips", "piraeus", "athens", "bank"]
    n = atlas.store.corpus_stats()["fts_rows"]
    df = atlas.store.term_document_counts(["athens", "tulips", "piraeus"])
    idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    assert idf["tulips"] > idf["piraeus"] > idf["athens"]
    assert idf_capped(terms, atlas.store, 2) == ["tulips", "piraeus"]  # first-occurrence order
    assert "zebra" not in idf_capped(terms, atlas.store, 10)


def test_the_service_refuses_past_the_limit(atlas, tmp_path):
    svc = AtlasService(atlas.location, Settings().override(**OFFLINE, api_max_text_chars=1_000_000,
                                                           query_max_chars=5_000))
    try:
        with pytest.raises(UsageError, match="longer than OHARA_QUERY_MAX_CHARS=5,000"):
            svc.query("railway " * 1000)
        assert svc.query("railway Athens").results
    finally:
        svc.close()


def test_the_cli_refuses_past_the_limit_in_one_line(atlas):
    atlas.close()
    env = {**offline_env(), "OHARA_QUERY_MAX_CHARS": "5000"}
    out = CliRunner().invoke(main, ["query", "-", "--atlas", atlas.location], input="railway " * 1000, env=env)
    assert out.exit_code != 0
    lines = [line for line in out.output.splitlines() if line.strip()]
    assert lines == ["ohara: error: query of 8,000 characters is longer than OHARA_QUERY_MAX_CHARS=5,000;"
                     " shorten it or raise the limit"]
    ok = CliRunner().invoke(main, ["query", "-", "--atlas", atlas.location, "--json"], input="railway Athens",
                            env=env)
    assert ok.exit_code == 0, ok.output
