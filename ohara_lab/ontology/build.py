"""``ohara ontology build``: derive the committed ontology files from SUMO.owl and WordNet 3.0.

Writes four files into `out_dir` (the repository's ``ontology/`` by default):

* ``sumo_index.json`` — ``entries: [{localName, uri, label}]`` for every class;
* ``sumo_hierarchy.json`` — ``parents: {child: [parents]}``, first parent = primary;
* ``sumo_tag_categories.json`` — map categories (rule in `categories`);
* ``sumo_lexicon.json.gz`` — term → weighted classes (rule in `lexicon_build`) plus
  the irregular-inflection table the tagger's lemmatiser needs, so tagging never
  reads WordNet at run time.

Each carries ``version`` and ``source`` (SUMO document SHA-256, WordNet version).
The output depends only on the inputs: no timestamps, sorted keys, gzip mtime 0.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .categories import MAX_CATEGORY_DEPTH, MIN_CATEGORY_DEPTH, MIN_CATEGORY_DESCENDANTS, build_categories
from .files import (
    CATEGORIES_FILE,
    FORMAT_VERSION,
    HIERARCHY_FILE,
    INDEX_FILE,
    LEXICON_FILE,
    REPO_DATA_DIR,
    write_json,
)
from .lexicon_build import (
    CATCH_ALL_MIN_LINKS,
    CATCH_ALL_MIN_MODIFIER_SHARE,
    GENERAL_MIN_DESCENDANTS,
    HYPERNYM_DECAY,
    HYPERNYM_HOPS,
    LABEL_WEIGHT,
    MAX_CLASSES_PER_TERM,
    MIN_RELATIVE_WEIGHT,
    POS_WEIGHTS,
    RELATION_WEIGHTS,
    SALIENCE_TAU,
    build_lexicon,
    general_classes,
)
from .names import camel_phrase
from .owl import SumoGraph, parse_sumo
from .wordnet import read_wordnet

DEFAULT_WORDNET_DIR = "/usr/share/wordnet"


@dataclass
class BuildReport:
    """What a build produced, for the CLI to print and the tests to check."""

    out_dir: str
    sumo_sha256: str
    wordnet_version: str
    classes: int
    hierarchy_edges: int
    wordnet_links: int
    lexicon_terms: int
    lexicon_wordnet_terms: int
    lexicon_label_terms: int
    lexicon_exceptions: int
    lexicon_merged_inflections: int
    borrowed_synsets: int
    general_classes: int
    categories: int
    mapped_tags: int
    file_bytes: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        files = ", ".join(f"{n} {b / 1024:.0f} KiB" for n, b in self.file_bytes.items())
        return (
            f"SUMO {self.sumo_sha256[:12]}… + WordNet {self.wordnet_version} → {self.out_dir}: "
            f"{self.classes} classes, {self.hierarchy_edges} subclass edges, "
            f"{self.lexicon_terms} lexicon terms, {self.categories} categories covering "
            f"{self.mapped_tags} tags in {self.seconds.get('total', 0):.1f} s ({files})"
        )


def build_ontology(
    owl_path: str | Path,
    wordnet_dir: str | Path = DEFAULT_WORDNET_DIR,
    out_dir: str | Path | None = None,
) -> BuildReport:
    """Parse `owl_path` (SUMO.owl or a zip holding it) and `wordnet_dir`, write the derived files.

    Raises `OntologyError` when an input is missing or unreadable.
    """
    out = Path(out_dir) if out_dir is not None else REPO_DATA_DIR
    seconds: dict[str, float] = {}
    start = t0 = time.perf_counter()

    sumo = parse_sumo(owl_path)
    seconds["parse_owl"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    wordnet = read_wordnet(wordnet_dir)
    seconds["read_wordnet"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    classes = list(sumo.classes)
    general = general_classes(sumo)
    lexicon = build_lexicon(sumo, wordnet, general)
    seconds["lexicon"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    table = build_categories(classes, sumo.parents)
    seconds["categories"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    source = {
        "sumo_file": sumo.source_name,
        "sumo_sha256": sumo.sha256,
        "wordnet_version": wordnet.version,
        "builder": "ohara_lab.ontology.build",
    }
    header = {"version": FORMAT_VERSION, "source": source}
    file_bytes = {
        INDEX_FILE: write_json(out / INDEX_FILE, {**header, "entries": _index_entries(sumo)}),
        HIERARCHY_FILE: write_json(out / HIERARCHY_FILE, {**header, "parents": sumo.parents}),
        CATEGORIES_FILE: write_json(
            out / CATEGORIES_FILE,
            {
                **header,
                "rule": (
                    f"classes on the root's primary chain at depth {MIN_CATEGORY_DEPTH}-"
                    f"{MAX_CATEGORY_DEPTH} with >= {MIN_CATEGORY_DESCENDANTS} descendants; "
                    "map = nearest category by BFS over all parents"
                ),
                "root": table.root,
                "categories": table.categories,
                "map": table.map,
                "cat_depth": table.cat_depth,
                "cat_groups": table.cat_groups,
                "cat_parent": table.cat_parent,
                "tag_counts": table.tag_counts,
            },
        ),
        LEXICON_FILE: write_json(
            out / LEXICON_FILE,
            {
                **header,
                "params": {
                    "relation_weights": RELATION_WEIGHTS,
                    "pos_weights": POS_WEIGHTS,
                    "salience_tau": SALIENCE_TAU,
                    "label_weight": LABEL_WEIGHT,
                    "max_classes_per_term": MAX_CLASSES_PER_TERM,
                    "min_relative_weight": MIN_RELATIVE_WEIGHT,
                    "general_min_descendants": GENERAL_MIN_DESCENDANTS,
                    "catch_all_min_links": CATCH_ALL_MIN_LINKS,
                    "catch_all_min_modifier_share": CATCH_ALL_MIN_MODIFIER_SHARE,
                    "hypernym_hops": HYPERNYM_HOPS,
                    "hypernym_decay": HYPERNYM_DECAY,
                },
                "general_classes": sorted(general),
                "terms": {t: [[c, w] for c, w in entry] for t, entry in lexicon.terms.items()},
                "exceptions": lexicon.exceptions,
            },
        ),
    }
    seconds["write"] = time.perf_counter() - t0
    seconds["total"] = time.perf_counter() - start

    return BuildReport(
        out_dir=str(out),
        sumo_sha256=sumo.sha256,
        wordnet_version=wordnet.version,
        classes=len(classes),
        hierarchy_edges=sum(len(p) for p in sumo.parents.values()),
        wordnet_links=len(sumo.links),
        lexicon_terms=len(lexicon.terms),
        lexicon_wordnet_terms=lexicon.wordnet_terms,
        lexicon_label_terms=lexicon.label_terms,
        lexicon_exceptions=len(lexicon.exceptions),
        lexicon_merged_inflections=lexicon.merged_inflections,
        borrowed_synsets=lexicon.borrowed_synsets,
        general_classes=len(general),
        categories=len(table.categories),
        mapped_tags=len(table.map),
        file_bytes=file_bytes,
        seconds={k: round(v, 2) for k, v in seconds.items()},
    )


def _index_entries(sumo: SumoGraph) -> list[dict[str, str]]:
    # SUMO's OWL export writes a label generated from the CamelCase name first
    # ("AP c") and a hand-written one after it ("armored personnel carrier"), so
    # the last label is the better one; label-less classes get their split name.
    return [
        {"localName": c.local_name, "uri": c.uri, "label": c.labels[-1] if c.labels else camel_phrase(c.local_name)}
        for c in sumo.classes.values()
    ]
