from ohara_lab.retrieval.query import date_range, input_type, ngrams, parse_query, query_mode, temporal_intent, tokenize


def test_tokens_drop_short_words_and_stopwords():
    assert tokenize("How does Proof-of-Work secure the ledger in 2014?") == ["does", "proof", "work", "secure",
                                                                            "ledger", "2014"]


def test_input_types():
    assert input_type(["a"] * 3) == "keyword"
    assert input_type(["a"] * 4) == "phrase"
    assert input_type(["a"] * 31) == "paragraph"


def test_modes():
    assert query_mode("Compare GPL and LGPL") == "synthesis"
    assert query_mode("Tell me more about mining") == "exploratory"
    assert query_mode("Who wrote the GPL?") == "factoid"


def test_intents_and_ordering():
    assert temporal_intent("what is the latest version of the license", "phrase") == "current_state"
    assert temporal_intent("what happened in 1991 to the license", "phrase") == "historical_fact"
    assert temporal_intent("Which was published first, the GPL or the LGPL?", "phrase") == "ordering"
    assert temporal_intent("did the report come before or after the merger", "phrase") == "ordering"
    assert temporal_intent("latest", "keyword") == "none"


def test_date_ranges():
    assert date_range("licences before 2000", "none") == {"from": None, "to": "1999-12-31"}
    assert date_range("licences after 2005", "none") == {"from": "2005-01-01", "to": None}
    assert date_range("software in the 1990s", "none") == {"from": "1990-01-01", "to": "1999-12-31"}
    assert date_range("what changed in 2007", "historical_fact") == {"from": "2005-01-01", "to": "2009-12-31"}
    assert date_range("what changed in 2007", "none") == {}


def test_ngrams_longest_first_without_stopword_only_grams():
    grams = ngrams("the Free Software Foundation")
    assert grams[0] == "the Free Software Foundation" and "Free Software Foundation" in grams
    assert "the" not in grams


def test_parse_query_combines():
    q = parse_query("What did the Free Software Foundation publish after 2005?")
    assert q.input_type == "phrase" and q.mode == "factoid" and q.date_range["from"] == "2005-01-01"
