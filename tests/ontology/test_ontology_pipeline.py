"""The whole build → load → tag pipeline on a hand-made SUMO.owl and WordNet, values computed by hand."""
from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import pytest

from ohara_lab.errors import OntologyError
from ohara_lab.ontology import Ontology
from ohara_lab.ontology.build import build_ontology
from ohara_lab.ontology.owl import WordNetLink, parse_sumo
from ohara_lab.ontology.wordnet import read_wordnet

# name -> (pos, lex_filenum, words, [(pointer symbol, target name)])
SYNSETS = {
    "entity": ("n", "03", ["entity"], []),
    "body_of_water": ("n", "17", ["body_of_water", "water"], []),
    "river": ("n", "17", ["river"], [("@", "body_of_water")]),
    "stream": ("n", "17", ["stream"], [("@", "body_of_water")]),
    "lake": ("n", "17", ["lake"], [("@", "body_of_water")]),
    "city": ("n", "15", ["city"], []),
    "london": ("n", "15", ["London"], [("@i", "city")]),
    "price": ("n", "07", ["price"], []),
    "flow": ("v", "38", ["flow"], []),
}
# name -> tag count of its (single) sense
TAG_COUNTS = {"entity": 0, "body_of_water": 10, "river": 55, "stream": 10, "lake": 20, "city": 40,
              "london": 5, "price": 56, "flow": 3}
FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
LICENCE = "  1 This software and database is being provided to you, the LICENSEE\n"


def write_wordnet(folder: Path) -> dict[str, int]:
    """Write data.* files whose offsets are real byte positions, plus index.sense; return offsets."""
    offsets: dict[str, int] = {}

    def line(name: str, resolve: bool) -> str:
        pos, lex, words, ptrs = SYNSETS[name]
        word_part = " ".join(f"{w} 0" for w in words)
        ptr_part = " ".join(
            f"{sym} {offsets[target] if resolve else 0:08d} {SYNSETS[target][0]} 0000" for sym, target in ptrs
        )
        off = offsets[name] if resolve else 0
        return f"{off:08d} {lex} {pos} {len(words):02x} {word_part} {len(ptrs):03d} {ptr_part} | gloss\n"

    for pos, fname in FILES.items():
        names = [n for n, s in SYNSETS.items() if s[0] == pos]
        at = len(LICENCE)
        for name in names:  # offsets are fixed-width, so placeholder lines have the final lengths
            offsets[name] = at
            at += len(line(name, resolve=False).encode())
    for pos, fname in FILES.items():
        names = [n for n, s in SYNSETS.items() if s[0] == pos]
        (folder / f"data.{fname}").write_text(LICENCE + "".join(line(n, True) for n in names))
    ss_type = {"n": 1, "v": 2}
    senses = []
    for name, (pos, lex, words, _) in SYNSETS.items():
        for word in words:
            senses.append(f"{word.lower()}%{ss_type[pos]}:{lex}:00:: {offsets[name]:08d} 1 {TAG_COUNTS[name]}\n")
    (folder / "index.sense").write_text("".join(sorted(senses)))
    (folder / "noun.exc").write_text("waters water\n")
    return offsets


def write_owl(path: Path, off: dict[str, int]) -> None:
    wn = lambda name, p=1: f"wn#WN30-{p}{off[name]:08d}"  # noqa: E731
    path.write_text(f"""<rdf:RDF
xmlns="http://www.ontologyportal.org/SUMO.owl#"
xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#"
xmlns:owl="http://www.w3.org/2002/07/owl#">
<owl:Ontology rdf:about="SUMO"/>
<owl:Class rdf:ID="Physical"><rdfs:subClassOf rdf:resource="#Entity"/>
  <rdfs:label xml:lang="en">physical</rdfs:label></owl:Class>
<owl:Class rdf:ID="Abstract"><rdfs:subClassOf rdf:resource="#Entity"/></owl:Class>
<owl:Class rdf:ID="Object"><rdfs:subClassOf rdf:resource="#Physical"/></owl:Class>
<owl:Class rdf:ID="Region"><rdfs:subClassOf rdf:resource="#Object"/></owl:Class>
<owl:Class rdf:ID="WaterArea"><rdfs:subClassOf rdf:resource="#Region"/>
  <rdfs:label xml:lang="en">water area</rdfs:label>
  <equivalenceRelation rdf:resource="{wn('body_of_water')}"/></owl:Class>
<owl:Class rdf:ID="River"><rdfs:subClassOf rdf:resource="#WaterArea"/><rdfs:subClassOf rdf:resource="#River"/>
  <rdfs:label xml:lang="en">river</rdfs:label>
  <equivalenceRelation rdf:resource="{wn('river')}"/>
  <antiSubsumingRelation rdf:resource="{wn('lake')}"/></owl:Class>
<owl:Class rdf:about="http://www.ontologyportal.org/Lake">
  <rdfs:subClassOf rdf:resource="http://www.ontologyportal.org/SUMO.owl#WaterArea"/>
  <rdfs:subClassOf rdf:resource="http://www.ontologyportal.org/SUMO.owl#Region"/>
  <subsumingRelation rdf:resource="{wn('lake')}"/></owl:Class>
<owl:Class rdf:ID="City"><rdfs:subClassOf rdf:resource="#Region"/>
  <rdfs:label xml:lang="en">C i</rdfs:label><rdfs:label xml:lang="en">city</rdfs:label></owl:Class>
<owl:Thing rdf:ID="London"><rdf:type rdf:resource="#City"/>
  <equivalenceRelation rdf:resource="{wn('london')}"/></owl:Thing>
<owl:Class rdf:ID="CurrencyMeasure"><rdfs:subClassOf rdf:resource="#Abstract"/></owl:Class>
<owl:ObjectProperty rdf:ID="monetaryValue"><rdfs:range rdf:resource="#CurrencyMeasure"/>
  <equivalenceRelation rdf:resource="{wn('price')}"/></owl:ObjectProperty>
<owl:Class rdf:ID="OrphanThing"/>
</rdf:RDF>
""")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> tuple[Path, Path, dict[str, int]]:
    root = tmp_path_factory.mktemp("tiny")
    wn_dir = root / "wordnet"
    wn_dir.mkdir()
    offsets = write_wordnet(wn_dir)
    owl = root / "SUMO.owl"
    write_owl(owl, offsets)
    return owl, wn_dir, offsets


@pytest.fixture(scope="module")
def built(inputs, tmp_path_factory):
    owl, wn_dir, _ = inputs
    out = tmp_path_factory.mktemp("built")
    return build_ontology(owl, wordnet_dir=wn_dir, out_dir=out), Ontology.from_dir(out), out


def test_wordnet_reader_uses_byte_offsets_and_pointers(inputs):
    _, wn_dir, off = inputs
    wn = read_wordnet(wn_dir)
    raw = (wn_dir / "data.noun").read_bytes()
    assert raw[off["river"]: off["river"] + 8] == f"{off['river']:08d}".encode()
    assert wn.synsets[("n", off["body_of_water"])] == ["body of water", "water"]
    assert wn.synsets[("n", off["london"])] == ["london"]
    assert wn.hypernyms[("n", off["london"])] == [("n", off["city"])]
    assert wn.total_tag_count("river") == 55
    assert wn.exceptions == {"waters": ["water"]}


def test_owl_parser_reads_classes_edges_and_links(inputs):
    owl, _, off = inputs
    sumo = parse_sumo(owl)
    assert set(sumo.classes) == {"Entity", "Physical", "Abstract", "Object", "Region", "WaterArea", "River",
                                 "Lake", "City", "CurrencyMeasure", "OrphanThing"}
    assert sumo.parents["River"] == ["WaterArea"]  # the self-edge is dropped
    assert sumo.parents["Lake"] == ["WaterArea", "Region"]  # document order
    assert sumo.classes["Lake"].uri == "http://www.ontologyportal.org/Lake"
    assert sumo.classes["City"].labels == ["C i", "city"]
    links = set(sumo.links)
    assert WordNetLink("River", "equivalence", "n", off["river"]) in links
    assert WordNetLink("Lake", "subsuming", "n", off["lake"]) in links
    assert WordNetLink("City", "instance", "n", off["london"]) in links  # via the individual London
    assert WordNetLink("CurrencyMeasure", "subsuming", "n", off["price"]) in links  # via the relation's range
    assert not any(l.cls == "River" and l.offset == off["lake"] for l in links)  # anti-links ignored


def test_zipped_owl_parses_to_the_same_graph(inputs, tmp_path):
    owl, _, _ = inputs
    zipped = tmp_path / "SUMO.owl.zip"
    with zipfile.ZipFile(zipped, "w") as zf:
        zf.write(owl, "SUMO.owl")
    a, b = parse_sumo(owl), parse_sumo(zipped)
    assert a.sha256 == b.sha256 and a.parents == b.parents and a.links == b.links


def test_missing_inputs_raise_ontology_error(tmp_path, inputs):
    owl, _, _ = inputs
    with pytest.raises(OntologyError, match="not found"):
        build_ontology(tmp_path / "nope.owl", out_dir=tmp_path)
    with pytest.raises(OntologyError, match="WordNet 3.0 files missing"):
        build_ontology(owl, wordnet_dir=tmp_path, out_dir=tmp_path / "out")


def test_lexicon_weights_match_the_documented_formula(built):
    _, _, out = built
    terms = json.loads(__import__("gzip").decompress((out / "sumo_lexicon.json.gz").read_bytes()))["terms"]

    def sal(t: int) -> float:
        return 1 / (1 + math.log(1 + t / 100))

    # one sense each, so p(s|w) = 1; nouns, so POS = 1
    assert terms["river"] == [["River", round(1.0 * sal(55), 4)]]  # equivalence
    assert terms["lake"] == [["Lake", round(0.6 * sal(20), 4)]]  # subsuming
    assert terms["london"] == [["City", round(0.35 * sal(5), 4)]]  # instance, via the individual
    assert terms["price"] == [["CurrencyMeasure", round(0.6 * sal(56), 4)]]  # relation range, subsuming
    assert terms["stream"] == [["WaterArea", round(0.6 * sal(10), 4)]]  # unlinked: borrows its hypernym's link
    assert terms["water area"] == [["WaterArea", 0.8]]  # SUMO label not in WordNet
    assert terms["city"] == [["City", 0.8]]  # WordNet lemma without any link: the label fills in
    assert "c i" not in terms and "physical" not in terms  # junk label; general class
    assert "flow" not in terms  # no link anywhere


def test_build_report_and_files(built):
    report, onto, out = built
    assert report.classes == 11 and report.hierarchy_edges == 10
    assert report.general_classes == 3  # Entity, Physical, Abstract
    assert report.categories == 0  # nothing reaches 25 descendants in a toy ontology
    assert set(report.file_bytes) == {p.name for p in out.iterdir()}
    assert onto.version.startswith("1+sumo.") and onto.version.endswith("+wn3.0")
    assert onto.label("City") == "city" and onto.label("Region") == "region"


def test_tagging_on_the_tiny_build(built):
    _, onto, _ = built
    # "river" and "lake" meet at WaterArea, "lake" (Lake ⊂ Region) and "london" (City ⊂ Region)
    # at Region: every class has one other supporting term, so context = 1 + ln 2 each.
    scores = onto.tagger.scores("The rivers and lakes near London")
    ctx = 1 + math.log(2)
    assert scores["River"] == pytest.approx(0.6953 * ctx, abs=1e-4)
    assert scores["Lake"] == pytest.approx(0.5075 * ctx, abs=1e-4)
    assert scores["City"] == pytest.approx(0.3337 * ctx, abs=1e-4)
    assert onto.tagger.scores("London") == {"City": pytest.approx(0.3337, abs=1e-4)}  # alone: no context
    assert onto.tag_text("The rivers and lakes near London") == ["River", "Lake", "City"]
    assert onto.tag_text("The rivers and lakes near London", k=1) == ["River"]
    assert onto.tagger.terms("bodies of water and the waters of a stream") == ["body of water", "water", "stream"]


def test_rebuild_is_byte_identical(built, inputs, tmp_path):
    _, _, out = built
    owl, wn_dir, _ = inputs
    build_ontology(owl, wordnet_dir=wn_dir, out_dir=tmp_path)
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in tmp_path.iterdir()) != []
    for path in out.iterdir():
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name
