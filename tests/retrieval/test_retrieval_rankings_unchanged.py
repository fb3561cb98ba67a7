"""Speed work changes no ranking: top 10, tiers and abstention on the samples atlas equal the snapshot."""
from __future__ import annotations

import json

import pytest

from tests.retrieval.rankings_snapshot import FIXTURE, snapshot


def test_answers_equal_the_snapshot(samples_atlas):
    want = json.loads(FIXTURE.read_text(encoding="utf-8"))
    extractor = samples_atlas.stats()["built_with"].get("extractor")
    if extractor != want["extractor"]:
        pytest.skip(f"the snapshot was taken with entities from {want['extractor']}, this atlas has {extractor}")
    got = snapshot(samples_atlas)
    changed = [key for key in want if got.get(key) != want[key]]
    assert not changed, f"answers moved for {changed[:3]} (regenerate on purpose: python -m tests.retrieval.rankings_snapshot)"
