"""Invariants of the committed derived files in ontology/ (read directly, not through the API)."""
from __future__ import annotations

import gzip
import json
import re

import pytest

from ohara_lab.ontology.files import ALL_FILES, FORMAT_VERSION, REPO_DATA_DIR
from ohara_lab.ontology.hierarchy import primary_chain
from ohara_lab.text import LEXICON_STOPWORDS as STOPWORDS


def _load(name: str) -> dict:
    raw = (REPO_DATA_DIR / name).read_bytes()
    return json.loads(gzip.decompress(raw) if name.endswith(".gz") else raw)


@pytest.fixture(scope="module")
def files() -> dict[str, dict]:
    return {name: _load(name) for name in ALL_FILES}


def test_every_file_has_a_version_and_source_header(files):
    shas = set()
    for name, payload in files.items():
        assert payload["version"] == FORMAT_VERSION, name
        src = payload["source"]
        assert re.fullmatch(r"[0-9a-f]{64}", src["sumo_sha256"]), name
        assert src["wordnet_version"] == "3.0", name
        shas.add(src["sumo_sha256"])
    assert len(shas) == 1  # all four from one build


def test_files_stay_small_enough_for_git():
    sizes = {name: (REPO_DATA_DIR / name).stat().st_size for name in ALL_FILES}
    assert sum(sizes.values()) < 4 * 1024 * 1024, sizes
    assert not list(REPO_DATA_DIR.glob("*.owl*")), "SUMO.owl itself must never be committed"
    assert not list(REPO_DATA_DIR.glob("*.pkl")) and not list(REPO_DATA_DIR.glob("*.pickle"))


def test_index_entries(files):
    entries = files["sumo_index.json"]["entries"]
    names = [e["localName"] for e in entries]
    # 4,538 is also the original system's count (spec §1.4) for this SUMO.owl.
    assert len(names) == len(set(names)) == 4538
    assert names == sorted(names)
    by_name = {e["localName"]: e for e in entries}
    assert by_name["Human"] == {"localName": "Human", "uri": "http://www.ontologyportal.org/SUMO.owl#Human",
                                "label": "human"}
    assert by_name["AAM"]["label"] == "air-to-air missile"  # the hand-written label, not "AA m"
    assert by_name["Entity"]["label"] == "entity"  # no rdfs:label: split name


def test_hierarchy_points_only_at_indexed_classes(files):
    names = {e["localName"] for e in files["sumo_index.json"]["entries"]}
    parents = files["sumo_hierarchy.json"]["parents"]
    assert set(parents) <= names
    assert all(p in names and p != child for child, plist in parents.items() for p in plist)
    assert sum(len(p) for p in parents.values()) == 5325
    # Read off SUMO.owl: <owl:Class rdf:ID="AAM"> lists AirLaunchMissile, AirAttackMissile, GuidedMissile.
    assert parents["AAM"] == ["AirLaunchMissile", "AirAttackMissile", "GuidedMissile"]
    assert "Entity" not in parents


def test_categories_follow_their_rule(files):
    cats = files["sumo_tag_categories.json"]
    parents = files["sumo_hierarchy.json"]["parents"]
    categories = cats["categories"]
    assert 80 <= len(categories) <= 120
    assert cats["root"] == "Entity"
    for cat in categories:
        chain = primary_chain(cat, parents)
        assert chain[-1] == "Entity" and 1 <= len(chain) - 1 <= 5, cat
        assert cats["cat_depth"][cat] == len(chain) - 1
        from_root = chain[::-1]
        assert cats["cat_groups"][cat] == {"L1": from_root[1], "L2": from_root[2] if len(from_root) > 2 else cat}
        assert cats["map"][cat] == cat
        parent = cats["cat_parent"][cat]
        assert parent is None or parent in categories
    assert set(cats["map"].values()) <= set(categories)
    assert sum(cats["tag_counts"].values()) == len(cats["map"])
    assert set(cats["tag_counts"]) == set(categories)


def test_lexicon_targets_are_taggable_classes(files):
    lex = files["sumo_lexicon.json.gz"]
    names = {e["localName"] for e in files["sumo_index.json"]["entries"]}
    general = set(lex["general_classes"])
    assert {"Entity", "Physical", "Abstract", "Object", "SubjectiveAssessmentAttribute"} <= general
    terms = lex["terms"]
    assert len(terms) > 100_000
    for term, entry in terms.items():
        assert term == term.lower() and "_" not in term, term
        assert term not in STOPWORDS, term
        assert 1 <= len(entry) <= 5, term
        weights = [w for _, w in entry]
        assert weights == sorted(weights, reverse=True), term
        for cls, weight in entry:
            assert cls in names and cls not in general, (term, cls)
            assert 0 < weight <= 1, (term, cls)
    assert all(base in terms for base in lex["exceptions"].values())
    assert lex["exceptions"]["geese"] == "goose"
    assert terms["river"] == [["River", 0.6953]]  # equivalence link, 55 tags: 1/(1 + ln 1.55)
