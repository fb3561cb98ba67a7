"""Spec §2.8 entity rules: each case fails if its rule is wrong or missing."""
from __future__ import annotations

import copy

import pytest

from ohara_lab.entities.rules import CONTEXT_MAX_CHARS, clean_mentions, is_opaque, repair_canonical
from ohara_lab.records import Mention


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("0-05-bitcoin", "0.05 Bitcoin"),  # decimal with rest
        ("0-05", "0.05"),  # decimal alone
        ("alice-s-cafe", "Alice's Cafe"),  # inner possessive, then hyphen split
        ("bob-s", "Bob's"),  # final possessive
        ("alice-bitcoin-address", "Alice Bitcoin Address"),  # slug split + capitalise
        ("bitcoin core", "Bitcoin Core"),  # capitalise each word
        ("bitcoin", "Bitcoin"),  # single word
        ("  bitcoin   core ", "Bitcoin Core"),  # whitespace collapsed
        # Deviations (documented in rules.py): meaningful case and hyphens survive.
        ("SegWit", "SegWit"),
        ("iPhone", "iPhone"),
        ("BIP-32", "BIP-32"),
        ("state bank of vietnam", "State Bank of Vietnam"),
        ("2014-06-02", "2014-06-02"),
    ],
)
def test_repair_canonical(raw: str, expected: str) -> None:
    assert repair_canonical(raw) == expected


@pytest.mark.parametrize(
    "token, expected",
    [
        ("123e4567-e89b-12d3-a456-426614174000", True),  # UUID, despite its hyphens
        ("Bitcoin Core Developer Team Lead", False),  # whitespace -> a phrase
        ("Zk9Qx7Vt3Pw2Lm8Nr4Bs", True),  # 20 chars, no vowels
        ("Zk9Qx7Vt3Pw2Lm8Nr4B", False),  # 19 chars: too short to judge
        ("deadbeefdeadbeef", False),  # 16 hex digits but < 20 chars (length rule first)
        ("deadbeefcafebabe0000", True),  # hex rule: vowel ratio 0.40 would say "not opaque"
        ("some_identifier_value_x", False),  # non-alphanumeric, not hex
        ("Abcdfghjklmnpqrstvwe", True),  # 2 vowels / 20 = 0.10 < 0.15
        ("Abcdfghjklmnpqrstvei", False),  # 3 vowels / 20 = 0.15, not < 0.15
        ("", False),
    ],
)
def test_is_opaque(token: str, expected: bool) -> None:
    assert is_opaque(token) is expected


def test_type_and_canonical_validation() -> None:
    out = clean_mentions([
        Mention(name="Acme", type="COMPANY"),  # not one of the 8 types
        Mention(name="", type="ORG", canonical="   "),  # empty canonical
        Mention(name="Acme", type="ORG"),
    ])
    assert [(m.canonical, m.type) for m in out] == [("Acme", "ORG")]


def test_confidence_clamped_and_context_cut() -> None:
    long_ctx = "x" * 300
    out = clean_mentions([
        Mention(name="Alice", type="PERSON", confidence=1.7, context=long_ctx),
        Mention(name="Bob", type="PERSON", confidence=-0.2),
        Mention(name="Carol", type="PERSON", confidence="high"),  # type: ignore[arg-type]
        Mention(name="Dan", type="PERSON", confidence=0.42),
    ])
    assert [m.confidence for m in out] == [1.0, 0.0, 0.0, 0.42]
    assert len(out[0].context) == CONTEXT_MAX_CHARS


def test_opaque_filter_on_canonical_name_and_aliases() -> None:
    opaque = "deadbeefcafebabe0000"
    out = clean_mentions([
        Mention(name="tx", type="TECH", canonical=opaque),  # opaque canonical: dropped
        Mention(name=opaque, type="TECH", canonical="Genesis Block", aliases=[opaque, "Block 0"]),
    ])
    assert len(out) == 1
    assert out[0].canonical == "Genesis Block"
    assert out[0].name == "Genesis Block"  # opaque name falls back to the canonical
    assert out[0].aliases == ["Block 0"]


def test_same_norm_key_merges_into_first() -> None:
    mentions = [
        Mention(name="Bitcoin network", type="TECH", canonical="bitcoin-network"),
        Mention(name="the Bitcoin Network", type="TECH", canonical="Bitcoin Network", aliases=["BTC network"]),
        Mention(name="Bitcoin Network", type="TECH"),  # equals the canonical: adds nothing
        Mention(name="Satoshi", type="PERSON"),
    ]
    before = copy.deepcopy(mentions)
    out = clean_mentions(mentions)
    assert [m.canonical for m in out] == ["Bitcoin Network", "Satoshi"]
    assert out[0].name == "Bitcoin network"
    assert out[0].aliases == ["the Bitcoin Network", "BTC network"]
    assert mentions == before  # inputs untouched


def test_repair_can_be_skipped_for_verbatim_spans() -> None:
    m = Mention(name="3-50-million", type="AMOUNT")
    assert clean_mentions([m])[0].canonical == "3.50 Million"  # the spec rule, meant for LLM slugs
    assert clean_mentions([m], repair=False)[0].canonical == "3-50-million"
