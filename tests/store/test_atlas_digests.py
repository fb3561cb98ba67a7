"""Re-ingesting the shared corpora gives, table for table, the atlas the reference commit built.

The committed digests (tests/store/data/atlas_digests.json) were made by
`python -m tests.store.atlas_builds samples-none demo-none musique-none samples demo samples-rules demo-rules` on the code before the
write path moved to a WriteSet (issue 29.1); a change to the write path must leave every table as it was.
"""

from __future__ import annotations

import json

import pytest

from ohara_lab.entities.extract import spacy_available
from tests.store.atlas_builds import DIGESTS, EMBEDDER_KEY, MUSIQUE, SAMPLES, auto_embedder, case_digests

REFERENCE = json.loads(DIGESTS.read_text(encoding="utf-8"))


def _compare(name: str) -> None:
    got, want = case_digests(name), REFERENCE[name]
    assert sorted(got) == sorted(want), "the atlas has other tables than the reference"
    differing = {t: (got[t], want[t]) for t in want if got[t] != want[t]}
    assert not differing, f"tables differ from the reference build: {differing}"
    assert sum(t["rows"] for t in got.values()) > 0


needs_samples = pytest.mark.skipif(not SAMPLES.is_dir(), reason=f"shared samples not found at {SAMPLES}")
# The "-none" references hold spaCy's entities; where it is not installed (CI's core-only venv) the
# "-rules" cases check the same write path with the rule extractor.
needs_spacy = pytest.mark.skipif(not spacy_available(), reason="the reference entities are spaCy's: it is not installed")


def needs_reference_embedder() -> None:
    if (found := auto_embedder()) != REFERENCE[EMBEDDER_KEY]:
        pytest.skip(
            f"vectors are compared byte for byte: the reference used {REFERENCE[EMBEDDER_KEY]}, here auto is {found}"
        )


@needs_samples
@needs_spacy
def test_shared_samples_atlas_is_unchanged() -> None:
    _compare("samples-none")


@needs_spacy
def test_demo_corpus_atlas_is_unchanged() -> None:
    _compare("demo-none")


@needs_samples
def test_shared_samples_atlas_with_rule_entities_is_unchanged() -> None:
    _compare("samples-rules")


def test_demo_corpus_atlas_with_rule_entities_is_unchanged() -> None:
    _compare("demo-rules")


@pytest.mark.slow
@pytest.mark.skipif(not MUSIQUE.is_dir(), reason=f"MuSiQue not found at {MUSIQUE}")
@needs_spacy
def test_musique_atlas_is_unchanged() -> None:
    _compare("musique-none")


@pytest.mark.slow
@needs_samples
def test_shared_samples_with_vectors_atlas_is_unchanged() -> None:
    needs_reference_embedder()
    _compare("samples")


@pytest.mark.slow
def test_demo_corpus_with_vectors_atlas_is_unchanged() -> None:
    needs_reference_embedder()
    _compare("demo")
