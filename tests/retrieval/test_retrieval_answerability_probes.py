"""Probe questions from an atlas's own sentences, the profile they give, and relative features."""
from __future__ import annotations

import pytest

from ohara_lab import Atlas
from ohara_lab.retrieval.answerability.probes import make_probes, probe_from_sentence
from ohara_lab.retrieval.answerability.profile import AtlasProfile, build_profile, config_key, stored_profile, \
    with_profile

from tests.support import OFFLINE


def test_a_sentence_with_a_typed_span_and_a_name_becomes_a_question_about_the_span():
    ents = [("Alice Smith", "PERSON"), ("Paris", "LOCATION"), ("1901", "DATE")]
    assert probe_from_sentence("Alice Smith was born in Paris in 1901 to a family of bakers.", ents) == \
        ("When Alice Smith was born in Paris to a family of bakers?", "1901", "DATE")
    assert probe_from_sentence("In 1990 the company moved its headquarters to Boston.",
                               [("Boston", "LOCATION"), ("1990", "DATE")]) == \
        ("When the company moved its headquarters to Boston?", "1990", "DATE")


def test_no_probe_without_a_second_name_a_typed_span_or_words_of_its_own():
    assert probe_from_sentence("It happened in 1990 at dawn, they said later on.", [("1990", "DATE")]) is None
    assert probe_from_sentence("Alice Smith met Bob Jones at the old market square.",
                               [("Alice Smith", "PERSON"), ("Bob Jones", "PERSON")]) is not None
    assert probe_from_sentence("Alice Smith, Paris.", [("Alice Smith", "PERSON"), ("Paris", "LOCATION")]) is None
    assert probe_from_sentence("Paris 1901 Paris.", [("Paris", "LOCATION"), ("1901", "DATE")]) is None


def test_probes_are_deterministic_spread_over_documents_and_name_their_source(samples_atlas):
    first = make_probes(samples_atlas.store, 5)
    assert first == make_probes(samples_atlas.store, 5) and 0 < len(first) <= 5
    assert len({p.document_id for p in first}) == len(first)  # one per document while documents last
    more = make_probes(samples_atlas.store, 30)
    docs = [p.document_id for p in more]
    assert len(more) > len(set(docs)) and more[:5] == first  # then a second per document, and so on
    for p in first:
        node = samples_atlas.store.get_nodes([p.node_id])[p.node_id]
        assert node["document_id"] == p.document_id and p.answer.lower() in str(node["content"]).lower()
    assert make_probes(samples_atlas.store, 5, seed=1) != first or len(first) < 2


def test_relative_value_is_the_mid_rank_share_of_twins_below():
    profile = AtlasProfile(1, "k", {"dense_top1": [i / 10 for i in range(10)]}, {})
    assert profile.relative("dense_top1", 0.45) == pytest.approx(0.5)
    assert profile.relative("dense_top1", 0.3) == pytest.approx(0.35)  # 3 below, one equal
    assert profile.relative("dense_top1", 5.0) == 1.0 and profile.relative("dense_top1", -1.0) == 0.0
    assert profile.relative("dense_top1", None) is None and profile.relative("other", 0.5) is None
    few = AtlasProfile(1, "k", {"dense_top1": [0.1, 0.2]}, {})
    assert few.relative("dense_top1", 0.15) is None  # too few twins to say anything


def test_a_profile_asks_each_probe_and_its_twin_without_its_source(samples_atlas):
    probes = make_probes(samples_atlas.store, 3)
    asked = []

    def run(question, left_out):
        asked.append((question, left_out))
        return {"x": 1.0 if not left_out else 0.0, "undefined": None}, ["no answer here"]

    profile = build_profile(probes, run, 7, "key")
    assert [a[1] for a in asked] == [s for p in probes for s in (frozenset(), frozenset({p.document_id}))]
    assert profile.null == {"x": [0.0] * len(probes)} and profile.answerable == {"x": [1.0] * len(probes)}
    # a twin whose evidence still states the answer (another document says it too) is no twin
    copied = build_profile(probes, lambda q, left: ({"x": 0.5}, [" ".join(p.answer.upper() for p in probes)]), 7, "key")
    assert copied.n_twins == 0 and {r["kind"] for r in copied.rows} == {"answerable", "answered"}
    stored = with_profile(None, profile)
    assert stored_profile(stored, 7, "key").null == profile.null
    assert stored_profile(stored, 8, "key") is None and stored_profile(stored, 7, "other") is None
    assert config_key({"a": 1, "abstain": "model"}, False) == config_key({"a": 1, "abstain": "features"}, False)
    assert config_key({"a": 1}, False) != config_key({"a": 2}, False) != config_key({"a": 1}, True)


def test_the_engine_reads_features_relative_to_the_atlas(fresh_copy):
    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        settings = atlas.settings.override(abstain="model")
        profile = atlas.engine.answerability_profile(settings, lexical=True)
        assert profile is not None and profile.n_twins > 0
        assert atlas.engine.answerability_profile(settings, lexical=True) is profile  # once per graph version
        assert atlas.engine.answerability_profile(settings.override(abstain_probes=0), lexical=True) is None
