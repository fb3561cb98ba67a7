"""`Ontology`: the loaded SUMO index, hierarchy, categories and tagger behind one object."""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import OntologyError
from . import hierarchy
from .files import (
    ALL_FILES,
    BUILD_HINT,
    CATEGORIES_FILE,
    FORMAT_VERSION,
    HIERARCHY_FILE,
    INDEX_FILE,
    LEXICON_FILE,
    data_dir,
    read_json,
)
from .resolve import TagResolution, TagResolver
from .tagger import Tagger, top_k

if TYPE_CHECKING:  # only annotations need it; importlib.resources.abc is 3.11+
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

# Short queries have few terms and no context to rank senses by, so every
# content term gets a say (round-robin) and a lower floor than paragraphs.
QUERY_MIN_RELATIVE_SCORE = 0.05


class Ontology:
    """SUMO classes, their hierarchy, the 3D-map categories and the offline tagger.

    Build one with `load_ontology()` (cached, from the packaged files) or
    `Ontology.from_dir(path)`. The lexicon (a few MB) is read on the first call
    that tags text.
    """

    def __init__(
        self,
        index: dict[str, Any],
        hierarchy_file: dict[str, Any],
        categories: dict[str, Any],
        lexicon_source: Traversable | Path,
    ):
        sources = {
            index["source"]["sumo_sha256"],
            hierarchy_file["source"]["sumo_sha256"],
            categories["source"]["sumo_sha256"],
        }
        if len(sources) != 1:
            raise OntologyError(f"ontology files come from different SUMO builds ({sorted(sources)}); {BUILD_HINT}")
        self.source: dict[str, str] = dict(index["source"])
        self._entries: dict[str, dict[str, str]] = {e["localName"]: e for e in index["entries"]}
        self._parents: dict[str, list[str]] = hierarchy_file["parents"]
        self._cats = categories
        self._category_set = frozenset(categories["categories"])
        self._resolver = TagResolver(self._entries)
        self._lexicon_source = lexicon_source
        self._tagger: Tagger | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_dir(cls, folder: Traversable | Path | str) -> Ontology:
        """Load the derived files from `folder` (as written by `build_ontology`)."""
        root: Traversable | Path = Path(folder) if isinstance(folder, str) else folder
        missing = [n for n in ALL_FILES if not root.joinpath(n).is_file()]
        if missing:
            raise OntologyError(f"{root}: missing {', '.join(missing)}; {BUILD_HINT}")
        return cls(
            read_json(root.joinpath(INDEX_FILE)),
            read_json(root.joinpath(HIERARCHY_FILE)),
            read_json(root.joinpath(CATEGORIES_FILE)),
            root.joinpath(LEXICON_FILE),
        )

    # ------------------------------------------------------------------ identity
    @property
    def version(self) -> str:
        """``<format>+sumo.<sha256[:12]>+wn<version>``: names the exact build, for provenance."""
        return f"{FORMAT_VERSION}+sumo.{self.source['sumo_sha256'][:12]}+wn{self.source['wordnet_version']}"

    @property
    def classes(self) -> list[str]:
        """Every class local name, sorted."""
        return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def has(self, tag: str) -> bool:
        """True when `tag` is exactly a SUMO class local name."""
        return tag in self._entries

    def label(self, tag: str) -> str | None:
        """The class's English label (SUMO's hand-written one when it has two), None if unknown."""
        entry = self._entries.get(tag)
        return entry["label"] if entry else None

    def uri(self, tag: str) -> str | None:
        entry = self._entries.get(tag)
        return entry["uri"] if entry else None

    # ------------------------------------------------------------------ hierarchy
    def parents(self, tag: str) -> list[str]:
        """Direct superclasses, primary (first listed in SUMO.owl) first; [] for roots and unknown tags."""
        return list(self._parents.get(tag, ()))

    def depth(self, tag: str) -> int | None:
        """Edges on the primary-parent chain up to the root (``Entity`` = 0); None if unknown."""
        return hierarchy.depth(tag, self._parents) if tag in self._entries else None

    def ancestors(self, tag: str, depth: int) -> dict[str, int]:
        """Ancestors within `depth` hops over all parents → hop distance (BFS; spec §3.3). 0 → {}."""
        return hierarchy.ancestors(tag, self._parents, depth)

    # ------------------------------------------------------------------ tags
    def validate_tags(self, candidates: Iterable[object]) -> TagResolution:
        """Resolve candidate tags to SUMO names (spec §2.8: exact, insensitive, alias, CamelCase).

        See `ohara_lab.ontology.resolve` for the stages; unresolved candidates are
        dropped and logged, survivors de-duplicated in order.
        """
        return self._resolver.resolve(candidates)

    def tag_text(self, text: str, k: int = 4) -> list[str]:
        """The offline tagger: up to `k` SUMO classes for a paragraph (rule in `ohara_lab.ontology.tagger`)."""
        return self.tagger.tag(text, k)

    def tag_texts(self, texts: Iterable[str], k: int = 4) -> list[list[str]]:
        """`tag_text` over many texts."""
        return self.tagger.tag_many(texts, k)

    def query_hints(self, text: str, k: int = 6) -> list[str]:
        """SUMO hints for a short query: the tagger's scores, but every content term's best
        class first (in order of score), then the remaining classes by score."""
        tagger = self.tagger
        scores = tagger.scores(text)
        if not scores:
            return []
        ranked = top_k(scores, len(scores), QUERY_MIN_RELATIVE_SCORE)
        rank = {c: i for i, c in enumerate(ranked)}
        firsts: list[str] = []
        for term in dict.fromkeys(tagger.terms(text)):
            best = min((c for c in tagger.classes_of(term) if c in rank), key=rank.__getitem__, default=None)
            if best is not None and best not in firsts:
                firsts.append(best)
        firsts.sort(key=rank.__getitem__)
        return list(dict.fromkeys(firsts + ranked))[:k]

    @property
    def tagger(self) -> Tagger:
        """The lexicon-backed tagger, loaded on first use."""
        if self._tagger is None:
            with self._lock:
                if self._tagger is None:
                    lexicon = read_json(self._lexicon_source)
                    if lexicon["source"]["sumo_sha256"] != self.source["sumo_sha256"]:
                        raise OntologyError(f"{LEXICON_FILE} comes from another SUMO build; {BUILD_HINT}")
                    descendants = hierarchy.subtree_sizes(self._entries, self._parents)
                    self._tagger = Tagger(lexicon["terms"], lexicon["exceptions"], self._parents, descendants)
        return self._tagger

    # ------------------------------------------------------------------ 3D-map categories (spec §1.4, §6)
    @property
    def categories(self) -> list[str]:
        """Category classes, broad ones first (rule in `ohara_lab.ontology.categories`)."""
        return list(self._cats["categories"])

    @property
    def category_tag_counts(self) -> dict[str, int]:
        """How many SUMO classes map to each category (the sunburst's ``tagCount``)."""
        return dict(self._cats["tag_counts"])

    @property
    def category_root(self) -> str:
        """The hierarchy root the categories hang from (``Entity``)."""
        return self._cats["root"]

    def category(self, tag: str) -> str | None:
        """The tag's nearest category (itself if it is one); None for unknown or orphan tags."""
        return self._cats["map"].get(tag)

    def category_parent(self, cat: str) -> str | None:
        """Nearest category above `cat`; None when it hangs from the sunburst's virtual root."""
        self._check_category(cat)
        return self._cats["cat_parent"][cat]

    def category_depth(self, cat: str) -> int:
        """Length of the category's primary-parent ancestor chain (``Physical`` = 1)."""
        self._check_category(cat)
        return self._cats["cat_depth"][cat]

    def category_groups(self, cat: str) -> tuple[str, str]:
        """(L1, L2): 2nd and 3rd classes on the chain from the root (``Unknown`` / the category if missing)."""
        self._check_category(cat)
        groups = self._cats["cat_groups"][cat]
        return groups["L1"], groups["L2"]

    def _check_category(self, cat: str) -> None:
        if cat not in self._category_set:
            raise OntologyError(f"{cat!r} is not a map category (see Ontology.categories)")


@functools.lru_cache(maxsize=1)
def load_ontology() -> Ontology:
    """The packaged ontology, loaded once per process.

    Reads ``ohara_lab.ontology_data`` (installed package data), falling back to the
    repository's ``ontology/`` folder; raises `OntologyError` telling the user to run
    ``ohara ontology build --owl …`` when the files are missing.
    """
    return Ontology.from_dir(data_dir())
