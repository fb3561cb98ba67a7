"""Speed work changes no ranking: top 10, tiers and abstention on the samples atlas equal the snapshot.

One snapshot per entity extractor (`rankings_snapshot.py`): the samples atlas has spaCy's entities in the
full install and the rule-based ones in CI's core-only pass, so each job compares its own; the full job
also builds a rule-based atlas, so a change that moves the core's answers fails there first.
"""
from __future__ import annotations

import json

import pytest

from ohara_lab import Atlas
from ohara_lab.samples import corpus_dir
from tests.retrieval.rankings_snapshot import RULES_FIXTURE, snapshot, snapshots
from tests.support import OFFLINE

REGENERATE = "regenerate on purpose: python -m tests.retrieval.rankings_snapshot [--ner rules FILE]"


def _assert_equal(atlas, fixture) -> None:
    want = json.loads(fixture.read_text(encoding="utf-8"))
    got = snapshot(atlas)
    changed = [key for key in want if got.get(key) != want[key]]
    assert not changed, f"answers moved for {changed[:3]} against {fixture.name} ({REGENERATE})"
    assert set(got) == set(want)


def _extractor(atlas) -> tuple[str, ...]:
    return tuple(atlas.stats()["built_with"].get("extractor") or ())


def test_answers_equal_the_snapshot(samples_atlas):
    extractor, known = _extractor(samples_atlas), snapshots()
    assert extractor in known, f"no rankings snapshot for entities from {extractor}; there are {sorted(known)} ({REGENERATE})"
    _assert_equal(samples_atlas, known[extractor])


def test_rule_based_answers_equal_their_snapshot(samples_atlas, tmp_path):
    if _extractor(samples_atlas) == ("rules-1",):
        pytest.skip("the samples atlas is rule-based here (no nlp extra): test_answers_equal_the_snapshot compared it")
    with Atlas.open(tmp_path / "rules", **OFFLINE, ner="rules") as atlas:
        atlas.ingest([corpus_dir()], progress=False)
        assert _extractor(atlas) == ("rules-1",)
        _assert_equal(atlas, RULES_FIXTURE)
