"""Read SUMO's OWL translation with rdflib: classes, labels, subclass edges, WordNet links.

What the file holds (SUMO.owl, "provisional and necessarily lossy translation to
OWL", 2010, read and checked by hand):

* classes are ``<owl:Class rdf:ID="Name">``; a dozen use ``rdf:about`` with an
  absolute URI outside the ``SUMO.owl#`` namespace (``…/ontologyportal.org/Fish``)
  and one is typed ``SUMO.owl#Class``. Following the original system, a node is
  any subject typed ``…Class`` and its name is the part after ``#`` (or after the
  last ``/``). Classes that only ever appear as a superclass (``Entity`` — the
  root — ``Law``, ``Contract``, …) are nodes too, otherwise the hierarchy would
  point at names missing from the index.
* ``rdfs:subClassOf`` gives child → parent in document order; the first parent is
  the primary one. A few classes list themselves (``GroceryProduce``); those
  self-edges are dropped.
* WordNet 3.0 links are properties ``equivalenceRelation`` / ``subsumingRelation``
  / ``instanceRelation`` whose object is ``wn#WN30-<p><offset>``: ``p`` is the
  part of speech (1 noun, 2 verb, 3 adjective, 4 adverb) and ``offset`` the
  8-digit synset offset in ``data.<pos>``. Most sit on classes; some sit on
  individuals (``London`` a ``City``), which we attach to the individual's classes
  as an ``instance`` link, and some on relations (``monetaryValue`` ↔ "price"),
  which we attach to the relation's ``rdfs:range`` class (``CurrencyMeasure``) as a
  ``subsuming`` link at most. ``anti…Relation`` links state a mismatch and are ignored.
"""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import rdflib
from rdflib.namespace import OWL, RDF, RDFS

from ..errors import OntologyError

# rdf:ID values resolve against the document base; the file declares none.
SUMO_BASE = "http://www.ontologyportal.org/SUMO.owl"
SUMO_NS = SUMO_BASE + "#"

LINK_RELATIONS = ("equivalence", "subsuming", "instance")
_WN_LINK = re.compile(r"WN30-([1-4])(\d{8})$")
_WN_POS = {"1": "n", "2": "v", "3": "a", "4": "r"}
# A tuple, not a set: visiting order decides the order of merged labels, so it must not vary with hash seeds.
_CLASS_TYPES = (OWL.Class, RDFS.Class, rdflib.URIRef(SUMO_NS + "Class"))


@dataclass(frozen=True)
class WordNetLink:
    """One SUMO class ↔ WordNet synset link."""

    cls: str  # SUMO class local name
    relation: str  # one of LINK_RELATIONS
    pos: str  # WordNet data file: n, v, a, r
    offset: int  # synset offset (= byte position in data.<pos>)


@dataclass
class SumoClass:
    local_name: str
    uri: str
    labels: list[str] = field(default_factory=list)


@dataclass
class SumoGraph:
    """What the build needs from SUMO.owl."""

    classes: dict[str, SumoClass]  # local name -> class, sorted by name
    parents: dict[str, list[str]]  # child -> parents, document order, first = primary
    links: list[WordNetLink]
    sha256: str  # of the OWL document's bytes (the same whether zipped or not)
    source_name: str


def local_name(uri: str) -> str:
    """Part of a URI after ``#``, else after the last ``/`` (spec §1.4)."""
    if "#" in uri:
        return uri.rsplit("#", 1)[1]
    return uri.rstrip("/").rsplit("/", 1)[-1]


def read_owl_bytes(path: str | Path) -> bytes:
    """The OWL document, read directly or from the single ``.owl`` member of a zip."""
    path = Path(path)
    if not path.is_file():
        raise OntologyError(f"SUMO OWL file not found: {path}")
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            members = [n for n in zf.namelist() if n.lower().endswith(".owl")]
            if len(members) != 1:
                raise OntologyError(f"{path}: expected exactly one .owl file in the zip, found {members}")
            return zf.read(members[0])
    return path.read_bytes()


def parse_sumo(path: str | Path) -> SumoGraph:
    """Parse SUMO.owl (or a zip holding it) into classes, subclass edges and WordNet links."""
    data = read_owl_bytes(path)
    graph = rdflib.Graph()
    try:
        graph.parse(source=io.BytesIO(data), format="xml", publicID=SUMO_BASE)
    except Exception as exc:  # rdflib raises many parser-specific types
        raise OntologyError(f"{path}: rdflib could not parse it as RDF/XML ({exc})") from exc

    classes: dict[str, SumoClass] = {}

    def add_class(node: rdflib.term.Node) -> str | None:
        if not isinstance(node, rdflib.URIRef):
            return None
        name = local_name(str(node))
        if not name:
            return None
        cls = classes.setdefault(name, SumoClass(name, str(node)))
        # Prefer the canonical SUMO.owl# URI when a class is spelt both ways.
        if str(node).startswith(SUMO_NS):
            cls.uri = str(node)
        for label in graph.objects(node, RDFS.label):
            if isinstance(label, rdflib.Literal) and label.language in (None, "en"):
                text = " ".join(str(label).split())
                if text and text not in cls.labels:
                    cls.labels.append(text)
        return name

    for class_type in _CLASS_TYPES:
        for subject in graph.subjects(RDF.type, class_type):
            add_class(subject)

    parents: dict[str, list[str]] = {}
    # rdflib's in-memory store yields a subject's objects in insertion (= document)
    # order, which keeps the first-listed parent first.
    for child in list(graph.subjects(RDFS.subClassOf, None, unique=True)):
        child_name = add_class(child)
        if child_name is None:
            continue
        for parent in graph.objects(child, RDFS.subClassOf):
            parent_name = add_class(parent)
            if parent_name is None or parent_name == child_name:
                continue
            plist = parents.setdefault(child_name, [])
            if parent_name not in plist:
                plist.append(parent_name)

    links = _wordnet_links(graph, classes)
    ordered = {name: classes[name] for name in sorted(classes)}
    return SumoGraph(
        classes=ordered,
        parents={c: parents[c] for c in sorted(parents)},
        links=links,
        sha256=hashlib.sha256(data).hexdigest(),
        source_name=Path(path).name,
    )


def _wordnet_links(graph: rdflib.Graph, classes: dict[str, SumoClass]) -> list[WordNetLink]:
    links: set[WordNetLink] = set()
    for relation in LINK_RELATIONS:
        predicate = rdflib.URIRef(SUMO_NS + relation + "Relation")
        for subject, obj in graph.subject_objects(predicate):
            match = _WN_LINK.search(str(obj))
            if not match or not isinstance(subject, rdflib.URIRef):
                continue
            pos, offset = _WN_POS[match.group(1)], int(match.group(2))
            name = local_name(str(subject))
            if name in classes:
                links.add(WordNetLink(name, relation, pos, offset))
                continue
            # An individual: the synset names a member of the individual's classes.
            for typ in graph.objects(subject, RDF.type):
                type_name = local_name(str(typ))
                if type_name in classes:
                    links.add(WordNetLink(type_name, "instance", pos, offset))
            # A relation ("price" = monetaryValue): the synset names values of its range.
            for rng in graph.objects(subject, RDFS.range):
                range_name = local_name(str(rng))
                if range_name in classes:
                    weaker = "instance" if relation == "instance" else "subsuming"
                    links.add(WordNetLink(range_name, weaker, pos, offset))
    return sorted(links, key=lambda link: (link.pos, link.offset, link.cls, link.relation))
