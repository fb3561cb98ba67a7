"""Entity noise rules (issue 27): each rule drops or retypes what it names and nothing else."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ohara_lab import Atlas
from ohara_lab.cli import main
from ohara_lab.entities.noise import RULES_FILE, NoiseRules
from ohara_lab.ids import slugify
from ohara_lab.records import Mention
from ohara_lab.samples import corpus_dir
from tests.support import OFFLINE

RULES = NoiseRules.load()
APACHE_DEFINITIONS = [
    '"Licensor" shall mean the copyright owner or entity authorized by the copyright owner.',
    'An "Application" is any work that makes use of an interface provided by the Library.',
    'the terms of this License (the "Agreement Terms").',
]


def dropped(name: str, etype: str = "ORG", text: str = "", texts: list[str] | None = None) -> str | None:
    m = Mention(name=name, type=etype)
    return RULES.drop_reason(m, text or name, RULES.vocabulary(texts or [text or name]))


@pytest.mark.parametrize("name, etype, rule", [
    ("You", "PERSON", "stopword"),
    ("However", "CONCEPT", "stopword"),
    ("license", "CONCEPT", "lowercase_word"),
])
def test_noise_names_are_dropped_by_their_rule(name, etype, rule):
    assert dropped(name, etype) == rule


@pytest.mark.parametrize("name, etype, fixed, rules", [
    ("Contribution(s", "CONCEPT", "Contribution(s)", ["unbalanced_brackets"]),  # "by their Contribution(s) alone"
    ("Title (section 1", "CONCEPT", "Title (section 1)", ["unbalanced_brackets"]),
    ("500) Days of Summer", "CONCEPT", "(500) Days of Summer", ["unbalanced_brackets"]),
    ("Party for Democracy (PPD", "ORG", "Party for Democracy (PPD)", ["unbalanced_brackets"]),
    ("Hong Kong-", "LOCATION", "Hong Kong", ["edge_punctuation"]),  # "Hong Kong-based"
    ("/Pamankada/Colombo", "ORG", "Pamankada/Colombo", ["edge_punctuation"]),
    ("Definitions.", "CONCEPT", "Definitions", ["edge_punctuation"]),
    ("- Licensor,", "CONCEPT", "Licensor", ["edge_punctuation"]),
    ("Holy Trinity-St.", "ORG", "Holy Trinity-St", ["edge_punctuation"]),  # "-St." is no abbreviation of its own
    ("(2%)", "AMOUNT", "2%", ["edge_punctuation"]),
    ("(PPD", "ORG", "PPD", ["unbalanced_brackets", "edge_punctuation"]),
])
def test_repairs_keep_the_slug_so_the_mention_keeps_its_entity(name, etype, fixed, rules):
    fired, repaired = RULES.repaired(Mention(name=name, type=etype))
    assert (fired, repaired.canonical, repaired.name) == (rules, fixed, fixed)
    assert slugify(repaired.canonical) == slugify(name)
    assert RULES.repaired(Mention(name="--", type="ORG")) == (["edge_punctuation"], None)  # nothing left


@pytest.mark.parametrize("name, etype", [
    ("Contribution(s)", "CONCEPT"), ("(500) Days of Summer", "CONCEPT"), ("O'Reilly Media, Inc.", "ORG"),
    ("U.S.", "LOCATION"), ("Kans.", "LOCATION"),
    ("D.Ph.", "CONCEPT"), ("5%", "AMOUNT"), ("$5", "AMOUNT"), ("C++", "TECH"),
    ("US", "LOCATION"), ("IT", "ORG"), ("WHO", "ORG"),  # acronyms, not function words
    ("May", "PERSON"), ("Will", "PERSON"), ("Up", "CONCEPT"),  # names that are words too
    ("iPhone", "TECH"), ("State Bank of Vietnam", "ORG"), ("Bank of America", "ORG"),
])
def test_real_names_are_kept(name, etype):
    assert dropped(name, etype) is None
    assert RULES.repaired(Mention(name=name, type=etype))[0] == []


def test_a_lettered_list_item_is_not_a_person():
    items = "A. Use in the Title Page a title distinct from that of the Document.\nD. Preserve all the notices."
    assert dropped("D. Preserve", "PERSON", items) == "enumerator_prefix"
    # One initial at the start of a paragraph is a person's: the rule wants a list of such letters.
    assert dropped("J. J. Carlock House", "PERSON", "J. J. Carlock House is a historic home.") is None
    assert dropped("E. F. Gordon", "PERSON", "E. F. Gordon was a judge. He sat in D. C. Smith's court.") is None


def test_a_shouted_word_of_the_documents_vocabulary_is_dropped_an_acronym_is_not():
    texts = ["COPYRIGHT HOLDER AND OTHER PARTIES", "the copyright holder may", "GNU and NASA"]
    assert dropped("HOLDER", "ORG", texts[0], texts) == "shouted_vocabulary"
    assert dropped("NASA", "ORG", texts[2], texts) is None


def retyped(name: str, etype: str, texts: list[str]) -> tuple[str, str] | None:
    return RULES.retyped(Mention(name=name, type=etype), RULES.vocabulary(texts))


def test_a_name_ending_in_license_act_or_agreement_is_a_concept():
    assert retyped("Public License", "PERSON", []) == ("law_or_work_suffix", "CONCEPT")
    assert retyped("British North America Act", "ORG", []) == ("law_or_work_suffix", "CONCEPT")
    assert retyped("Quebec Agreement", "LOCATION", []) == ("law_or_work_suffix", "CONCEPT")
    assert retyped("Apache Software Foundation", "ORG", []) is None
    assert retyped("License", "ORG", []) is None  # one word: no suffix to read
    assert retyped("Smith Act", "DATE", []) is None  # only persons, places and organisations are retyped


def test_a_term_the_document_defines_is_a_concept():
    assert retyped("Licensor", "LOCATION", APACHE_DEFINITIONS) == ("defined_term", "CONCEPT")
    assert retyped("Application", "ORG", APACHE_DEFINITIONS) == ("defined_term", "CONCEPT")
    assert retyped("Agreement Terms", "PERSON", APACHE_DEFINITIONS) == ("defined_term", "CONCEPT")
    assert retyped("Licensor", "LOCATION", ['He said "Licensor" twice.']) is None  # quoted, not defined


def test_a_common_noun_of_the_documents_vocabulary_is_a_concept():
    rule = next(r for r in RULES.retype if r["name"] == "document_vocabulary")
    low, caps = rule["min_lower"], rule["min_capitalised"]
    licence = ["You may copy the Program. " * caps, "a program, " * low]
    assert retyped("Program", "ORG", licence) == ("document_vocabulary", "CONCEPT")
    assert retyped("Program", "ORG", ["You may copy the Program. " * caps, "a program, " * (low - 1)]) is None
    assert retyped("Program", "ORG", ["You may copy the Program. " * (caps - 1), "a program, " * low]) is None
    # MuSiQue's "Liberty Island is an island": one lower-case "island" beside "Island" proves nothing.
    assert retyped("Island", "LOCATION", ["Liberty Island is an island on Island Road."]) is None
    assert retyped("Programs", "PERSON", licence) == ("document_vocabulary", "CONCEPT")  # plural counted too
    assert retyped("GNU", "ORG", ["GNU " * caps, "gnu " * low]) is None  # an acronym is no common noun


def test_the_rules_are_data(tmp_path):
    data = json.loads(RULES_FILE.read_text(encoding="utf-8"))
    assert RULES.drop_reason(Mention(name="Accepting Warranty or", type="ORG")) is None  # on file, off
    data["drop"] = [r for r in data["drop"] if r["name"] != "stopword"]
    next(r for r in data["drop"] if r["name"] == "trailing_function_word")["enabled"] = True
    data["retype"][0]["last_words"].append("Pool")
    rules = NoiseRules(data)
    assert rules.drop_reason(Mention(name="You", type="PERSON")) is None
    assert rules.drop_reason(Mention(name="Accepting Warranty or", type="ORG")) == "trailing_function_word"
    assert rules.retyped(Mention(name="Tide Pool", type="PERSON"), rules.vocabulary([])) == (
        "law_or_work_suffix", "CONCEPT")
    data["drop"].append({"name": "x", "kind": "no_such_kind"})
    with pytest.raises(ValueError, match="unknown kind 'no_such_kind'"):
        NoiseRules(data)


def test_screen_counts_per_rule_and_keeps_order():
    texts = ['"Licensor" shall mean the owner.', "Contribution(s) of the Licensor and You, Hong Kong-based."]
    found = [[Mention(name="Licensor", type="LOCATION")],
             [Mention(name="Contribution(s", type="CONCEPT"), Mention(name="Licensor", type="LOCATION"),
              Mention(name="You", type="PERSON"), Mention(name="Hong Kong-", type="LOCATION"),
              Mention(name="Apache Software Foundation", type="ORG")]]
    screened = RULES.screen(texts, found)
    assert [[(m.canonical, m.type) for m in ms] for ms in screened.mentions] == [
        [("Licensor", "CONCEPT")],
        [("Contribution(s)", "CONCEPT"), ("Licensor", "CONCEPT"), ("Hong Kong", "LOCATION"),
         ("Apache Software Foundation", "ORG")]]
    assert screened.counts == {"defined_term": 2, "unbalanced_brackets": 1, "stopword": 1, "edge_punctuation": 1}
    assert found[0][0].type == "LOCATION"  # the input is not modified


# --------------------------------------------------------------------------- on the demo atlas


def _entities(atlas: Atlas) -> list[tuple[str, str, str, int]]:
    return sorted((e.slug, e.name, e.type, e.mention_count) for e in atlas.store.get_entities())


def test_demo_atlas_entity_list_has_none_of_the_noise(samples_atlas):
    entities = _entities(samples_atlas)
    assert entities  # else the loop below checks nothing
    for slug, name, etype, _ in entities:
        m = Mention(name=name, type=etype)
        assert RULES.drop_reason(m) in (None, "enumerator_prefix", "shouted_vocabulary"), (name, etype)
        assert RULES.repaired(m)[0] == [], name
        assert not (etype in ("PERSON", "LOCATION") and name.split()[-1] in ("License", "Act", "Agreement"))
    by_slug = {slug: etype for slug, _, etype, _ in entities}
    assert by_slug.get("licensor", "CONCEPT") == "CONCEPT"
    assert by_slug.get("public-license", "CONCEPT") == "CONCEPT"
    assert not [slug for slug in by_slug if slug.endswith("-preserve")]  # GFDL's "D. Preserve ..." items
    counts = samples_atlas.stats()["entity_noise"]
    assert list(counts) == RULES.names and sum(counts.values()) > 0


def test_stats_show_what_the_rules_did(samples_atlas_dir):
    out = CliRunner().invoke(main, ["stats", "--atlas", str(samples_atlas_dir)])
    assert out.exit_code == 0, out.output
    noise = out.output.split("entity_noise:")[1]
    assert all(name in noise for name in RULES.names)


def test_reingest_makes_the_same_atlas_twice(samples_atlas, tmp_path):
    with Atlas.open(tmp_path / "again", **OFFLINE) as again:
        assert again.ingest([corpus_dir()], progress=False).ok
        assert _entities(again) == _entities(samples_atlas)
        assert again.stats()["entity_noise"] == samples_atlas.stats()["entity_noise"]
        before = again.stats()["entity_noise"]
        apache = corpus_dir() / "Apache-2.0.txt"
        assert again.ingest([apache], force=True, progress=False).ok  # counts replaced, not added
        assert again.stats()["entity_noise"] == before
        assert _entities(again) == _entities(samples_atlas)
