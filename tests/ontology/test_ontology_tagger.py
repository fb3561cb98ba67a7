"""The offline tagger on the committed lexicon: lemmatisation, phrases, topical paragraphs, determinism."""
from __future__ import annotations

import pytest

from ohara_lab.ontology import load_ontology
from ohara_lab.ontology.morphy import base_forms
from ohara_lab.ontology.tagger import top_k

BITCOIN = (
    "Bitcoin is a decentralized digital currency. Miners use powerful computers to validate transactions "
    "on the network and are rewarded with newly created coins. The mining process consumes large amounts "
    "of electricity, and the price of bitcoin on exchanges has been extremely volatile, attracting "
    "investors and speculators."
)
RIVER = (
    "The river rises in the mountains and flows south through a broad valley before reaching the sea. "
    "Its tributaries drain a large basin, and seasonal floods deposit fertile silt on the plains. Dams and "
    "reservoirs along the lower course regulate the water level for irrigation and hydroelectric power."
)
ORCHESTRA = (
    "The orchestra performed a symphony by Beethoven. The violins and cellos carried the melody while the "
    "conductor set a brisk tempo, and the audience applauded loudly after the final movement."
)


@pytest.fixture(scope="module")
def onto():
    return load_ontology()


def _within(onto, tag: str, roots: set[str]) -> bool:
    return tag in roots or bool(roots & set(onto.ancestors(tag, 20)))


def test_morphy_base_forms():
    assert list(base_forms("geese", {"geese": ["goose"]}))[0] == "goose"
    forms = list(base_forms("mined", {}))
    assert forms.index("mine") < forms.index("min")  # e-restoring first
    assert "currency" in base_forms("currencies", {})
    assert list(base_forms("is", {})) == []  # too short to strip


def test_lemmatisation(onto):
    t = onto.tagger
    assert t.lemma("rivers") == "river"
    assert t.lemma("geese") == "goose"  # WordNet exception list
    assert t.lemma("currencies") == "currency"
    assert t.lemma("mines") == "mine"
    assert t.lemma("regulated") == "regulate"  # e-restoring rule
    # "transactions" is itself a WordNet lemma (published proceedings → Text); the build
    # mixed in its base form "transaction", which carries more tags, so Transaction leads.
    assert t.lemma("transactions") == "transactions"
    assert t.classes_of("transactions")[0] == "Transaction"
    assert t.lemma("the") is None  # stop word: never a term
    assert t.lemma("qwzx") is None


def test_longest_phrase_first(onto):
    t = onto.tagger
    assert t.terms("a body of water") == ["body of water"]
    assert t.terms("bodies of water") == ["body of water"]
    assert t.terms("rising interest rates") == ["rising", "interest rate"]
    assert t.terms("The Supreme Court ruled") == ["supreme court", "rule"]
    assert t.terms("air-to-air missiles") == ["air-to-air missile"]


def test_bitcoin_paragraph_gets_economic_and_computing_classes(onto):
    tags = onto.tag_text(BITCOIN)
    assert len(tags) == 4
    econ_or_computing = {"Currency", "CurrencyMeasure", "FinancialTransaction", "Transaction",
                         "FinancialInstrument", "Computer", "ComputerProgram", "ComputerNetwork", "ComputerData"}
    hits = [t for t in tags if _within(onto, t, econ_or_computing)]
    assert len(hits) >= 3, tags
    assert "Currency" in tags and "Computer" in tags


def test_river_paragraph_gets_geographic_and_water_classes(onto):
    tags = onto.tag_text(RIVER)
    geo = {"WaterArea", "LandForm", "GeographicArea"}
    assert sum(_within(onto, t, geo) for t in tags) >= 3, tags
    assert "River" in tags


def test_music_paragraph_and_sense_context(onto):
    assert {"Orchestra", "Violin", "Music"} <= set(onto.tag_text(ORCHESTRA))
    # "bank" is ambiguous: the words around it decide.
    assert onto.tag_text("She sat on the bank of the river watching the water near the shore.")[0] == "ShoreArea"
    money = onto.tag_text("The bank approved the loan after checking the company's credit and account.")
    assert "Corporation" in money and "ShoreArea" not in money[:2]


def test_deeper_classes_outrank_their_ancestors(onto):
    scores = onto.tagger.scores(RIVER)
    assert scores["River"] > scores.get("WaterArea", 0.0)


def test_k_limits_and_empty_input(onto):
    assert onto.tag_text(BITCOIN, k=2) == onto.tag_text(BITCOIN, k=4)[:2]
    assert onto.tag_text(BITCOIN, k=0) == []
    assert onto.tag_text("") == []
    assert onto.tag_text("the of and to in") == []
    assert top_k({"A": 1.0, "B": 0.1, "C": 0.5}, 3) == ["A", "C"]  # B is under 15 % of the best


def test_deterministic_and_batch_equals_single(onto):
    texts = [BITCOIN, RIVER, ORCHESTRA, ""]
    first = onto.tag_texts(texts)
    assert first == [onto.tag_text(t) for t in texts]
    assert onto.tag_texts(texts) == first
    assert onto.tagger.scores(RIVER) == onto.tagger.scores(RIVER)


def test_query_hints_cover_every_content_word(onto):
    hints = onto.query_hints("flooding of rivers in Vietnam")
    assert hints[0] == "River"
    assert "Nation" in hints  # Vietnam
    assert len(onto.query_hints("flooding of rivers in Vietnam", k=2)) == 2
    assert onto.query_hints("who founded the company")[0] == "Corporation"
    assert onto.query_hints("bitcoin price")[:2] == ["Currency", "CurrencyMeasure"]  # "bitcoin" via the alias table
    assert onto.query_hints("of the") == []


def test_a_term_is_weighted_when_first_met_with_its_class_specificity():
    """The tagger weighs a term's classes on first use (not all at load): weight × 1/(1 + ½·ln(1 + descendants))."""
    import math

    from ohara_lab.ontology.tagger import Tagger

    tagger = Tagger({"river": [["River", 0.5], ["BodyOfWater", 0.25]], "bank": [["Corporation", 1.0]]}, {},
                    {"River": ("BodyOfWater",)}, {"River": 0, "BodyOfWater": 100})
    assert tagger._entries == {}  # nothing weighed at load
    assert tagger.classes_of("river") == ["River", "BodyOfWater"] and tagger.classes_of("lake") == []
    (river, w_river), (water, w_water) = tagger._entry("river")
    assert (river, water) == ("River", "BodyOfWater") and w_river == 0.5
    assert math.isclose(w_water, 0.25 / (1 + 0.5 * math.log(101)))  # 0.0755
    assert set(tagger._entries) == {"river"}  # "bank" never met
    assert tagger.tag("The rivers")[0] == "River"  # found through its base form, scored with the same weights
