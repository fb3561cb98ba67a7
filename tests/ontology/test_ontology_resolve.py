"""validate_tags (spec §2.8): each resolution stage, ordering, de-duplication, logging, the alias table."""
from __future__ import annotations

import logging

import pytest

from ohara_lab.ontology import TagResolution, load_ontology
from ohara_lab.ontology.aliases import ALIASES
from ohara_lab.ontology.names import camel_phrase, normalise, split_camel
from ohara_lab.ontology.resolve import TagResolver


@pytest.fixture(scope="module")
def onto():
    return load_ontology()


def test_normalise_and_camel_split():
    assert normalise(" Financial_Transaction-x ") == "financialtransactionx"
    assert split_camel("FinancialTransaction") == ["Financial", "Transaction"]
    assert split_camel("ATMMachine") == ["ATM", "Machine"]
    assert split_camel("Bank-FinancialOrganization") == ["Bank", "Financial", "Organization"]
    assert split_camel("AGM114") == ["AGM", "114"]
    assert camel_phrase("BodyOfWater") == "body of water"


def test_stage_1_exact(onto):
    assert onto.validate_tags(["River", "Human"]) == TagResolution(["River", "Human"], {}, [])


def test_stage_2_case_and_separator_insensitive(onto):
    res = onto.validate_tags(["financial_transaction", "body of water", "RIVER", "Financial-Transaction"])
    assert res.tags == ["FinancialTransaction", "BodyOfWater", "River"]
    assert res.resolved_map == {"financial_transaction": "FinancialTransaction", "body of water": "BodyOfWater",
                                "RIVER": "River", "Financial-Transaction": "FinancialTransaction"}


def test_stage_3_alias_first_present_target_wins(onto):
    res = onto.validate_tags(["cryptocurrency", "Person", "company", "crypto-currency"])
    assert res.tags == ["Currency", "Human", "Corporation"]
    assert res.resolved_map["crypto-currency"] == "Currency"  # normalised before the alias lookup
    # A target missing from the index is skipped in favour of the next one.
    resolver = TagResolver(["Agent"], {"person": ("Human", "Agent")})
    assert resolver.resolve_one("person") == "Agent"


def test_stage_4_camel_case_parts_longest_first(onto):
    # Parts: Crypto(6) Currency(8) Token(5); the longest that resolves through stage 2 wins.
    assert onto.validate_tags(["CryptoCurrencyToken"]).tags == ["Currency"]
    # "Person" is no class (only an alias), stage 4 goes through stage 2 only: next part "Human".
    assert onto.validate_tags(["PersonHuman"]).tags == ["Human"]
    # Parts shorter than 3 characters are ignored; a single part is not a CamelCase name.
    assert onto.validate_tags(["AbRiver"]).tags == ["River"]
    assert onto.validate_tags(["Riverx"]).dropped == ["Riverx"]
    resolver = TagResolver(["Lake", "Ocean"])
    assert resolver.resolve_one("OceanLake") == "Ocean"  # equal length: left to right


def test_unresolved_are_dropped_and_logged(onto, caplog):
    with caplog.at_level(logging.INFO, logger="ohara_lab.ontology.resolve"):
        res = onto.validate_tags(["Blorp", "River", "Zzqx", None, "  "])
    assert res.tags == ["River"]
    assert res.dropped == ["Blorp", "Zzqx", "", ""]
    assert "Blorp" in caplog.text and "Zzqx" in caplog.text


def test_output_is_deduplicated_in_order_and_map_lists_only_changes(onto):
    res = onto.validate_tags(["river", "Human", "River", "person", "human"])
    assert res.tags == ["River", "Human"]
    assert res.resolved_map == {"river": "River", "person": "Human", "human": "Human"}


def test_alias_table_is_large_and_every_target_exists(onto):
    assert len(ALIASES) >= 100
    missing = {k: [t for t in v if not onto.has(t)] for k, v in ALIASES.items()}
    assert {k: v for k, v in missing.items() if v} == {}
    for key, targets in ALIASES.items():
        assert key == normalise(key), key
        assert targets and len(set(targets)) == len(targets), key


def test_no_alias_is_shadowed_by_the_insensitive_stage(onto):
    # Stage 2 runs first, so an alias whose key already names a class would never be used.
    folded = {normalise(c) for c in onto.classes}
    assert sorted(k for k in ALIASES if k in folded) == []
